package server

import (
	"log/slog"
	"net/http/pprof"
	"os"
	"runtime/debug"
	"runtime/metrics"

	"github.com/mcp-bridge/mcp-bridge/config"
)

// ApplyMemory sets the Go runtime's GOGC and GOMEMLIMIT from the config's
// memory section, for the whole process, except where the environment
// variables of the same names are set: they win, as Go users expect. It
// logs what is in effect.
func ApplyMemory(m config.Memory, log *slog.Logger) {
	gogc, limit := "config", "config"
	if _, set := os.LookupEnv("GOGC"); set {
		gogc = "environment"
	} else {
		percent := m.GOGC
		if percent == 0 {
			percent = -1 // off, in debug.SetGCPercent's terms
		}
		debug.SetGCPercent(percent)
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		limit = "environment"
	} else if m.Limit > 0 {
		debug.SetMemoryLimit(m.Limit)
	}
	now := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(now)
	log.Debug("memory settings", "gogc", now[0].Value.Uint64(), "gogc_from", gogc, "memory_limit", now[1].Value.Uint64(), "memory_limit_from", limit)
}

// servePProf mounts Go's profiles at /debug/pprof/ (config pprof: true).
func (s *Server) servePProf() {
	s.mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	s.mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
	s.mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	s.mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	s.mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	s.log.Warn("pprof on: Go's profiles are served at /debug/pprof/ to anyone who reaches the listener")
}
