// Package bridge is the front of mcp-bridge's run-time core: transports
// attach their connections here, and each becomes a Session, which reads,
// checks and decodes the frames the transport hands it, passes the
// envelopes to the router (package route: routing, correlation, retries,
// the call API), and encodes and queues what the router delivers to it,
// answering bad input in the sender's own dialect. The bridge also feeds
// the agents' health (package health), joins a cluster (package peer) and
// shuts down gracefully; it never imports a transport.
//
// Whatever watches the bridge subscribes to its event stream (package
// event, Bridge.Subscribe): the message log (package msglog) and the
// metrics (package metrics) from the start, the web console's traffic
// view (package tap) while it is open. The core emits; it knows none of
// them.
package bridge
