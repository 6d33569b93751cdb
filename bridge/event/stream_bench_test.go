package event

import "testing"

// counter is a subscriber that does next to nothing.
type counter struct{ n int }

func (c *counter) Handle(e Event) { c.n += int(e.Kind) }

// BenchmarkEmit is one event told to two subscribers, as the message log
// and the metrics are told of most events: the stream's own cost.
func BenchmarkEmit(b *testing.B) {
	var st Stream
	st.Subscribe(&counter{})
	st.Subscribe(&counter{})
	b.ReportAllocs()
	for b.Loop() {
		st.Emit(Event{Kind: Received, Size: 3, Agent: "a", Dialect: "swarm"})
	}
}
