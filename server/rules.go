package server

import (
	"fmt"
	"os"

	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/mcp-bridge/mcp-bridge/mappings"
)

// loadRules reads the mapping files of cfg, then extra, over the dialects'
// defaults and the run-time policy, and builds the dialects on them,
// checking cfg's agents' dialects against them.
func loadRules(cfg *config.Config, extra []string) (*mappings.Set, *dialects.Registry, error) {
	m := dialects.DefaultMappings()
	if err := m.Add(ServePolicyFile, servePolicy); err != nil {
		return nil, nil, err
	}
	for _, f := range append(append([]string(nil), cfg.Mappings...), extra...) {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, nil, fmt.Errorf("mapping file: %w", err)
		}
		if err := m.Add(f, data); err != nil {
			return nil, nil, err
		}
	}
	reg, err := builtin.Registry(m)
	if err != nil {
		return nil, nil, err
	}
	if err := cfg.CheckDialects(reg.Names()); err != nil {
		return nil, nil, err
	}
	return m, reg, nil
}
