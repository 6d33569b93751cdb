// Package bridge is the run-time core of mcp-bridge: it keeps the registry
// of agents, receives their messages from the transports, routes each one to
// its receivers in their own dialects, correlates replies back to the
// requester, and answers bad input in the sender's dialect.
//
// A transport attaches each connection as a Link and hands every frame it
// reads to the resulting Session; the bridge never imports a transport.
//
// Whatever watches the bridge subscribes to its event stream (package
// event, Bridge.Subscribe): the message log (package msglog) and the
// metrics (package metrics) from the start, the web console's traffic
// view (package tap) while it is open. The core emits; it knows none of
// them.
package bridge
