package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/internal/spec"
	"github.com/mcp-bridge/mcp-bridge/transports/reach"
)

// The checks across keys, run once an object's keys are decoded and
// their defaults filled in. Each reports at the line of the key at fault.

// notMore checks that the duration lo is not more than hi.
func notMore(lo, hi string) func(d *spec.Decoder, v *spec.Value) {
	return func(d *spec.Decoder, v *spec.Value) {
		l, h := v.Get(lo), v.Get(hi)
		if l != nil && h != nil && l.Duration() > h.Duration() {
			d.Fail(v.Pos(), v.Path(), "%s %s is more than %s %s", lo, spec.FormatDuration(l.Duration()), hi, spec.FormatDuration(h.Duration()))
		}
	}
}

// checkFixedDialect checks that an agent reached a way whose agents speak
// the transport's own protocol (an MCP server) has no dialect.
func checkFixedDialect(d *spec.Decoder, v *spec.Value) {
	dialect := v.Get("dialect")
	if dialect == nil {
		return
	}
	if w := fixedWay(v); w != nil {
		d.Fail(dialect.Pos(), dialect.Path(), "%s (%s:) speaks %s: it has no dialect", w.Speaker, w.Name, w.Protocol)
	}
}

// fixedWay returns the way the agent entry v is written with, when its
// agents have a dialect of their own (package reach); nil otherwise.
func fixedWay(v *spec.Value) *reach.Way {
	for _, w := range reach.Ways() {
		if w.Dialect != "" && v.Wrote(w.Name) {
			return w
		}
	}
	return nil
}

// checkBridgeID checks that no agent has the bridge's own id.
func checkBridgeID(d *spec.Decoder, root *spec.Value) {
	own := root.Str("bridge_id")
	for _, a := range root.List("agents") {
		if id := a.Get("id"); id != nil && id.String() == own {
			d.Fail(id.Pos(), id.Path(), "%q is the bridge's own id (bridge_id)", own)
		}
	}
}

// checkMCPTokens checks that the MCP face has tokens when the listener is
// not loopback.
func checkMCPTokens(d *spec.Decoder, root *spec.Value) {
	m := root.Get("mcp")
	if !m.Bool("enabled") || m.Has("tokens") || m.Has("oauth") || root.Get("auth").Has("jwt") || Loopback(root.Str("listen")) {
		return
	}
	at, key := m.Pos(), "mcp.tokens"
	if !m.Given() {
		at, key = root.Get("listen").Pos(), "listen"
	}
	d.Fail(at, key, "the MCP face on a listener that is not loopback (%s) needs mcp.tokens or mcp.oauth (or auth.jwt), or mcp.enabled: false", root.Str("listen"))
}

// checkA2ATokens checks that the A2A face has tokens when the listener is
// not loopback: mcp.tokens, or auth.jwt (it takes no OAuth access tokens).
func checkA2ATokens(d *spec.Decoder, root *spec.Value) {
	enabled := root.Get("a2a").Get("enabled")
	if enabled == nil || !enabled.Boolean() || root.Get("mcp").Has("tokens") || root.Get("auth").Has("jwt") || Loopback(root.Str("listen")) {
		return
	}
	d.Fail(enabled.Pos(), enabled.Path(), "the A2A face on a listener that is not loopback (%s) needs mcp.tokens (or auth.jwt), or a2a.enabled: false", root.Str("listen"))
}

// checkUITokens checks that a console enabled on a listener that is not
// loopback has a token to ask for: one of mcp.tokens that names no agents.
func checkUITokens(d *spec.Decoder, root *spec.Value) {
	u := root.Get("ui")
	enabled := u.Get("enabled")
	if enabled == nil || !enabled.Boolean() || Loopback(root.Str("listen")) || hasTokenForAll(root) {
		return
	}
	d.Fail(enabled.Pos(), enabled.Path(), "the console on a listener that is not loopback (%s) needs a token for every agent: an entry of mcp.tokens without agents, or ui.enabled: false", root.Str("listen"))
}

// hasTokenForAll reports whether mcp.tokens has a token that names no
// agents.
func hasTokenForAll(root *spec.Value) bool {
	for _, t := range root.Get("mcp").List("tokens") {
		if !t.Has("agents") {
			return true
		}
	}
	return false
}

// checkDialects checks every agent's dialect against known, the dialects
// there are: an agent other than an MCP server must have one, and one
// that is known. With known nil, only that it has one.
func checkDialects(d *spec.Decoder, root *spec.Value, known []string) {
	names := slices.Sorted(slices.Values(known))
	for _, a := range root.List("agents") {
		if fixedWay(a) != nil {
			continue
		}
		dialect := a.Get("dialect")
		switch {
		case dialect == nil && a.Wrote("dialect"):
		case dialect == nil && known == nil:
			d.Fail(a.Pos(), spec.Join(a.Path(), "dialect"), "missing: every agent has a dialect")
		case dialect == nil:
			d.Fail(a.Pos(), spec.Join(a.Path(), "dialect"), "missing: every agent has a dialect (known: %s)", strings.Join(names, ", "))
		case known != nil && !slices.Contains(known, dialect.String()):
			d.Fail(dialect.Pos(), dialect.Path(), "%s", unknownDialect(dialect.String(), names))
		}
	}
}

// unknownDialect is the problem of a dialect not among names (sorted).
func unknownDialect(dialect string, names []string) string {
	return fmt.Sprintf("unknown dialect %q (known: %s)", dialect, strings.Join(names, ", "))
}

// checkJWT checks that auth.jwt has a key to verify with, and one to sign
// with when it signs.
func checkJWT(d *spec.Decoder, v *spec.Value) {
	if !v.Wrote("hs256_secret") && !v.Wrote("public_keys") && !v.Wrote("jwks_file") {
		d.Fail(v.Pos(), v.Path(), "names no key to verify tokens with: give hs256_secret, public_keys or jwks_file")
	}
	if s := v.Get("sign"); s != nil && !s.Wrote("key") && !v.Wrote("hs256_secret") {
		d.Fail(s.Pos(), s.Path(), "names no key to sign with: give sign.key (a PEM private key), or hs256_secret for HS256")
	}
}

// checkTLS checks that the listener's certificate and key go together,
// and that client certificates are asked for only on a TLS listener.
func checkTLS(d *spec.Decoder, v *spec.Value) {
	cert, key := v.Get("cert"), v.Get("key")
	switch {
	case cert != nil && key == nil:
		d.Fail(cert.Pos(), cert.Path(), "needs its key: give tls.key too")
	case key != nil && cert == nil:
		d.Fail(key.Pos(), key.Path(), "needs its certificate: give tls.cert too")
	}
	if ca := v.Get("client_ca"); ca != nil && cert == nil {
		d.Fail(ca.Pos(), ca.Path(), "client certificates need TLS on the listener: give tls.cert and tls.key")
	}
}

// checkOAuthIssuer checks that mcp.oauth has an issuer to hold tokens to:
// its own, or its one authorization server.
func checkOAuthIssuer(d *spec.Decoder, v *spec.Value) {
	if v.Has("issuer") || !v.Has("authorization_servers") || len(v.Strs("authorization_servers")) == 1 {
		return
	}
	d.Fail(v.Pos(), spec.Join(v.Path(), "issuer"), "missing: with several authorization_servers, say which issuer tokens must name")
}

// checkOneClaim checks that a policy's claim names one claim.
func checkOneClaim(d *spec.Decoder, v *spec.Value) {
	if n := len(v.Items()); n != 1 {
		d.Fail(v.Pos(), v.Path(), "names %d claims; give one: {claim: value}", n)
	}
}
