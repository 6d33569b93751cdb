package elizaacl

import (
	"math"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/internal/jsonw"
	"github.com/tidwall/gjson"
)

// maxETASeconds is the longest estimated_completion_time a duration holds.
const maxETASeconds = math.MaxInt64 / int64(time.Second)

// eta reads estimated_completion_time (spec 4.2): a number of seconds
// (300) or an ISO 8601 duration ("PT5M"), kept as TTL with the form it had.
func (d *decoder) eta(o *object, key string, v gjson.Result) error {
	path := dialects.Join(o.path, key)
	switch v.Type {
	case gjson.Null:
		dialects.Keep(d.env, Name, o.path, key, v.Raw)
	case gjson.Number:
		if v.Num < 0 || v.Num > float64(maxETASeconds) {
			return d.c.Read.Errorf(path, "must be between 0 and %d seconds, got %s", maxETASeconds, v.Raw)
		}
		d.env.TTL = canonical.Dur(time.Duration(v.Num * float64(time.Second)))
	case gjson.String:
		dur, err := canonical.ParseISODuration(v.Str)
		if err != nil || dur < 0 {
			return d.c.Read.Errorf(path, "must be a number of seconds or an ISO 8601 duration like \"PT5M\", got %q", v.Str)
		}
		d.env.TTL = canonical.Duration{D: dur, Set: true, ISO: true, Text: v.Str}
	default:
		return d.c.Read.Errorf(path, "must be a number of seconds or an ISO 8601 duration string, got %s", dialects.TypeName(v))
	}
	return nil
}

// writeETA writes TTL as estimated_completion_time: an ISO 8601 duration
// when it was read as one (its text as written, while it still says the
// same), else seconds (a whole number when it is one).
// A negative TTL is written as 0 and reported.
func writeETA(w *jsonw.Writer, ctx *dialects.EncodeContext, ttl canonical.Duration) {
	d := ttl.D
	if d < 0 {
		dialects.Approximate(ctx, canonical.CTTL, Name, d.String(), "0 (estimated_completion_time cannot be negative)")
		d = 0
	}
	w.Name("estimated_completion_time")
	switch {
	case ttl.ISO && ttl.Text != "" && d == ttl.D && parsesTo(ttl.Text, d):
		w.String(ttl.Text) // as the source wrote it
	case ttl.ISO:
		w.String(canonical.FormatISODuration(d))
	case d%time.Second == 0:
		w.Int(int64(d / time.Second))
	default:
		w.Float(d.Seconds())
	}
}

// parsesTo reports whether the ISO 8601 duration text says d.
func parsesTo(text string, d time.Duration) bool {
	got, err := canonical.ParseISODuration(text)
	return err == nil && got == d
}
