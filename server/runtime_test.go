package server

import (
	"os"
	"runtime/debug"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/config"
)

// unsetenv removes the variable for the test, and restores it after.
func unsetenv(t *testing.T, key string) {
	t.Setenv(key, "")
	if err := os.Unsetenv(key); err != nil {
		t.Fatal(err)
	}
}

// TestApplyMemory: the memory section sets the collector's target and the
// memory limit (GOGC 0: off), unless GOGC and GOMEMLIMIT are set in the
// environment, which win.
func TestApplyMemory(t *testing.T) {
	prevGC, prevLimit := debug.SetGCPercent(100), debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetGCPercent(prevGC); debug.SetMemoryLimit(prevLimit) })
	current := func() (int, int64) {
		gc := debug.SetGCPercent(-1)
		debug.SetGCPercent(gc)
		return gc, debug.SetMemoryLimit(-1)
	}
	for _, tc := range []struct {
		name      string
		env       map[string]string
		m         config.Memory
		gc        int
		limit     int64
		setBefore bool
	}{
		{"from the config", nil, config.Memory{GOGC: 50, Limit: 1 << 30}, 50, 1 << 30, false},
		{"GOGC 0 turns the collector off", nil, config.Memory{GOGC: 0}, -1, 0, false},
		{"the environment wins", map[string]string{"GOGC": "300", "GOMEMLIMIT": "1GiB"}, config.Memory{GOGC: 50, Limit: 1 << 20}, 100, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			unsetenv(t, "GOGC")
			unsetenv(t, "GOMEMLIMIT")
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			debug.SetGCPercent(100)
			before := debug.SetMemoryLimit(-1)
			ApplyMemory(tc.m, quiet)
			gc, limit := current()
			if gc != tc.gc {
				t.Errorf("GC percent %d, want %d", gc, tc.gc)
			}
			if tc.limit != 0 && limit != tc.limit {
				t.Errorf("memory limit %d, want %d", limit, tc.limit)
			}
			if tc.setBefore && limit != before {
				t.Errorf("memory limit changed to %d with GOMEMLIMIT set", limit)
			}
		})
	}
}
