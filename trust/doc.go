// Package trust holds who may speak for which agent, and how that is
// proven: JSON Web Tokens verified against the configured keys (and minted
// by the bridge for the agents it writes to), and the TLS certificates of
// the listener and of its clients, read again when their files change.
// docs/security.md says what is authenticated, how, and what is not.
package trust
