// Package conformance checks an agent against its dialect's requirements,
// over the wire: the conformance suite behind `mcp-bridge conformance`.
//
// Requirements are data: each dialect's requirement file, which its package
// embeds (dialects/<dialect>/conformance.yaml) and registers with its
// record (dialects.Record.Requirements), gives each an id, the spec section
// it comes from, a level (MUST or SHOULD) and how it is checked, composed
// of a few generic steps (send a request, a capability query, an event, a
// raw frame; wait for an answer, or for silence) and checks (the answer's
// act, its correlation, its time, members at JSON paths). The file's format
// is specified in the engine of internal/spec (requirement_file.go): its
// reference in docs/conformance.md and `mcp-bridge conformance schema` are
// generated from it, and a file's problems are all listed, each with
// file:line:col. Every frame the agent sends is also decoded and validated
// with the dialect's codec, whatever requirement is running.
//
// Run plays the bridge's side against a Target: a command it starts
// (Command, newline-delimited JSON on stdio), a WebSocket server it dials
// (Dial), or a WebSocket client it waits for (Listen). An A2A agent over
// HTTP (A2A) is checked as an A2A client meets it: its agent card, and
// JSON-RPC requests POSTed where the card says, the answers' bodies and
// server-sent events read back as frames, against the a2a dialect's
// requirements over HTTP (dialects/a2a/conformance_http.yaml, with the
// step kinds card and rpc). It reports through a Progress as it goes and
// returns a Report, which gives a Verdict (the exit code; Options.Strict
// makes a failed SHOULD fail it too) and writes itself as JSON or JUnit
// XML; Options.Transcript gets every frame both ways. The agent under test is untrusted: its
// frames are bounded in size and number, every wait has a deadline, and
// an agent that is lost is started or reached again for the next
// requirement.
package conformance
