package e2e

import (
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpHalvesOrder is the order BenchmarkMCPHalves visits the floor (0) and
// the bridge (1) in, a chunk of mcpPairChunk calls each.
var mcpHalvesOrder = [...]int{0, 1, 1, 0}

// BenchmarkMCPHalves splits a tools/call at the agent, to show in which
// half a server spends its time: the floor and the bridge of
// BenchmarkMCPPaired alternate in chunks of mcpPairChunk calls, one at a
// time, their lean agents noting when they read each request and begin
// writing each answer. It reports each side's p50 of the forward half
// (from the client's send to the agent's read: the server reading the
// request, its work on it, its write to the agent) and of the answer's
// half (from the agent's write to the client's return: the server reading
// the answer, its work on it, its write to the client), in µs, and the
// bridge's as ratios to the floor's (fwd-x, back-x). The client's own work
// is in both halves, the same on both sides. With GOMAXPROCS=1 (every
// goroutine on one core) the halves are steadier than with two.
func BenchmarkMCPHalves(b *testing.B) {
	gcAsServe(b)
	var clocks [2]agentClock
	var urls, tools [2]string
	urls[0], tools[0] = hopMCPClocked(b, &clocks[0])
	urls[1], tools[1] = bridgeMCPClocked(b, false, &clocks[1])
	var sessions [2]*mcp.ClientSession
	for i := range sessions {
		sessions[i] = mcpSession(b, urls[i])
		for j := range 50 {
			callAdd(b, sessions[i], tools[i], j)
		}
	}
	var fwd, back [2][]time.Duration
	for i := 0; b.Loop(); i++ {
		side := mcpHalvesOrder[i/mcpPairChunk%len(mcpHalvesOrder)]
		start := time.Now()
		callAdd(b, sessions[side], tools[side], i)
		end := time.Now()
		fwd[side] = append(fwd[side], time.Duration(clocks[side].in.Load()-start.UnixNano()))
		back[side] = append(back[side], end.Sub(time.Unix(0, clocks[side].out.Load())))
	}
	b.StopTimer()
	if len(fwd[1]) == 0 {
		return // too few calls to reach the bridge's chunk
	}
	p50 := func(ds []time.Duration) float64 { return float64(percentile(ds, 50)) / 1e3 }
	b.ReportMetric(p50(fwd[0]), "floor-fwd-p50-µs")
	b.ReportMetric(p50(back[0]), "floor-back-p50-µs")
	b.ReportMetric(p50(fwd[1]), "fwd-p50-µs")
	b.ReportMetric(p50(back[1]), "back-p50-µs")
	b.ReportMetric(p50(fwd[1])/p50(fwd[0]), "fwd-x")
	b.ReportMetric(p50(back[1])/p50(back[0]), "back-x")
}
