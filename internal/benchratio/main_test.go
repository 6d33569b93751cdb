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
	code := report(strings.NewReader(in), &out, 5)
	if code != 1 {
		t.Errorf("code %d, want 1 (fuse_to_swarm is 4x)", code)
	}
	for _, want := range []string{"swarm_to_collab", "10.0x", "fuse_to_swarm", "4.0x  < 5x", "slowest pair: 4.0x"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if code := report(strings.NewReader("PASS\n"), &out, 5); code != 1 {
		t.Errorf("empty input: code %d", code)
	}
}
