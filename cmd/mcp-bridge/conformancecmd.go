package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/mcp-bridge/mcp-bridge/conformance"
)

const conformanceSynopsis = `--dialect D (--command "CMD ARGS" | --url ws://HOST:PORT/PATH | --listen ADDR)
       mcp-bridge conformance --dialect a2a --url http://HOST:PORT[/.well-known/agent-card.json]
    [--agent ID] [--op NAME --args JSON] [--level must|should] [--strict] [--only ID,...] [--skip ID,...]
    [--timeout 5s] [--junit FILE] [--json FILE] [--transcript FILE] [--expected-failures FILE]
    [--token TOKEN] [--header "Name: value"]...
       mcp-bridge conformance schema`

// runConformance runs the conformance suite of a dialect against an agent
// (package conformance) and prints a line per requirement and a summary.
// It exits 0 when every MUST passed (with --strict, every SHOULD too; with
// --expected-failures, exactly the listed requirements failed), 1 when not, and 2 when the agent could
// not be started or reached or the command line is wrong. `conformance
// schema` prints the JSON Schema of requirement files instead.
func runConformance(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("conformance", conformanceSynopsis, stderr)
	if len(args) > 0 && args[0] == "schema" {
		if len(args) > 1 {
			fs.Usage()
			return exitUsage
		}
		_, _ = stdout.Write(conformance.Schema())
		return exitOK
	}
	dialect := fs.String("dialect", "", "the dialect the agent speaks (required)")
	command := fs.String("command", "", "start the agent with this command line (run by sh -c), speaking newline-delimited JSON on stdin/stdout")
	url := fs.String("url", "", "dial the agent's WebSocket server at this ws:// URL; or, with --dialect a2a, reach an A2A agent over HTTP at its card's http(s):// URL or base URL")
	listen := fs.String("listen", "", "wait for the agent to connect to a WebSocket server on this address (any path)")
	agentID := fs.String("agent", "", "the agent's id (default: the sender of its introduction)")
	op := fs.String("op", "", "the operation to call instead of the declared ones (fuse: capability/action)")
	opArgs := fs.String("args", "", "the JSON arguments of --op (default {})")
	level := fs.String("level", "should", "the lowest level run: must (only the MUSTs) or should (all)")
	strict := fs.Bool("strict", false, "a SHOULD that fails fails the run (exit 1), as a MUST does")
	only := fs.String("only", "", "run only these requirements (comma-separated ids)")
	skip := fs.String("skip", "", "leave out these requirements (comma-separated ids)")
	timeout := fs.Duration("timeout", conformance.DefaultTimeout, "how long to wait for each answer")
	junit := fs.String("junit", "", "write the report as JUnit XML to this file")
	jsonOut := fs.String("json", "", "write the report as JSON to this file")
	transcript := fs.String("transcript", "", "write every frame both ways, with times, as NDJSON to this file")
	expected := fs.String("expected-failures", "", "a YAML list of the requirement ids expected to fail: exit 0 only if exactly those fail")
	token := fs.String("token", "", "the bearer token to reach the agent with (--url): sent as Authorization")
	header := http.Header{}
	fs.Var(headerFlag(header), "header", `a header to send to the agent (--url), as "Name: value"; repeatable`)
	pos, help, err := parseInterspersed(fs, args)
	if err != nil {
		if help {
			return exitOK
		}
		return exitUsage
	}
	usageError := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "mcp-bridge: conformance: "+format+"\n", a...)
		return exitUsage
	}
	if *dialect == "" || len(pos) > 0 || countSet(*command != "", *url != "", *listen != "") != 1 {
		fs.Usage()
		return exitUsage
	}
	if *timeout <= 0 {
		return usageError("--timeout must be positive, got %s", *timeout)
	}
	o := conformance.Options{
		Dialect: *dialect, Agent: *agentID, Operation: *op, Arguments: *opArgs, Timeout: *timeout, Strict: *strict,
		Only: splitIDs(*only), Skip: splitIDs(*skip),
		Progress: conformance.TextProgress(stdout),
	}
	switch strings.ToLower(*level) {
	case "must":
		o.Level = conformance.Must
	case "should":
		o.Level = conformance.Should
	default:
		return usageError("--level must be must or should, got %q", *level)
	}
	if *token != "" {
		header.Set("Authorization", "Bearer "+*token)
	}
	if len(header) > 0 && *url == "" {
		return usageError("--token and --header are sent to an agent at a --url")
	}
	var target conformance.Target
	if *url != "" && conformance.IsHTTP(*url) {
		target = conformance.A2AWith(*url, header)
	}
	suite, err := conformance.SuiteOver(*dialect, target)
	if err != nil {
		return usageError("%v", err)
	}
	if _, err := suite.Select(o.Level, o.Only, o.Skip); err != nil {
		return usageError("%v", err)
	}
	var want []string
	if *expected != "" {
		if want, err = conformance.ReadExpectedFailures(*expected); err != nil {
			return usageError("--expected-failures: %v", err)
		}
		if _, err := suite.Select(conformance.Should, want, nil); err != nil {
			return usageError("--expected-failures %s: %v", *expected, err)
		}
	}

	switch {
	case target != nil:
	case *command != "":
		target = conformance.Command(*command)
	case *url != "":
		target = conformance.DialWith(*url, header)
	default:
		l, err := conformance.Listen(*listen)
		if err != nil {
			fmt.Fprintf(stderr, "mcp-bridge: conformance: %v\n", err)
			return exitUsage
		}
		defer l.Close()
		fmt.Fprintf(stderr, "mcp-bridge: conformance: waiting for the agent at %s\n", l.URL())
		target = l
	}
	if *transcript != "" {
		f, err := os.Create(*transcript)
		if err != nil {
			return usageError("--transcript: %v", err)
		}
		defer f.Close()
		o.Transcript = f
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := conformance.Run(ctx, target, o)
	if err != nil {
		if errors.Is(err, conformance.ErrUnreachable) {
			fmt.Fprintf(stderr, "mcp-bridge: conformance: %s: %v\n", target, err)
		} else {
			fmt.Fprintf(stderr, "mcp-bridge: conformance: %v\n", err)
		}
		return exitUsage
	}
	v := rep.Verdict()
	if *expected != "" {
		v = rep.VerdictExpecting(want)
	}
	fmt.Fprintln(stdout)
	conformance.WriteSummary(stdout, &rep, v)
	for _, out := range []struct {
		file  string
		write func(io.Writer) error
	}{
		{*jsonOut, func(w io.Writer) error { return rep.WriteJSON(w, v) }},
		{*junit, rep.WriteJUnit},
	} {
		if out.file == "" {
			continue
		}
		if err := writeFile(out.file, out.write); err != nil {
			fmt.Fprintf(stderr, "mcp-bridge: conformance: %v\n", err)
			return exitUsage
		}
	}
	return v.Code
}

// splitIDs splits a comma-separated list of ids.
func splitIDs(list string) []string {
	var out []string
	for _, id := range strings.Split(list, ",") {
		if id = strings.TrimSpace(id); id != "" {
			out = append(out, id)
		}
	}
	return out
}

// headerFlag is a --header flag: each "Name: value" adds to the header.
type headerFlag http.Header

func (h headerFlag) String() string { return "" }

func (h headerFlag) Set(v string) error {
	name, value, ok := strings.Cut(v, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.ContainsAny(name, " \t") {
		return fmt.Errorf("want \"Name: value\", got %q", v)
	}
	http.Header(h).Add(name, strings.TrimSpace(value))
	return nil
}

// writeFile creates file and writes it with write.
func writeFile(file string, write func(io.Writer) error) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", file, err)
	}
	return f.Close()
}
