package config

import (
	"fmt"
	"slices"
	"strings"
)

// The checks across keys, run once an object's keys are decoded and
// their defaults filled in. Each reports at the line of the key at fault.

// notMore checks that the duration lo is not more than hi.
func notMore(lo, hi string) func(d *decoder, v *value) {
	return func(d *decoder, v *value) {
		l, h := v.get(lo), v.get(hi)
		if l != nil && h != nil && l.d > h.d {
			d.fail(v.line, v.path, "%s %s is more than %s %s", lo, formatDuration(l.d), hi, formatDuration(h.d))
		}
	}
}

// checkProgram checks that a command names a program.
func checkProgram(d *decoder, v *value) {
	if len(v.items) > 0 && v.items[0].s == "" && v.items[0].path == v.path+"[0]" {
		d.fail(v.items[0].line, v.items[0].path, "must be the program to run")
	}
}

// checkMCPAgent checks that an MCP server agent has no dialect: it speaks
// MCP.
func checkMCPAgent(d *decoder, v *value) {
	if dialect := v.get("dialect"); dialect != nil && v.wrote("mcp") {
		d.fail(dialect.line, dialect.path, "an MCP server (mcp:) speaks MCP: it has no dialect")
	}
}

// checkBridgeID checks that no agent has the bridge's own id.
func checkBridgeID(d *decoder, root *value) {
	own := root.str("bridge_id")
	for _, a := range root.list("agents") {
		if id := a.get("id"); id != nil && id.s == own {
			d.fail(id.line, id.path, "%q is the bridge's own id (bridge_id)", own)
		}
	}
}

// checkMCPTokens checks that the MCP face has tokens when the listener is
// not loopback.
func checkMCPTokens(d *decoder, root *value) {
	m := root.get("mcp")
	if !m.bool("enabled") || m.has("tokens") || root.get("auth").has("jwt") || Loopback(root.str("listen")) {
		return
	}
	line, key := m.line, "mcp.tokens"
	if !m.given {
		line, key = root.get("listen").line, "listen"
	}
	d.fail(line, key, "the MCP face on a listener that is not loopback (%s) needs mcp.tokens (or auth.jwt), or mcp.enabled: false", root.str("listen"))
}

// checkUITokens checks that a console enabled on a listener that is not
// loopback has a token to ask for: one of mcp.tokens that names no agents.
func checkUITokens(d *decoder, root *value) {
	u := root.get("ui")
	enabled := u.get("enabled")
	if enabled == nil || !enabled.b || Loopback(root.str("listen")) || hasTokenForAll(root) {
		return
	}
	d.fail(enabled.line, enabled.path, "the console on a listener that is not loopback (%s) needs a token for every agent: an entry of mcp.tokens without agents, or ui.enabled: false", root.str("listen"))
}

// hasTokenForAll reports whether mcp.tokens has a token that names no
// agents.
func hasTokenForAll(root *value) bool {
	for _, t := range root.get("mcp").list("tokens") {
		if !t.has("agents") {
			return true
		}
	}
	return false
}

// checkDialects checks every agent's dialect against known, the dialects
// there are: an agent other than an MCP server must have one, and one
// that is known. With known nil, only that it has one.
func checkDialects(d *decoder, root *value, known []string) {
	names := slices.Sorted(slices.Values(known))
	for _, a := range root.list("agents") {
		if a.wrote("mcp") {
			continue
		}
		dialect := a.get("dialect")
		switch {
		case dialect == nil && a.wrote("dialect"):
		case dialect == nil && known == nil:
			d.fail(a.line, join(a.path, "dialect"), "missing: every agent has a dialect")
		case dialect == nil:
			d.fail(a.line, join(a.path, "dialect"), "missing: every agent has a dialect (known: %s)", strings.Join(names, ", "))
		case known != nil && !slices.Contains(known, dialect.s):
			d.fail(dialect.line, dialect.path, "%s", unknownDialect(dialect.s, names))
		}
	}
}

// unknownDialect is the problem of a dialect not among names (sorted).
func unknownDialect(dialect string, names []string) string {
	return fmt.Sprintf("unknown dialect %q (known: %s)", dialect, strings.Join(names, ", "))
}

// checkJWT checks that auth.jwt has a key to verify with, and one to sign
// with when it signs.
func checkJWT(d *decoder, v *value) {
	if !v.wrote("hs256_secret") && !v.wrote("public_keys") && !v.wrote("jwks_file") {
		d.fail(v.line, v.path, "names no key to verify tokens with: give hs256_secret, public_keys or jwks_file")
	}
	if s := v.get("sign"); s != nil && !s.wrote("key") && !v.wrote("hs256_secret") {
		d.fail(s.line, s.path, "names no key to sign with: give sign.key (a PEM private key), or hs256_secret for HS256")
	}
}

// checkTLS checks that the listener's certificate and key go together,
// and that client certificates are asked for only on a TLS listener.
func checkTLS(d *decoder, v *value) {
	cert, key := v.get("cert"), v.get("key")
	switch {
	case cert != nil && key == nil:
		d.fail(cert.line, cert.path, "needs its key: give tls.key too")
	case key != nil && cert == nil:
		d.fail(key.line, key.path, "needs its certificate: give tls.cert too")
	}
	if ca := v.get("client_ca"); ca != nil && cert == nil {
		d.fail(ca.line, ca.path, "client certificates need TLS on the listener: give tls.cert and tls.key")
	}
}
