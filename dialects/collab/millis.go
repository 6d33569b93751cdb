package collab

import (
	"math"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/internal/jsonw"
	"github.com/tidwall/gjson"
)

// maxMillis is the longest span, in milliseconds, a time.Duration holds.
const maxMillis = math.MaxInt64 / int64(time.Millisecond)

// millis reads a span written in milliseconds (header.ttl,
// body.error.retryAfter). Fractions are kept; the schema asks for whole
// numbers.
func (c *Codec) millis(path string, v gjson.Result) (canonical.Duration, error) {
	ms, err := c.Read.Number(path, v)
	if err != nil {
		return canonical.Duration{}, err
	}
	if math.Abs(ms) > float64(maxMillis) {
		return canonical.Duration{}, c.Read.Errorf(path, "must be at most %d milliseconds, got %s", maxMillis, v.Raw)
	}
	if ms == math.Trunc(ms) {
		return canonical.Dur(time.Duration(int64(ms)) * time.Millisecond), nil
	}
	return canonical.Dur(time.Duration(ms * float64(time.Millisecond))), nil
}

// writeMillis writes d in milliseconds. A span of a collab message is written
// back as it was read; one from elsewhere is made a whole, non-negative
// number of milliseconds, as the schema asks, and the change reported.
func writeMillis(w *jsonw.Writer, ctx *dialects.EncodeContext, d time.Duration, own bool, concept canonical.Concept) {
	if d%time.Millisecond == 0 {
		ms := int64(d / time.Millisecond)
		if ms < 0 && !own {
			approximate(ctx, concept, "collab spans are not negative; wrote 0 ms for %s", d)
			ms = 0
		}
		w.Int(ms)
		return
	}
	if own {
		w.Float(float64(d) / float64(time.Millisecond))
		return
	}
	ms := max(int64(math.Ceil(float64(d)/float64(time.Millisecond))), 0)
	approximate(ctx, concept, "collab writes whole milliseconds; wrote %d ms for %s", ms, d)
	w.Int(ms)
}
