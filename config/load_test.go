package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/dialects"
)

// write writes files into a new directory and returns it.
func write(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestLoadAllEveryMistake: a file with YAML-level mistakes, a broken
// mapping file and an unknown dialect reports all of them in one run; the
// dialect a sound mapping file declares is known although the rest of the
// file is wrong.
func TestLoadAllEveryMistake(t *testing.T) {
	hook, err := filepath.Abs("../examples/hook.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := write(t, map[string]string{
		"broken.yaml": "aliases:\n  swarm: [not, a, mapping]\n",
		"serve.yaml": "listen: nowhere\nmappings: [broken.yaml, " + hook + ", missing.yaml]\nagents:\n" +
			"  - id: H\n    dialect: hook\n" + // declared by hook.yaml: no problem
			"  - id: K\n    dialect: klingon\n    colour: red\n" +
			"  - id: M\n    mcp: {command: [x]}\n    restart_backoff: {min: 1m}\n",
	})
	cfgFile := filepath.Join(dir, "serve.yaml")
	_, err = LoadAll(cfgFile, []string{filepath.Join(dir, "broken.yaml")})
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("got %T %v, want Errors", err, err)
	}
	broken, missing := filepath.Join(dir, "broken.yaml"), filepath.Join(dir, "missing.yaml")
	want := []string{
		broken + ":2: aliases.swarm:",
		broken + ":2: aliases.swarm:", // again, given again with --mapping
		missing + ":1: cannot read the mapping file:",
		cfgFile + `:1: listen: "nowhere" is not host:port: missing port in address`,
		cfgFile + `:7: agents[1].dialect: unknown dialect "klingon" (known: a2a, bluelabel, collab, elizaacl, fuse, hook, swarm)`,
		cfgFile + ":8: agents[1].colour: unknown key",
		cfgFile + ":11: agents[2].restart_backoff: min 1m is more than max 10s",
	}
	if len(es) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%v", len(es), len(want), err)
	}
	for i, e := range es {
		if !strings.HasPrefix(e.Error(), want[i]) {
			t.Errorf("problem %d: %s\nwant %s...", i, e, want[i])
		}
	}
}

// TestLoadAllDeclaredDialect: an agent may speak a dialect its config's
// mapping file declares.
func TestLoadAllDeclaredDialect(t *testing.T) {
	hook, err := filepath.Abs("../examples/hook.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := write(t, map[string]string{"serve.yaml": "mappings: [" + hook + "]\nagents: [{id: H, dialect: hook}]\n"})
	c, err := LoadAll(filepath.Join(dir, "serve.yaml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Agents[0].Dialect != "hook" || c.Mappings[0] != hook {
		t.Errorf("agents %+v, mappings %q", c.Agents, c.Mappings)
	}
}

// TestEffective checks config show's YAML: defaults marked, secrets as
// written, and the same config when read back.
func TestEffective(t *testing.T) {
	t.Setenv("MCP_BRIDGE_TEST_TOKEN", "t0k3n")
	dir := write(t, map[string]string{"serve.yaml": `listen: 0.0.0.0:7300
retry: {max_retries: 5}
mcp:
  tokens: [{token: "${MCP_BRIDGE_TEST_TOKEN}", agents: [A]}]
  call_timeout: 1m30s
agents:
  - id: A
    dialect: swarm
    token: ${MCP_BRIDGE_TEST_TOKEN}
    tools: [a, {name: b, description: Bees., input_schema: {type: object, properties: {n: {type: integer}}}}]
    command: [./a, "123", "true", ""]
    env: {KEY: "${MCP_BRIDGE_TEST_TOKEN}", N: 1}
  - id: M
    mcp: {url: "http://h/mcp", headers: {Authorization: "Bearer ${MCP_BRIDGE_TEST_TOKEN}"}}
`})
	file := filepath.Join(dir, "serve.yaml")
	out, err := Effective(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	for _, want := range []string{
		"listen: 0.0.0.0:7300\n",
		"bridge_id: mcp-bridge # default\n",
		"  max_retries: 5\n  initial_delay: 1s # default\n",
		"circuit_breaker: # default\n  failure_threshold: 5\n",
		"    - token: ${MCP_BRIDGE_TEST_TOKEN}\n",
		"  call_timeout: 1m30s\n",
		"    token: ${MCP_BRIDGE_TEST_TOKEN}\n",
		`    command: [./a, "123", "true", ""]` + "\n",
		"    dir: " + dir + " # default\n",
		"      Authorization: Bearer ${MCP_BRIDGE_TEST_TOKEN}\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("config show lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "t0k3n") {
		t.Errorf("config show wrote a secret:\n%s", text)
	}

	back := filepath.Join(t.TempDir(), "shown.yaml")
	if err := os.WriteFile(back, out, 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := Load(file, dialects.Names())
	if err != nil {
		t.Fatal(err)
	}
	got, err := Load(back, dialects.Names())
	if err != nil {
		t.Fatalf("config show's output does not read back: %v\n%s", err, text)
	}
	for _, c := range []*Config{want, got} {
		c.File, c.MCP.Line, c.UI.Line = "", 0, 0
		for i := range c.Agents {
			c.Agents[i].Line, c.Agents[i].DialectLine = 0, 0
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back:\n got %+v\nwant %+v", got, want)
	}
}

func TestEffectiveDefault(t *testing.T) {
	out, err := Effective("", nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Parse("shown.yaml", out, dialects.Names())
	if err != nil {
		t.Fatal(err)
	}
	d := Default()
	c.File, c.MCP.Line, d.MCP.Line, c.UI.Line, d.UI.Line = "", 0, 0, 0, 0
	if !reflect.DeepEqual(c, d) {
		t.Errorf("config show of the default reads back as\n%+v\nnot\n%+v", c, d)
	}
}

// TestDeployConfig: the config the container image and deploy/compose.yaml
// run on loads, listens off loopback with the MCP face behind the token it
// takes from MCP_TOKEN, and says clearly when that is not set.
func TestDeployConfig(t *testing.T) {
	const path = "../deploy/bridge.yaml"
	t.Setenv("MCP_TOKEN", "deploy-token")
	cfg, err := LoadAll(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Listen != "0.0.0.0:7300" || len(cfg.MCP.Tokens) != 1 || cfg.MCP.Tokens[0].Token != "deploy-token" {
		t.Errorf("listen %q, tokens %+v", cfg.Listen, cfg.MCP.Tokens)
	}
	os.Unsetenv("MCP_TOKEN")
	if _, err := LoadAll(path, nil); err == nil || !strings.Contains(err.Error(), "MCP_TOKEN is not set") {
		t.Errorf("without MCP_TOKEN: %v", err)
	}
}
