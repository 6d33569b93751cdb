// Package e2e holds the bridge's end-to-end tests: a real server on a
// loopback port, agents of every dialect connected over real WebSocket,
// HTTP and stdio transports, and the benchmarks of a hop through it.
package e2e
