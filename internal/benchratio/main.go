// Command benchratio reads `go test -bench` output and prints each
// translation's speed as a ratio to the encoding/json map baseline measured
// in the same run (BenchmarkBaselineMap/<source dialect>). A benchmark run
// several times (-count) counts by its median. With -min it exits 1 when a
// pair is slower than that ratio. With -hop it reads `make bench-hop`'s
// output and prints each mode's figures as ratios to the bare hop, and the
// paired MCP and cold-message benchmarks' ratios (`make bench-mcp`, `make
// bench-cold`).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
)

func main() {
	min := flag.Float64("min", 0, "fail when a translation is less than this many times faster than the baseline")
	gate := flag.String("gate", "", "apply -min only to benchmarks whose name starts with this (a message variant)")
	maxRewrite := flag.Float64("max-rewrite", 0, "fail when BenchmarkRewrites/five costs more than this many times BenchmarkRewrites/none")
	hop := flag.Bool("hop", false, "read `make bench-hop`, `make bench-mcp` or `make bench-cold` output instead: each mode's round trip and one-way throughput as a ratio to the bare hop, the MCP face's to the floor, a cold message's to a warm one")
	flag.Parse()
	if *hop {
		os.Exit(reportHop(os.Stdin, os.Stdout))
	}
	ns := medians(os.Stdin)
	code := report(ns, os.Stdout, *min, *gate)
	if c := reportRewrites(ns, os.Stdout, *maxRewrite); c != 0 {
		code = c
	}
	os.Exit(code)
}

// medians reads benchmark lines from r and returns each benchmark's median
// ns/op, by benchmark and sub-benchmark name.
func medians(r io.Reader) map[string]map[string]float64 {
	ns := map[string]map[string]float64{}
	for bench, byName := range metricMedians(r) {
		for name, byUnit := range byName {
			if v, ok := byUnit["ns/op"]; ok {
				if ns[bench] == nil {
					ns[bench] = map[string]float64{}
				}
				ns[bench][name] = v
			}
		}
	}
	return ns
}

// report writes the ratio table of the medians ns to w and returns the exit
// code. Benchmark names are [VARIANT/]FROM_to_TO for Translate and
// [VARIANT/]FROM for BaselineMap.
func report(ns map[string]map[string]float64, w io.Writer, min float64, gate string) int {
	base, tr := ns["BaselineMap"], ns["Translate"]
	if len(base) == 0 || len(tr) == 0 {
		fmt.Fprintln(w, "benchratio: no BaselineMap or Translate results in the input")
		return 1
	}
	pairs := make([]string, 0, len(tr))
	for p := range tr {
		pairs = append(pairs, p)
	}
	sort.Strings(pairs)
	code, worst := 0, map[string]float64{}
	fmt.Fprintf(w, "%-32s %12s %12s %8s\n", "pair", "translate", "baseline", "ratio")
	for _, p := range pairs {
		from, _, _ := strings.Cut(p, "_to_")
		b, ok := base[from]
		if !ok {
			continue
		}
		ratio := b / tr[p]
		flag := ""
		if min > 0 && ratio < min && strings.HasPrefix(p, gate) {
			flag, code = "  < "+strconv.FormatFloat(min, 'f', -1, 64)+"x", 1
		}
		variant, _, _ := strings.Cut(p, "/")
		if !strings.Contains(p, "/") {
			variant = ""
		}
		if v, ok := worst[variant]; !ok || ratio < v {
			worst[variant] = ratio
		}
		fmt.Fprintf(w, "%-32s %9.0f ns %9.0f ns %7.1fx%s\n", p, tr[p], b, ratio, flag)
	}
	vs := make([]string, 0, len(worst))
	for v := range worst {
		vs = append(vs, v)
	}
	sort.Strings(vs)
	for _, v := range vs {
		label := "slowest pair"
		if v != "" {
			label += " (" + v + ")"
		}
		fmt.Fprintf(w, "%s: %.1fx the baseline\n", label, worst[v])
	}
	return code
}

// median returns the middle value of vs (the mean of the two middle ones
// for an even count).
func median(vs []float64) float64 {
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// reportRewrites prints what five rewrite rules cost, as a multiple of the
// same translation with none, and returns 1 when that is above max (when
// max > 0).
func reportRewrites(ns map[string]map[string]float64, w io.Writer, max float64) int {
	none, five := ns["Rewrites"]["none"], ns["Rewrites"]["five"]
	if none == 0 || five == 0 {
		return 0
	}
	ratio := five / none
	fmt.Fprintf(w, "rewrites: five rules %.0f ns, none %.0f ns: %.2fx\n", five, none, ratio)
	if max > 0 && ratio > max {
		fmt.Fprintf(w, "rewrites: more than %.2fx\n", max)
		return 1
	}
	return 0
}
