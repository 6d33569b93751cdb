// Package console is the bridge's web console at /ui/: a live table of the
// agents, the traffic as it passes (from the bridge's tap), a translation
// playground, conformance runs against a URL or a connected agent, and a
// chart of the message rate and request latency from the bridge's metrics.
//
// The pages are plain HTML, CSS and a little JavaScript, embedded
// (static/); they read JSON endpoints and server-sent event streams under
// /ui/api/. Memory is bounded everywhere: the traffic kept, the chart's
// ring, the live streams open at once, each stream's backlog, and one
// conformance run at a time. The server package mounts it; the bridge
// never imports it.
package console

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"github.com/mcp-bridge/mcp-bridge/bridge/tap"
	"github.com/mcp-bridge/mcp-bridge/internal/sleep"
	"io/fs"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/translate"
	"github.com/prometheus/client_golang/prometheus"
)

// Path is where the console is mounted.
const Path = "/ui/"

// contentPolicy keeps the console's pages to the console's own scripts,
// styles and endpoints, and out of other sites' frames.
const contentPolicy = "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"

//go:embed static
var static embed.FS

// Options configure a Console. Zero values take the defaults.
type Options struct {
	// Bridge is the bridge the console shows (required).
	Bridge *bridge.Bridge
	// Translator is the playground's; nil uses the bridge's own
	// (Bridge.Translator), which follows a reload of the mapping files.
	Translator *translate.Translator
	// Metrics is the registry /metrics serves: the chart, and the agents'
	// queue depths and breaker states, come from it (required).
	Metrics prometheus.Gatherer
	// Tokens are the tokens the console asks for; with none it is open,
	// and answers only requests addressed to a loopback host (against DNS
	// rebinding).
	Tokens []string
	// Traffic is how many of the latest messages the traffic view keeps
	// (default 500); FrameLimit how much of each frame (default 16 KiB).
	Traffic    int
	FrameLimit int
	// Viewers is how many live streams may be open at once (default 16).
	Viewers int
	// SampleEvery is how often the chart samples the metrics (default
	// 2s); ChartWindow how far back it goes (default 10 minutes).
	SampleEvery time.Duration
	ChartWindow time.Duration
	// Version names the bridge's build, for the header.
	Version string
	Logger  *slog.Logger
}

// The defaults of Options.
const (
	DefaultTraffic     = 500
	DefaultFrameLimit  = 16 << 10
	DefaultViewers     = 16
	DefaultSampleEvery = 2 * time.Second
	DefaultChartWindow = 10 * time.Minute
)

// Console is the web console of one bridge.
type Console struct {
	b       *bridge.Bridge
	tr      *translate.Translator
	metrics prometheus.Gatherer
	auth    *auth
	log     *slog.Logger
	version string
	mux     *http.ServeMux

	viewers chan struct{} // a slot per live stream open
	traffic *traffic
	rec     *recorder
	agents  *agentWatch
	chart   *chart
	runs    *runs

	ctx       context.Context // ends when the console closes: the streams end
	cancel    context.CancelFunc
	closeOnce sync.Once
	done      chan struct{} // closed when the sampler has stopped
}

// New returns the console of o.Bridge; it taps the bridge's traffic and
// samples its metrics until Close.
func New(o Options) (*Console, error) {
	if o.Bridge == nil || o.Metrics == nil {
		return nil, errors.New("console: Options need a Bridge and Metrics")
	}
	if o.Traffic <= 0 {
		o.Traffic = DefaultTraffic
	}
	if o.FrameLimit <= 0 {
		o.FrameLimit = DefaultFrameLimit
	}
	if o.Viewers <= 0 {
		o.Viewers = DefaultViewers
	}
	if o.SampleEvery <= 0 {
		o.SampleEvery = DefaultSampleEvery
	}
	if o.ChartWindow < o.SampleEvery {
		o.ChartWindow = DefaultChartWindow
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Console{
		b: o.Bridge, tr: o.Translator, metrics: o.Metrics, log: o.Logger, version: o.Version,
		auth:    newAuth(o.Tokens),
		viewers: make(chan struct{}, o.Viewers),
		traffic: newTraffic(o.Traffic),
		chart:   newChart(o.Bridge.Totals, int(o.ChartWindow/o.SampleEvery), o.SampleEvery),
		runs:    &runs{},
		ctx:     ctx, cancel: cancel, done: make(chan struct{}),
	}
	c.agents = watchAgents(o.Bridge)
	c.rec = &recorder{b: o.Bridge, fn: c.traffic.add, opts: tap.Options{FrameLimit: o.FrameLimit}}
	c.chart.sample(time.Now()) // the baseline of the first point
	go c.sampling(o.SampleEvery)
	c.routes()
	return c, nil
}

// Close stops the console: its tap, its sampler, a conformance run under
// way and every live stream (which a server's graceful shutdown would
// otherwise wait for).
func (c *Console) Close() {
	c.closeOnce.Do(func() {
		c.cancel()
		c.rec.stop()
		c.agents.stop()
		c.runs.stop()
		<-c.done
	})
}

// Handler returns the console's routes, all under Path.
func (c *Console) Handler() http.Handler { return c.mux }

// Tokens reports whether the console asks for a token.
func (c *Console) Tokens() bool { return c.auth.on() }

func (c *Console) routes() {
	files, _ := fs.Sub(static, "static") // static is embedded: it has the directory
	c.mux = http.NewServeMux()
	page := func(name string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Cache-Control", "no-store")
			w.Header().Set("Content-Security-Policy", contentPolicy)
			http.ServeFileFS(w, r, files, name)
		}
	}
	c.mux.Handle("GET /ui/login", c.auth.loginPage(page("login.html")))
	c.mux.HandleFunc("POST /ui/login", c.auth.login)
	c.mux.HandleFunc("GET /ui/logout", c.auth.logout)
	c.mux.Handle("GET /ui/{$}", c.auth.page(page("index.html")))
	// The static files are the same in every binary: the login page
	// needs them before any login.
	c.mux.Handle("GET /ui/static/", http.StripPrefix("/ui/static/", http.FileServerFS(files)))
	api := func(pattern string, h http.HandlerFunc) {
		c.mux.Handle(pattern, c.auth.api(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c.rec.touch() // someone has the console open: record the traffic
			h(w, r)
		})))
	}
	api("GET /ui/api/overview", c.overview)
	api("GET /ui/api/agents", c.agentList)
	api("GET /ui/api/agents/events", c.agentEvents)
	api("GET /ui/api/traffic", c.trafficList)
	api("GET /ui/api/traffic/events", c.trafficEvents)
	api("GET /ui/api/traffic/{seq}", c.trafficMessage)
	api("GET /ui/api/metrics", c.metricsChart)
	api("POST /ui/api/translate", c.translate)
	api("POST /ui/api/conformance", c.startRun)
	api("GET /ui/api/conformance/{id}/events", c.runEvents)
	api("POST /ui/api/conformance/{id}/stop", c.stopRun)
	c.mux.Handle("/ui/", c.auth.page(http.NotFoundHandler()))
}

// sampling samples the metrics for the chart until the console closes.
// It sleeps outside the runtime's timers (internal/sleep): a long-lived
// runtime timer slows every message through the bridge, and the console is
// on by default. It looks at ctx a few times a second.
func (c *Console) sampling(every time.Duration) {
	defer close(c.done)
	step := min(every, 100*time.Millisecond)
	next := time.Now().Add(every)
	for c.ctx.Err() == nil {
		sleep.OutsideRuntime(step)
		if now := time.Now(); !now.Before(next) {
			c.chart.sample(now)
			c.rec.idle(now)
			next = now.Add(every)
		}
	}
}

// overview is what the header and the pickers need: the bridge's id and
// version, its dialects, the acts, and whether the console asks for a
// token.
func (c *Console) overview(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, struct {
		BridgeID string   `json:"bridge_id"`
		Version  string   `json:"version"`
		Dialects []string `json:"dialects"`
		Acts     []string `json:"acts"`
		Tokens   bool     `json:"tokens"`
		Traffic  int      `json:"traffic"`
	}{c.b.ID(), c.version, c.translator().Registry.Names(), acts(), c.auth.on(), c.traffic.capacity()})
}

// acts are the canonical acts, as the traffic filter offers them.
func acts() []string {
	out := make([]string, len(canonical.Acts))
	for i, a := range canonical.Acts {
		out[i] = string(a)
	}
	return out
}

// errorBody is the JSON of an API error.
type errorBody struct {
	Error string `json:"error"`
}

// fail answers an API request with status and the message of format.
func fail(w http.ResponseWriter, status int, format string, args ...any) {
	writeJSON(w, status, errorBody{Error: fmt.Sprintf(format, args...)})
}

// translator returns the playground's translator: the one the options
// gave, else the bridge's current one.
func (c *Console) translator() *translate.Translator {
	if c.tr != nil {
		return c.tr
	}
	return c.b.Translator()
}
