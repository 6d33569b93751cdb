package main

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// metricLine is a benchmark result line with its metrics after the
// iteration count: "BenchmarkHop/bridge-2  20000  145365 ns/op  132.0 p50-µs".
var metricLine = regexp.MustCompile(`^Benchmark(\w+)/(\S+?)(-\d+)?\s+\d+\s+(.*)$`)

// metricMedians reads benchmark lines from r and returns each result's
// median of every metric it reports, by benchmark, sub-benchmark and unit.
func metricMedians(r io.Reader) map[string]map[string]map[string]float64 {
	runs := map[string]map[string]map[string][]float64{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		m := metricLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		fields := strings.Fields(m[4])
		for i := 0; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				break
			}
			if runs[m[1]] == nil {
				runs[m[1]] = map[string]map[string][]float64{}
			}
			if runs[m[1]][m[2]] == nil {
				runs[m[1]][m[2]] = map[string][]float64{}
			}
			runs[m[1]][m[2]][fields[i+1]] = append(runs[m[1]][m[2]][fields[i+1]], v)
		}
	}
	out := map[string]map[string]map[string]float64{}
	for bench, byName := range runs {
		out[bench] = map[string]map[string]float64{}
		for name, byUnit := range byName {
			out[bench][name] = map[string]float64{}
			for unit, vs := range byUnit {
				out[bench][name][unit] = median(vs)
			}
		}
	}
	return out
}

// reportHop prints `make bench-hop`'s figures as ratios to the bare hop
// measured in the same run: each mode's round-trip p50 and p99 and the
// process's CPU time per round trip (lower is better), and one-way
// throughput (higher is better), medians over -count; then the paired
// benchmarks' ratios. It returns 1 when the input has no bare hop to
// compare with.
func reportHop(in io.Reader, w io.Writer) int {
	ms := metricMedians(in)
	code := 1
	for _, t := range []struct{ bench, unit, what string }{
		{"Hop", "p50-µs", "round trip p50"},
		{"Hop", "p99-µs", "round trip p99"},
		{"Hop", "cpu-µs/op", "round trip CPU"},
		{"OneWay", "msgs/s", "one-way throughput"},
	} {
		bare, ok := ms[t.bench]["bare"][t.unit]
		if !ok || bare == 0 {
			continue
		}
		code = 0
		modes := make([]string, 0, len(ms[t.bench]))
		for m := range ms[t.bench] {
			if m != "bare" {
				modes = append(modes, m)
			}
		}
		sort.Strings(modes)
		fmt.Fprintf(w, "%s: bare %s %s\n", t.what, strconv.FormatFloat(bare, 'f', -1, 64), t.unit)
		for _, m := range modes {
			v, ok := ms[t.bench][m][t.unit]
			if !ok {
				continue
			}
			fmt.Fprintf(w, "  %-22s %10s %-7s %5.2fx the bare hop\n", m, strconv.FormatFloat(v, 'f', -1, 64), t.unit, v/bare)
		}
	}
	if reportPaired(ms["HopPaired"], w) {
		code = 0
	}
	if reportOneWayPaired(ms["OneWayPaired"], w) {
		code = 0
	}
	if reportMCPPaired(ms["MCPPaired"], "in one process", w) {
		code = 0
	}
	if reportMCPPaired(ms["MCPApartPaired"], "each server in its own process", w) {
		code = 0
	}
	if reportColdPaired(ms["ColdPaired"], w) {
		code = 0
	}
	if code != 0 {
		fmt.Fprintln(w, "benchratio: no BenchmarkHop/bare, BenchmarkOneWay/bare, BenchmarkHopPaired, BenchmarkOneWayPaired, BenchmarkMCPPaired, BenchmarkMCPApartPaired or BenchmarkColdPaired results in the input")
	}
	return code
}

// reportOneWayPaired prints BenchmarkOneWayPaired's figures, each mode's
// throughput as a ratio to the bare hop's beside it (medians over -count
// of each run's ratio), and reports whether there were any.
func reportOneWayPaired(modes map[string]map[string]float64, w io.Writer) bool {
	names := pairedModes(modes, "msgs-x")
	if len(names) == 0 {
		return false
	}
	fmt.Fprintln(w, "one-way throughput, paired (the bare hop and the bridge alternating in one benchmark):")
	for _, m := range names {
		u := modes[m]
		fmt.Fprintf(w, "  %-22s %5.2fx the bare hop (%s against %s msgs/s)\n", m, u["msgs-x"],
			strconv.FormatFloat(u["msgs/s"], 'f', 0, 64), strconv.FormatFloat(u["bare-msgs/s"], 'f', 0, 64))
	}
	return true
}

// pairedModes returns the sorted names of the modes that report unit.
func pairedModes(modes map[string]map[string]float64, unit string) []string {
	names := make([]string, 0, len(modes))
	for m, units := range modes {
		if _, ok := units[unit]; ok {
			names = append(names, m)
		}
	}
	sort.Strings(names)
	return names
}

// reportPaired prints BenchmarkHopPaired's figures, each mode's ratios to
// the bare hop measured beside it (medians over -count of each run's
// ratio), and reports whether there were any.
func reportPaired(modes map[string]map[string]float64, w io.Writer) bool {
	names := pairedModes(modes, "p50-x")
	if len(names) == 0 {
		return false
	}
	fmt.Fprintln(w, "round trip, paired (the bare hop and the bridge alternating in one benchmark):")
	for _, m := range names {
		u := modes[m]
		fmt.Fprintf(w, "  %-22s p50 %5.2fx the bare hop (%s against %s µs), p99 %5.2fx, CPU %5.2fx\n", m, u["p50-x"],
			strconv.FormatFloat(u["p50-µs"], 'f', -1, 64), strconv.FormatFloat(u["bare-p50-µs"], 'f', -1, 64), u["p99-x"], u["cpu-x"])
	}
	return true
}

// reportMCPPaired prints BenchmarkMCPPaired's figures: the bridge's
// tools/call p50, p99 and CPU per call as ratios to the floor's (a plain
// MCP server forwarding over one WebSocket) and its p50 to the plain
// server's, and its throughput as a ratio to the floor's (medians over
// -count of each run's ratio); where says where the servers ran. It
// reports whether there were any.
func reportMCPPaired(subs map[string]map[string]float64, where string, w io.Writer) bool {
	call, tput := subs["call"], subs["throughput"]
	if call == nil && tput == nil {
		return false
	}
	fmt.Fprintf(w, "MCP tools/call, paired (a plain server, the floor and the bridge alternating in one benchmark, %s):\n", where)
	if call != nil {
		fmt.Fprintf(w, "  p50 %5.2fx the floor (%s against %s µs; plain %s µs, %5.2fx), p99 %5.2fx, CPU %5.2fx\n", call["p50-x"],
			strconv.FormatFloat(call["p50-µs"], 'f', 1, 64), strconv.FormatFloat(call["floor-p50-µs"], 'f', 1, 64),
			strconv.FormatFloat(call["plain-p50-µs"], 'f', 1, 64), call["plain-x"], call["p99-x"], call["cpu-x"])
	}
	if tput != nil {
		fmt.Fprintf(w, "  throughput %5.2fx the floor's (%s against %s calls/s; plain %s)\n", tput["calls-x"],
			strconv.FormatFloat(tput["calls/s"], 'f', 0, 64), strconv.FormatFloat(tput["floor-calls/s"], 'f', 0, 64),
			strconv.FormatFloat(tput["plain-calls/s"], 'f', 0, 64))
	}
	return true
}

// reportColdPaired prints BenchmarkColdPaired's figures: the p50 of a
// request to an agent that idled, and of the first one after it
// connected, as ratios to the p50 of requests to a warm agent alternating
// with them (medians over -count of each run's ratio). It reports whether
// there were any.
func reportColdPaired(modes map[string]map[string]float64, w io.Writer) bool {
	names := pairedModes(modes, "idle-x")
	if len(names) == 0 {
		return false
	}
	fmt.Fprintln(w, "cold first message, paired (requests to a warm agent and to idle ones alternating):")
	for _, m := range names {
		u := modes[m]
		fmt.Fprintf(w, "  %-6s after idling %5.2fx the warm p50 (%s against %s µs), p90 %5.2fx; first after connecting %5.2fx (%s µs)\n", m,
			u["idle-x"], strconv.FormatFloat(u["idle-p50-µs"], 'f', 1, 64), strconv.FormatFloat(u["warm-p50-µs"], 'f', 1, 64),
			u["idle-p90-x"], u["first-x"], strconv.FormatFloat(u["first-p50-µs"], 'f', 1, 64))
	}
	return true
}
