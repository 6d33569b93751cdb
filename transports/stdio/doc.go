// Package stdio runs agents as child processes that speak newline-delimited
// JSON on their standard input and output: one message per line each way.
//
// A Supervisor starts the agent's command, attaches it to the bridge as the
// agent it is configured as, hands every line the child writes to the
// bridge, and writes the bridge's messages for the agent to the child's
// standard input. The child's standard error is logged line by line. When
// the child exits it is restarted after a backoff; when the supervisor's
// context ends the child is stopped.
package stdio
