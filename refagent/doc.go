// Package agent is mcp-bridge's reference agent: a small agent that speaks
// any registered dialect and offers a few tools (echo, add, sleep, fail,
// debug_code, sentiment-analysis).
//
// The agent works on canonical envelopes: it decodes every frame it
// receives with its dialect's codec and encodes everything it sends with
// the same codec, so one implementation speaks every dialect. It
// answers requests for its tools, answers capability queries, introduces
// itself when it connects, and can call other agents (Call) and send any
// envelope (Send). It runs over a WebSocket connection to a bridge
// (Connect) or over newline-delimited JSON on a pair of streams
// (ServeStdio).
package refagent
