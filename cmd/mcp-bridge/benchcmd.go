package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"

	"github.com/mcp-bridge/mcp-bridge/loadgen"
)

const benchSynopsis = "[--agents 100] [--pairs 200000] [--rate 0] [--window 8] [--validate schema|decode] [--payload 0] [--fail-every 0] [--timeout 5m] [--instances 1] [--external URL | --spawn] [--idle 0] [--heap-profile FILE] [--cpuprofile FILE]"

// runBench starts a bridge on a loopback port with agents of all five
// dialects (or --instances bridges in a cluster, after one alone), drives
// a bounded load of request/answer pairs through it (package loadgen) and
// prints what it measured: throughput, latency, errors, and requests lost,
// duplicated or reordered. It exits 1 when
// there were any of those, or errors; SIGINT or SIGTERM stops the load
// early and still reports.
func runBench(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("bench", benchSynopsis, stderr)
	o := loadgen.Options{}
	fs.IntVar(&o.Agents, "agents", loadgen.DefaultAgents, "agents: half requesters, half responders, spread over the dialects (at least 2)")
	fs.IntVar(&o.Pairs, "pairs", loadgen.DefaultPairs, "request/answer pairs in all, shared among the requesters")
	fs.Float64Var(&o.Rate, "rate", 0, "offered load in pairs per second over all requesters; 0: as fast as the window allows")
	fs.IntVar(&o.Window, "window", loadgen.DefaultWindow, "requests one requester may have unanswered at once")
	fs.StringVar(&o.Validate, "validate", loadgen.DefaultValidate, "what the bridge checks each message against: schema or decode")
	fs.IntVar(&o.Payload, "payload", 0, "pad each request's arguments with about this many bytes of nested JSON")
	fs.IntVar(&o.FailEvery, "fail-every", 0, "responders answer every Nth request of each requester with a failure (0: never)")
	fs.IntVar(&o.Instances, "instances", loadgen.DefaultInstances, "bridges in a cluster on one embedded NATS, agents spread over them, every pair across instances; more than 1 also runs the load through one bridge first, to compare")
	fs.StringVar(&o.External, "external", "", "drive the bridge that runs at this URL (http://HOST:PORT) in its own process, and report its memory and GC pauses")
	spawn := fs.Bool("spawn", false, "start `mcp-bridge serve` as a child on a loopback port and drive it as --external")
	fs.IntVar(&o.Idle, "idle", 0, "connect this many idle agents before the load, each introducing itself with its tools, and report the peak resident memory each adds over a heartbeat round and how fast one still answers")
	fs.StringVar(&o.HeapProfile, "heap-profile", "", "with --idle and a bridge in its own process: write its heap profile (after a collection) to this file once the idle agents are in, and the empty bridge's to FILE.before")
	cpuprofile := fs.String("cpuprofile", "", "write the load generator's own CPU profile (not the bridge's) to this file")
	fs.DurationVar(&o.Timeout, "timeout", loadgen.DefaultTimeout, "stop sending after this long; requests still open get "+loadgen.Grace.String()+" more")
	if pos, help, err := parseInterspersed(fs, args); err != nil || len(pos) > 0 {
		if help {
			return exitOK
		}
		if len(pos) > 0 {
			fmt.Fprintf(stderr, "mcp-bridge bench: unexpected argument %q\n", pos[0])
		}
		return exitUsage
	}
	if *spawn {
		if o.External != "" {
			fmt.Fprintln(stderr, "mcp-bridge bench: --spawn starts the bridge; --external names one already running: give one of them")
			return exitUsage
		}
		exe, err := os.Executable()
		if err != nil {
			fmt.Fprintf(stderr, "mcp-bridge bench: --spawn: %v\n", err)
			return exitInvalid
		}
		o.Spawn = []string{exe}
	}
	// The flags spell the defaults out, so no zero stands for one here.
	if err := o.Check(); err != nil {
		fmt.Fprintf(stderr, "mcp-bridge bench: %v\n", err)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch {
	case o.Instances > 1:
		fmt.Fprintf(stderr, "mcp-bridge bench: one bridge, then %d in a cluster, on loopback, %d agents, %d pairs each ...\n", o.Instances, o.Agents, o.Pairs)
	case *spawn:
		fmt.Fprintf(stderr, "mcp-bridge bench: a bridge of its own (serve, a child), %d agents, %d pairs ...\n", o.Agents, o.Pairs)
	case o.External != "":
		fmt.Fprintf(stderr, "mcp-bridge bench: the bridge at %s, %d agents, %d pairs ...\n", o.External, o.Agents, o.Pairs)
	default:
		fmt.Fprintf(stderr, "mcp-bridge bench: a bridge on loopback, %d agents, %d pairs ...\n", o.Agents, o.Pairs)
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(stderr, "mcp-bridge bench: --cpuprofile: %v\n", err)
			return exitInvalid
		}
		defer func() {
			pprof.StopCPUProfile()
			if err := f.Close(); err != nil {
				fmt.Fprintf(stderr, "mcp-bridge bench: --cpuprofile: %v\n", err)
			}
		}()
	}
	rep, err := loadgen.Run(ctx, o)
	if rep.Pairs > 0 {
		fmt.Fprint(stdout, rep.String())
	}
	if err != nil {
		fmt.Fprintf(stderr, "mcp-bridge bench: %v\n", err)
		return exitInvalid
	}
	if rep.Failed() {
		return exitInvalid
	}
	return exitOK
}
