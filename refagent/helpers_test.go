package refagent

import (
	"context"
	"encoding/json"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
)

// testTimeout bounds every wait of a test: a hang fails instead of
// blocking the run.
const testTimeout = 30 * time.Second

// recorder keeps the frames an agent's observer is told of.
type recorder struct {
	mu      sync.Mutex
	frames  []observed
	changed chan struct{} // signalled when a frame is added
}

func newRecorder() *recorder { return &recorder{changed: make(chan struct{}, 1)} }

type observed struct {
	direction string
	frame     []byte
}

func (r *recorder) observe(direction string, frame []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.frames = append(r.frames, observed{direction, append([]byte(nil), frame...)})
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

// waitFor waits until a frame seen in direction satisfies match.
func (r *recorder) waitFor(t *testing.T, direction string, match func([]byte) bool) {
	t.Helper()
	deadline := time.After(testTimeout)
	for {
		for _, f := range r.all(direction) {
			if match(f) {
				return
			}
		}
		select {
		case <-r.changed:
		case <-deadline:
			t.Fatal("the frame waited for never came")
		}
	}
}

// all returns the frames seen in direction.
func (r *recorder) all(direction string) [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out [][]byte
	for _, o := range r.frames {
		if o.direction == direction {
			out = append(out, o.frame)
		}
	}
	return out
}

// codecOf returns a built-in codec.
func codecOf(t *testing.T, dialect string) dialects.Codec {
	t.Helper()
	c, found := registry().Lookup(dialect)
	if !found {
		t.Fatalf("no codec %q", dialect)
	}
	return c
}

// decode decodes a copy of frame in dialect.
func decode(t *testing.T, dialect string, frame []byte) *canonical.Envelope {
	t.Helper()
	env, err := codecOf(t, dialect).Decode(append([]byte(nil), frame...))
	if err != nil {
		t.Fatalf("%s: decoding %s: %v", dialect, frame, err)
	}
	return env
}

// encode writes env in dialect.
func encode(t *testing.T, dialect string, env *canonical.Envelope) []byte {
	t.Helper()
	out, err := codecOf(t, dialect).Encode(nil, env, &dialects.EncodeContext{})
	if err != nil {
		t.Fatalf("%s: encoding %s: %v", dialect, env.Act, err)
	}
	return out
}

// checkValid fails the test for each problem the dialect finds in frames.
func checkValid(t *testing.T, dialect, who string, frames [][]byte) {
	t.Helper()
	for _, f := range frames {
		if problems := codecOf(t, dialect).Validate(append([]byte(nil), f...)); len(problems) > 0 {
			t.Errorf("%s sent an invalid %s frame: %v\n%s", who, dialect, problems, f)
		}
	}
}

// body returns a reply's result as a JSON value. bluelabel results must be
// an object with a string output, so its encoder moves other results under
// "data": body takes them from there.
func body(t *testing.T, dialect string, env *canonical.Envelope) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(env.Result), &v); err != nil {
		t.Fatalf("result %q is not JSON: %v", env.Result, err)
	}
	if m, isObject := v.(map[string]any); isObject && dialect == "bluelabel" {
		if d, wrapped := m["data"]; wrapped {
			return d
		}
	}
	return v
}

// jsonValue parses s.
func jsonValue(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad JSON in the test %q: %v", s, err)
	}
	return v
}

// pair is two agents of one dialect wired back to back through pipes,
// each serving ServeStdio.
type pair struct {
	caller, callee *Agent
	callerFrames   *recorder
	calleeFrames   *recorder
}

// startPair starts a caller ("EDDY") and a callee ("JULES") of dialect;
// the test's cleanup stops both and checks that ServeStdio returned nil.
func startPair(t *testing.T, dialect string, subscribe ...string) *pair {
	t.Helper()
	p := &pair{callerFrames: newRecorder(), calleeFrames: newRecorder()}
	var err error
	p.caller, err = New(Options{ID: "EDDY", Dialect: dialect, Subscribe: subscribe, Observer: p.callerFrames.observe})
	if err != nil {
		t.Fatal(err)
	}
	p.callee, err = New(Options{ID: "JULES", Dialect: dialect, Observer: p.calleeFrames.observe})
	if err != nil {
		t.Fatal(err)
	}
	callerIn, calleeOut := io.Pipe()
	calleeIn, callerOut := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 2)
	go func() { errs <- p.caller.ServeStdio(ctx, callerIn, callerOut) }()
	go func() { errs <- p.callee.ServeStdio(ctx, calleeIn, calleeOut) }()
	t.Cleanup(func() {
		cancel()
		for _, c := range []io.Closer{callerIn, calleeOut, calleeIn, callerOut} {
			c.Close()
		}
		for range 2 {
			select {
			case err := <-errs:
				if err != nil {
					t.Errorf("ServeStdio: %v", err)
				}
			case <-time.After(testTimeout):
				t.Fatal("ServeStdio did not return after its context ended")
			}
		}
	})
	for _, a := range []*Agent{p.caller, p.callee} {
		select {
		case <-a.Ready():
		case <-time.After(testTimeout):
			t.Fatalf("%s never became ready", a.ID())
		}
	}
	return p
}
