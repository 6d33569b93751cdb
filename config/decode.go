package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// decoder walks one file's YAML nodes, collecting every problem.
type decoder struct {
	file     string
	dir      string // the directory relative paths are joined to
	dialects []string
	errs     Errors
}

func newDecoder(name string, dialects []string) *decoder {
	return &decoder{file: name, dir: filepath.Dir(name), dialects: dialects}
}

func (d *decoder) fail(line int, key, format string, args ...any) {
	d.errs = append(d.errs, &Error{File: d.file, Line: line, Key: key, Msg: fmt.Sprintf(format, args...)})
}

// sorted returns the problems in line order, those of one line in the
// order found.
func (d *decoder) sorted() Errors {
	d.errs.Sort()
	return d.errs
}

const topKeys = "listen, bridge_id, max_frame, request_timeout, write_timeout, shutdown_timeout, dedupe_window, heartbeat, retry, circuit_breaker, validate, queue, mappings, log, http, mcp, cluster, agents"

func (d *decoder) decode(data []byte) *Config {
	c := &Config{
		Listen:          DefaultListen,
		BridgeID:        DefaultBridgeID,
		MaxFrame:        DefaultMaxFrame,
		RequestTimeout:  DefaultRequestTimeout,
		WriteTimeout:    DefaultWriteTimeout,
		Validate:        DefaultValidate,
		ShutdownTimeout: DefaultShutdownTimeout,
		DedupeWindow:    DefaultDedupeWindow,
		Heartbeat:       DefaultHeartbeat,
		Retry:           DefaultRetry,
		CircuitBreaker:  DefaultCircuitBreaker,
		QueuePerAgent:   DefaultQueuePerAgent,
		QueueTotal:      DefaultQueueTotal,
		LogLevel:        slog.LevelInfo,
		MCP:             DefaultMCP,
		HTTP:            HTTP{ForgetAfter: DefaultForgetAfter},
		File:            d.file,
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			d.fail(1, "", "empty config file")
		} else {
			line, msg := yamlErrLine(err)
			d.fail(line, "", "%s", msg)
		}
		return c
	}
	var more yaml.Node
	if err := dec.Decode(&more); err == nil {
		d.fail(more.Line, "", "a config file is one YAML document")
	} else if !errors.Is(err, io.EOF) {
		line, msg := yamlErrLine(err)
		d.fail(line, "", "%s", msg)
	}
	if len(doc.Content) == 0 {
		d.fail(1, "", "empty config file")
		return c
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		d.fail(root.Line, "", "a config file is a YAML mapping (%s)", topKeys)
		return c
	}
	var agents *yaml.Node
	d.pairs("", root, func(k, v *yaml.Node) {
		switch k.Value {
		case "listen":
			if s, ok := d.scalar(v, "listen", "host:port"); ok {
				if problem := checkListen(s); problem != "" {
					d.fail(v.Line, "listen", "%q is not host:port: %s", s, problem)
				} else {
					c.Listen = s
				}
			}
		case "bridge_id":
			if s, ok := d.scalar(v, "bridge_id", "an agent id"); ok {
				c.BridgeID = s
			}
		case "max_frame":
			if s, ok := d.scalar(v, "max_frame", "a size (1MiB, 65536)"); ok {
				n, problem := parseSize(s)
				if problem != "" {
					d.fail(v.Line, "max_frame", "%s", problem)
				} else {
					c.MaxFrame = n
				}
			}
		case "request_timeout":
			d.duration(v, "request_timeout", &c.RequestTimeout)
		case "write_timeout":
			d.duration(v, "write_timeout", &c.WriteTimeout)
		case "shutdown_timeout":
			d.duration(v, "shutdown_timeout", &c.ShutdownTimeout)
		case "dedupe_window":
			d.durationOrOff(v, "dedupe_window", &c.DedupeWindow)
		case "heartbeat":
			d.durationOrOff(v, "heartbeat", &c.Heartbeat)
		case "validate":
			if s, ok := d.scalar(v, "validate", "schema or decode"); ok {
				switch s {
				case "schema", "decode":
					c.Validate = s
				default:
					d.fail(v.Line, "validate", "%q is not schema or decode", s)
				}
			}
		case "queue":
			d.queue(v, c)
		case "retry":
			d.retry(v, c)
		case "circuit_breaker":
			d.circuitBreaker(v, c)
		case "mappings":
			c.Mappings = d.mappings(v)
		case "log":
			d.log(v, c)
		case "http":
			d.http(v, c)
		case "mcp":
			d.mcp(v, c)
		case "cluster":
			d.cluster(v, c)
		case "agents":
			agents = v
		default:
			d.fail(k.Line, k.Value, "unknown key (want %s)", topKeys)
		}
	})
	// Agents last: their ids are checked against bridge_id wherever it is.
	if agents != nil {
		c.Agents = d.agents(agents, c.BridgeID)
	}
	if c.MCP.Enabled && len(c.MCP.Tokens) == 0 && !Loopback(c.Listen) {
		line, key := c.MCP.Line, "mcp.tokens"
		if line == 0 {
			line, key = d.line("listen", root), "listen"
		}
		d.fail(line, key, "the MCP face on a listener that is not loopback (%s) needs mcp.tokens, or mcp.enabled: false", c.Listen)
	}
	return c
}

// line returns the line of the top-level key in root, or 1.
func (d *decoder) line(key string, root *yaml.Node) int {
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == key {
			return root.Content[i].Line
		}
	}
	return 1
}

func (d *decoder) mappings(n *yaml.Node) []string {
	if n.Kind != yaml.SequenceNode {
		d.fail(n.Line, "mappings", "must be a list of mapping file paths")
		return nil
	}
	var out []string
	seen := map[string]int{}
	for i, pn := range n.Content {
		at := fmt.Sprintf("mappings[%d]", i)
		p, ok := d.scalar(pn, at, "a mapping file path")
		if !ok {
			continue
		}
		p = d.path(p)
		if first, dup := seen[p]; dup {
			d.fail(pn.Line, at, "%s is listed twice (first at line %d)", p, first)
			continue
		}
		seen[p] = pn.Line
		out = append(out, p)
	}
	return out
}

var logLevels = map[string]slog.Level{
	"debug": slog.LevelDebug,
	"info":  slog.LevelInfo,
	"warn":  slog.LevelWarn,
	"error": slog.LevelError,
}

func (d *decoder) log(n *yaml.Node, c *Config) {
	if !d.mapping(n, "log", "level") {
		return
	}
	d.pairs("log.", n, func(k, v *yaml.Node) {
		if k.Value != "level" {
			d.fail(k.Line, "log."+k.Value, "unknown key (want level)")
			return
		}
		s, ok := d.scalar(v, "log.level", "a log level (debug, info, warn, error)")
		if !ok {
			return
		}
		l, known := logLevels[s]
		if !known {
			d.fail(v.Line, "log.level", "%q is not a log level (want debug, info, warn, error)", s)
			return
		}
		c.LogLevel = l
	})
}

// queue reads the outbound queues' bounds: per_agent and total, positive
// whole numbers.
func (d *decoder) queue(n *yaml.Node, c *Config) {
	if !d.mapping(n, "queue", "per_agent, total") {
		return
	}
	d.pairs("queue.", n, func(k, v *yaml.Node) {
		at := "queue." + k.Value
		var dst *int
		switch k.Value {
		case "per_agent":
			dst = &c.QueuePerAgent
		case "total":
			dst = &c.QueueTotal
		default:
			d.fail(k.Line, at, "unknown key (want per_agent, total)")
			return
		}
		s, ok := d.scalar(v, at, "a positive whole number")
		if !ok {
			return
		}
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			d.fail(v.Line, at, "%q is not a positive whole number", s)
			return
		}
		*dst = n
	})
}

// path joins a relative path to the config file's directory.
func (d *decoder) path(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(d.dir, p)
}

// pairs calls fn for each key and value of a mapping node, refusing
// duplicate and non-scalar keys.
func (d *decoder) pairs(prefix string, n *yaml.Node, fn func(k, v *yaml.Node)) {
	seen := make(map[string]int, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			d.fail(k.Line, strings.TrimSuffix(prefix, "."), "keys must be plain words")
			continue
		}
		if first, dup := seen[k.Value]; dup {
			d.fail(k.Line, prefix+k.Value, "duplicate key (first at line %d)", first)
			continue
		}
		seen[k.Value] = k.Line
		fn(k, deref(v))
	}
}

// deref follows a YAML alias (*name) to the node it names.
func deref(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// mapping checks that n is a mapping, naming the keys it may hold.
func (d *decoder) mapping(n *yaml.Node, key, keys string) bool {
	if n.Kind != yaml.MappingNode {
		d.fail(n.Line, key, "must be a mapping (%s)", keys)
		return false
	}
	return true
}

// scalar returns n's text, with ${VAR} replaced by the environment,
// failing when n is not a non-empty scalar.
func (d *decoder) scalar(n *yaml.Node, key, what string) (string, bool) {
	n = deref(n)
	if n.Kind != yaml.ScalarNode || n.Value == "" || n.Tag == "!!null" {
		d.fail(n.Line, key, "must be %s", what)
		return "", false
	}
	s, problem := expandEnv(n.Value)
	if problem != "" {
		d.fail(n.Line, key, "%s", problem)
		return "", false
	}
	return s, true
}

// http reads the http section.
func (d *decoder) http(n *yaml.Node, c *Config) {
	if !d.mapping(n, "http", "forget_after") {
		return
	}
	d.pairs("http.", n, func(k, v *yaml.Node) {
		switch k.Value {
		case "forget_after":
			if s, ok := d.scalar(v, "http.forget_after", "a duration (10m), or 0 for never"); ok && s == "0" {
				c.HTTP.ForgetAfter = 0
				return
			}
			d.duration(v, "http.forget_after", &c.HTTP.ForgetAfter)
		default:
			d.fail(k.Line, "http."+k.Value, "unknown key (want forget_after)")
		}
	})
}

// words reads a list of non-empty, distinct strings.
func (d *decoder) words(n *yaml.Node, key, what string) []string {
	if n.Kind != yaml.SequenceNode {
		d.fail(n.Line, key, "must be a list of %ss", what)
		return nil
	}
	out := make([]string, 0, len(n.Content))
	seen := map[string]int{}
	for i, wn := range n.Content {
		at := fmt.Sprintf("%s[%d]", key, i)
		w, ok := d.scalar(wn, at, "a "+what)
		if !ok {
			continue
		}
		if first, dup := seen[w]; dup {
			d.fail(wn.Line, at, "%q is listed twice (first at line %d)", w, first)
			continue
		}
		seen[w] = wn.Line
		out = append(out, w)
	}
	return out
}

// duration reads a positive Go duration into *dst.
func (d *decoder) duration(n *yaml.Node, key string, dst *time.Duration) bool {
	s, ok := d.scalar(n, key, "a duration (30s, 500ms, 2m)")
	if !ok {
		return false
	}
	v, problem := parseDuration(s)
	if problem != "" {
		d.fail(n.Line, key, "%s", problem)
		return false
	}
	*dst = v
	return true
}

// durationOrOff reads a duration into *dst, where 0 (0s) turns the
// feature off.
func (d *decoder) durationOrOff(n *yaml.Node, key string, dst *time.Duration) {
	if s, ok := d.scalar(n, key, "a duration (30s, 500ms, 2m), or 0s for off"); ok {
		if v, err := time.ParseDuration(s); err == nil && v == 0 || s == "0" {
			*dst = 0
			return
		}
	} else {
		return
	}
	d.duration(n, key, dst)
}

// yamlErrLine splits a yaml.v3 syntax error into its line and message.
func yamlErrLine(err error) (int, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	var line int
	if _, e := fmt.Sscanf(msg, "line %d:", &line); e == nil {
		_, rest, _ := strings.Cut(msg, ": ")
		return line, rest
	}
	return 1, msg
}
