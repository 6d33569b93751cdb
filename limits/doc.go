// Package limits bounds what agents and clients may take from the bridge:
// a message rate per agent (a token bucket each), and the connections
// open to the listener, in all and from one address. Each limit can be
// changed while the bridge runs, and each refusal is counted.
package limits
