// Package reach is the registry of the ways the bridge reaches an agent of
// its config itself: dialling its WebSocket, POSTing to its webhook,
// running it as a child, being the client of its MCP server. Each way is a
// transport's record, registered from the transport's package: the agent
// key that selects it, the spec of its keys, how the decoded keys become
// its settings, how to start reaching an agent, and when a reload must
// reach one anew.
//
// The config reads an agent's keys through the registered ways, and the
// server starts and compares them through the same records: a new way is
// its own package, registering its record in an init function, and one
// import line in transports/builtin.
package reach
