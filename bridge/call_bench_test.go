package bridge

import (
	"context"
	"testing"
)

// BenchmarkCall is a call through the bridge to an in-process swarm agent
// that answers each request at once: the bridge's own cost of a call, with
// no network.
func BenchmarkCall(b *testing.B) { benchCall(b, false) }

// BenchmarkCallTapped is BenchmarkCall with a tap watching (the web
// console's traffic view): what observing costs the bridge.
func BenchmarkCallTapped(b *testing.B) { benchCall(b, true) }

func benchCall(b *testing.B, tapped bool) {
	br, _ := newTestBridge(b, Options{})
	if tapped {
		tap := br.Tap(func(Traffic) {}, TapOptions{})
		defer tap.Stop()
	}
	attachScripted(b, br, "swarm", "adder", echo)
	req := request("adder", "add", `{"a":1,"b":2}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := br.Call(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}
