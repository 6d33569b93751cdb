// Package ws is the WebSocket transport: agents connect to the bridge at
// /ws/{dialect} (or /ws, the dialect detected from the first message), and
// the bridge dials out to agents that listen, reconnecting with backoff.
// One text message carries one agent message each way.
package ws
