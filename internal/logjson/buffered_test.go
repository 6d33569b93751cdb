package logjson

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// writes records what reaches the writer under a Buffered, and when.
type writes struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	calls int
	err   error
}

func (w *writes) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls++
	w.buf.Write(p)
	return len(p), w.err
}

func (w *writes) state() (string, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String(), w.calls
}

// TestBufferedBatches: lines written together reach the writer in one
// write after the delay, not one each, and not before.
func TestBufferedBatches(t *testing.T) {
	var w writes
	b := NewBuffered(&w, 50*time.Millisecond)
	defer b.Close()
	for i := range 100 {
		fmt.Fprintf(b, "line %d\n", i)
	}
	if got, calls := w.state(); calls != 0 || got != "" {
		t.Fatalf("written before the delay: %d writes", calls)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if got, calls := w.state(); calls > 0 {
			if calls != 1 || strings.Count(got, "\n") != 100 || !strings.HasPrefix(got, "line 0\n") || !strings.HasSuffix(got, "line 99\n") {
				t.Fatalf("%d writes of %d lines, want the 100 in one", calls, strings.Count(got, "\n"))
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("nothing written after the delay")
		}
		time.Sleep(5 * time.Millisecond)
	}
	// An idle Buffered writes nothing more.
	time.Sleep(120 * time.Millisecond)
	if _, calls := w.state(); calls != 1 {
		t.Errorf("%d writes while idle, want none", calls-1)
	}
}

// TestBufferedOrder: many goroutines' lines, each goroutine's in its
// order, with writes over the limit and flushes among them; Close writes
// the rest, and later writes go through at once.
func TestBufferedOrder(t *testing.T) {
	var w writes
	b := NewBuffered(&w, time.Millisecond)
	big := strings.Repeat("x", bufferedLimit/3) + "\n"
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				fmt.Fprintf(b, "g%d %d\n", g, i)
				switch {
				case g == 0 && i%100 == 0:
					_, _ = b.Write([]byte(big))
				case g == 1 && i%50 == 0:
					_ = b.Flush()
				}
			}
		}()
	}
	wg.Wait()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(b, "after close\n")
	got, _ := w.state()
	next := make([]int, 8)
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	for _, l := range lines[:len(lines)-1] {
		if l == strings.TrimSuffix(big, "\n") {
			continue
		}
		var g, i int
		if _, err := fmt.Sscanf(l, "g%d %d", &g, &i); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if i != next[g] {
			t.Fatalf("goroutine %d: line %d after %d", g, i, next[g]-1)
		}
		next[g]++
	}
	for g, n := range next {
		if n != 500 {
			t.Errorf("goroutine %d: %d lines written, want 500", g, n)
		}
	}
	if lines[len(lines)-1] != "after close" {
		t.Errorf("the last line %q, want the one written after Close", lines[len(lines)-1])
	}
}

// TestBufferedError: the writer's error comes back from Flush.
func TestBufferedError(t *testing.T) {
	w := writes{err: errors.New("disk full")}
	b := NewBuffered(&w, time.Hour)
	defer b.Close()
	_, _ = b.Write([]byte("x\n"))
	if err := b.Flush(); err == nil || err.Error() != "disk full" {
		t.Errorf("Flush: %v, want the writer's error", err)
	}
}
