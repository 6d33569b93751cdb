package mcpface

import (
	"fmt"
	"math"
	"time"

	"github.com/mcp-bridge/mcp-bridge/limits"
)

// Limits bound how often one client (an access token's subject, a static
// token, a JWT's agent, or without a token its address) may call tools.
// Each is a token bucket whose burst is one second's worth.
type Limits struct {
	// PerClient is the tools/call a second of one client; 0: no limit.
	// A client's HTTP requests may come at FloodFactor times it.
	PerClient float64
	// PerTool are the rates of one client's calls to the tools of a
	// pattern, each pattern counted apart.
	PerTool []ToolRate
}

// ToolRate is a rate of one client's calls to the tools Pattern matches
// (AGENT:TOOL, or a glob of MCP tool names).
type ToolRate struct {
	Pattern   string
	PerSecond float64
}

// FloodFactor is how many times Limits.PerClient a client's HTTP requests
// to the face may come at (they carry more than calls: initialize,
// notifications, tools/list), and FloodFloor how many a second at least,
// before they are answered 429.
const (
	FloodFactor = 4
	FloodFloor  = 10
)

// What mcp_rate_limited_total counts.
const (
	limitPerClient = "per_client"
	limitPerTool   = "per_tool"
	limitHTTP      = "http"
)

// limiter holds the buckets of Limits.
type limiter struct {
	perClient, http *limits.Rates
	perSecond       float64
	perTool         []toolLimit
}

type toolLimit struct {
	text    string
	pattern toolPattern
	rates   *limits.Rates
}

// newLimiter returns the buckets of l; nil when it limits nothing.
func newLimiter(l Limits) (*limiter, error) {
	if l.PerClient <= 0 && len(l.PerTool) == 0 {
		return nil, nil
	}
	lim := &limiter{perSecond: l.PerClient}
	if l.PerClient > 0 {
		lim.perClient = limits.NewRates(l.PerClient, burst(l.PerClient))
		flood := max(FloodFactor*l.PerClient, FloodFloor)
		lim.http = limits.NewRates(flood, burst(flood))
	}
	for i, t := range l.PerTool {
		p, err := compileToolPattern(t.Pattern)
		if err != nil {
			return nil, fmt.Errorf("mcp.limits.per_tool[%d]: %w", i, err)
		}
		lim.perTool = append(lim.perTool, toolLimit{text: t.Pattern, pattern: p, rates: limits.NewRates(t.PerSecond, burst(t.PerSecond))})
	}
	return lim, nil
}

// burst is one second's worth of rate, at least 1.
func burst(rate float64) int { return max(1, int(math.Ceil(rate))) }

// flood takes one HTTP request of client; when it is over its limit, it
// returns how long until it is not.
func (l *limiter) flood(client string) (time.Duration, bool) {
	if l == nil || l.http == nil {
		return 0, false
	}
	ok, wait := l.http.Allow(client, time.Now())
	return wait, !ok
}

// call takes one call of client to the tool of e. Over a limit, it says
// which (limitPerClient or limitPerTool) and why, in words for the
// client.
func (l *limiter) call(client string, e *entry) (which, why string) {
	if l == nil {
		return "", ""
	}
	now := time.Now()
	if l.perClient != nil {
		if ok, wait := l.perClient.Allow(client, now); !ok {
			return limitPerClient, fmt.Sprintf("rate limited: this client calls tools faster than %s a second (mcp.limits.per_client); retry after %s",
				rateText(l.perSecond), wait.Round(time.Millisecond))
		}
	}
	for _, t := range l.perTool {
		if !t.pattern.matches(e) {
			continue
		}
		if ok, wait := t.rates.Allow(client, now); !ok {
			return limitPerTool, fmt.Sprintf("rate limited: this client calls the tools of %q faster than %s a second (mcp.limits.per_tool); retry after %s",
				t.text, rateText(t.rates.PerSecond()), wait.Round(time.Millisecond))
		}
	}
	return "", ""
}

// rateText writes a rate a second without needless digits.
func rateText(r float64) string { return fmt.Sprintf("%.4g", r) }
