package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/mcp-bridge/mcp-bridge/agent"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
)

const agentSynopsis = "--dialect DIALECT [--id ID] (--connect URL | --stdio | --listen ADDR) [--token TOKEN] [--tools a,b] [--subscribe TOPIC]... [--log-level LEVEL]"

// agentTopics is the repeatable --subscribe flag.
type agentTopics []string

func (t *agentTopics) String() string     { return strings.Join(*t, ",") }
func (t *agentTopics) Set(v string) error { *t = append(*t, v); return nil }

// runAgent runs a reference agent (package agent): on a bridge's WebSocket
// endpoint (--connect), on standard input and output (--stdio), or as a
// WebSocket server peers dial (--listen), until SIGINT or SIGTERM, or the
// end of standard input. It logs to stderr as JSON lines; at debug level,
// every frame sent and received.
func runAgent(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("agent", agentSynopsis, stderr)
	dialect := fs.String("dialect", "", "the dialect the agent speaks: "+strings.Join(builtin.Names, ", ")+" (required)")
	id := fs.String("id", "", `the agent's id (default "<dialect>-agent", as the dialect writes ids: "BLUELABEL-AGENT")`)
	connect := fs.String("connect", "", "connect to the bridge at this WebSocket URL (ws://127.0.0.1:7300)")
	stdio := fs.Bool("stdio", false, "speak newline-delimited JSON on standard input and output")
	listen := fs.String("listen", "", "serve as a WebSocket server on this address (127.0.0.1:7400; port 0 picks one), for peers that dial the agent")
	token := fs.String("token", "", "the bearer token to connect with")
	tools := fs.String("tools", "", "the tools to offer, comma-separated (default all: "+strings.Join(agent.ToolNames(), ",")+")")
	var topics agentTopics
	fs.Var(&topics, "subscribe", "a topic to subscribe to (repeatable)")
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
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(*level)); err != nil {
		fmt.Fprintf(stderr, "mcp-bridge: --log-level: %q is not debug, info, warn or error\n", *level)
		return exitUsage
	}
	base := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: lvl}))
	var names []string
	if *tools != "" {
		for _, n := range strings.Split(*tools, ",") {
			names = append(names, strings.TrimSpace(n))
		}
	}
	var log *slog.Logger // the agent's own lines; set once the agent has its id
	a, err := agent.New(agent.Options{
		ID: *id, Dialect: *dialect, Tools: names, Subscribe: topics, Logger: base,
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
	case *stdio:
		log.Info("agent serving standard input and output", "tools", offered)
		err = a.ServeStdio(ctx, stdin, stdout)
	case *listen != "":
		var ln net.Listener
		if ln, err = net.Listen("tcp", *listen); err != nil {
			fmt.Fprintf(stderr, "mcp-bridge: --listen: %v\n", err)
			return exitInvalid
		}
		log.Info("agent listening", "url", "ws://"+ln.Addr().String()+"/", "tools", offered)
		err = a.Listen(ctx, ln)
	default:
		log.Info("agent connecting", "bridge", *connect, "tools", offered)
		err = a.Connect(ctx, *connect, *token)
	}
	if err != nil {
		log.Error("agent stopped", "error", err.Error())
		return exitInvalid
	}
	log.Info("agent stopped")
	return exitOK
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

// frameValue is how a frame is logged: as JSON when it is, else as text.
func frameValue(frame []byte) any {
	if json.Valid(frame) {
		return json.RawMessage(frame)
	}
	return string(frame)
}
