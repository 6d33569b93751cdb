// Package agentclient is the agent side of the bridge's transports: a
// WebSocket connection carrying one dialect's frames, dialed to the bridge
// (Dial) or accepted from a bridge that dials agents (Accept), kept up
// across the bridge's restarts (Redialer), and frames written and read one
// a line for agents that run as the bridge's stdio children (AppendLine,
// LineReader).
//
// The reference agent, the conformance suite's runner, the load generator
// and the demo reach the bridge, or stand in for it, through this package.
// It depends on no part of the bridge.
package agentclient
