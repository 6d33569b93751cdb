package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/a2aface"
	"github.com/mcp-bridge/mcp-bridge/conformance"
)

// TestA2AConformance runs the conformance suite of A2A agents over HTTP
// against the bridge's own A2A face: for a reference agent of every
// dialect connected to the bridge, its card and JSON-RPC binding at
// /a2a/<agent>. Every requirement passes, the SHOULDs too (a strict run),
// but for an agent whose dialect declares no tools (bluelabel, a2a): the
// bridge knows no skill of it to list, so a2a.http.card.skilled warns and
// the suite calls the reference agent's echo (--op).
func TestA2AConformance(t *testing.T) {
	h := start(t, nil)
	for _, d := range dialectNames {
		t.Run(d, func(t *testing.T) {
			id := "CONF-" + strings.ToUpper(d)
			h.runAgent(d, id)
			o := conformance.Options{Dialect: "a2a", Strict: true, Timeout: 5 * time.Second, Quiet: 150 * time.Millisecond}
			warns := ""
			if !declaresTools(d) {
				o.Operation, o.Strict, warns = "echo", false, "a2a.http.card.skilled"
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			rep, err := conformance.Run(ctx, conformance.A2A(h.httpURL()+a2aface.Path+"/"+id), o)
			if err != nil {
				t.Fatal(err)
			}
			suite, err := conformance.A2AHTTPSuite()
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Results) != len(suite.Requirements) {
				t.Errorf("%d results, want one per requirement (%d)", len(rep.Results), len(suite.Requirements))
			}
			for _, res := range rep.Results {
				if res.ID == warns && res.Status != conformance.Warn {
					t.Errorf("%s %s, want it to warn: the card lists no skill", res.Status, res.ID)
				}
				if res.Status != conformance.Pass && res.ID != warns {
					t.Errorf("%s %s: %s\n   frame %s\n   at %s: %s", res.Status, res.ID, res.Detail, res.Frame, res.Path, res.Rule)
				}
			}
			if v := rep.Verdict(); v.Code != 0 || len(rep.Operations) == 0 {
				t.Errorf("verdict %+v, operations %v", v, rep.Operations)
			}
		})
	}
}
