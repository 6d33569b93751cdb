package server

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/mcpface"
	"github.com/mcp-bridge/mcp-bridge/refagent"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

const authServerURL = "https://auth.example/realms/agents"

// oauthConfig is a serve config whose MCP face takes the access tokens of
// the JWKS at jwksURL, with more of the mcp section.
func oauthConfig(t *testing.T, jwksURL, more string) *config.Config {
	t.Helper()
	text := "mcp:\n  oauth:\n    authorization_servers: [" + authServerURL + "]\n    jwks_url: " + jwksURL + "\n" + more
	file := filepath.Join(t.TempDir(), "serve.yaml")
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(file, dialects.Names())
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestOAuthServed: a server whose config has mcp.oauth serves both
// well-known metadata URLs, challenges a request without a token with the
// metadata's URL, lets the official go-sdk client in with an access token
// to see and call the tools its policy grants, counts the tokens checked,
// and puts new scopes and policies in force on a reload.
func TestOAuthServed(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	b64 := base64.RawURLEncoding.EncodeToString
	set, _ := json.Marshal(map[string]any{"keys": []map[string]string{
		{"kty": "RSA", "kid": "k1", "n": b64(key.N.Bytes()), "e": b64(big.NewInt(int64(key.E)).Bytes())}}})
	jwks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(set) }))
	defer jwks.Close()
	cfg := oauthConfig(t, jwks.URL, "    required_scopes: [tools.call]\n  policies:\n    - {scope: tools.call, allow: ['calc:add']}\n")
	s, addr := running(t, cfg)
	base := "http://" + addr
	mint := func(scope string) string {
		tok := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.MapClaims{"sub": "ann", "iss": authServerURL, "aud": base + mcpface.Path,
			"scope": scope, "exp": time.Now().Add(time.Hour).Unix()})
		tok.Header["kid"] = "k1"
		out, err := tok.SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, p := range []string{mcpface.MetadataPath, mcpface.MetadataPath + mcpface.Path} {
		code, body := getBody(t, base+p)
		if code != 200 || !strings.Contains(body, `"resource": "`+base+`/mcp"`) || !strings.Contains(body, authServerURL) {
			t.Errorf("%s: %d %s", p, code, body)
		}
	}
	post := func(token string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("POST", base+mcpface.Path, strings.NewReader(
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res
	}
	res := post("")
	if want := `resource_metadata="` + base + mcpface.MetadataPath + mcpface.Path + `"`; res.StatusCode != 401 || !strings.Contains(res.Header.Get("WWW-Authenticate"), want) {
		t.Errorf("no token: %d %q, want 401 with %s", res.StatusCode, res.Header.Get("WWW-Authenticate"), want)
	}

	agent, err := refagent.New(refagent.Options{ID: "calc", Dialect: "swarm", Tools: []string{"add", "echo"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = agent.Connect(ctx, "ws://"+addr, "") }()
	t.Cleanup(func() { cancel(); <-done })
	eventually(t, "calc is connected", func() bool { a, ok := s.Bridge().Agent("calc"); return ok && a.Connected })

	token := mint("tools.call")
	transport := &sdk.StreamableClientTransport{Endpoint: base + mcpface.Path, HTTPClient: &http.Client{Transport: bearer(token)}}
	cctx, ccancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer ccancel()
	session, err := sdk.NewClient(&sdk.Implementation{Name: "server-test", Version: "1"}, nil).Connect(cctx, transport, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	tools, err := session.ListTools(cctx, nil)
	if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "calc__add" {
		t.Fatalf("tools/list: %v %+v", err, tools)
	}
	call, err := session.CallTool(cctx, &sdk.CallToolParams{Name: "calc__add", Arguments: map[string]any{"a": 2, "b": 40}})
	if err != nil || call.IsError {
		t.Fatalf("tools/call: %v %+v", err, call)
	}
	if _, metrics := getBody(t, base+"/metrics"); !strings.Contains(metrics, `bridge_auth_total{method="oauth",result="ok"}`) {
		t.Error("the access tokens checked are not counted")
	}

	next := oauthConfig(t, jwks.URL, "    required_scopes: [tools.admin]\n")
	next.Listen = cfg.Listen
	if err := s.Reload(next); err != nil {
		t.Fatal(err)
	}
	if res := post(token); res.StatusCode != 403 || !strings.Contains(res.Header.Get("WWW-Authenticate"), `scope="tools.admin"`) {
		t.Errorf("after the reload: %d %q, want 403 for tools.admin", res.StatusCode, res.Header.Get("WWW-Authenticate"))
	}
	if res := post(mint("tools.admin")); res.StatusCode != 200 {
		t.Errorf("after the reload, a token of tools.admin: %d", res.StatusCode)
	}
}

// getBody GETs url, returning the status and the body.
func getBody(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body)
}

// bearer adds "Authorization: Bearer token" to every request.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}
