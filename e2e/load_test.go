package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/loadgen"
)

// TestLoad drives 200,000 request/answer pairs (2,000 with -short)
// between 100 raw WebSocket agents, ten requesters and ten responders per
// dialect, through a bridge on loopback with its default schema
// validation, every requester sending to the responders of the other four
// dialects with up to 8 requests open. Every request must be answered
// once, with its own result, in order per sender and receiver, with no
// error. The figures are logged, not asserted.
func TestLoad(t *testing.T) {
	pairs := 200_000
	if testing.Short() {
		pairs = 2_000
	}
	// The time limit only stops a run that hangs; a run it stops fails
	// on the pairs it did not send.
	r, err := loadgen.Run(context.Background(), loadgen.Options{Agents: 100, Pairs: pairs, Timeout: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + r.String())
	if r.Stopped != "" {
		t.Errorf("the load stopped early: %s", r.Stopped)
	}
	if r.Sent != int64(pairs) || r.Completed != int64(pairs) {
		t.Errorf("%d pairs sent, %d completed; want %d", r.Sent, r.Completed, pairs)
	}
	for _, c := range []struct {
		what string
		n    int64
	}{
		{"lost", r.Lost}, {"duplicated answers", r.Duplicated}, {"duplicated requests", r.DuplicatedRequests},
		{"reordered requests", r.Reordered}, {"reordered answers", r.ReorderedAnswers},
		{"errors", r.Errors}, {"stray frames", r.Stray}, {"broken connections", int64(r.Broken)},
	} {
		if c.n != 0 {
			t.Errorf("%d %s", c.n, c.what)
		}
	}
	if n := len(dialectNames); len(r.ByDialect) != n*(n-1) {
		t.Errorf("%d pairs of dialects carried traffic, want the %d of different dialects", len(r.ByDialect), n*(n-1))
	}
}
