package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestReport(t *testing.T) {
	in := `goos: linux
BenchmarkTranslate/swarm_to_collab-2         	  500000	      3000 ns/op	 270.00 MB/s	     900 B/op	       5 allocs/op
BenchmarkTranslate/fuse_to_swarm-2           	  500000	      8000 ns/op
BenchmarkBaselineMap/swarm-2                 	   40000	     30000 ns/op
BenchmarkBaselineMap/fuse-2                  	   40000	     32000 ns/op
PASS`
	var out bytes.Buffer
	code := report(medians(strings.NewReader(in)), &out, 5, "")
	if code != 1 {
		t.Errorf("code %d, want 1 (fuse_to_swarm is 4x)", code)
	}
	for _, want := range []string{"swarm_to_collab", "10.0x", "fuse_to_swarm", "4.0x  < 5x", "slowest pair: 4.0x"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if code := report(medians(strings.NewReader("PASS\n")), &out, 5, ""); code != 1 {
		t.Errorf("empty input: code %d", code)
	}
	variants := `BenchmarkTranslate/nested/swarm_to_fuse-2   100  2000 ns/op
BenchmarkTranslate/text/swarm_to_fuse-2     100  4000 ns/op
BenchmarkBaselineMap/nested/swarm-2          100 20000 ns/op
BenchmarkBaselineMap/text/swarm-2            100 12000 ns/op`
	out.Reset()
	if code := report(medians(strings.NewReader(variants)), &out, 5, "nested"); code != 0 {
		t.Errorf("gated on nested: code %d\n%s", code, out.String())
	}
	for _, want := range []string{"nested/swarm_to_fuse", "10.0x", "text/swarm_to_fuse", "3.0x", "slowest pair (nested): 10.0x", "slowest pair (text): 3.0x"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if code := report(medians(strings.NewReader(variants)), &out, 5, ""); code != 1 {
		t.Errorf("ungated: code %d", code)
	}
}

func TestMedian(t *testing.T) {
	in := `BenchmarkTranslate/a_to_b-2 100 1000 ns/op
BenchmarkTranslate/a_to_b-2 100 9000 ns/op
BenchmarkTranslate/a_to_b-2 100 1200 ns/op
BenchmarkBaselineMap/a-2 100 12000 ns/op`
	var out bytes.Buffer
	if code := report(medians(strings.NewReader(in)), &out, 5, ""); code != 0 {
		t.Errorf("a spike in one of three runs must not count: code %d\n%s", code, out.String())
	}
	if !strings.Contains(out.String(), "1200 ns") {
		t.Errorf("median not used:\n%s", out.String())
	}
	if m := median([]float64{4, 1, 3, 2}); m != 2.5 {
		t.Errorf("median = %v", m)
	}
}

func TestReportRewrites(t *testing.T) {
	in := `BenchmarkTranslate/a_to_b-2 100 1000 ns/op
BenchmarkBaselineMap/a-2 100 12000 ns/op
BenchmarkRewrites/none-2 100 2000 ns/op
BenchmarkRewrites/five-2 100 2800 ns/op`
	var out bytes.Buffer
	ns := medians(strings.NewReader(in))
	if code := reportRewrites(ns, &out, 1.5); code != 0 || !strings.Contains(out.String(), "1.40x") {
		t.Errorf("code %d:\n%s", code, out.String())
	}
	if code := reportRewrites(ns, &out, 1.3); code != 1 {
		t.Errorf("1.4x passed a 1.3x gate")
	}
}

// TestReportHop: medians of each mode's metrics, as ratios to the bare hop
// of the same run.
func TestReportHop(t *testing.T) {
	in := `BenchmarkHop/bare-2 	   20000	     66114 ns/op	        70.00 cpu-µs/op	        50.00 p50-µs	       200.0 p99-µs
BenchmarkHop/bare-2 	   20000	     60587 ns/op	        66.00 cpu-µs/op	        40.00 p50-µs	       180.0 p99-µs
BenchmarkHop/bare-2 	   20000	     60587 ns/op	        80.00 cpu-µs/op	        48.00 p50-µs	       190.0 p99-µs
BenchmarkHop/bridge-2         	   20000	    145365 ns/op	       150.0 cpu-µs/op	       96.00 p50-µs	       380.0 p99-µs
BenchmarkHop/bridge-2         	   20000	    125352 ns/op	       140.0 cpu-µs/op	       120.0 p50-µs	       400.0 p99-µs
BenchmarkHop/bridge-2         	   20000	    143888 ns/op	       175.0 cpu-µs/op	       130.0 p50-µs	       390.0 p99-µs
BenchmarkOneWay/bare-2                      	   20000	     11760 ns/op	     80000 msgs/s
BenchmarkOneWay/bridge-2                    	   20000	     18257 ns/op	     60000 msgs/s
BenchmarkHopPaired/bridge-2         	   20000	    113033 ns/op	        72.00 bare-p50-µs	         1.908 cpu-x	         1.915 p50-x	       138.0 p50-µs	         2.412 p99-x
BenchmarkHopPaired/bridge-2         	   20000	    102683 ns/op	        60.00 bare-p50-µs	         1.940 cpu-x	         1.902 p50-x	       115.0 p50-µs	         1.827 p99-x
BenchmarkHopPaired/bridge-2         	   20000	    102683 ns/op	        61.00 bare-p50-µs	         2.100 cpu-x	         2.050 p50-x	       120.0 p50-µs	         1.700 p99-x
BenchmarkOneWayPaired/bridge-2         	   20000	     32304 ns/op	     54426 bare-msgs/s	         0.4069 msgs-x	     22145 msgs/s
BenchmarkOneWayPaired/bridge-2         	   20000	     20448 ns/op	     60231 bare-msgs/s	         0.7070 msgs-x	     42581 msgs/s
BenchmarkOneWayPaired/bridge-2         	   20000	     20448 ns/op	     70000 bare-msgs/s	         0.6500 msgs-x	     45500 msgs/s
PASS`
	var out bytes.Buffer
	if code := reportHop(strings.NewReader(in), &out); code != 0 {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	for _, want := range []string{
		"round trip p50: bare 48 p50-µs", "bridge                        120 p50-µs   2.50x the bare hop",
		"round trip p99: bare 190 p99-µs", "390 p99-µs   2.05x",
		"round trip CPU: bare 70 cpu-µs/op", "150 cpu-µs/op  2.14x",
		"one-way throughput: bare 80000 msgs/s", "60000 msgs/s   0.75x",
		"round trip, paired", "bridge                 p50  1.92x the bare hop (120 against 61 µs), p99  1.83x, CPU  1.94x",
		"one-way throughput, paired", "bridge                  0.65x the bare hop (42581 against 60231 msgs/s)",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := reportHop(strings.NewReader("BenchmarkHop/bridge-2 1 5 ns/op 3 p50-µs\n"), &out); code != 1 || !strings.Contains(out.String(), "no BenchmarkHop/bare") {
		t.Errorf("no bare hop: exit %d, %s", code, out.String())
	}
	out.Reset()
	if code := reportHop(strings.NewReader("BenchmarkHopPaired/bridge-2 1 5 ns/op 3 p50-µs 1.5 p50-x 2 bare-p50-µs\n"), &out); code != 0 || !strings.Contains(out.String(), "p50  1.50x the bare hop (3 against 2 µs)") {
		t.Errorf("paired alone: exit %d, %s", code, out.String())
	}
	out.Reset()
	if code := reportHop(strings.NewReader("BenchmarkOneWayPaired/bridge-2 1 5 ns/op 30 msgs/s 0.6 msgs-x 50 bare-msgs/s\n"), &out); code != 0 || !strings.Contains(out.String(), "0.60x the bare hop (30 against 50 msgs/s)") {
		t.Errorf("one-way paired alone: exit %d, %s", code, out.String())
	}
	out.Reset()
	mcpIn := `BenchmarkMCPPaired/call-2 4800 319054 ns/op 1.2 cpu-x 240 floor-p50-µs 1.25 p50-x 300 p50-µs 1.4 p99-x 200 plain-p50-µs 1.5 plain-x
BenchmarkMCPPaired/call-2 4800 319054 ns/op 1.1 cpu-x 200 floor-p50-µs 1.15 p50-x 230 p50-µs 1.2 p99-x 150 plain-p50-µs 1.53 plain-x
BenchmarkMCPPaired/call-2 4800 319054 ns/op 1.3 cpu-x 180 floor-p50-µs 1.35 p50-x 243 p50-µs 1.3 p99-x 140 plain-p50-µs 1.74 plain-x
BenchmarkMCPPaired/throughput-2 4800 141693 ns/op 0.77 calls-x 6151 calls/s 7978 floor-calls/s 7291 plain-calls/s
`
	if code := reportHop(strings.NewReader(mcpIn), &out); code != 0 ||
		!strings.Contains(out.String(), "p50  1.25x the floor (243.0 against 200.0 µs; plain 150.0 µs,  1.53x), p99  1.30x, CPU  1.20x") ||
		!strings.Contains(out.String(), "throughput  0.77x the floor's (6151 against 7978 calls/s; plain 7291)") {
		t.Errorf("MCP paired: exit %d, %s", code, out.String())
	}
	out.Reset()
	apartIn := strings.ReplaceAll(mcpIn, "MCPPaired", "MCPApartPaired")
	if code := reportHop(strings.NewReader(apartIn), &out); code != 0 ||
		!strings.Contains(out.String(), "each server in its own process):\n  p50  1.25x the floor") ||
		strings.Contains(out.String(), "in one process") {
		t.Errorf("MCP paired, servers apart: exit %d, %s", code, out.String())
	}
	out.Reset()
	coldIn := `BenchmarkColdPaired/ws-2 1200 3013629 ns/op 613.6 first-p50-µs 1.416 first-x 412.5 idle-p50-µs 0.9858 idle-p90-x 0.9520 idle-x 433.3 warm-p50-µs
BenchmarkColdPaired/ws-2 1200 2827145 ns/op 449.1 first-p50-µs 1.176 first-x 424.0 idle-p50-µs 1.215 idle-p90-x 1.110 idle-x 382.0 warm-p50-µs
BenchmarkColdPaired/ws-2 1200 2827145 ns/op 500 first-p50-µs 1.2 first-x 420 idle-p50-µs 1.1 idle-p90-x 1.05 idle-x 400 warm-p50-µs
`
	if code := reportHop(strings.NewReader(coldIn), &out); code != 0 ||
		!strings.Contains(out.String(), "ws     after idling  1.05x the warm p50 (420.0 against 400.0 µs), p90  1.10x; first after connecting  1.20x (500.0 µs)") {
		t.Errorf("cold paired: exit %d, %s", code, out.String())
	}
}
