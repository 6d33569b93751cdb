package config

import (
	"fmt"
	"math"
	"net"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/transports/reach"
)

// The checks of scalar values the spec names. Each says what is wrong
// with the value, the value quoted, or "".

// checkListen checks a listen address, host:port.
func checkListen(s string) string {
	_, port, err := net.SplitHostPort(s)
	if err != nil {
		problem := err.Error()
		if ae, ok := err.(*net.AddrError); ok {
			problem = ae.Err
		}
		return fmt.Sprintf("%q is not host:port: %s", s, problem)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return fmt.Sprintf("%q is not host:port: port %q is not a number from 0 to 65535", s, port)
	}
	return ""
}

// checkNATSURLs checks NATS URLs, comma-separated.
func checkNATSURLs(s string) string {
	for _, u := range strings.Split(s, ",") {
		if problem := reach.CheckURL(strings.TrimSpace(u), "nats", "tls"); problem != "" {
			return problem
		}
	}
	return ""
}

// checkInstanceName checks a cluster instance's name, a NATS subject token.
func checkInstanceName(s string) string {
	if strings.ContainsAny(s, ".*> \t") {
		return fmt.Sprintf("%q has a character NATS subjects cannot hold (. * > or a space)", s)
	}
	return ""
}

// checkSubjectPrefix checks the cluster's NATS subject prefix.
func checkSubjectPrefix(s string) string {
	if strings.ContainsAny(s, "*> \t") || strings.HasPrefix(s, ".") || strings.HasSuffix(s, ".") {
		return fmt.Sprintf("%q is not a NATS subject prefix", s)
	}
	return ""
}

// checkPattern checks an expose pattern: AGENT or AGENT:TOOL, globs as
// path.Match reads them.
func checkPattern(p string) string {
	for _, g := range strings.SplitN(p, ":", 2) {
		if g == "" {
			return fmt.Sprintf("%q: an empty pattern (want AGENT or AGENT:TOOL)", p)
		}
		if _, err := path.Match(g, ""); err != nil {
			return fmt.Sprintf("%q is not a glob pattern: %v", p, err)
		}
	}
	return ""
}

// checkRatio checks a fraction from 0 to 1.
func checkRatio(s string) string {
	if x, err := strconv.ParseFloat(s, 64); err != nil || x < 0 || x > 1 {
		return fmt.Sprintf("%q is not a fraction from 0 to 1", s)
	}
	return ""
}

// checkToolPattern checks a tool pattern of mcp.policies and
// mcp.limits.per_tool: AGENT:TOOL, or a glob of MCP tool names.
func checkToolPattern(p string) string {
	if strings.Contains(p, ":") {
		return checkPattern(p)
	}
	if p == "" {
		return fmt.Sprintf("%q: an empty pattern (want AGENT:TOOL or a tool name glob)", p)
	}
	if _, err := path.Match(p, ""); err != nil {
		return fmt.Sprintf("%q is not a glob pattern: %v", p, err)
	}
	return ""
}

// checkJWKSURL checks the URL of a JWKS: https://, or http:// on a
// loopback host.
func checkJWKSURL(s string) string {
	if problem := reach.CheckHTTPURL(s); problem != "" {
		return problem
	}
	u, _ := url.Parse(s)
	if u.Scheme == "http" && !loopbackHost(u.Hostname()) {
		return fmt.Sprintf("%q: http:// only on loopback; keys from elsewhere come over https://", s)
	}
	return ""
}

// checkRate checks a rate: N/s, N/m or N/h.
func checkRate(s string) string {
	if _, ok := ParseRate(s); !ok {
		return fmt.Sprintf("%q is not a rate (a number of calls more than 0, then /s, /m or /h: 20/s)", s)
	}
	return ""
}

// ParseRate reads a rate, N/s, N/m or N/h, as events a second; ok is
// false when s is not one.
func ParseRate(s string) (perSecond float64, ok bool) {
	num, unit, found := strings.Cut(s, "/")
	if !found {
		return 0, false
	}
	n, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || n <= 0 || math.IsInf(n, 0) {
		return 0, false
	}
	switch strings.TrimSpace(unit) {
	case "s":
		return n, true
	case "m":
		return n / 60, true
	case "h":
		return n / 3600, true
	}
	return 0, false
}
