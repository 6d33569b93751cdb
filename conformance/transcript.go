package conformance

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"time"
)

// transcript writes every frame, both ways, as one JSON object a line
// (NDJSON): {"time", "elapsed_ms", "direction": "sent"|"received",
// "requirement", "size", "frame"}. frame is the frame as JSON when it is
// JSON, else as a string; a frame over the size limit is a string of its
// beginning, with "truncated": true. A nil transcript writes nothing; the
// first write error stops it.
type transcript struct {
	mu    sync.Mutex
	w     io.Writer
	start time.Time
	err   error
}

func newTranscript(w io.Writer, start time.Time) *transcript {
	if w == nil {
		return nil
	}
	return &transcript{w: w, start: start}
}

// transcriptLine is one line of a transcript.
type transcriptLine struct {
	Time        string          `json:"time"`
	ElapsedMS   float64         `json:"elapsed_ms"`
	Direction   string          `json:"direction"`
	Requirement string          `json:"requirement,omitempty"`
	Size        int             `json:"size"`
	Truncated   bool            `json:"truncated,omitempty"`
	Frame       json.RawMessage `json:"frame"`
}

func (t *transcript) sent(frame []byte, at time.Time, requirement string) {
	t.write(transcriptLine{Direction: "sent", Requirement: requirement, Size: len(frame)}, frame, at)
}

func (t *transcript) received(m *inbound, requirement string) {
	t.write(transcriptLine{Direction: "received", Requirement: requirement, Size: m.Size, Truncated: m.Oversize()}, m.Data, m.at)
}

func (t *transcript) write(l transcriptLine, frame []byte, at time.Time) {
	if t == nil {
		return
	}
	l.Time = at.UTC().Format(time.RFC3339Nano)
	l.ElapsedMS = float64(at.Sub(t.start).Microseconds()) / 1000
	if !l.Truncated && json.Valid(frame) {
		l.Frame = compactJSON(frame)
	} else {
		l.Frame, _ = json.Marshal(clip(frame)) // a string always marshals
	}
	line, err := json.Marshal(l)
	if err != nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err == nil {
		_, t.err = t.w.Write(append(line, '\n'))
	}
}

// compactJSON returns valid JSON without insignificant space, so that it
// sits on one line.
func compactJSON(frame []byte) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, frame); err != nil {
		return frame
	}
	return b.Bytes()
}

// failure returns the first error writing the transcript, if any.
func (t *transcript) failure() error {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}
