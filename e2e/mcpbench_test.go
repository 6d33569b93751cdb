package e2e

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	rtmetrics "runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/internal/jsonw"
	"github.com/mcp-bridge/mcp-bridge/internal/logjson"
	"github.com/mcp-bridge/mcp-bridge/mcpface"
	"github.com/mcp-bridge/mcp-bridge/refagent"
	"github.com/mcp-bridge/mcp-bridge/server/servertest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"
)

// The MCP benchmarks, measured in one run: tools/call of an "add" tool
// from a go-sdk client to a plain mcp-go server over streamable HTTP, to
// the same server whose tool forwards each call over a WebSocket to an
// agent and waits for its answer (the floor for any bridge: the round trip
// to the agent and nothing else), and through the bridge to a swarm agent
// on a WebSocket. BenchmarkMCPCall reports the p50 and p99 of calls one at
// a time; BenchmarkMCPThroughput calls/s with mcpWorkers calls in flight,
// and the CPU time of the process per call.
//
// Every side is started before any is measured: the client shares the
// process, and its garbage (the go-sdk client allocates about 128 KB a
// call) is collected at a pace set by the process's live heap, which the
// bridge's compiled schemas and tables enlarge. Measured one after the
// other, the first side would be measured in a smaller heap than the rest.

// mcpWorkers is how many calls are in flight in the throughput benchmark.
const mcpWorkers = 8

// addTool is the add tool of the plain servers.
var addTool = mcpgo.NewTool("add", mcpgo.WithDescription("Adds two numbers."),
	mcpgo.WithNumber("a", mcpgo.Required()), mcpgo.WithNumber("b", mcpgo.Required()))

// sumResult is the plain servers' answer, as the bridge's face words an
// agent's {"sum":...}.
func sumResult(sum float64) *mcpgo.CallToolResult {
	return mcpgo.NewToolResultStructured(map[string]float64{"sum": sum}, fmt.Sprintf(`{"sum":%g}`, sum))
}

// plainMCP serves the add tool from a plain mcp-go server and returns its
// URL and the tool's name.
func plainMCP(b *testing.B) (string, string) {
	srv := httptest.NewServer(plainHandler())
	b.Cleanup(srv.Close)
	return srv.URL + "/mcp", "add"
}

// plainHandler is a plain mcp-go server over streamable HTTP with the add
// tool, answered at once.
func plainHandler() http.Handler {
	s := mcpserver.NewMCPServer("plain", "1", mcpserver.WithToolCapabilities(true))
	s.AddTool(addTool, func(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return sumResult(req.GetFloat("a", 0) + req.GetFloat("b", 0)), nil
	})
	return mcpserver.NewStreamableHTTPServer(s)
}

// hopMCP serves the add tool from a plain mcp-go server whose handler sends
// each call as a swarm request over one WebSocket to the lean agent and
// waits for its answer, and returns its URL and the tool's name.
func hopMCP(b *testing.B) (string, string) { return hopMCPClocked(b, nil) }

// hopMCPClocked is hopMCP with its agent telling clock when it reads each
// request and writes each answer (nil: not told).
func hopMCPClocked(b *testing.B, clock *agentClock) (string, string) {
	agentSrv := httptest.NewServer(leanAgentHandler(clock))
	b.Cleanup(agentSrv.Close)
	h, closeHop, err := hopHandler("ws" + strings.TrimPrefix(agentSrv.URL, "http"))
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(h)
	b.Cleanup(func() { srv.Close(); closeHop() })
	return srv.URL + "/mcp", "add"
}

// leanAgentHandler accepts WebSockets, each answered as the lean agent
// does (answerAdds), telling clock (when not nil).
func leanAgentHandler(clock *agentClock) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c, err := websocket.Accept(w, r, nil); err == nil {
			c.SetReadLimit(-1)
			answerAddsClocked(c, clock)
		}
	})
}

// hopHandler is the floor: a plain mcp-go server over streamable HTTP
// whose add tool sends each call as a swarm request over one WebSocket,
// dialled to agentURL, and waits for its answer. The returned func closes
// the WebSocket.
func hopHandler(agentURL string) (http.Handler, func(), error) {
	c, _, err := websocket.Dial(context.Background(), agentURL, nil)
	if err != nil {
		return nil, nil, err
	}
	c.SetReadLimit(-1)
	var (
		mu      sync.Mutex
		waiting = map[string]chan float64{}
		seq     atomic.Int64
	)
	go func() {
		for {
			_, msg, err := c.Read(context.Background())
			if err != nil {
				return
			}
			r := gjson.GetManyBytes(msg, "correlation_id", "payload.result.sum")
			mu.Lock()
			ch := waiting[r[0].String()]
			delete(waiting, r[0].String())
			mu.Unlock()
			if ch != nil {
				ch <- r[1].Float()
			}
		}
	}()
	s := mcpserver.NewMCPServer("hop", "1", mcpserver.WithToolCapabilities(true))
	s.AddTool(addTool, func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		id := "hop-" + strconv.FormatInt(seq.Add(1), 10)
		ch := make(chan float64, 1)
		mu.Lock()
		waiting[id] = ch
		mu.Unlock()
		w := jsonw.New(make([]byte, 0, 300))
		w.Open()
		w.StringField("message_id", id)
		w.StringField("message_type", "request")
		w.StringField("sender_id", "hop")
		w.StringField("receiver_id", "adder")
		w.StringField("timestamp", "2026-11-25T10:00:00Z")
		w.Key("payload")
		w.Raw(`{"tool_name":"add","arguments":{"a":` + strconv.FormatFloat(req.GetFloat("a", 0), 'g', -1, 64) +
			`,"b":` + strconv.FormatFloat(req.GetFloat("b", 0), 'g', -1, 64) + `}}`)
		w.Close()
		if err := c.Write(ctx, websocket.MessageText, w.Buf); err != nil {
			return nil, err
		}
		select {
		case sum := <-ch:
			return sumResult(sum), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	return mcpserver.NewStreamableHTTPServer(s), func() { c.CloseNow() }, nil
}

// leanAdder is a swarm agent on a raw WebSocket to the bridge that
// declares an add tool in a handshake and answers each request with the
// sum (answerAdds), telling clock (when not nil).
func leanAdder(b *testing.B, url string, clock *agentClock) {
	c := dialRaw(b, url+"/ws/swarm?agent=adder")
	hello := `{"message_id":"hello-1","message_type":"handshake_request","sender_id":"adder","receiver_id":null,` +
		`"timestamp":"2026-11-25T10:00:00Z","correlation_id":null,"priority":"normal",` +
		`"payload":{"agent_id":"adder","agent_name":"adder","agent_role":"calculator","tools":["add"],"version":"1.0.0"}}`
	if err := c.Write(context.Background(), websocket.MessageText, []byte(hello)); err != nil {
		b.Fatal(err)
	}
	go answerAddsClocked(c, clock)
}

// answerAdds answers each swarm request arriving on c with the sum of its
// arguments a and b, until c closes, reading and writing the JSON
// directly: as lean as the plain server's handler, so that the benchmark
// measures the bridge, not an agent.
func answerAdds(c *websocket.Conn) { answerAddsClocked(c, nil) }

// agentClock is when the lean agent last read a request and last began
// writing its answer, in Unix nanoseconds.
type agentClock struct{ in, out atomic.Int64 }

// answerAddsClocked is answerAdds telling clock, when not nil, of each
// request it reads and each answer it writes.
func answerAddsClocked(c *websocket.Conn, clock *agentClock) {
	ctx := context.Background()
	for {
		_, msg, err := c.Read(ctx)
		if err != nil {
			return
		}
		if clock != nil {
			clock.in.Store(time.Now().UnixNano())
		}
		if gjson.GetBytes(msg, "message_type").String() != "request" {
			continue
		}
		r := gjson.GetManyBytes(msg, "message_id", "sender_id", "payload.arguments.a", "payload.arguments.b")
		w := jsonw.New(make([]byte, 0, 300))
		w.Open()
		w.StringField("message_id", "r-"+r[0].String())
		w.StringField("message_type", "response")
		w.StringField("sender_id", "adder")
		w.StringField("receiver_id", r[1].String())
		w.StringField("timestamp", "2026-11-25T10:00:00Z")
		w.StringField("correlation_id", r[0].String())
		w.Key("payload")
		w.Raw(`{"success":true,"result":{"sum":` + strconv.FormatFloat(r[2].Float()+r[3].Float(), 'g', -1, 64) + `},"execution_time":0,"error":null}`)
		w.Close()
		if clock != nil {
			clock.out.Store(time.Now().UnixNano())
		}
		if err := c.Write(ctx, websocket.MessageText, w.Buf); err != nil {
			return
		}
	}
}

// bridgeMCP runs the bridge with an agent serving add (the lean one, or
// with reference the swarm reference agent) and returns the bridge's MCP
// URL and the tool's name there.
func bridgeMCP(b *testing.B, reference bool) (string, string) {
	return bridgeMCPClocked(b, reference, nil)
}

// bridgeMCPClocked is bridgeMCP with the lean agent telling clock (when
// not nil) when it reads each request and writes each answer.
func bridgeMCPClocked(b *testing.B, reference bool, clock *agentClock) (string, string) {
	cfg := config.Default()
	cfg.Listen = "127.0.0.1:0"
	if v := os.Getenv("MCPBENCH_VALIDATE"); v != "" {
		cfg.Validate = v
	}
	run := servertest.Start(b, cfg, servertest.Options{Logger: slog.New(logjson.New(io.Discard, nil))})
	srv := run.Server
	tool := "adder__add"
	if reference {
		a, err := refagent.New(refagent.Options{ID: "swarm-agent", Dialect: "swarm"})
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		agentDone := make(chan struct{})
		go func() { defer close(agentDone); _ = a.Connect(ctx, "ws://"+run.Addr, "") }()
		b.Cleanup(func() { cancel(); <-agentDone }) // before the server stops
		tool = "swarm-agent__add"
	} else {
		leanAdder(b, "ws://"+run.Addr, clock)
	}
	for deadline := time.Now().Add(wait); len(srv.Bridge().Tools()) == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			b.Fatal("the agent never came up")
		}
	}
	// The face tells sessions of the agent's arrival up to mcpface.Coalesce
	// after it; a session opened before that is told too, and mcp-go
	// answers every later call of a session it has notified as an SSE
	// stream rather than as JSON. Wait until that is behind us, so that the
	// bridge is measured as the plain server is: a session with nothing new
	// to hear.
	time.Sleep(mcpface.Coalesce + 150*time.Millisecond)
	return "http://" + run.Addr + "/mcp", tool
}

// mcpBenchVersion is the protocol version the MCP benchmarks' clients
// speak: MCPBENCH_VERSION, 2025-11-25 when it is not set.
var mcpBenchVersion = cmp.Or(os.Getenv("MCPBENCH_VERSION"), "2025-11-25")

func mcpSession(b *testing.B, url string) *mcp.ClientSession {
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	s, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: mcpBenchVersion})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

func callAdd(b *testing.B, s *mcp.ClientSession, tool string, i int) {
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"a": i, "b": 1}})
	if err != nil {
		b.Fatal(err)
	}
	if res.IsError {
		b.Fatalf("%s: %+v", tool, res.Content)
	}
}

// mcpSides starts every side, then runs bench against each: the plain
// server, the plain server with a WebSocket hop, through the bridge to
// the lean agent, and through the bridge to the swarm reference agent.
func mcpSides(b *testing.B, bench func(b *testing.B, url, tool string)) {
	sides := []struct {
		name  string
		start func(*testing.B) (string, string)
	}{
		{"plain", plainMCP},
		{"plain-ws-hop", hopMCP},
		{"bridge", func(b *testing.B) (string, string) { return bridgeMCP(b, false) }},
		{"bridge-reference-agent", func(b *testing.B) (string, string) { return bridgeMCP(b, true) }},
	}
	urls, tools := make([]string, len(sides)), make([]string, len(sides))
	for i, side := range sides {
		urls[i], tools[i] = side.start(b)
	}
	for i, side := range sides {
		b.Run(side.name, func(b *testing.B) { bench(b, urls[i], tools[i]) })
	}
}

// BenchmarkMCPCall is tools/call one at a time: p50 and p99 in µs.
func BenchmarkMCPCall(b *testing.B) {
	mcpSides(b, func(b *testing.B, url, tool string) {
		s := mcpSession(b, url)
		for i := range 50 {
			callAdd(b, s, tool, i)
		}
		rtts := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for i := 0; b.Loop(); i++ {
			start := time.Now()
			callAdd(b, s, tool, i)
			rtts = append(rtts, time.Since(start))
		}
		b.StopTimer()
		slices.Sort(rtts)
		b.ReportMetric(float64(rtts[len(rtts)/2].Microseconds()), "p50-µs")
		b.ReportMetric(float64(rtts[len(rtts)*99/100].Microseconds()), "p99-µs")
	})
}

// BenchmarkMCPThroughput is tools/call with mcpWorkers calls in flight on
// one session: calls per second.
func BenchmarkMCPThroughput(b *testing.B) {
	mcpSides(b, func(b *testing.B, url, tool string) {
		s := mcpSession(b, url)
		for i := range 50 {
			callAdd(b, s, tool, i)
		}
		var next atomic.Int64
		n := int64(b.N)
		var wg sync.WaitGroup
		b.ResetTimer()
		start, cpu0 := time.Now(), cpuTime()
		for range mcpWorkers {
			wg.Go(func() {
				for i := next.Add(1); i <= n; i = next.Add(1) {
					callAdd(b, s, tool, int(i))
				}
			})
		}
		wg.Wait()
		b.ReportMetric(float64(n)/time.Since(start).Seconds(), "calls/s")
		b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(n), "cpu-µs/call")
	})
}

// heapAllocs is how many bytes the process has allocated on the heap so
// far, without stopping the world as runtime.ReadMemStats does.
func heapAllocs() uint64 {
	s := []rtmetrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	rtmetrics.Read(s)
	return s[0].Value.Uint64()
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// mcpPairChunk is how many calls BenchmarkMCPPaired/call makes on one side
// before it turns to the next; mcpPairBurst how many its throughput
// benchmark makes, mcpCallers at a time.
const (
	mcpPairChunk = 200
	mcpPairBurst = 200
	mcpCallers   = 16
)

// mcpPairOrder is the order the paired benchmarks visit the sides in, over
// and over: plain, floor, bridge, bridge, floor, plain, so that each side
// sees the same drift of the machine.
var mcpPairOrder = [...]int{0, 1, 2, 2, 1, 0}

// BenchmarkMCPPaired measures tools/call from a go-sdk client against three
// sides at once, alternating between them in one run: a plain mcp-go
// server whose tool answers at once (plain), the same server whose tool
// forwards each call over one WebSocket to the lean agent and waits for
// its answer (floor: what any MCP-to-WebSocket gateway pays), and the
// bridge's /mcp to the lean agent on its WebSocket (bridge). Each side has
// its own listener and its own client session.
//
// BenchmarkMCPPaired/call makes one call at a time in chunks of
// mcpPairChunk and reports each side's p50 (µs) and the bridge's p50, p99
// and process CPU per call as ratios to the floor's (p50-x, p99-x, cpu-x)
// and its p50 as a ratio to the plain server's (plain-x).
// BenchmarkMCPPaired/throughput makes bursts of mcpPairBurst calls,
// mcpCallers at a time, and reports each side's calls/s and the bridge's
// as a ratio to the floor's (calls-x). Run with -count for rounds: each run
// is one round, judged on the median of the rounds.
func BenchmarkMCPPaired(b *testing.B) {
	gcAsServe(b)
	starts := [3]func(*testing.B) (string, string){plainMCP, hopMCP, func(b *testing.B) (string, string) { return bridgeMCP(b, false) }}
	var sides [3]mcpSide
	for i, start := range starts {
		sides[i].url, sides[i].tool = start(b)
		sides[i].cpu = processCPU
	}
	mcpPaired(b, sides)
}

// mcpSide is one side of a paired MCP benchmark: its MCP endpoint, the
// add tool's name there, and the CPU time it has used so far.
type mcpSide struct {
	url, tool string
	cpu       func() time.Duration
}

// mcpPaired runs BenchmarkMCPPaired's call and throughput benchmarks
// against sides: plain, floor and bridge, in that order.
func mcpPaired(b *testing.B, sides [3]mcpSide) {
	var sessions [3]*mcp.ClientSession
	var tools [3]string
	for i, side := range sides {
		tools[i] = side.tool
		sessions[i] = mcpSession(b, side.url)
		for j := range 50 {
			callAdd(b, sessions[i], tools[i], j)
		}
	}
	b.Run("call", func(b *testing.B) {
		var rtts [3][]time.Duration
		var cpu [3]time.Duration
		var alloc [3]uint64
		cur, mark, allocMark := -1, time.Duration(0), uint64(0)
		for i := 0; b.Loop(); i++ {
			side := mcpPairOrder[i/mcpPairChunk%len(mcpPairOrder)]
			if side != cur {
				if cur >= 0 {
					cpu[cur] += sides[cur].cpu() - mark
					alloc[cur] += heapAllocs() - allocMark
				}
				cur, mark, allocMark = side, sides[side].cpu(), heapAllocs()
			}
			start := time.Now()
			callAdd(b, sessions[side], tools[side], i)
			rtts[side] = append(rtts[side], time.Since(start))
		}
		b.StopTimer()
		cpu[cur] += sides[cur].cpu() - mark
		alloc[cur] += heapAllocs() - allocMark
		if len(rtts[2]) == 0 {
			return // too few calls to reach the bridge's chunk
		}
		q := func(side, p int) float64 { return float64(percentile(rtts[side], p)) }
		perCall := func(side int) float64 { return float64(cpu[side]) / float64(len(rtts[side])) }
		b.ReportMetric(q(0, 50)/1e3, "plain-p50-µs")
		b.ReportMetric(q(1, 50)/1e3, "floor-p50-µs")
		b.ReportMetric(q(2, 50)/1e3, "p50-µs")
		b.ReportMetric(q(2, 50)/q(1, 50), "p50-x")
		b.ReportMetric(q(2, 99)/q(1, 99), "p99-x")
		b.ReportMetric(q(2, 50)/q(0, 50), "plain-x")
		b.ReportMetric(perCall(2)/perCall(1), "cpu-x")
		for side, name := range [3]string{"plain", "floor", "bridge"} {
			b.ReportMetric(float64(alloc[side])/float64(len(rtts[side]))/1024, name+"-alloc-KB")
		}
	})
	b.Run("throughput", func(b *testing.B) {
		var took [3]time.Duration
		var done [3]int
		for k := 0; done[0]+done[1]+done[2] < b.N; k++ {
			side := mcpPairOrder[k%len(mcpPairOrder)]
			n := min(mcpPairBurst, b.N-done[0]-done[1]-done[2])
			var next atomic.Int64
			var wg sync.WaitGroup
			start := time.Now()
			for range mcpCallers {
				wg.Go(func() {
					for i := next.Add(1); i <= int64(n); i = next.Add(1) {
						callAdd(b, sessions[side], tools[side], int(i))
					}
				})
			}
			wg.Wait()
			took[side] += time.Since(start)
			done[side] += n
		}
		if done[2] == 0 {
			return // too few calls to reach the bridge's burst
		}
		rate := func(side int) float64 { return float64(done[side]) / took[side].Seconds() }
		b.ReportMetric(rate(0), "plain-calls/s")
		b.ReportMetric(rate(1), "floor-calls/s")
		b.ReportMetric(rate(2), "calls/s")
		b.ReportMetric(rate(2)/rate(1), "calls-x")
	})
}
