package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConfigCommand(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	bad := filepath.Join(dir, "bad.yaml")
	for name, text := range map[string]string{
		good: "listen: 127.0.0.1:0\nagents: [{id: A, dialect: swarm, command: [./a]}]\n",
		bad:  "listen: nowhere\nmappings: [missing.yaml]\nagents:\n  - id: A\n    dialect: klingon\n",
	} {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []cliCase{
		{name: "check ok", args: []string{"config", "check", good}, code: 0, stdout: []string{good + ": ok"}, noStderr: true},
		{name: "check every problem", args: []string{"config", "check", good, bad}, code: 1, stdout: []string{
			good + ": ok",
			bad + `:1: listen: "nowhere" is not host:port`,
			filepath.Join(dir, "missing.yaml") + ":1: cannot read the mapping file",
			bad + `:5: agents[0].dialect: unknown dialect "klingon"`,
		}},
		{name: "check a dialect --mapping declares", args: []string{"config", "check", "--mapping", "../../examples/hook.yaml", writeTemp(t, "agents: [{id: H, dialect: hook}]\n")},
			code: 0, stdout: []string{": ok"}},
		{name: "check a missing file", args: []string{"config", "check", filepath.Join(dir, "none.yaml")}, code: 1, stdout: []string{"read config:"}},
		{name: "check no file", args: []string{"config", "check"}, code: 2, stderr: []string{"usage: mcp-bridge config check"}},
		{name: "check help", args: []string{"config", "check", "-h"}, code: 0, stderr: []string{"usage: mcp-bridge config check", "-mapping"}},
		{name: "show two files", args: []string{"config", "show", good, bad}, code: 2, stderr: []string{"usage: mcp-bridge config show"}},
		{name: "show the default", args: []string{"config", "show"}, code: 0,
			stdout: []string{"listen: 127.0.0.1:7300\n", "max_frame: 1MiB\n", "cluster: # default\n"}},
		{name: "show a file", args: []string{"config", "show", good}, code: 0,
			stdout: []string{"listen: 127.0.0.1:0\n", "bridge_id: mcp-bridge # default\n", "    dir: " + dir + " # default\n"}},
		{name: "show a bad file", args: []string{"config", "show", bad}, code: 1, stderr: []string{bad + ":1: listen:"}},
		{name: "no subcommand", args: []string{"config"}, code: 2, stderr: []string{"usage: mcp-bridge config check"}},
		{name: "unknown subcommand", args: []string{"config", "lint"}, code: 2, stderr: []string{`unknown subcommand "lint"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runConfigCase(t, c) })
	}
}

func TestConfigSchema(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"config", "schema"}, nil, &out, &errOut); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var s struct {
		Schema     string         `json:"$schema"`
		Properties map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(out.Bytes(), &s); err != nil {
		t.Fatal(err)
	}
	if s.Schema != "https://json-schema.org/draft/2020-12/schema" || s.Properties["agents"] == nil {
		t.Errorf("schema %s, properties %v", s.Schema, s.Properties)
	}
}

// writeTemp writes text to a new file and returns its name.
func writeTemp(t *testing.T, text string) string {
	t.Helper()
	name := filepath.Join(t.TempDir(), "serve.yaml")
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// runConfigCase runs one case of the command line and checks its exit
// code and output.
func runConfigCase(t *testing.T, c cliCase) {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := run(c.args, strings.NewReader(c.stdin), &out, &errOut); code != c.code {
		t.Errorf("exit %d, want %d; stdout %s; stderr %s", code, c.code, out.String(), errOut.String())
	}
	for _, want := range c.stdout {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out.String())
		}
	}
	for _, want := range c.stderr {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut.String())
		}
	}
	if c.noStderr && errOut.Len() > 0 {
		t.Errorf("unexpected stderr: %s", errOut.String())
	}
}
