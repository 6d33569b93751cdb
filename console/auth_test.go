package console_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/server"
)

// TestTokens: with a token for every agent in mcp.tokens, the console asks
// for it: a browser logs in once (a form, or a link) and gets a cookie
// that is not the token; a program sends it as a bearer token; a token
// limited to some agents, a wrong one or none are refused.
func TestTokens(t *testing.T) {
	h := start(t, func(c *config.Config) {
		c.MCP.Tokens = []config.MCPToken{{Token: "all-of-it"}, {Token: "just-one", Agents: []string{"jules"}}}
	})
	if status, body := h.do("GET", "/ui/api/agents", nil); status != http.StatusUnauthorized || !strings.Contains(string(body), "/ui/login") {
		t.Errorf("no token: %d %s", status, body)
	}
	for _, token := range []string{"just-one", "nope"} {
		if status, body := h.do("GET", "/ui/api/agents", nil, "Authorization", "Bearer "+token); status != http.StatusUnauthorized {
			t.Errorf("bearer %s: %d %s", token, status, body)
		}
	}
	if status, body := h.do("GET", "/ui/api/agents", nil, "Authorization", "Bearer all-of-it"); status != http.StatusOK {
		t.Errorf("bearer all-of-it: %d %s", status, body)
	}
	resp := h.get(t, "/ui/")
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/ui/login" {
		t.Errorf("the page without a login: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp := h.get(t, "/ui/login"); resp.StatusCode != http.StatusOK {
		t.Errorf("the login form: %d", resp.StatusCode)
	}
	if resp := h.get(t, "/ui/static/console.css"); resp.StatusCode != http.StatusOK {
		t.Errorf("the login form's style: %d", resp.StatusCode)
	}

	for _, bad := range []string{"nope", "just-one", ""} {
		resp := h.postForm(t, "/ui/login", url.Values{"token": {bad}})
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/ui/login?failed=1" || len(resp.Cookies()) > 0 {
			t.Errorf("log in with %q: %d to %q, cookies %v", bad, resp.StatusCode, resp.Header.Get("Location"), resp.Cookies())
		}
	}
	for name, resp := range map[string]*http.Response{
		"form": h.postForm(t, "/ui/login", url.Values{"token": {"all-of-it"}}),
		"link": h.get(t, "/ui/login?token=all-of-it"),
	} {
		cookies := resp.Cookies()
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/ui/" || len(cookies) != 1 {
			t.Fatalf("log in by %s: %d to %q, cookies %v", name, resp.StatusCode, resp.Header.Get("Location"), cookies)
		}
		c := cookies[0]
		if strings.Contains(c.Value, "all-of-it") || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/ui/" {
			t.Errorf("log in by %s: cookie %+v", name, c)
		}
		if status, body := h.do("GET", "/ui/api/agents", nil, "Cookie", c.Name+"="+c.Value); status != http.StatusOK {
			t.Errorf("with the cookie of the %s: %d %s", name, status, body)
		}
		if status, body := h.do("GET", "/ui/", nil, "Cookie", c.Name+"="+c.Value); status != http.StatusOK || !strings.Contains(string(body), "mcp-bridge") {
			t.Errorf("the page with the cookie of the %s: %d", name, status)
		}
	}
	if status, _ := h.do("GET", "/ui/api/agents", nil, "Cookie", "mcp_bridge_console=00ff"); status != http.StatusUnauthorized {
		t.Errorf("a forged cookie: %d", status)
	}
	out := h.get(t, "/ui/logout")
	if len(out.Cookies()) != 1 || out.Cookies()[0].MaxAge >= 0 {
		t.Errorf("log out: cookies %v", out.Cookies())
	}
}

// TestOpenConsole: without tokens the console is open on a loopback
// listener, to requests addressed to a loopback host only (a DNS name
// rebound to 127.0.0.1 is not one); its login page sends a browser on.
func TestOpenConsole(t *testing.T) {
	h := start(t, nil)
	for _, host := range []string{"localhost:7300", "127.0.0.1", "[::1]:80"} {
		if status, body := h.do("GET", "/ui/api/overview", nil, "Host", host); status != http.StatusOK {
			t.Errorf("Host %s: %d %s", host, status, body)
		}
	}
	req, _ := http.NewRequest("GET", h.url("/ui/api/overview"), nil)
	req.Host = "evil.example:7300"
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "loopback host") {
		t.Errorf("Host evil.example: %d %s", resp.StatusCode, body)
	}
	if resp := h.get(t, "/ui/login"); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/ui/" {
		t.Errorf("the login page of an open console: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
}

// TestServerConsole: the server mounts the console as the config says:
// on by default on a loopback listener, off by default on another without
// a token, and an error when enabled there without one.
func TestServerConsole(t *testing.T) {
	yes, no := true, false
	log := slog.New(slog.DiscardHandler)
	for _, c := range []struct {
		name    string
		listen  string
		enabled *bool
		tokens  []config.MCPToken
		on      bool
		err     string
	}{
		{"loopback", "127.0.0.1:0", nil, nil, true, ""},
		{"loopback, off", "127.0.0.1:0", &no, nil, false, ""},
		{"elsewhere", "0.0.0.0:0", nil, []config.MCPToken{{Token: "t", Agents: []string{"a"}}}, false, ""},
		{"elsewhere, a token for all", "0.0.0.0:0", nil, []config.MCPToken{{Token: "t"}}, true, ""},
		{"elsewhere, enabled", "0.0.0.0:0", &yes, []config.MCPToken{{Token: "t", Agents: []string{"a"}}}, false, "ui.enabled: the console on a listener that is not loopback"},
	} {
		cfg := config.Default()
		cfg.Listen, cfg.UI.Enabled, cfg.MCP.Tokens = c.listen, c.enabled, c.tokens
		srv, err := server.New(cfg, nil, log)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %v, want an error saying %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/ui/static/console.css", nil)
		srv.Handler().ServeHTTP(rec, req)
		if on := srv.Console() != nil; on != c.on || (rec.Code == http.StatusOK) != c.on {
			t.Errorf("%s: console %v, /ui/ answers %d; want on %v", c.name, on, rec.Code, c.on)
		}
		if srv.Console() != nil {
			srv.Console().Close()
		}
		_ = srv.Bridge().Shutdown(context.Background())
	}
}

func (h *harness) get(t *testing.T, path string) *http.Response {
	t.Helper()
	resp, err := noRedirects.Get(h.url(path))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

func (h *harness) postForm(t *testing.T, path string, v url.Values) *http.Response {
	t.Helper()
	resp, err := noRedirects.PostForm(h.url(path), v)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}
