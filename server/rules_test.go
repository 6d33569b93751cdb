package server

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/dialects"
)

// hookMapping is the example mapping file that declares a dialect of its
// own, hook.
var hookMapping = filepath.Join("..", "examples", "hook.yaml")

// TestLoadRules: the rules are the dialects' defaults and the run-time
// policy, then the config's mapping files, then the extra ones; a mapping
// file that is missing or does not parse, and an agent of a dialect no
// rule declares, are errors.
func TestLoadRules(t *testing.T) {
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.yaml")
	if err := os.WriteFile(broken, []byte("dialect: [unclosed\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		mappings []string
		extra    []string
		agents   []config.Agent
		hook     bool   // the registry has the hook dialect
		err      string // "" : none
	}{
		{"the defaults", nil, nil, nil, false, ""},
		{"a mapping file of the config", []string{hookMapping}, nil, nil, true, ""},
		{"an extra mapping file", nil, []string{hookMapping}, nil, true, ""},
		{"an agent of the file's dialect", nil, []string{hookMapping}, []config.Agent{{ID: "h", Dialect: "hook"}}, true, ""},
		{"an agent of no dialect declared", nil, nil, []config.Agent{{ID: "h", Dialect: "hook"}}, false, `agents[0].dialect`},
		{"an MCP server agent has no dialect to check", nil, nil, []config.Agent{{ID: "m", Reach: "mcp"}}, false, ""},
		{"a missing file", []string{filepath.Join(dir, "missing.yaml")}, nil, nil, false, "mapping file:"},
		{"a file that does not parse", nil, []string{broken}, nil, false, "broken.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config.Default()
			cfg.Mappings, cfg.Agents = tc.mappings, tc.agents
			m, reg, err := loadRules(cfg, tc.extra)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("%v, want an error saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if m == nil || reg == nil {
				t.Fatal("no rules")
			}
			names := reg.Names()
			for _, d := range dialects.Names() {
				if !slices.Contains(names, d) {
					t.Errorf("the built-in dialect %s is missing from %v", d, names)
				}
			}
			if _, ok := reg.Lookup("hook"); ok != tc.hook {
				t.Errorf("the hook dialect registered: %v, want %v", ok, tc.hook)
			}
		})
	}
}
