package loadgen

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
)

// TestRun drives small loads through a real bridge on loopback, in both
// validation modes, and checks that every pair of dialects carried its
// share intact and that every frame is accounted for.
func TestRun(t *testing.T) {
	cases := []struct {
		name string
		o    Options
	}{
		{"schema", Options{Agents: 10, Pairs: 1000, Validate: "schema"}},
		{"decode, window 1", Options{Agents: 10, Pairs: 1000, Validate: "decode", Window: 1}},
		{"1 KB filler, window 32", Options{Agents: 10, Pairs: 500, Payload: 1000, Window: 32}},
		{"offered rate", Options{Agents: 10, Pairs: 300, Rate: 2000}},
		// Both of the first dialect: no other dialect to send to.
		{"one requester, one responder", Options{Agents: 2, Pairs: 50}},
		{"more requesters than pairs", Options{Agents: 23, Pairs: 7}},
	}
	for _, tc := range cases {
		o := tc.o
		t.Run(tc.name, func(t *testing.T) {
			r, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			t.Log("\n" + r.String())
			if r.Failed() || r.Stopped != "" {
				t.Fatalf("problems %v, stopped %q", r.Problems(), r.Stopped)
			}
			if r.Sent != int64(o.Pairs) || r.Completed != int64(o.Pairs) || r.Latency.N != o.Pairs {
				t.Errorf("sent %d, completed %d, timed %d; want %d", r.Sent, r.Completed, r.Latency.N, o.Pairs)
			}
			// Each pair is a request and an answer into the bridge and out
			// of it, and a requester whose dialect has an accept
			// (elizaacl) is also told TASK_ACCEPT for every request to a
			// dialect without one.
			p := newPlan(dialects.Names(), o.Agents, o.Pairs, 1)
			m := dialects.DefaultMappings()
			accepting := func(d int) bool {
				_, _, ok := m.Vocabulary(p.dialects[d]).Table(canonical.KindAct).Word(string(canonical.ActAccept))
				return ok
			}
			accepts := int64(0)
			for i, q := range p.requesters {
				if !accepting(q.dialect) {
					continue
				}
				for seq := range p.quota[i] {
					if !accepting(p.responders[p.targets[i][p.target(i, seq)]].dialect) {
						accepts++
					}
				}
			}
			if r.Received != 2*int64(o.Pairs) || r.Delivered != 2*int64(o.Pairs)+accepts {
				t.Errorf("frames: %d received, %d delivered; want %d, %d", r.Received, r.Delivered, 2*o.Pairs, 2*int64(o.Pairs)+accepts)
			}
			pairs := 0
			for _, d := range r.ByDialect {
				pairs += d.Latency.N
				if d.From == d.To && o.Agents >= 10 {
					t.Errorf("%s sent to its own dialect", d.From)
				}
			}
			if pairs != o.Pairs {
				t.Errorf("the pairs by dialect add up to %d, want %d", pairs, o.Pairs)
			}
			if n := len(r.Dialects); o.Agents >= 2*n && o.Pairs >= 100 && len(r.ByDialect) != n*(n-1) {
				t.Errorf("%d pairs of dialects carried traffic, want all %d", len(r.ByDialect), n*(n-1))
			}
		})
	}
}

// TestRunCluster drives a load through three bridges in a cluster on an
// embedded NATS, after the same load through one bridge, and checks that
// both carried it intact and that the report compares them.
func TestRunCluster(t *testing.T) {
	o := Options{Agents: 10, Pairs: 600, Instances: 3}
	r, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + r.String())
	if r.Failed() || r.Stopped != "" {
		t.Fatalf("problems %v, stopped %q", r.Problems(), r.Stopped)
	}
	if r.Single == nil || r.Single.Instances != 1 || r.Instances != 3 {
		t.Fatalf("instances %d, single %+v", r.Instances, r.Single)
	}
	for name, x := range map[string]*Report{"cluster": &r, "single": r.Single} {
		if x.Completed != int64(o.Pairs) || x.Latency.N != o.Pairs || x.Received != 2*int64(o.Pairs) {
			t.Errorf("%s: completed %d, timed %d, received %d; want %d, %d, %d", name, x.Completed, x.Latency.N, x.Received, o.Pairs, o.Pairs, 2*o.Pairs)
		}
	}
	for _, want := range []string{"3 bridges in a cluster on one NATS", "single bridge", "cross-instance", "ratio"} {
		if !strings.Contains(r.String(), want) {
			t.Errorf("the report does not say %q", want)
		}
	}
}

// TestRunFailures checks that what goes wrong is counted: failures
// answered on purpose cross the bridge as errors in every dialect, and a
// run stopped early reports why, with what it sent answered.
func TestRunFailures(t *testing.T) {
	t.Run("fail every 10th", func(t *testing.T) {
		r, err := Run(context.Background(), Options{Agents: 10, Pairs: 1000, FailEvery: 10})
		if err != nil {
			t.Fatal(err)
		}
		t.Log("\n" + r.String())
		// 200 requests per requester: numbers 9, 19, ..., 199 fail.
		if r.Errors != 100 || r.Completed != 900 || r.Lost != 0 || r.Stray != 0 {
			t.Errorf("errors %d, completed %d, lost %d, stray %d; want 100, 900, 0, 0", r.Errors, r.Completed, r.Lost, r.Stray)
		}
		var kinds int64
		for _, k := range r.ErrorKinds {
			kinds += k.Count
			if !strings.Contains(k.Example, "--fail-every") {
				t.Errorf("error %s: %q is not the responders' message", k.Kind, k.Example)
			}
		}
		if kinds != r.Errors {
			t.Errorf("the error kinds add up to %d, want %d", kinds, r.Errors)
		}
		if !r.Failed() || !strings.Contains(r.String(), "FAIL: 100 errors") {
			t.Errorf("a run with errors does not fail: %v", r.Problems())
		}
	})
	t.Run("time limit", func(t *testing.T) {
		r, err := Run(context.Background(), Options{Agents: 10, Pairs: 10_000_000, Timeout: 50 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if r.Stopped != "time limit" || r.Sent >= int64(r.Pairs) || r.Sent == 0 {
			t.Errorf("stopped %q after sending %d of %d", r.Stopped, r.Sent, r.Pairs)
		}
		if r.Failed() || r.Completed != r.Sent {
			t.Errorf("what was sent was not all answered: %v; %d sent, %d completed", r.Problems(), r.Sent, r.Completed)
		}
		if !strings.Contains(r.String(), "stopped      early: time limit") {
			t.Errorf("the report does not say it stopped early:\n%s", r.String())
		}
	})
	t.Run("interrupted", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			time.Sleep(200 * time.Millisecond)
			cancel()
		}()
		r, err := Run(ctx, Options{Agents: 10, Pairs: 10_000_000})
		if err != nil {
			t.Fatal(err)
		}
		if r.Stopped != "interrupted" || r.Sent >= int64(r.Pairs) || r.Failed() {
			t.Errorf("stopped %q after sending %d of %d; problems %v", r.Stopped, r.Sent, r.Pairs, r.Problems())
		}
	})
}

// TestOptions checks the defaults and the options Run refuses.
func TestOptions(t *testing.T) {
	d := Options{}.WithDefaults()
	if d.Agents != 100 || d.Pairs != 200000 || d.Window != 8 || d.Validate != "schema" || d.Timeout != 5*time.Minute || d.Rate != 0 {
		t.Errorf("defaults %+v", d)
	}
	if err := d.Check(); err != nil {
		t.Errorf("the defaults are refused: %v", err)
	}
	cases := []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"one agent", func(o *Options) { o.Agents = 1 }, "agents 1: at least 2"},
		{"no pairs", func(o *Options) { o.Pairs = -1 }, "pairs -1: at least 1"},
		{"negative rate", func(o *Options) { o.Rate = -5 }, "rate -5:"},
		{"no window", func(o *Options) { o.Window = -1 }, "window -1: at least 1"},
		{"unknown validation", func(o *Options) { o.Validate = "none" }, `validate "none": schema or decode`},
		{"negative payload", func(o *Options) { o.Payload = -1 }, "payload -1:"},
		{"negative fail-every", func(o *Options) { o.FailEvery = -2 }, "fail-every -2:"},
		{"negative timeout", func(o *Options) { o.Timeout = -time.Second }, "timeout -1s: more than 0"},
	}
	for _, tc := range cases {
		o := d
		tc.edit(&o)
		_, err := Run(context.Background(), o)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "loadgen: ") {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestProblems checks which counts make a run fail.
func TestProblems(t *testing.T) {
	cases := []struct {
		name string
		r    Report
		want string
	}{
		{"clean", Report{Completed: 10, Sent: 10}, ""},
		{"stopped early, nothing lost", Report{Completed: 5, Sent: 5, Stopped: "time limit"}, ""},
		{"lost", Report{Lost: 2}, "2 lost"},
		{"duplicated answers", Report{Duplicated: 1}, "1 duplicated answers"},
		{"duplicated requests", Report{DuplicatedRequests: 3}, "3 duplicated requests"},
		{"reordered requests", Report{Reordered: 4}, "4 requests reordered"},
		{"reordered answers", Report{ReorderedAnswers: 5}, "5 answers reordered"},
		{"errors", Report{Errors: 6}, "6 errors"},
		{"stray", Report{Stray: 7}, "7 stray frames"},
		{"broken", Report{Broken: 1}, "1 broken connections"},
		{"several", Report{Lost: 1, Errors: 2}, "1 lost, 2 errors"},
	}
	for _, tc := range cases {
		got := strings.Join(tc.r.Problems(), ", ")
		if got != tc.want || tc.r.Failed() != (tc.want != "") {
			t.Errorf("%s: problems %q (failed %v), want %q", tc.name, got, tc.r.Failed(), tc.want)
		}
		s := tc.r.String()
		if tc.want == "" && !strings.Contains(s, "\nPASS: ") || tc.want != "" && !strings.Contains(s, "\nFAIL: "+tc.want+"\n") {
			t.Errorf("%s: the report does not end as it should:\n%s", tc.name, s)
		}
	}
}
