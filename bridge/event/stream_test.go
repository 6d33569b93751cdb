package event

import (
	"slices"
	"testing"
)

type wanter struct {
	Func
	w Want
}

func (w wanter) Wants() Want { return w.w }

type picker struct {
	Func
	k Kinds
}

func (p picker) Kinds() Kinds { return p.k }

// TestStream: subscribers are told in the order they subscribed, until
// they stop, of the kinds they pick (every kind when they pick none);
// what they want is the union of what those subscribed want.
func TestStream(t *testing.T) {
	var st Stream
	if st.Active() || st.Wants(Copies) {
		t.Fatal("an empty stream is active or wants something")
	}
	st.Emit(Event{Kind: Received}) // nobody: nothing happens
	var got []string
	stopA := st.Subscribe(Func(func(e Event) { got = append(got, "a "+e.Kind.String()) }))
	stopB := st.Subscribe(wanter{Func(func(e Event) {
		got = append(got, "b "+e.Kind.String())
	}), Copies | Failures})
	stopC := st.Subscribe(picker{Func(func(e Event) { got = append(got, "c "+e.Kind.String()) }), KindsOf(Failed)})
	for _, tc := range []struct {
		w    Want
		want bool
	}{{Copies, true}, {Failures, true}, {Reports, false}, {Reports | Copies, true}} {
		if st.Wants(tc.w) != tc.want {
			t.Errorf("Wants(%b) = %v, want %v", tc.w, !tc.want, tc.want)
		}
	}
	st.Emit(Event{Kind: Delivered})
	stopB()
	stopB() // a second stop does nothing
	if st.Wants(Copies) {
		t.Error("the stream still wants copies once the only subscriber that did stopped")
	}
	st.Emit(Event{Kind: Failed})
	stopC()
	stopA()
	if st.Active() {
		t.Error("the stream is active with no subscriber")
	}
	st.Emit(Event{Kind: Dropped})
	if want := []string{"a delivered", "b delivered", "a failed", "c failed"}; !slices.Equal(got, want) {
		t.Errorf("told %q, want %q", got, want)
	}
}

func TestKindString(t *testing.T) {
	for k := Received; k <= Status; k++ {
		if k.String() == "unknown" || k.String() == "" {
			t.Errorf("kind %d has no name", k)
		}
	}
	if Kind(0).String() != "unknown" || Kind(200).String() != "unknown" {
		t.Error("a kind out of range has a name")
	}
}
