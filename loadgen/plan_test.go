package loadgen

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/dialects"
)

// TestPlan checks how agents are dealt: half requesters, each half spread
// evenly over the dialects, every request sent to another dialect when
// there is one, and the pairs shared evenly.
func TestPlan(t *testing.T) {
	cases := []struct{ agents, pairs int }{
		{2, 1}, {3, 10}, {5, 7}, {10, 1000}, {11, 3}, {100, 200000}, {37, 1001},
	}
	for _, tc := range cases {
		p := newPlan(dialects.Names(), tc.agents, tc.pairs, 1)
		if len(p.requesters) != tc.agents/2 || len(p.responders) != tc.agents-tc.agents/2 {
			t.Errorf("%d agents: %d requesters, %d responders", tc.agents, len(p.requesters), len(p.responders))
			continue
		}
		for _, half := range [][]peer{p.requesters, p.responders} {
			per := make([]int, len(p.dialects))
			for _, a := range half {
				per[a.dialect]++
			}
			lo, hi := per[0], per[0]
			for _, n := range per {
				lo, hi = min(lo, n), max(hi, n)
			}
			if hi-lo > 1 {
				t.Errorf("%d agents: dialects unevenly dealt: %v", tc.agents, per)
			}
		}
		total, lo, hi := 0, tc.pairs, 0
		for i, r := range p.requesters {
			q := p.quota[i]
			total += q
			lo, hi = min(lo, q), max(hi, q)
			others := 0
			for _, s := range p.responders {
				if s.dialect != r.dialect {
					others++
				}
			}
			want := others
			if others == 0 {
				want = len(p.responders)
			}
			seen := map[int]bool{}
			for _, j := range p.targets[i] {
				if seen[j] {
					t.Errorf("%d agents: requester %d targets responder %d twice", tc.agents, i, j)
				}
				seen[j] = true
				if others > 0 && p.responders[j].dialect == r.dialect {
					t.Errorf("%d agents: requester %d (%s) targets its own dialect", tc.agents, i, p.dialects[r.dialect])
				}
			}
			if len(seen) != want {
				t.Errorf("%d agents: requester %d has %d targets, want %d", tc.agents, i, len(seen), want)
			}
		}
		if total != tc.pairs || hi-lo > 1 {
			t.Errorf("%d agents, %d pairs: quotas %v", tc.agents, tc.pairs, p.quota)
		}
	}
}

// TestRequestID checks that request ids read back as the sequence number
// of the requester that wrote them, and nothing else does.
func TestRequestID(t *testing.T) {
	if got := string(requestID(nil, "REQ-001", 42)); got != "REQ-001-42" {
		t.Errorf("requestID = %q", got)
	}
	cases := []struct {
		s    string
		seq  int
		isOf bool
	}{
		{"REQ-001-42", 42, true},
		{"REQ-001-0", 0, true},
		{"REQ-002-42", 0, false},
		{"REQ-00142", 0, false},
		{"REQ-001-", 0, false},
		{"REQ-001-x", 0, false},
		{"REQ-001--3", 0, false},
		{"REQ-001", 0, false},
		{"", 0, false},
	}
	for _, tc := range cases {
		seq, ok := parseRequestID(tc.s, "REQ-001")
		if ok != tc.isOf || (ok && seq != tc.seq) {
			t.Errorf("parseRequestID(%q) = %d, %v; want %d, %v", tc.s, seq, ok, tc.seq, tc.isOf)
		}
	}
}

// TestArguments checks the arguments are JSON with q, seq and the filler
// of about the size asked for.
func TestArguments(t *testing.T) {
	for _, n := range []int{0, 1, 100, 1000, 10000} {
		f := filler(n)
		if n <= 0 && f != "" {
			t.Errorf("filler(%d) = %q, want none", n, f)
		}
		if n > 0 && (len(f) < n || len(f) > n+80) {
			t.Errorf("filler(%d) is %d bytes", n, len(f))
		}
		var v struct {
			Q, Seq int
			Data   *struct{ Items []map[string]any }
		}
		args := arguments(nil, 3, 17, f)
		if err := json.Unmarshal(args, &v); err != nil {
			t.Fatalf("arguments with filler(%d) are not JSON: %v\n%s", n, err, args)
		}
		if v.Q != 3 || v.Seq != 17 || (n > 0) != (v.Data != nil) || (v.Data != nil && len(v.Data.Items) == 0) {
			t.Errorf("arguments with filler(%d): %s", n, args)
		}
	}
}

// TestSummarise checks the nearest-rank percentiles.
func TestSummarise(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	var ns []int64
	for i := 100; i >= 1; i-- {
		ns = append(ns, int64(ms(i)))
	}
	got := summarise(ns)
	want := Latency{N: 100, Mean: ms(50) + ms(1)/2, P50: ms(50), P90: ms(90), P99: ms(99), P999: ms(100), Max: ms(100)}
	if got != want {
		t.Errorf("summarise(1..100 ms) = %+v, want %+v", got, want)
	}
	if got := summarise([]int64{int64(ms(7))}); got.P50 != ms(7) || got.P99 != ms(7) || got.Max != ms(7) || got.N != 1 {
		t.Errorf("summarise(7 ms) = %+v", got)
	}
	if got := summarise(nil); got != (Latency{}) {
		t.Errorf("summarise(nothing) = %+v", got)
	}
}

// TestResponderOrder checks what the responders count as out of order:
// per requester, a number below the last one is reordered, the last one
// again is duplicated.
func TestResponderOrder(t *testing.T) {
	type in struct{ q, seq int }
	cases := []struct {
		name                  string
		seqs                  []in
		reordered, duplicated int64
	}{
		{"in order", []in{{0, 0}, {0, 1}, {0, 5}, {0, 9}}, 0, 0},
		{"two requesters interleaved", []in{{0, 3}, {1, 0}, {0, 4}, {1, 1}}, 0, 0},
		{"one late", []in{{0, 0}, {0, 2}, {0, 1}, {0, 3}}, 1, 0},
		{"late on one requester only", []in{{1, 5}, {0, 7}, {1, 4}}, 1, 0},
		{"twice", []in{{0, 0}, {0, 1}, {0, 1}}, 0, 1},
		{"first is zero", []in{{0, 0}}, 0, 0},
	}
	for _, tc := range cases {
		r := (&load{langs: []lang{{}}}).newResponder(peer{id: "RSP-000"}, 2, 0)
		for _, s := range tc.seqs {
			r.order(s.q, s.seq)
		}
		if r.reordered != tc.reordered || r.duplicated != tc.duplicated {
			t.Errorf("%s: reordered %d, duplicated %d; want %d, %d", tc.name, r.reordered, r.duplicated, tc.reordered, tc.duplicated)
		}
	}
}

// TestPlanInstances checks how agents are spread over a cluster's
// instances: evenly, and every request goes to a responder another
// instance holds, of another dialect where there is one.
func TestPlanInstances(t *testing.T) {
	cases := []struct{ agents, instances int }{{3, 2}, {4, 2}, {10, 3}, {30, 3}, {100, 4}, {7, 5}}
	for _, tc := range cases {
		p := newPlan(dialects.Names(), tc.agents, 1000, tc.instances)
		per := make([]int, tc.instances)
		for _, a := range append(append([]peer{}, p.requesters...), p.responders...) {
			per[a.instance]++
		}
		lo, hi := per[0], per[0]
		for _, n := range per {
			lo, hi = min(lo, n), max(hi, n)
		}
		if hi-lo > 2 {
			t.Errorf("%d agents over %d instances: unevenly spread: %v", tc.agents, tc.instances, per)
		}
		for i, r := range p.requesters {
			if len(p.targets[i]) == 0 {
				t.Errorf("%d agents over %d instances: requester %d sends to nobody", tc.agents, tc.instances, i)
			}
			for _, j := range p.targets[i] {
				if s := p.responders[j]; s.instance == r.instance {
					t.Errorf("%d agents over %d instances: %s sends to %s on its own instance %d", tc.agents, tc.instances, r.id, s.id, r.instance)
				}
			}
		}
	}
}
