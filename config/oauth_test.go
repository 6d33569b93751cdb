package config

import (
	"reflect"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/dialects"
)

// TestOAuthKeys reads mcp.oauth, mcp.policies and mcp.limits into the
// Config; OAuth stands for tokens on a listener that is not loopback.
func TestOAuthKeys(t *testing.T) {
	cfg, err := Parse("/etc/bridge/serve.yaml", []byte(`listen: 0.0.0.0:7300
mcp:
  oauth:
    authorization_servers: [https://auth.example.com/realms/agents]
    jwks_file: keys/jwks.json
    scopes_supported: [tools.read, tools.call]
    required_scopes: [tools.call]
  policies:
    - scope: tools.admin
      allow: ["*"]
    - claim: {groups: ops}
      allow: ["triage:*", "*__search"]
      deny: ["*:delete_*"]
  limits: {per_client: 20/s, per_tool: {"*__search": 30/m}}
`), dialects.Names())
	if err != nil {
		t.Fatal(err)
	}
	want := &OAuth{ResourceName: "mcp-bridge", AuthorizationServers: []string{"https://auth.example.com/realms/agents"},
		JWKSFile: "/etc/bridge/keys/jwks.json", Issuer: "https://auth.example.com/realms/agents",
		ScopesSupported: []string{"tools.read", "tools.call"}, RequiredScopes: []string{"tools.call"}}
	if !reflect.DeepEqual(cfg.MCP.OAuth, want) {
		t.Errorf("mcp.oauth:\n got %+v\nwant %+v", cfg.MCP.OAuth, want)
	}
	wantPolicies := []MCPPolicy{{Scope: "tools.admin", Allow: []string{"*"}, Deny: []string{}},
		{Claim: "groups", Value: "ops", Allow: []string{"triage:*", "*__search"}, Deny: []string{"*:delete_*"}}}
	if !reflect.DeepEqual(cfg.MCP.Policies, wantPolicies) {
		t.Errorf("mcp.policies:\n got %+v\nwant %+v", cfg.MCP.Policies, wantPolicies)
	}
	wantLimits := MCPLimits{PerClient: 20, PerTool: []MCPRate{{Pattern: "*__search", PerSecond: 0.5}}}
	if !reflect.DeepEqual(cfg.MCP.Limits, wantLimits) {
		t.Errorf("mcp.limits: got %+v, want %+v", cfg.MCP.Limits, wantLimits)
	}
	if d := Default(); d.MCP.OAuth != nil || d.MCP.Policies != nil || d.MCP.Limits.PerClient != 0 || d.MCP.Limits.PerTool != nil {
		t.Errorf("the defaults must not get in the way: %+v", d.MCP)
	}
}

func TestBadOAuthKeys(t *testing.T) {
	const oauth = "mcp:\n  oauth:\n    authorization_servers: [https://a.example]\n"
	for _, c := range []struct{ name, text, want string }{
		{"no keys", oauth, "bad.yaml:3: mcp.oauth: names no keys to verify tokens with: give jwks_file or jwks_url"},
		{"two key sources", oauth + "    jwks_file: j.json\n    jwks_url: https://a.example/certs\n",
			"bad.yaml:5: mcp.oauth.jwks_url: two sources of keys: jwks_file (line 4) and jwks_url; give one"},
		{"no authorization server", "mcp:\n  oauth: {jwks_file: j.json}\n",
			"bad.yaml:2: mcp.oauth.authorization_servers: missing: clients find the authorization server here"},
		{"JWKS over http elsewhere", oauth + "    jwks_url: http://a.example/certs\n",
			`bad.yaml:4: mcp.oauth.jwks_url: "http://a.example/certs": http:// only on loopback; keys from elsewhere come over https://`},
		{"JWKS over http on loopback", oauth + "    jwks_url: http://127.0.0.1:8080/certs\n", ""},
		{"which issuer", "mcp:\n  oauth:\n    authorization_servers: [https://a.example, https://b.example]\n    jwks_file: j.json\n",
			"bad.yaml:3: mcp.oauth.issuer: missing: with several authorization_servers, say which issuer tokens must name"},
		{"resource not a URL", oauth + "    jwks_file: j.json\n    resource: bridge\n",
			`bad.yaml:5: mcp.oauth.resource: "bridge": the scheme must be http:// or https://`},
		{"policy of two conditions", "mcp:\n  policies:\n    - {scope: a, claim: {g: o}, allow: ['*']}\n",
			"bad.yaml:3: mcp.policies[0].claim: two conditions: scope (line 3) and claim; give one"},
		{"policy of no condition", "mcp:\n  policies:\n    - {allow: ['*']}\n", "bad.yaml:3: mcp.policies[0]: names no condition: give scope or claim"},
		{"policy of two claims", "mcp:\n  policies:\n    - {claim: {g: o, h: p}, allow: ['*']}\n",
			"bad.yaml:3: mcp.policies[0].claim: names 2 claims; give one: {claim: value}"},
		{"policy without allow", "mcp:\n  policies:\n    - {scope: a}\n", "bad.yaml:3: mcp.policies[0].allow: missing: a policy grants some tools"},
		{"policy pattern", "mcp:\n  policies:\n    - {scope: a, allow: ['[x']}\n", `bad.yaml:3: mcp.policies[0].allow[0]: "[x" is not a glob pattern: syntax error in pattern`},
		{"rate", "mcp:\n  limits: {per_client: 20}\n",
			`bad.yaml:2: mcp.limits.per_client: "20" is not a rate (a number of calls more than 0, then /s, /m or /h: 20/s)`},
		{"per-tool rate", "mcp:\n  limits: {per_tool: {'*': 0/s}}\n",
			`bad.yaml:2: mcp.limits.per_tool.*: "0/s" is not a rate (a number of calls more than 0, then /s, /m or /h: 20/s)`},
		{"OAuth off loopback", "listen: 0.0.0.0:7300\n" + oauth + "    jwks_file: j.json\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("bad.yaml", []byte(c.text), dialects.Names())
			switch {
			case c.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case c.want != "" && (err == nil || err.Error() != c.want):
				t.Errorf("got %v\nwant %s", err, c.want)
			}
		})
	}
}

func TestParseRate(t *testing.T) {
	for s, want := range map[string]float64{"20/s": 20, "30/m": 0.5, "3600/h": 1, "0.5/s": 0.5, "20": -1, "0/s": -1, "-1/s": -1, "2/d": -1, "x/s": -1} {
		got, ok := ParseRate(s)
		if !ok {
			got = -1
		}
		if got != want {
			t.Errorf("ParseRate(%q) = %v, want %v", s, got, want)
		}
	}
}
