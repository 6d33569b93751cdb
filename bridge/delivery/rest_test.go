package delivery

import (
	"testing"
	"time"
)

// writing reports whether q's writer runs.
func (q *Queue) writing() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.started
}

// holds reports whether q holds its lines and the writer's channels.
func (q *Queue) holds() (lines, channels bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.q != nil, q.wake != nil || q.done != nil
}

// TestRest: a queue's writer goes at Rest once the queue is empty, and the
// next message starts another, which delivers it; one queued after Rest
// keeps it; a queue without a writer holds no lines and no channels;
// Close after the writer went returns, and so does a second Close.
func TestRest(t *testing.T) {
	g := &gate{open: make(chan struct{}), got: make(chan string, 8)}
	close(g.open)
	q, _ := newTestQueue(t, g, 10, 10, time.Minute)
	if q.writing() {
		t.Fatal("a writer before any message")
	}
	steps := []struct {
		put   string // a message queued first, "" none
		rest  bool   // Rest is called
		wants bool   // the writer runs after
	}{
		{put: "one", wants: true},
		{rest: true, wants: false},
		{rest: true, wants: false}, // nothing to let go
		{put: "two", wants: true},
		{put: "three", rest: true, wants: false},
		{put: "four", wants: true},
	}
	for i, st := range steps {
		if st.put != "" {
			putTracked(t, q, st.put)
			if got := <-g.got; got != st.put {
				t.Fatalf("step %d: delivered %q, want %q", i, got, st.put)
			}
		}
		if st.rest {
			q.Rest()
		}
		deadline := time.Now().Add(10 * time.Second)
		for q.writing() != st.wants && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if got := q.writing(); got != st.wants {
			t.Fatalf("step %d: writer running %v, want %v", i, got, st.wants)
		}
		if lines, channels := q.holds(); lines != st.wants || channels != st.wants {
			t.Errorf("step %d: the queue holds its lines %v, the writer's channels %v", i, lines, channels)
		}
	}
	for _, which := range []string{"Close after the writer went", "a second Close"} {
		done := make(chan struct{})
		go func() { q.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s did not return", which)
		}
	}
	// A queue that never had a writer closes, twice, too.
	idle, _ := newTestQueue(t, g, 10, 10, time.Minute)
	if lines, channels := idle.holds(); lines || channels {
		t.Errorf("a new queue holds its lines %v, channels %v", lines, channels)
	}
	idle.Close()
	idle.Close()
}
