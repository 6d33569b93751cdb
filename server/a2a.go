package server

import (
	"github.com/mcp-bridge/mcp-bridge/a2aface"
	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/prometheus/client_golang/prometheus"
)

// a2aOptions is the A2A face's form of the config's a2a section, its
// task table's metrics registered with metrics.
func (s *Server) a2aOptions(cfg *config.Config, metrics prometheus.Registerer) a2aface.Options {
	c := cfg.A2A
	return a2aface.Options{Allow: c.Allow, Deny: c.Deny, Sender: c.Sender, TaskTTL: c.TaskTTL,
		MaxTasks: cfg.Memory.A2ATasks, Metrics: metrics, Auth: s.a2aAuth(cfg), Version: Version(), Logger: s.log}
}

// a2aAuth is what A2A clients must present under cfg: a token of
// mcp.tokens (its agents narrowing what it reaches), or a JWT when
// auth.jwt is configured, as MCP clients do.
func (s *Server) a2aAuth(cfg *config.Config) a2aface.Auth {
	var a a2aface.Auth
	for _, t := range cfg.MCP.Tokens {
		a.Tokens = append(a.Tokens, a2aface.Token{Token: t.Token, Agents: t.Agents})
	}
	if j := cfg.Auth.JWT; j != nil {
		a.Verify, a.Required = s.guard.verifyMCP, j.Required
	}
	return a
}
