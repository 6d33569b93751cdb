package httpapi

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
)

// TestAgentsPages: GET /v1/agents lists every agent in one answer without
// ?limit=, and page by page with it, "next" naming the id to ask after
// while more follow; a capability filters the pages too; a bad limit, or
// after without limit, is a 400 naming the parameter.
func TestAgentsPages(t *testing.T) {
	m := dialects.DefaultMappings()
	reg, err := builtin.Registry(m)
	if err != nil {
		t.Fatal(err)
	}
	b, err := bridge.New(bridge.Options{Registry: reg, Mappings: m, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	var all, adders []string
	for i := range 7 {
		id := fmt.Sprintf("agent-%d", i)
		spec := bridge.AgentSpec{ID: id, Dialect: "swarm"}
		if i%2 == 0 {
			spec.Tools = []canonical.Tool{{Name: "add"}}
			adders = append(adders, id)
		}
		b.Declare(spec)
		all = append(all, id)
	}
	mux := http.NewServeMux()
	(&Handler{Bridge: b}).Register(mux)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	type answer struct {
		Agents []struct{ ID string }
		Next   *string
	}
	get := func(query string) (int, answer, string) {
		resp, err := http.Get(srv.URL + "/v1/agents" + query)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var raw json.RawMessage
		if err := json.NewDecoder(resp.Body).Decode(&raw); err != nil {
			t.Fatal(err)
		}
		var a answer
		_ = json.Unmarshal(raw, &a)
		return resp.StatusCode, a, string(raw)
	}
	ids := func(a answer) (out []string) {
		for _, x := range a.Agents {
			out = append(out, x.ID)
		}
		return out
	}
	// Every page of a listing, following next.
	walk := func(query string, limit int) []string {
		var got []string
		after := ""
		for range 20 {
			code, a, body := get(fmt.Sprintf("?limit=%d&after=%s%s", limit, after, query))
			if code != http.StatusOK || len(a.Agents) > limit {
				t.Fatalf("limit %d after %q: %d %s", limit, after, code, body)
			}
			got = append(got, ids(a)...)
			if a.Next == nil {
				return got
			}
			after = *a.Next
		}
		t.Fatal("the pages do not end")
		return nil
	}
	code, whole, body := get("")
	if code != http.StatusOK || !slices.Equal(ids(whole), all) || whole.Next != nil {
		t.Errorf("all of them: %d %s", code, body)
	}
	for _, tc := range []struct {
		name  string
		query string
		limit int
		want  []string
	}{
		{"pages of 1", "", 1, all},
		{"pages of 3", "", 3, all},
		{"one page of all", "", 7, all},
		{"a page larger than all", "", 1000, all},
		{"by capability", "&capability=add", 2, adders},
	} {
		if got := walk(tc.query, tc.limit); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct{ query, want string }{
		{"?limit=0", `limit \"0\"`},
		{"?limit=1001", `limit \"1001\"`},
		{"?limit=ten", `limit \"ten\"`},
		{"?after=agent-1", "after needs limit"},
	} {
		code, _, body := get(tc.query)
		if code != http.StatusBadRequest || !strings.Contains(body, tc.want) || !strings.Contains(body, "GET /v1/agents") {
			t.Errorf("%s: %d %s, want 400 saying %s", tc.query, code, body, tc.want)
		}
	}
}
