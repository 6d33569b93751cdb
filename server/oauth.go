package server

import (
	"context"

	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/mcpface"
	"github.com/mcp-bridge/mcp-bridge/trust"
)

// oauthKeys are the keys mcp.oauth verifies access tokens with, and where
// they come from.
type oauthKeys struct {
	set      *trust.KeySet
	url, ca  string // for a fetched set: its URL and the tls.ca it is fetched with
	verifier *trust.AccessVerifier
}

// loadOAuthKeys returns the keys of cfg's mcp.oauth (nil when it has
// none): its jwks_file read now, or its jwks_url fetched when first
// needed. The set of cur is kept when it is fetched from the same URL
// with the same CAs, so that a reload keeps its cache.
func (s *Server) loadOAuthKeys(cfg *config.Config, cur *oauthKeys) (*oauthKeys, error) {
	o := cfg.MCP.OAuth
	if o == nil {
		return nil, nil
	}
	k := &oauthKeys{url: o.JWKSURL, ca: cfg.TLS.CA}
	switch {
	case o.JWKSFile != "":
		set, err := trust.ReadKeySet("mcp.oauth.jwks_file", o.JWKSFile)
		if err != nil {
			return nil, err
		}
		k.set = set
	case cur != nil && cur.url == k.url && cur.ca == k.ca:
		k.set = cur.set
	default:
		k.set = trust.FetchedKeySet(o.JWKSURL, s.webhookClient())
	}
	k.verifier = trust.NewAccessVerifier(k.set, o.Issuer)
	return k, nil
}

// faceOAuth is the MCP face's form of cfg's mcp.oauth, verifying with
// keys; nil when it has none. Each token checked is counted in
// bridge_auth_total{method="oauth"}.
func (s *Server) faceOAuth(cfg *config.Config, keys *oauthKeys) *mcpface.OAuth {
	o := cfg.MCP.OAuth
	if o == nil || keys == nil {
		return nil
	}
	v := keys.verifier
	return &mcpface.OAuth{Resource: o.Resource, ResourceName: o.ResourceName, AuthorizationServers: o.AuthorizationServers,
		ScopesSupported: o.ScopesSupported, RequiredScopes: o.RequiredScopes,
		Verify: func(ctx context.Context, token, resource string) (*mcpface.Grant, error) {
			a, r := v.Verify(ctx, token, resource)
			if r != nil {
				s.guard.auth.Checked("oauth", r.Reason)
				return nil, r
			}
			s.guard.auth.Checked("oauth", "")
			return &mcpface.Grant{Subject: a.Subject, Client: a.Client, Scopes: a.Scopes, Claims: a.Claims}, nil
		}}
}

// facePolicies and faceLimits are the MCP face's forms of mcp.policies and
// mcp.limits.
func facePolicies(cfg *config.Config) []mcpface.Policy {
	var out []mcpface.Policy
	for _, p := range cfg.MCP.Policies {
		out = append(out, mcpface.Policy{Scope: p.Scope, Claim: p.Claim, Value: p.Value, Allow: p.Allow, Deny: p.Deny})
	}
	return out
}

func faceLimits(cfg *config.Config) mcpface.Limits {
	l := mcpface.Limits{PerClient: cfg.MCP.Limits.PerClient}
	for _, r := range cfg.MCP.Limits.PerTool {
		l.PerTool = append(l.PerTool, mcpface.ToolRate{Pattern: r.Pattern, PerSecond: r.PerSecond})
	}
	return l
}
