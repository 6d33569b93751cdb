package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/refagent"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestTracerProvider: a provider given to New makes the bridge's spans,
// whatever the config says: a request through the server to a reference
// agent on a WebSocket is followed as a request span, its delivery under
// it.
func TestTracerProvider(t *testing.T) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	cfg := config.Default()
	cfg.Listen = "127.0.0.1:0"
	s, err := New(cfg, nil, quiet, WithTracerProvider(tp))
	if err != nil {
		t.Fatal(err)
	}
	if s.spans != nil {
		t.Error("a provider given to New is stopped by Run as if the server had made it")
	}
	ln, err := s.Listen()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, ln) }()
	t.Cleanup(func() { cancel(); <-done })
	a, err := refagent.New(refagent.Options{ID: "calc", Dialect: "swarm", Tools: []string{"add"}})
	if err != nil {
		t.Fatal(err)
	}
	actx, stop := context.WithCancel(context.Background())
	agentDone := make(chan struct{})
	go func() { defer close(agentDone); _ = a.Connect(actx, "ws://"+ln.Addr().String(), "") }()
	t.Cleanup(func() { stop(); <-agentDone })
	b := s.Bridge()
	eventually(t, "calc connected", func() bool { i, ok := b.Agent("calc"); return ok && i.Connected && len(i.Tools) == 1 })
	i, _ := b.Agent("calc")
	cctx, ccancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer ccancel()
	ans, err := b.Call(cctx, canonical.Envelope{Act: canonical.ActRequest, Sender: canonical.Party{ID: "tester"},
		Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: "calc"}, Operation: i.Tools[0].Operation, Arguments: `{"a":1,"b":2}`})
	if err != nil || !strings.Contains(string(ans.Result), "3") {
		t.Fatalf("%v %+v", err, ans)
	}
	var request, deliver sdktrace.ReadOnlySpan
	eventually(t, "the request's spans ended", func() bool {
		for _, sp := range sr.Ended() {
			switch sp.Name() {
			case "request add":
				request = sp
			case "deliver request":
				deliver = sp
			}
		}
		return request != nil && deliver != nil
	})
	if deliver.Parent().SpanID() != request.SpanContext().SpanID() || deliver.SpanContext().TraceID() != request.SpanContext().TraceID() {
		t.Errorf("the delivery is not under the request: parent %s, request %s", deliver.Parent().SpanID(), request.SpanContext().SpanID())
	}
}

// TestTracingConfig: tracing.exporter none makes no tracer; an exporter
// the server does not know is refused when it is built; stdout makes a
// provider the server stops at the end of Run.
func TestTracingConfig(t *testing.T) {
	for _, tc := range []struct {
		exporter string
		err      bool
		spans    bool
	}{{"none", false, false}, {"stdout", false, true}, {"jaeger", true, false}} {
		cfg := config.Default()
		cfg.Tracing = config.Tracing{Exporter: tc.exporter, SampleRatio: 1}
		s, err := New(cfg, nil, quiet)
		if (err != nil) != tc.err {
			t.Errorf("%s: %v", tc.exporter, err)
			continue
		}
		if err != nil {
			continue
		}
		if (s.spans != nil) != tc.spans {
			t.Errorf("%s: provider made %v, want %v", tc.exporter, s.spans != nil, tc.spans)
		}
		if s.spans != nil {
			_ = s.spans.Shutdown(context.Background())
		}
		_ = s.Bridge().Shutdown(context.Background())
		s.Face().Close()
	}
}
