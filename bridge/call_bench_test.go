package bridge

import (
	"context"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/bridge/tap"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/tracing"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// BenchmarkCall is a call through the bridge to an in-process swarm agent
// that answers each request at once: the bridge's own cost of a call, with
// no network.
func BenchmarkCall(b *testing.B) { benchCall(b, Options{}, false) }

// BenchmarkCallTapped is BenchmarkCall with a tap watching (the web
// console's traffic view): what observing costs the bridge.
func BenchmarkCallTapped(b *testing.B) { benchCall(b, Options{}, true) }

// BenchmarkCallGuarded is BenchmarkCall with a Guard that lets every
// message through, as the server's does when no token and no rate are
// configured: the cost of the hook alone.
func BenchmarkCallGuarded(b *testing.B) {
	benchCall(b, Options{Guard: admitAll{}}, false)
}

// BenchmarkCallTraced is BenchmarkCall with every span recorded and
// batched to an exporter that drops them: the cost of tracing.
func BenchmarkCallTraced(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	benchCall(b, Options{Tracer: tracing.New(tp)}, false)
}

func benchCall(b *testing.B, opts Options, tapped bool) {
	br, _ := newTestBridge(b, opts)
	if tapped {
		t := tap.Start(br, func(tap.Traffic) {}, tap.Options{})
		defer t.Stop()
	}
	attachScripted(b, br, "swarm", "adder", echo)
	req := request("adder", "add", `{"a":1,"b":2}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := br.Call(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// admitAll is a Guard that lets everything through and stamps nothing.
type admitAll struct{}

func (admitAll) Admit(*Session, *canonical.Envelope) (string, *canonical.Error) { return "", nil }
func (admitAll) Stamp(string, string, string) canonical.JSON                    { return "" }
