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
