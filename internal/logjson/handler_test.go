package logjson

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"math"
	"testing"
	"time"
)

// pair is the fast handler and the library's, each writing to its own
// buffer.
type pair struct {
	fast, lib       slog.Handler
	fastOut, libOut bytes.Buffer
}

func newPair(opts *slog.HandlerOptions) *pair {
	p := &pair{}
	p.fast = New(&p.fastOut, opts)
	p.lib = slog.NewJSONHandler(&p.libOut, opts)
	return p
}

// with gives both handlers the same attributes, and group when not empty.
func (p *pair) with(group string, as ...slog.Attr) {
	p.fast, p.lib = p.fast.WithAttrs(as), p.lib.WithAttrs(as)
	if group != "" {
		p.fast, p.lib = p.fast.WithGroup(group), p.lib.WithGroup(group)
	}
}

// same handles r with both and fails unless they wrote the same bytes.
func (p *pair) same(t *testing.T, r slog.Record) {
	t.Helper()
	p.fastOut.Reset()
	p.libOut.Reset()
	ferr := p.fast.Handle(context.Background(), r.Clone())
	lerr := p.lib.Handle(context.Background(), r.Clone())
	if (ferr == nil) != (lerr == nil) {
		t.Fatalf("errors differ: fast %v, library %v", ferr, lerr)
	}
	if !bytes.Equal(p.fastOut.Bytes(), p.libOut.Bytes()) {
		t.Fatalf("lines differ:\n fast    %q\n library %q", p.fastOut.Bytes(), p.libOut.Bytes())
	}
	// Line writes what Handle writes, from the record's parts.
	if l, ok := p.fast.(*Handler); ok {
		var attrs []slog.Attr
		r.Attrs(func(a slog.Attr) bool { attrs = append(attrs, a); return true })
		p.fastOut.Reset()
		if err := l.Line(r.Time, r.Level, r.Message, attrs); (err == nil) != (lerr == nil) {
			t.Fatalf("errors differ: Line %v, library %v", err, lerr)
		}
		if !bytes.Equal(p.fastOut.Bytes(), p.libOut.Bytes()) {
			t.Fatalf("lines differ:\n Line    %q\n library %q", p.fastOut.Bytes(), p.libOut.Bytes())
		}
	}
}

var when = time.Date(2026, 11, 27, 13, 30, 5, 123456789, time.UTC)

func TestSameAsLibrary(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opts  *slog.HandlerOptions
		with  []slog.Attr
		group string
		t     time.Time
		level slog.Level
		msg   string
		attrs []slog.Attr
	}{
		{name: "plain", t: when, msg: "received", attrs: []slog.Attr{slog.String("sender", "a"), slog.Int("bytes", 1016)}},
		{name: "bridge line", t: when, msg: "sent",
			with:  []slog.Attr{slog.String("dialect", "collab"), slog.String("transport", "websocket"), slog.String("receiver", "swarm-agent")},
			attrs: []slog.Attr{slog.String("sender", "collab-1"), slog.String("act", "request"), slog.Int("bytes", 1016), slog.String("id", "0F6A3C2E-9B1D")}},
		{name: "kinds", t: when, level: slog.LevelWarn + 2, msg: "k", attrs: []slog.Attr{
			slog.Int64("i", -42), slog.Uint64("u", 1<<63), slog.Bool("t", true), slog.Bool("f", false), slog.Duration("d", 1500*time.Millisecond)}},
		{name: "escapes", t: when, msg: "a\"b\\c\n\r\t\x01\x7f<>&é\xff", attrs: []slog.Attr{slog.String("k\x00\"", "\xe2\x82\xac \xed\xa0\x80 \x1f")}},
		{name: "line separators", t: when, msg: "a\u2028b", attrs: []slog.Attr{slog.String("k", "\u2029")}},
		{name: "separator in an attribute", t: when, msg: "m", with: []slog.Attr{slog.String("w", "\u2028")}, attrs: []slog.Attr{slog.String("k", "v")}},
		{name: "no time", msg: "m", attrs: []slog.Attr{slog.String("k", "v")}},
		{name: "year 10000", t: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), msg: "m"},
		{name: "zone", t: when.In(time.FixedZone("x", -3*3600-30*60)), msg: "m"},
		// The date and clock of a second are kept for the next line in
		// the same second and location (appendTime): the same second in
		// another zone, then back, and fractions of all lengths.
		{name: "same second east", t: when.In(time.FixedZone("e", 5*3600+45*60)), msg: "m"},
		{name: "same second west again", t: when.In(time.FixedZone("x", -3*3600-30*60)), msg: "m"},
		{name: "same second, seconds in the offset", t: when.In(time.FixedZone("lmt", 17*60+30)), msg: "m"},
		{name: "whole second", t: when.Truncate(time.Second), msg: "m"},
		{name: "trailing zeros", t: when.Truncate(time.Millisecond).Add(20 * time.Microsecond), msg: "m"},
		{name: "one nanosecond", t: when.Truncate(time.Second).Add(1), msg: "m"},
		{name: "year 0", t: time.Date(0, 1, 1, 0, 0, 0, 500, time.UTC), msg: "m"},
		{name: "year 9999", t: time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC), msg: "m"},
		{name: "empty key", t: when, msg: "m", attrs: []slog.Attr{slog.String("", ""), slog.String("", "v")}},
		{name: "float", t: when, msg: "m", attrs: []slog.Attr{slog.Float64("f", 0.1)}},
		{name: "floats", t: when, msg: "m", attrs: []slog.Attr{slog.Float64("zero", 0), slog.Float64("neg", -0.287), slog.Float64("small", 1e-7),
			slog.Float64("edge", 1e-6), slog.Float64("big", 1e21), slog.Float64("below", 999999999999999999999), slog.Float64("exp", -2.5e-300)}},
		{name: "non-finite floats", t: when, msg: "m", attrs: []slog.Attr{slog.Float64("nan", math.NaN()), slog.Float64("inf", math.Inf(1))}},
		{name: "any", t: when, msg: "m", attrs: []slog.Attr{slog.Any("err", errors.New("boom")), slog.Any("list", []int{1, 2})}},
		{name: "group attr", t: when, msg: "m", attrs: []slog.Attr{slog.Group("g", slog.String("k", "v"))}},
		{name: "empty group attr", t: when, msg: "m", attrs: []slog.Attr{slog.Group("g"), slog.String("k", "v")}},
		{name: "with group", t: when, msg: "m", with: []slog.Attr{slog.String("w", "1")}, group: "g", attrs: []slog.Attr{slog.String("k", "v")}},
		{name: "with any", t: when, msg: "m", with: []slog.Attr{slog.Any("w", map[string]int{"a": 1})}, attrs: []slog.Attr{slog.String("k", "v")}},
		{name: "time attr", t: when, msg: "m", attrs: []slog.Attr{slog.Time("at", when)}},
		{name: "replace attr", opts: &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr { return a }}, t: when, msg: "m"},
		{name: "source", opts: &slog.HandlerOptions{AddSource: true}, t: when, msg: "m"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPair(tc.opts)
			if tc.with != nil || tc.group != "" {
				p.with(tc.group, tc.with...)
			}
			r := slog.NewRecord(tc.t, tc.level, tc.msg, 0)
			r.AddAttrs(tc.attrs...)
			p.same(t, r)
		})
	}
}

// TestFastPathTaken: the bridge's log lines are written by the fast path,
// not handed to the library.
func TestFastPathTaken(t *testing.T) {
	var out bytes.Buffer
	h := New(&out, nil).WithAttrs([]slog.Attr{slog.String("dialect", "collab")})
	fast, ok := h.(*Handler)
	if !ok {
		t.Fatalf("WithAttrs of strings gave a %T", h)
	}
	// The library's twin writes nowhere now: a line must come from the
	// fast path.
	fast.inner = slog.NewJSONHandler(io.Discard, nil)
	r := slog.NewRecord(when, slog.LevelInfo, "received", 0)
	r.AddAttrs(slog.String("sender", "a"), slog.Int("bytes", 3), slog.Bool("ok", true))
	if err := h.Handle(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	if out.Len() == 0 {
		t.Fatal("the fast path handed a plain record to the library")
	}
}

// TestLevel: the handler enables what the options' level does, and follows
// a LevelVar.
func TestLevel(t *testing.T) {
	var lv slog.LevelVar
	lv.Set(slog.LevelWarn)
	h := New(io.Discard, &slog.HandlerOptions{Level: &lv})
	if h.Enabled(context.Background(), slog.LevelInfo) {
		t.Error("info is enabled at warn")
	}
	lv.Set(slog.LevelDebug)
	if !h.Enabled(context.Background(), slog.LevelInfo) {
		t.Error("info is not enabled at debug")
	}
}

// FuzzHandler holds the fast path to the library's bytes.
func FuzzHandler(f *testing.F) {
	f.Add("received", "sender", "collab-1", "dialect", "collab", int64(1016), uint64(7), true, 0, int64(1795786205123456789), false, false, 0.287)
	f.Add("a\u2028", "k\"", "\xff\x01", "", "\u2029", int64(-1), uint64(0), false, 4, int64(0), true, false, 1e-7)
	f.Add("m", "k", "v", "w", "x", int64(0), uint64(1<<63), false, -4, int64(-62135596800000000), false, true, -1e21)
	f.Add("m", "k", "v", "w", "x", int64(0), uint64(1), false, 0, int64(0), false, false, math.NaN())
	f.Add("m", "k", "v", "w", "x", int64(0), uint64(1), false, 0, int64(0), false, false, math.Inf(-1))
	f.Add("m", "k", "v", "w", "x", int64(0), uint64(1), false, 0, int64(0), false, false, 123456789012345678901234.5)
	f.Fuzz(func(t *testing.T, msg, k1, v1, k2, v2 string, n int64, u uint64, b bool, level int, nsec int64, group, anyAttr bool, fl float64) {
		p := newPair(nil)
		g := ""
		if group {
			g = k2
		}
		p.with(g, slog.String(k2, v2), slog.Int64(k1, n))
		var at time.Time
		if nsec != 0 {
			at = time.Unix(0, nsec).UTC()
		}
		r := slog.NewRecord(at, slog.Level(level), msg, 0)
		r.AddAttrs(slog.String(k1, v1), slog.Int64("n", n), slog.Uint64("u", u), slog.Bool("b", b), slog.Duration("d", time.Duration(n)),
			slog.Float64("f", fl))
		if anyAttr {
			r.AddAttrs(slog.Any("x", []string{v1}))
		}
		p.same(t, r)
	})
}

func BenchmarkLine(b *testing.B) {
	with := []slog.Attr{slog.String("dialect", "collab"), slog.String("transport", "websocket"), slog.String("receiver", "swarm-agent")}
	attrs := []slog.Attr{slog.String("sender", "collab-requester-1"), slog.String("act", "request"), slog.Int("bytes", 1016),
		slog.String("id", "0f6a3c2e-9b1d-4e55-8c3a-2d7e4f1b9a60"), slog.String("correlation_id", "7A4C2E1F-0B3D-4C5E-9F8A-1B2C3D4E5F60"),
		slog.String("trace_id", "4bf92f3577b34da6a3ce929d0e0e4736"), slog.String("operation", "summarise")}
	for _, side := range []struct {
		name string
		h    slog.Handler
	}{
		{"library", slog.NewJSONHandler(io.Discard, nil).WithAttrs(with)},
		{"logjson", New(io.Discard, nil).WithAttrs(with)},
	} {
		b.Run(side.name, func(b *testing.B) {
			for b.Loop() {
				r := slog.NewRecord(time.Now(), slog.LevelInfo, "received", 0)
				r.AddAttrs(attrs...)
				_ = side.h.Handle(context.Background(), r)
			}
		})
	}
	b.Run("logjson-line", func(b *testing.B) {
		l := New(io.Discard, nil).WithAttrs(with).(*Handler)
		for b.Loop() {
			_ = l.Line(time.Now(), slog.LevelInfo, "received", attrs)
		}
	})
}
