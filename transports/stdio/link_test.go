package stdio

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
)

// pipeLink returns a link writing to a fresh pipe and the pipe's read end.
func pipeLink(t *testing.T) (*link, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	l := newLink(w)
	t.Cleanup(func() {
		l.shut()
		_ = r.Close()
	})
	return l, r
}

func TestLinkSend(t *testing.T) {
	l, r := pipeLink(t)
	if l.Transport() != "stdio" {
		t.Errorf("Transport() = %q", l.Transport())
	}
	ctx := context.Background()
	frame := []byte(`{"a":1}`)
	for _, f := range [][]byte{frame, []byte(`{}`)} {
		if err := l.Send(ctx, bridge.Outbound{Frame: f}); err != nil {
			t.Fatal(err)
		}
	}
	if string(frame) != `{"a":1}` {
		t.Errorf("Send changed its frame to %q", frame)
	}
	if err := l.Send(ctx, bridge.Outbound{Frame: []byte("{\n}")}); err == nil {
		t.Error("a frame with a newline was sent")
	}
	l.shut()
	if err := l.Send(ctx, bridge.Outbound{Frame: frame}); !errors.Is(err, ErrDown) {
		t.Errorf("Send after shut: %v, want ErrDown", err)
	}
	var got bytes.Buffer
	if _, err := got.ReadFrom(r); err != nil {
		t.Fatal(err)
	}
	if want := "{\"a\":1}\n{}\n"; got.String() != want {
		t.Errorf("the pipe carried %q, want %q", got.String(), want)
	}
}

// A Send to a child that does not read gives up when its context ends, and
// the frames after it arrive whole.
func TestLinkSendBlocked(t *testing.T) {
	big := []byte(`{"data":"` + strings.Repeat("z", 4<<20) + `"}`)
	for _, tc := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
	}{
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 20*time.Millisecond)
		}},
		{"cancel", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(20*time.Millisecond, cancel)
			return ctx, cancel
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, r := pipeLink(t)
			ctx, cancel := tc.ctx()
			defer cancel()
			sent := make(chan error, 1)
			go func() { sent <- l.Send(ctx, bridge.Outbound{Frame: big}) }()
			select {
			case err := <-sent:
				if err == nil {
					t.Fatal("a 4 MiB frame fit in a pipe nobody reads")
				}
			case <-time.After(patience):
				t.Fatal("Send blocked past its context")
			}

			// The frame was cut short, or not begun when the context ended
			// first (a loaded machine); either way the child sees whole
			// frames after it.
			l.mu.Lock()
			cutShort := l.partial
			l.mu.Unlock()
			t.Logf("cut short: %v", cutShort)

			read := make(chan []string, 1)
			go func() {
				in := bufio.NewScanner(r)
				in.Buffer(nil, 8<<20)
				var lines []string
				for in.Scan() {
					lines = append(lines, in.Text())
				}
				read <- lines
			}()
			if err := l.Send(context.Background(), bridge.Outbound{Frame: []byte(`{}`)}); err != nil {
				t.Fatal(err)
			}
			l.shut()
			var lines []string
			select {
			case lines = <-read:
			case <-time.After(patience):
				t.Fatal("the pipe did not end")
			}
			if cutShort {
				if len(lines) == 0 {
					t.Fatal("nothing arrived")
				}
				cut := lines[0]
				if len(cut) == 0 || len(cut) >= len(big) || !bytes.HasPrefix(big, []byte(cut)) {
					t.Errorf("the interrupted frame arrived as %d bytes, want a strict prefix of its %d", len(cut), len(big))
				}
				lines = lines[1:]
			}
			if len(lines) != 1 || lines[0] != "{}" {
				t.Errorf("after the interrupted frame, %d lines arrived (first %.40q), want {}", len(lines), lines)
			}
		})
	}
}
