package cluster

import (
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
)

// TestNewRefuses: options an instance cannot join with are refused before
// anything is joined.
func TestNewRefuses(t *testing.T) {
	n := startNATS(t)
	b, err := bridge.New(bridge.Options{Registry: builtin.Default(), Mappings: dialects.DefaultMappings(), Heartbeat: -1, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opts Options
		want string
	}{
		{"no URL", Options{Name: "a"}, "no NATS URL"},
		{"a dot in the name", Options{URL: n.URL(), Name: "a.b"}, "cannot hold"},
		{"a wildcard in the name", Options{URL: n.URL(), Name: "a*"}, "cannot hold"},
		{"a space in the name", Options{URL: n.URL(), Name: "a b"}, "cannot hold"},
		{"a tail wildcard in the name", Options{URL: n.URL(), Name: "a>"}, "cannot hold"},
		{"nothing listens", Options{URL: "nats://127.0.0.1:1", Name: "a"}, "connect to NATS"},
	} {
		tc.opts.Logger = quiet
		if c, err := New(b, tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			if c != nil {
				c.Close()
			}
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
	if b.Instance() != "" {
		t.Errorf("a refused join made the bridge the instance %q", b.Instance())
	}
}

// TestDefaults: an instance with no name gets one NATS subjects can hold,
// different each time; the defaults apply.
func TestDefaults(t *testing.T) {
	n := startNATS(t)
	x, y := defaultName(), defaultName()
	if x == y || strings.ContainsAny(x, ".*> \t") {
		t.Errorf("default names %q, %q: want two different names without . * > or space", x, y)
	}
	in := join(t, n.URL(), "", 0)
	if in.c.Name() == "" || in.c.opts.Prefix != DefaultPrefix || in.c.opts.Heartbeat != DefaultHeartbeat {
		t.Errorf("defaults: name %q, prefix %q, heartbeat %v", in.c.Name(), in.c.opts.Prefix, in.c.opts.Heartbeat)
	}
	if got, want := in.c.toSubject("x"), DefaultPrefix+".to.x"; got != want {
		t.Errorf("subject %q, want %q", got, want)
	}
}

// TestPrefixes: clusters with different prefixes share a NATS without
// seeing each other.
func TestPrefixes(t *testing.T) {
	n := startNATS(t)
	a := join(t, n.URL(), "a", beat)
	other := join(t, n.URL(), "b", beat)
	other.c.Close()
	o, err := New(other.b, Options{URL: n.URL(), Name: "b", Prefix: "elsewhere", Heartbeat: beat, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(o.Close)
	join(t, n.URL(), "c", beat)
	eventually(t, "a hears c", func() bool { return len(a.c.Instances()) == 1 && a.c.Instances()[0] == "c" })
	// By the time a has heard c's snapshots, it would have heard b's.
	seen := receivedSnapshots(t, a)
	eventually(t, "a hears more snapshots", func() bool { return receivedSnapshots(t, a) >= seen+3 })
	if got := a.c.Instances(); len(got) != 1 {
		t.Errorf("a hears %v, want c only", got)
	}
	if got := o.Instances(); len(got) != 0 {
		t.Errorf("b, under another prefix, hears %v", got)
	}

}

// TestStartEmbedded: the listen address is checked; a server started
// listens on the port it says.
func TestStartEmbedded(t *testing.T) {
	for _, listen := range []string{"nohost", "127.0.0.1:http"} {
		if e, err := StartEmbedded(listen); err == nil {
			e.Shutdown()
			t.Errorf("%q: started", listen)
		}
	}
	e := startNATS(t)
	if !strings.HasPrefix(e.URL(), "nats://127.0.0.1:") || strings.HasSuffix(e.URL(), ":0") {
		t.Errorf("URL %q", e.URL())
	}
}
