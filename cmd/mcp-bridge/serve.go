package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/internal/logjson"
	"github.com/mcp-bridge/mcp-bridge/server"
)

// runServe runs the bridge until SIGINT or SIGTERM; with --mcp-stdio, also
// until its standard input ends. SIGHUP reloads the config.
func runServe(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("serve", "[--config FILE] [--mapping FILE]... [--listen ADDR] [--log-level LEVEL] [--mcp-stdio] [--nats URL]", stderr)
	cfgFile := fs.String("config", "", "the serve configuration (default: the embedded one, docs/config.md)")
	var maps fileList
	fs.Var(&maps, "mapping", "a mapping file applied after the config's own (repeatable; later wins)")
	listen := fs.String("listen", "", "host:port to listen on, overriding the config")
	level := fs.String("log-level", "", "debug, info, warn or error, overriding the config")
	natsURL := fs.String("nats", "", "join the cluster of bridges on the NATS at URL (overrides the config's cluster.nats)")
	mcpStdio := fs.Bool("mcp-stdio", false, "also speak MCP on standard input and output (for an MCP client that runs the bridge as a command); logs and the startup lines go to standard error")
	if pos, help, err := parseInterspersed(fs, args); err != nil || len(pos) > 0 {
		if help {
			return exitOK
		}
		if len(pos) > 0 {
			fmt.Fprintf(stderr, "mcp-bridge serve: unexpected argument %q\n", pos[0])
		}
		return exitUsage
	}
	var fixedLevel slog.Level
	if *level != "" {
		if err := fixedLevel.UnmarshalText([]byte(*level)); err != nil {
			fmt.Fprintf(stderr, "mcp-bridge serve: --log-level: %v\n", err)
			return exitUsage
		}
	}
	// load reads the config, and applies the command line's overrides: at
	// start, and at each reload (SIGHUP, a watched file changed).
	load := func() (*config.Config, error) {
		cfg := config.Default()
		if *cfgFile != "" {
			var err error
			if cfg, err = config.LoadAll(*cfgFile, maps); err != nil {
				return nil, err
			}
		}
		if *listen != "" {
			cfg.Listen = *listen
		}
		if *natsURL != "" {
			cfg.Cluster.NATS = *natsURL
		}
		if *level != "" {
			cfg.LogLevel = fixedLevel
		}
		return cfg, nil
	}
	cfg, err := load()
	if err != nil {
		fmt.Fprintf(stderr, "mcp-bridge serve: %v\n", err)
		return exitInvalid
	}
	// Log lines, and everything else serve writes to standard error from
	// here on (in order with them), go out in batches: a line costs the
	// goroutine forwarding a message a copy, not a system call.
	logs := logjson.NewBuffered(stderr, logjson.FlushDelay)
	defer logs.Close()
	stderr = logs
	var lv slog.LevelVar
	lv.Set(cfg.LogLevel)
	log := slog.New(logjson.New(stderr, &slog.HandlerOptions{Level: &lv}))
	server.ApplyMemory(cfg.Memory, log)
	srv, err := server.New(cfg, maps, log)
	if err != nil {
		fmt.Fprintf(stderr, "mcp-bridge serve: %v\n", err)
		return exitInvalid
	}
	srv.SetLoader(load)
	srv.SetLevel(&lv)
	ln, err := srv.Listen()
	if err != nil {
		fmt.Fprintf(stderr, "mcp-bridge serve: %v\n", err)
		return exitInvalid
	}
	banner := stdout
	if *mcpStdio {
		if srv.Face() == nil {
			fmt.Fprintln(stderr, "mcp-bridge serve: --mcp-stdio needs the MCP face (mcp.enabled is false in the config)")
			return exitUsage
		}
		banner = stderr // standard output carries MCP only
	}
	// The signals are ours before the banner says the bridge is up.
	ctx := shutdownOnSignal(stderr)
	reloadOnHangUp(ctx, srv, stderr)
	addr := ln.Addr().String()
	source := cfg.File
	if source == "" {
		source = "the embedded default config"
	}
	web, sock := "http", "ws"
	if srv.TLS() {
		web, sock = "https", "wss"
	}
	fmt.Fprintf(banner, "mcp-bridge listening on %s://%s (%s)\n", web, addr, source)
	fmt.Fprintf(banner, "  WebSocket  %s://%s/ws/{dialect}   (or /ws: dialect detected)\n", sock, addr)
	fmt.Fprintf(banner, "  HTTP       POST %s://%s/v1/{dialect}/messages, GET /v1/agents\n", web, addr)
	if srv.Face() != nil {
		fmt.Fprintf(banner, "  MCP        %s://%s/mcp (streamable HTTP)\n", web, addr)
	}
	if *mcpStdio {
		fmt.Fprintln(banner, "  MCP        on standard input and output")
	}
	if c := srv.Console(); c != nil {
		login := ""
		if c.Tokens() {
			login = " (log in with a token at /ui/login)"
		}
		fmt.Fprintf(banner, "  console    %s://%s/ui/%s\n", web, addr, login)
	}
	fmt.Fprintf(banner, "  ops        %s://%s/metrics /healthz /readyz\n", web, addr)
	if *mcpStdio {
		// The MCP client that started the bridge ends it by closing its
		// standard input.
		var stop context.CancelFunc
		ctx, stop = context.WithCancel(ctx)
		go func() {
			if err := srv.Face().ServeStdio(ctx, stdin, stdout); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
				fmt.Fprintf(stderr, "mcp-bridge serve: MCP on stdio: %v\n", err)
			}
			stop()
		}()
	}
	if err := srv.Run(ctx, ln); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "mcp-bridge serve: %v\n", err)
		return exitInvalid
	}
	return exitOK
}

// shutdownOnSignal returns a context that ends at the first SIGINT or
// SIGTERM, starting a graceful shutdown; a second signal exits at once.
func shutdownOnSignal(stderr io.Writer) context.Context {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		s := <-sigs
		fmt.Fprintf(stderr, "mcp-bridge serve: %v: shutting down gracefully (a second signal exits at once)\n", s)
		cancel()
		s = <-sigs
		fmt.Fprintf(stderr, "mcp-bridge serve: %v again: exiting now\n", s)
		if f, ok := stderr.(interface{ Flush() error }); ok {
			_ = f.Flush()
		}
		os.Exit(exitInvalid)
	}()
	return ctx
}

// reloadOnHangUp reloads the config at each SIGHUP until ctx ends.
func reloadOnHangUp(ctx context.Context, srv *server.Server, stderr io.Writer) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		defer signal.Stop(hup)
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				if err := srv.ReloadNow("SIGHUP"); err != nil {
					fmt.Fprintf(stderr, "mcp-bridge serve: SIGHUP: the config was not reloaded; the old one stays:\n%v\n", err)
				}
			}
		}
	}()
}
