package conformance

import (
	"context"
	"flag"
	"os"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary be a test agent when agentEnv says which:
// the tests start it as a real child process speaking on its standard
// input and output.
//
// The tests run a suite against an agent dozens of times; each run spends
// its time waiting for answers and silences (a whole run takes about a
// second and some milliseconds of CPU). So, unless -test.parallel is
// given, they run eight at a time rather than one per core.
func TestMain(m *testing.M) {
	if spec := os.Getenv(agentEnv); spec != "" {
		os.Exit(serveTestAgent(spec))
	}
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		_ = flag.Set("test.parallel", "8")
	}
	os.Exit(m.Run())
}

// testWait bounds a whole run in a test: a hang fails instead of blocking.
const testWait = 2 * time.Minute

// testAgent is a target that starts this test binary as the agent spec
// names ("swarm", or "swarm:wrong-correlation").
func testAgent(spec string) Target {
	return &command{
		line: "exec '" + strings.ReplaceAll(os.Args[0], "'", `'\''`) + "' -test.run='^$'",
		env:  append(os.Environ(), agentEnv+"="+spec),
	}
}

// testOptions are the options of a test run: a short timeout, a long
// grace (an agent that speaks first always does so within it, on a busy
// machine too; it costs nothing once it has).
func testOptions(dialect string, timeout time.Duration) Options {
	o := Options{Dialect: dialect, Timeout: timeout, Grace: 5 * time.Second, Quiet: 150 * time.Millisecond}
	if dialect == "bluelabel" || dialect == "a2a" { // their agents declare no operations
		o.Operation = "echo"
	}
	return o
}

// runTest runs the suite, bounded by testWait, and fails the test when Run
// fails.
func runTest(t *testing.T, target Target, o Options) Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	rep, err := Run(ctx, target, o)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return rep
}

// byID returns the results of a report by requirement id.
func byID(rep Report) map[string]Result {
	out := map[string]Result{}
	for _, res := range rep.Results {
		out[res.ID] = res
	}
	return out
}

// describe shows a result for a test failure.
func describe(res Result) string {
	s := string(res.Status) + " " + res.ID + ": " + res.Detail
	if res.Frame != "" {
		s += "\n    frame: " + res.Frame + "\n    at " + res.Path + ": " + res.Rule
	}
	return s
}
