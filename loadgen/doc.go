// Package loadgen drives a bounded, self-stopping load through a live
// bridge and measures what came out: throughput, round-trip latency,
// errors, and requests lost, duplicated or reordered.
//
// Run starts its own bridge (package server, on the default config, a
// loopback port, logs discarded below warn) and connects Options.Agents
// agents to it as raw WebSocket clients, each at /ws/{dialect}?agent=ID.
// The first half of them (rounded down) are requesters and the rest
// responders; each half is dealt round robin over every registered
// dialect (dialects.Names), so 100 agents over the five built-in dialects
// are ten requesters and ten responders per dialect. Ids are
// upper case (REQ-007, RSP-012), which every dialect can carry as is.
//
// A requester sends its share of Options.Pairs requests, numbered from 0
// (the sequence number), each to the next responder of another dialect in
// turn, in its own dialect: the request id is the requester's id and the
// number (REQ-007-42; the task id for bluelabel), and the arguments carry
// the requester's index q and the number seq (and Options.Payload bytes of
// filler). It keeps at most Options.Window requests unanswered; with
// Options.Rate it also sends each request no earlier than its turn on an
// even schedule. Requests are written one at a time on the requester's
// connection, so to any one responder they go in increasing order.
//
// A responder answers each request the moment it reads it, in its own
// dialect: it reads the request's sender, id and arguments with gjson and
// encodes a result echoing q and seq with its codec (a failure instead for
// every Options.FailEvery-th number, when set).
//
// What is measured:
//   - latency: per pair, from writing the request to reading its answer
//     (an elizaacl requester's TASK_ACCEPT from the bridge is not the
//     answer). With a Rate, a request the full window held back is timed
//     from when it was written, not from its turn.
//   - throughput: pairs answered per second, and frames the bridge
//     received and delivered per second, from the first request to the
//     last answer.
//   - errors: answers that are not the result asked for: failures,
//     refusals, the bridge's own timeout or unavailable errors, a result
//     echoing the wrong number.
//   - lost: requests written and never answered by the end (when the run
//     is stopped early, open requests get Grace first).
//   - duplicated: a second answer naming one request, at the requester; a
//     request received twice in a row, at the responder.
//   - reordered: the bridge must deliver one sender's messages to one
//     receiver in the order sent. With a window over 1 the answers of
//     several responders interleave freely, so order is checked where it
//     is defined: at each responder, per requester, the sequence numbers
//     received must increase (requests reordered); and at each requester,
//     per responder, the numbers of the results must increase (answers
//     reordered), since a responder answers in the order it reads.
//   - stray: frames nobody asked for (an answer to no request sent, a
//     message a responder cannot read as a request).
//
// The generator runs in the bridge's process and shares its CPUs and its
// garbage collector; its own work per pair (encoding a request and an
// answer, decoding the answer) is small next to the bridge's.
package loadgen
