package e2e

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/mcp-bridge/mcp-bridge/internal/testpki"
	"github.com/mcp-bridge/mcp-bridge/trust"
	"github.com/tidwall/gjson"
)

const (
	jwtSecret = "an-hs256-secret-of-32-bytes-ok!!"
	jwtIssuer = "https://issuer.example"
	jwtAud    = "mcp-bridge"
)

// jwtConfig is a serve config verifying HS256 tokens and the ES256 tokens
// of key, with the test's issuer and audience, and more (YAML lines under
// auth.jwt).
func jwtConfig(t *testing.T, es256 []byte, more string) *config.Config {
	t.Helper()
	dir := t.TempDir()
	pub := testpki.Write(t, dir, "agents.pem", es256)
	text := fmt.Sprintf("auth:\n  jwt:\n    hs256_secret: %s\n    public_keys: [%s]\n    issuer: %s\n    audience: %s\n%s",
		jwtSecret, pub, jwtIssuer, jwtAud, more)
	path := filepath.Join(dir, "serve.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.LoadAll(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// claims returns good claims for sub, changed by edits (a nil value
// removes the claim).
func claims(sub string, edits map[string]any) testpki.Claims {
	c := testpki.Good(sub, jwtIssuer, jwtAud)
	for k, v := range edits {
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
	}
	return c
}

// TestJWT: tokens are verified however they are presented (a bearer
// header or ?token= on WebSocket, a bearer header on HTTP and MCP, the
// authentication member of a fuse message). A good one, HS256 or ES256,
// binds its subject; every bad one is refused with the dialect's
// unauthorized error, counted by its reason, and what it carried goes
// nowhere.
func TestJWT(t *testing.T) {
	key := testpki.ECKey(t)
	h := start(t, jwtConfig(t, testpki.PublicPEM(t, &key.PublicKey), ""))
	receiver := h.dial("swarm", "swarm-agent")
	h.dial("swarm", "sink")
	hour := time.Now().Add(time.Hour).Unix()
	bad := []struct {
		reason string
		token  string
	}{
		{"expired", testpki.HS256(t, jwtSecret, claims("eddy", map[string]any{"exp": time.Now().Add(-time.Hour).Unix()}))},
		{"not_yet_valid", testpki.ES256(t, key, claims("eddy", map[string]any{"nbf": hour}))},
		{"audience", testpki.HS256(t, jwtSecret, claims("eddy", map[string]any{"aud": "another-service"}))},
		{"issuer", testpki.ES256(t, key, claims("eddy", map[string]any{"iss": "https://evil.example"}))},
		{"signature", testpki.HS256(t, "not-the-secret-but-as-long-as-it", claims("eddy", nil))},
		{"signature", testpki.ES256(t, testpki.ECKey(t), claims("eddy", nil))},
		{"algorithm", testpki.None(t, claims("eddy", nil))},
	}
	good := map[string]string{
		"HS256": testpki.HS256(t, jwtSecret, claims("eddy", nil)),
		"ES256": testpki.ES256(t, key, claims("eddy", nil)),
	}
	ways := []struct {
		name string
		// present presents token as eddy (or as who when set) and returns
		// the refusal it got, "" if it was let through.
		present func(t *testing.T, token, who string) string
	}{
		{"websocket bearer", func(t *testing.T, token, who string) string { return h.wsWithToken(t, "swarm", who, token, false) }},
		{"websocket ?token=", func(t *testing.T, token, who string) string { return h.wsWithToken(t, "swarm", who, token, true) }},
		{"http bearer", func(t *testing.T, token, who string) string { return h.postWithToken(t, who, token) }},
		{"fuse authentication member", func(t *testing.T, token, who string) string { return h.fuseMessageToken(t, who, token) }},
		{"mcp bearer", func(t *testing.T, token, _ string) string { return h.mcpWithToken(t, token) }},
	}
	for _, w := range ways {
		t.Run(w.name, func(t *testing.T) {
			for alg, token := range good {
				if refusal := w.present(t, token, "eddy"); refusal != "" {
					t.Errorf("a good %s token was refused: %s", alg, refusal)
				}
			}
			for _, b := range bad {
				before := metricValue(t, h, `bridge_auth_total{method="jwt",result="`+b.reason+`"}`)
				refusal := w.present(t, b.token, "eddy")
				if refusal == "" {
					t.Errorf("%s: let through", b.reason)
					continue
				}
				if after := metricValue(t, h, `bridge_auth_total{method="jwt",result="`+b.reason+`"}`); after != before+1 {
					t.Errorf("%s: counted %v -> %v", b.reason, before, after)
				}
			}
			if w.name != "mcp bearer" {
				// The token names eddy; the connection or message
				// claims jules.
				if refusal := w.present(t, good["HS256"], "jules"); !strings.Contains(refusal, "eddy") {
					t.Errorf("a good token for eddy let jules through: %q", refusal)
				}
			}
		})
	}
	// None of the refused messages reached the receiver: the first frame
	// it sees is the good message sent now.
	eddy := h.dial("fuse", "")
	eddy.send(fuseRequest(t, "eddy", "swarm-agent", "after-refusals", `{"type":"jwt","token":"`+good["ES256"]+`"}`))
	got := receiver.decode(receiver.recv())
	if got.Operation.Name != "after-refusals" || got.Sender.ID != "eddy" {
		t.Fatalf("the receiver's first message is not the good one: %+v", got)
	}
	if got.Authentication != "" {
		t.Errorf("the sender's token was passed on: %s", got.Authentication)
	}
	if m := metricValue(t, h, `bridge_auth_total{method="jwt",result="ok"}`); m < 9 {
		t.Errorf("good tokens counted %v times", m)
	}
	if strings.Contains(h.logs.String(), good["HS256"]) || strings.Contains(h.logs.String(), good["ES256"]) {
		t.Error("a token reached the logs")
	}
}

// TestJWTRequired: with auth.jwt.required, a connection that proves
// nothing is refused (or, for fuse, each of its messages without a
// token), and a static token is not enough; agents the bridge reaches
// itself are trusted as the config names them.
func TestJWTRequired(t *testing.T) {
	key := testpki.ECKey(t)
	cfg := jwtConfig(t, testpki.PublicPEM(t, &key.PublicKey), "    required: true\n")
	cfg.Agents = []config.Agent{{ID: "jules", Dialect: "swarm", Token: "s3cret"}}
	h := start(t, cfg)
	if refusal := h.wsWithToken(t, "swarm", "jules", "s3cret", false); !strings.Contains(refusal, "requires") {
		t.Errorf("a static token on a swarm connection: %q", refusal)
	}
	if refusal := h.postWithToken(t, "eddy", ""); !strings.Contains(refusal, "requires") {
		t.Errorf("an HTTP message without a token: %q", refusal)
	}
	if refusal := h.mcpWithToken(t, ""); !strings.Contains(refusal, "401") {
		t.Errorf("MCP without a token: %q", refusal)
	}
	// fuse carries tokens in its messages: the connection is let in, and
	// each message is checked.
	fuse := h.dial("fuse", "")
	fuse.send(fuseRequest(t, "eddy", "jules", "no-token", ""))
	_, code := asWritten(t, "fuse", canonical.ActRefuse, canonical.ErrUnauthorized)
	if env := fuse.decode(fuse.recv()); env.Error == nil || env.Error.Code != code || !strings.Contains(env.Error.Message, "requires") {
		t.Errorf("a fuse message without a token: %+v", env.Error)
	}
	good := testpki.ES256(t, key, claims("jules", nil))
	if refusal := h.wsWithToken(t, "swarm", "jules", good, false); refusal != "" {
		t.Errorf("jules's token was refused despite its static token: %s", refusal)
	}
}

// TestJWTSign: messages to fuse agents carry a token the bridge minted:
// its issuer the bridge, sub the sender, aud the fuse agent.
func TestJWTSign(t *testing.T) {
	key := testpki.ECKey(t)
	dir := t.TempDir()
	signKey := testpki.ECKey(t)
	keyFile := testpki.Write(t, dir, "bridge.pem", testpki.PrivatePEM(t, signKey))
	h := start(t, jwtConfig(t, testpki.PublicPEM(t, &key.PublicKey), "    sign: {key: "+keyFile+"}\n"))
	fuse := h.dial("fuse", "fuse-agent")
	swarm := h.dial("swarm", "swarm-req")
	swarm.send(swarm.encode(request("swarm", "fuse-agent", "echo", `{"x":1}`, "m-1")))
	env := fuse.decode(fuse.recv())
	token := gjson.Get(string(env.Authentication), "token").String()
	if gjson.Get(string(env.Authentication), "type").String() != "jwt" || token == "" {
		t.Fatalf("the fuse agent's message carries no minted token: %s", env.Authentication)
	}
	v := verifierOf(t, &signKey.PublicKey, "mcp-bridge", "fuse-agent")
	if sub, r := v.Verify(token); r != nil || sub != "swarm-req" {
		t.Errorf("the minted token: %q, %v", sub, r)
	}
}

// wsWithToken connects to /ws/{dialect}?agent=who with token (a bearer
// header, or ?token= with query) and returns the refusal it got: the
// 401's body, or the close reason; "" when the connection was let in and
// bound.
func (h *harness) wsWithToken(t *testing.T, dialect, who, token string, query bool) string {
	t.Helper()
	u := h.wsURL() + "/ws/" + dialect + "?agent=" + url.QueryEscape(who)
	opts := &websocket.DialOptions{HTTPClient: h.httpClient()}
	switch {
	case token == "":
	case query:
		u += "&token=" + url.QueryEscape(token)
	default:
		opts.HTTPHeader = http.Header{"Authorization": {"Bearer " + token}}
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, u, opts)
	if err != nil {
		if resp == nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		return fmt.Sprintf("%d %s", resp.StatusCode, body)
	}
	defer c.CloseNow()
	// A bound connection stays open; a refused binding is closed at once.
	rctx, rcancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer rcancel()
	if _, _, err := c.Read(rctx); err != nil && websocket.CloseStatus(err) != -1 {
		return err.Error()
	}
	c.Close(websocket.StatusNormalClosure, "")
	return ""
}

// postWithToken POSTs a swarm event from who to the agent sink with token as
// a bearer token and returns the refusal: the status and body of anything
// but 202.
func (h *harness) postWithToken(t *testing.T, who, token string) string {
	t.Helper()
	body := fmt.Sprintf(`{"message_id":"p-%d","message_type":"notification","sender_id":%q,"receiver_id":"sink","timestamp":"2026-01-10T14:30:00Z","payload":{"event_type":"ping","data":{}}}`,
		time.Now().UnixNano(), who)
	status, b := h.postBearer(t, "/v1/swarm/messages", body, token)
	if status == http.StatusAccepted {
		return ""
	}
	if status == http.StatusUnauthorized {
		if code := gjson.GetBytes(b, "payload.error_code").String(); code != "UNAUTHORIZED" && code != "PERMISSION_DENIED" {
			t.Errorf("a 401 whose body is not a swarm unauthorized error: %s", b)
		}
	}
	return fmt.Sprintf("%d %s", status, b)
}

// postBearer POSTs the JSON body to path with token as a bearer token
// ("" for none), and returns the response's status and body.
func (h *harness) postBearer(t *testing.T, path, body, token string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, h.httpURL()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := h.httpClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// fuseMessageToken sends, on a fresh fuse connection, a request from who
// to the agent sink carrying token in its authentication member, and
// returns the refusal it got ("" for none within a moment).
func (h *harness) fuseMessageToken(t *testing.T, who, token string) string {
	t.Helper()
	c := h.dial("fuse", "")
	c.send(fuseRequest(t, who, "sink", "ping", `{"type":"jwt","token":"`+token+`"}`))
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, frame, err := c.c.Read(ctx)
	if err != nil {
		return ""
	}
	got := c.decode(frame)
	if _, code := asWritten(t, "fuse", canonical.ActRefuse, canonical.ErrUnauthorized); got.Error == nil || got.Error.Code != code {
		t.Errorf("a refusal that is not fuse's unauthorized error: %s", frame)
	}
	return string(frame)
}

// mcpWithToken initializes an MCP session with token as a bearer token
// and returns the refusal: the status and body of anything but 200.
func (h *harness) mcpWithToken(t *testing.T, token string) string {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	status, b := h.postBearer(t, "/mcp", body, token)
	if status == http.StatusOK {
		return ""
	}
	return fmt.Sprintf("%d %s", status, b)
}

// fuseRequest is a fuse request from sender to receiver for op, with an
// authentication member when auth is set.
func fuseRequest(t *testing.T, sender, receiver, op, auth string) []byte {
	t.Helper()
	codec, _ := builtin.Default().Lookup("fuse")
	env := &canonical.Envelope{Act: canonical.ActRequest, ID: "f-" + strconv.FormatInt(time.Now().UnixNano(), 36),
		Sender: canonical.Party{ID: sender}, Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: receiver},
		Operation: canonical.Operation{Name: op}, Arguments: "{}", Authentication: canonical.JSON(auth)}
	out, err := codec.Encode(nil, env, &dialects.EncodeContext{})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// metricValue returns the value of the series line (name and labels as
// /metrics writes them), 0 when it is not there.
func metricValue(t *testing.T, h *harness, series string) float64 {
	t.Helper()
	return valueIn(t, h.metricsPage(t), series)
}

// valueIn returns the value of the series line in a /metrics page.
func valueIn(t *testing.T, page, series string) float64 {
	t.Helper()
	for _, l := range strings.Split(page, "\n") {
		if v, ok := strings.CutPrefix(l, series+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
	}
	return 0
}

// metricsPage returns the server's /metrics page.
func (h *harness) metricsPage(t *testing.T) string {
	t.Helper()
	// A connection of its own, not kept: the listener counts connections.
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: h.tls, DisableKeepAlives: true}}
	resp, err := client.Get(h.httpURL() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return string(body)
}

// verifierOf checks tokens signed by the key pub, with issuer and
// audience.
func verifierOf(t *testing.T, pub *ecdsa.PublicKey, issuer, audience string) *trust.Verifier {
	t.Helper()
	file := testpki.Write(t, t.TempDir(), "pub.pem", testpki.PublicPEM(t, pub))
	v, err := trust.NewVerifier(&config.JWT{PublicKeys: []string{file}, Issuer: issuer, Audience: audience})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// waitMetric is metricValue once the page can be read: while the
// listener is full, its requests are refused.
func waitMetric(t *testing.T, h *harness, series string) float64 {
	t.Helper()
	v, _ := waitMetricRefused(t, h, series)
	return v
}

// waitMetricRefused is waitMetric, also returning how many of its own
// requests for /metrics were refused on the way (each a connection a
// limit may have counted).
func waitMetricRefused(t *testing.T, h *harness, series string) (float64, int) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for refused := 0; ; refused++ {
		if page := h.metricsPage(t); strings.Contains(page, "bridge_listener_connections") {
			return valueIn(t, page, series), refused
		}
		if time.Now().After(deadline) {
			t.Fatal("/metrics cannot be read")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
