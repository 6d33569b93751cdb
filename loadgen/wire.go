package loadgen

import (
	"fmt"
	"strconv"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/tidwall/gjson"
)

// wire is where a dialect's messages keep what the load generator reads
// (its record's LoadPaths): responders read requests with it, requesters
// read answers.
type wire struct {
	dialects.LoadPaths
	// taskID: the dialect's requests carry no message id; the request id
	// is their task id.
	taskID bool
}

// lang is one of a run's dialects as its agents speak it: its name, its
// codec and its wire.
type lang struct {
	name  string
	codec dialects.Codec
	wire  wire
}

// langsOf returns the dialects named, from their records.
func langsOf(names []string) ([]lang, error) {
	reg := builtin.Default()
	out := make([]lang, len(names))
	for i, name := range names {
		rec, found := dialects.RecordOf(name)
		c, ok := reg.Lookup(name)
		if !found || !ok {
			return nil, fmt.Errorf("loadgen: no codec for %s", name)
		}
		out[i] = lang{name: name, codec: c, wire: wire{LoadPaths: rec.Load, taskID: !c.Holds(canonical.ActRequest).Has(canonical.CID)}}
	}
	return out, nil
}

// answerTo returns the request id an answer names, "" when none.
func (w *wire) answerTo(frame []byte) string {
	for _, p := range w.Correlation {
		if v := gjson.GetBytes(frame, p); v.Exists() {
			return v.String()
		}
	}
	return ""
}

// requestID is the id requester id gives its request seq: the requester's
// id, a dash and the sequence number.
func requestID(dst []byte, id string, seq int) []byte {
	dst = append(dst, id...)
	dst = append(dst, '-')
	return strconv.AppendInt(dst, int64(seq), 10)
}

// parseRequestID returns the sequence number of a request id requester id
// wrote, and whether it is one.
func parseRequestID(s, id string) (int, bool) {
	if len(s) <= len(id)+1 || s[:len(id)] != id || s[len(id)] != '-' {
		return 0, false
	}
	n, err := strconv.Atoi(s[len(id)+1:])
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// arguments are a request's arguments: the requester's index q, the
// sequence number and the filler, if any.
func arguments(dst []byte, q, seq int, filler string) []byte {
	dst = append(dst, `{"q":`...)
	dst = strconv.AppendInt(dst, int64(q), 10)
	dst = append(dst, `,"seq":`...)
	dst = strconv.AppendInt(dst, int64(seq), 10)
	if filler != "" {
		dst = append(dst, `,"data":`...)
		dst = append(dst, filler...)
	}
	return append(dst, '}')
}

// filler is a JSON value of about n bytes shaped like a tool call's
// arguments: an array of small objects with numbers, strings, a flag and
// a nested array; at least one of them. "" for n <= 0.
func filler(n int) string {
	if n <= 0 {
		return ""
	}
	b := []byte(`{"items":[`)
	for i := 0; i == 0 || len(b) < n-2; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":"item-`...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, `","values":[`...)
		b = strconv.AppendInt(b, int64(i%7), 10)
		b = append(b, `,12,3.5],"ok":true,"unit":"ms"}`...)
	}
	return string(append(b, "]}"...))
}

// request is requester from's request id to the responder to, in a
// dialect whose messages are w.
func request(w *wire, from, to string, id string, args []byte) *canonical.Envelope {
	env := &canonical.Envelope{
		Act:       canonical.ActRequest,
		Sender:    canonical.Party{ID: from},
		Receiver:  canonical.Address{Kind: canonical.AddressAgent, ID: to},
		Operation: canonical.Operation{Name: "echo"},
		Arguments: canonical.JSON(args),
	}
	if w.taskID {
		env.TaskID = id
	} else {
		env.ID = id
	}
	return env
}

// encodeContext gives an agent's encoder ids from a counter rather than
// random UUIDs, and the clock's time.
func encodeContext(prefix string) *dialects.EncodeContext {
	n := 0
	return &dialects.EncodeContext{NewID: func() string {
		n++
		return prefix + "-M" + strconv.Itoa(n)
	}}
}
