package loadgen

import (
	"bytes"
	"context"
	"fmt"

	"github.com/mcp-bridge/mcp-bridge/agentclient"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/tidwall/gjson"
)

// responder answers every request it reads, at once and in the order
// read, echoing the arguments (without the filler) as the result. It
// checks that each requester's requests arrive in the order sent: their
// sequence numbers only grow.
type responder struct {
	peer
	conn      *agentclient.Conn
	codec     dialects.Codec
	wire      wire
	failEvery int

	// last[q] is the highest sequence number received from requester q;
	// -1 before the first.
	last []int
	// What it saw, read once it has stopped.
	received   int64 // frames
	answered   int64
	reordered  int64 // a request numbered below one already received from its requester
	duplicated int64 // a request numbered as the last one received from its requester
	stray      int64 // frames that are not a request of the run
}

// newResponder returns the responder p, of the run's dialects, answering
// requesters (numbered from 0).
func (l *load) newResponder(p peer, requesters, failEvery int) *responder {
	lg := &l.langs[p.dialect]
	r := &responder{peer: p, codec: lg.codec, wire: lg.wire, failEvery: failEvery, last: make([]int, requesters)}
	for i := range r.last {
		r.last[i] = -1
	}
	return r
}

// run reads and answers until the connection ends, and returns why it
// did.
func (r *responder) run(ctx context.Context) error {
	w := &r.wire
	ectx := encodeContext(r.id)
	var in bytes.Buffer
	var out, result []byte
	for {
		rd, err := r.conn.Reader(ctx)
		if err != nil {
			return fmt.Errorf("read: %w", err)
		}
		in.Reset()
		if _, err := in.ReadFrom(rd); err != nil {
			return fmt.Errorf("read: %w", err)
		}
		r.received++
		frame := in.Bytes()
		if gjson.GetBytes(frame, w.Type).String() != w.Request {
			r.stray++
			continue
		}
		args := gjson.GetBytes(frame, w.Arguments)
		q, seq := args.Get("q"), args.Get("seq")
		if !q.Exists() || !seq.Exists() || q.Int() < 0 || int(q.Int()) >= len(r.last) {
			r.stray++
			continue
		}
		r.order(int(q.Int()), int(seq.Int()))
		reply := &canonical.Envelope{
			Sender:    canonical.Party{ID: r.id},
			Receiver:  canonical.Address{Kind: canonical.AddressAgent, ID: gjson.GetBytes(frame, w.Sender).String()},
			InReplyTo: gjson.GetBytes(frame, w.ID).String(),
		}
		if w.taskID {
			reply.TaskID = reply.InReplyTo
		}
		if r.failEvery > 0 && (seq.Int()+1)%int64(r.failEvery) == 0 {
			reply.Act = canonical.ActFailure
			reply.Outcome = canonical.OutcomeFailure
			reply.Error = &canonical.Error{Code: canonical.ErrExecutionFailed, Message: "loadgen: a failure, as --fail-every asks"}
		} else {
			result = append(result[:0], `{"q":`...)
			result = append(result, q.Raw...)
			result = append(result, `,"seq":`...)
			result = append(result, seq.Raw...)
			result = append(result, '}')
			reply.Act = canonical.ActResult
			reply.Outcome = canonical.OutcomeSuccess
			reply.Result = canonical.JSON(result)
		}
		ectx.Losses = ectx.Losses[:0]
		out, err = r.codec.Encode(out[:0], reply, ectx)
		if err != nil {
			return fmt.Errorf("encode an answer: %w", err)
		}
		if err := r.conn.Write(ctx, out); err != nil {
			return fmt.Errorf("write: %w", err)
		}
		r.answered++
	}
}

// order records request seq of requester q, counting it reordered when a
// later one came first and duplicated when it came already.
func (r *responder) order(q, seq int) {
	switch last := r.last[q]; {
	case seq < last:
		r.reordered++
	case seq == last:
		r.duplicated++
	default:
		r.last[q] = seq
	}
}
