package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/redact"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/internal/logjson"
	"github.com/mcp-bridge/mcp-bridge/refagent"
)

const agentSynopsis = "--dialect DIALECT [--id ID] (--connect URL | --stdio | --listen ADDR) [--token TOKEN] [--tools a,b] [--subscribe TOPIC]... " +
	"[--ca FILE] [--cert FILE --key FILE] [--backoff-min D] [--backoff-max D] [--log-level LEVEL]\n" +
	"       mcp-bridge agent --dialect DIALECT [--id ID] --connect URL [--token TOKEN] --call OP [--args JSON] [--to ID] [--timeout D]"

// agentTopics is the repeatable --subscribe flag.
type agentTopics []string

func (t *agentTopics) String() string     { return strings.Join(*t, ",") }
func (t *agentTopics) Set(v string) error { *t = append(*t, v); return nil }

// callFlags are the flags of a one-shot call (--call).
type callFlags struct {
	op, args, to string
	timeout      time.Duration
}

// runAgent runs a reference agent (package refagent): on a bridge's WebSocket
// endpoint (--connect), on standard input and output (--stdio), or as a
// WebSocket server peers dial (--listen), until SIGINT or SIGTERM, or the end of standard input. Connected, it comes
// back each time the bridge goes away. It logs to stderr as JSON lines; at
// debug level, every frame sent and received. With --call it sends one
// request instead, prints the answer and exits.
func runAgent(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("agent", agentSynopsis, stderr)
	dialect := fs.String("dialect", "", "the dialect the agent speaks: "+strings.Join(dialects.Names(), ", ")+" (required)")
	id := fs.String("id", "", `the agent's id (default "<dialect>-agent", or "<dialect>-caller" with --call, as the dialect writes ids: "BLUELABEL-AGENT")`)
	connect := fs.String("connect", "", "connect to the bridge at this WebSocket URL (ws://127.0.0.1:7300)")
	stdio := fs.Bool("stdio", false, "speak newline-delimited JSON on standard input and output")
	listen := fs.String("listen", "", "serve as a WebSocket server on this address (127.0.0.1:7400; port 0 picks one), for peers that dial the agent")
	token := fs.String("token", "", "the bearer token to connect with (a static token or a JWT)")
	var tf tlsFlags
	fs.StringVar(&tf.ca, "ca", "", "a PEM file of CAs trusted, beside the system's, for a wss:// bridge")
	fs.StringVar(&tf.cert, "cert", "", "a PEM certificate: presented to a wss:// bridge that asks for one (--connect), or served with --listen (wss://)")
	fs.StringVar(&tf.key, "key", "", "the PEM private key of --cert")
	tools := fs.String("tools", "", "the tools to offer, comma-separated (default all: "+strings.Join(refagent.ToolNames(), ",")+"; none with --call)")
	var topics agentTopics
	fs.Var(&topics, "subscribe", "a topic to subscribe to (repeatable)")
	backoffMin := fs.Duration("backoff-min", 100*time.Millisecond, "the first wait before connecting again when the bridge goes away")
	backoffMax := fs.Duration("backoff-max", 10*time.Second, "the longest wait between attempts to connect again (the wait doubles up to it)")
	var call callFlags
	fs.StringVar(&call.op, "call", "", `send one request for this operation ("capability/action" in fuse), print the answer and exit`)
	fs.StringVar(&call.args, "args", "", `the request's arguments, a JSON value (with --call; default {})`)
	fs.StringVar(&call.to, "to", "", "the agent the request is for (with --call; default none: the bridge routes it by operation)")
	fs.DurationVar(&call.timeout, "timeout", 30*time.Second, "how long --call waits for connecting and for the answer; the request carries what is left as its time to live, where the dialect has one")
	level := fs.String("log-level", "info", "the least level logged: debug (adds every frame), info, warn or error")
	pos, help, err := parseInterspersed(fs, args)
	if err != nil {
		if help {
			return exitOK
		}
		return exitUsage
	}
	if *dialect == "" || len(pos) > 0 || countSet(*connect != "", *stdio, *listen != "") != 1 {
		fs.Usage()
		return exitUsage
	}
	if msg := call.check(fs, *connect == ""); msg != "" {
		fmt.Fprintf(stderr, "mcp-bridge agent: %s\n", msg)
		return exitUsage
	}
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(*level)); err != nil {
		fmt.Fprintf(stderr, "mcp-bridge: --log-level: %q is not debug, info, warn or error\n", *level)
		return exitUsage
	}
	base := slog.New(logjson.New(stderr, &slog.HandlerOptions{Level: lvl}))
	var names []string
	if *tools != "" {
		for _, n := range strings.Split(*tools, ",") {
			names = append(names, strings.TrimSpace(n))
		}
	}
	if call.op != "" {
		// A caller is not a server: it offers no tools unless asked to,
		// and has an id of its own, so that it does not take over the
		// deliveries of a reference agent connected with the default id.
		if names == nil {
			names = []string{}
		}
		if *id == "" {
			*id = refagent.SpellID(*dialect, *dialect+"-caller")
		}
	}
	clientTLS, serverTLS, err := tf.configs(*listen != "")
	if err != nil {
		fmt.Fprintf(stderr, "mcp-bridge agent: %v\n", err)
		return exitUsage
	}
	var log *slog.Logger // the agent's own lines; set once the agent has its id
	a, err := refagent.New(refagent.Options{
		ID: *id, Dialect: *dialect, Tools: names, Subscribe: topics, Logger: base, TLS: clientTLS,
		Observer: func(direction string, frame []byte) {
			if log.Enabled(context.Background(), slog.LevelDebug) {
				log.Debug("frame", "direction", direction, "frame", frameValue(frame))
			}
		},
	})
	if err != nil {
		fmt.Fprintf(stderr, "mcp-bridge: %v\n", err)
		return exitUsage
	}
	log = base.With("agent", a.ID(), "dialect", a.Dialect())
	var offered []string
	for _, t := range a.Capabilities().Tools {
		offered = append(offered, t.Name)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch {
	case call.op != "":
		return call.run(ctx, a, *connect, *token, stdout, stderr)
	case *stdio:
		log.Info("agent serving standard input and output", "tools", offered)
		err = a.ServeStdio(ctx, stdin, stdout)
	case *listen != "":
		var ln net.Listener
		if ln, err = net.Listen("tcp", *listen); err != nil {
			fmt.Fprintf(stderr, "mcp-bridge: --listen: %v\n", err)
			return exitInvalid
		}
		scheme := "ws://"
		if serverTLS != nil {
			ln, scheme = tls.NewListener(ln, serverTLS), "wss://"
		}
		log.Info("agent listening", "url", scheme+ln.Addr().String()+"/", "tools", offered)
		err = a.Listen(ctx, ln)
	default:
		log.Info("agent connecting", "bridge", *connect, "tools", offered)
		err = a.KeepConnected(ctx, *connect, *token, refagent.Backoff{Min: *backoffMin, Max: *backoffMax})
	}
	if err != nil {
		log.Error("agent stopped", "error", err.Error())
		return exitInvalid
	}
	log.Info("agent stopped")
	return exitOK
}

// check returns what is wrong with the call flags on this command line,
// "" when nothing is; it fills in the default arguments ({}).
func (c *callFlags) check(fs *flag.FlagSet, notConnected bool) string {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if c.op == "" {
		if set["call"] {
			return "--call needs an operation"
		}
		for _, name := range []string{"args", "to", "timeout"} {
			if set[name] {
				return "--" + name + " goes with --call OP"
			}
		}
		return ""
	}
	switch {
	case notConnected:
		return "--call needs --connect URL, not --stdio or --listen"
	case set["subscribe"]:
		return "--call sends one request; it takes no --subscribe"
	case c.timeout <= 0:
		return fmt.Sprintf("--timeout must be positive, got %s", c.timeout)
	}
	if c.args == "" {
		c.args = "{}"
	}
	if !json.Valid([]byte(c.args)) {
		return fmt.Sprintf("--args: not a JSON value: %s", c.args)
	}
	return ""
}

// run connects a, sends the one request, prints the answer and returns
// the exit code: 0 and the result on stdout for a result, 1 and the error
// on stderr for an error answer or a call that could not be made.
func (c *callFlags) run(ctx context.Context, a *refagent.Agent, bridgeURL, token string, stdout, stderr io.Writer) int {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	fail := func(format string, args ...any) int {
		fmt.Fprintf(stderr, "mcp-bridge agent: call %s: %s\n", c.op, fmt.Sprintf(format, args...))
		return exitInvalid
	}
	// The connection lives until the answer is in: it ends with connCtx,
	// not with the call's timeout, so that it closes properly.
	connCtx, hangUp := context.WithCancel(context.Background())
	ready := a.Ready()
	served := make(chan error, 1)
	go func() { served <- a.Connect(connCtx, bridgeURL, token) }()
	select {
	case <-ready:
	case err := <-served:
		hangUp()
		return fail("%v", err)
	case <-ctx.Done():
		hangUp()
		<-served
		return fail("not connected to %s within %s", bridgeURL, c.timeout)
	}
	defer func() { hangUp(); <-served }()
	reply, err := a.Call(ctx, c.to, a.Operation(c.op), canonical.JSON(c.args))
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return fail("no answer within %s", c.timeout)
		}
		return fail("%v", err)
	}
	if reply.Act != canonical.ActResult || reply.Outcome == canonical.OutcomeFailure {
		code, msg := "", ""
		if e := reply.Error; e != nil {
			code, msg = string(e.Code), e.Message
		}
		return fail("%s answered %s %s: %s", reply.Sender.ID, reply.Act, code, msg)
	}
	result := string(reply.Result)
	if result == "" {
		result = "null"
	}
	fmt.Fprintln(stdout, result)
	if reply.Outcome == canonical.OutcomePartial {
		fmt.Fprintf(stderr, "mcp-bridge agent: call %s: %s answered with a partial result\n", c.op, reply.Sender.ID)
	}
	return exitOK
}

// frameValue is how a frame is logged: as JSON when it is, its
// credentials redacted, else as text.
func frameValue(frame []byte) any {
	if json.Valid(frame) {
		return json.RawMessage(redact.Credentials(frame))
	}
	return string(frame)
}

// countSet counts the options given.
func countSet(given ...bool) int {
	n := 0
	for _, g := range given {
		if g {
			n++
		}
	}
	return n
}

// tlsFlags are the agent's TLS files.
type tlsFlags struct{ ca, cert, key string }

// configs returns the TLS the agent dials a wss:// bridge with and, with
// listen, the TLS it serves; nil for Go's defaults, or no TLS.
func (f tlsFlags) configs(listen bool) (client, server *tls.Config, err error) {
	if (f.cert == "") != (f.key == "") {
		return nil, nil, errors.New("--cert and --key go together")
	}
	var pair []tls.Certificate
	if f.cert != "" {
		c, err := tls.LoadX509KeyPair(f.cert, f.key)
		if err != nil {
			return nil, nil, fmt.Errorf("--cert, --key: %w", err)
		}
		pair = []tls.Certificate{c}
	}
	if listen {
		if pair != nil {
			server = &tls.Config{MinVersion: tls.VersionTLS12, Certificates: pair, NextProtos: []string{"http/1.1"}}
		}
		return nil, server, nil
	}
	if f.ca == "" && pair == nil {
		return nil, nil, nil
	}
	client = &tls.Config{MinVersion: tls.VersionTLS12, Certificates: pair}
	if f.ca != "" {
		data, err := os.ReadFile(f.ca)
		if err != nil {
			return nil, nil, fmt.Errorf("--ca: %w", err)
		}
		pool, _ := x509.SystemCertPool()
		if pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(data) {
			return nil, nil, fmt.Errorf("--ca: %s holds no PEM certificate", f.ca)
		}
		client.RootCAs = pool
	}
	return client, nil, nil
}
