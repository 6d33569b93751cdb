package server

import (
	"context"
	"os"

	"github.com/mcp-bridge/mcp-bridge/bridge/event"
	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/tracing"
	"go.opentelemetry.io/otel/trace"
)

// Option changes how New builds a server.
type Option func(*options)

type options struct {
	tp trace.TracerProvider
}

// WithTracerProvider makes the bridge's spans with tp, whatever the
// config's tracing says (tests give the SDK's in-memory exporter's).
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(o *options) { o.tp = tp }
}

// tracer is the bridge's Tracer, a subscriber of its events: nil when tracing is off (the bridge then
// makes no spans at all); on a provider given to New, or one the config's
// tracing.exporter makes, which Run flushes and stops at the end.
func (s *Server) tracer(cfg *config.Config, o options) (event.Subscriber, error) {
	if o.tp != nil {
		return tracing.New(o.tp), nil
	}
	tp, err := tracing.Provider(context.Background(), cfg.Tracing, Version(), os.Stderr)
	if err != nil || tp == nil {
		return nil, err
	}
	s.spans = tp
	return tracing.New(tp), nil
}
