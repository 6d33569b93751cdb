package translate_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/mcp-bridge/mcp-bridge/mappings"
	"github.com/mcp-bridge/mcp-bridge/translate"
)

// The benchmark messages: ~1 KB requests of each dialect, in two shapes.
// "nested" carries structured arguments (objects, arrays, numbers), the
// shape of DESIGN.md section 8's reference message; "text" carries long
// escaped strings (a code snippet and a traceback), the worst case for a
// validating scanner and the best for the map baseline.
var variants = map[string]string{
	"nested": filepath.Join("testdata", "bench"),
	"text":   filepath.Join("testdata", "bench", "text"),
}

// variantNames fixes the order variants run in.
var variantNames = []string{"nested", "text"}

// benchMessage reads the bench message of dialect d in a variant.
func benchMessage(b *testing.B, variant, d string) []byte {
	msg, err := os.ReadFile(filepath.Join(variants[variant], d+".json"))
	if err != nil {
		b.Fatal(err)
	}
	return msg
}

// BenchmarkDecode decodes each dialect's bench message.
func BenchmarkDecode(b *testing.B) {
	reg := builtin.Default()
	for _, v := range variantNames {
		for _, d := range dialects.Names() {
			c, _ := reg.Lookup(d)
			msg := benchMessage(b, v, d)
			b.Run(v+"/"+d, func(b *testing.B) {
				b.SetBytes(int64(len(msg)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := c.Decode(msg); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkEncode encodes each dialect's decoded bench message back into
// the dialect, into a reused buffer.
func BenchmarkEncode(b *testing.B) {
	reg := builtin.Default()
	for _, v := range variantNames {
		for _, d := range dialects.Names() {
			c, _ := reg.Lookup(d)
			msg := benchMessage(b, v, d)
			env, err := c.Decode(msg)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(v+"/"+d, func(b *testing.B) {
				b.SetBytes(int64(len(msg)))
				b.ReportAllocs()
				buf := make([]byte, 0, 4096)
				ctx := &dialects.EncodeContext{}
				for b.Loop() {
					ctx.Losses = ctx.Losses[:0]
					if buf, err = c.Encode(buf[:0], env, ctx); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkTranslate translates each dialect's bench message into every
// dialect (25 ordered pairs), decode and encode, into a reused buffer.
func BenchmarkTranslate(b *testing.B) {
	tr := translate.Translator{Registry: builtin.Default()}
	for _, v := range variantNames {
		for _, from := range dialects.Names() {
			msg := benchMessage(b, v, from)
			for _, to := range dialects.Names() {
				b.Run(v+"/"+from+"_to_"+to, func(b *testing.B) {
					b.SetBytes(int64(len(msg)))
					b.ReportAllocs()
					buf := make([]byte, 0, 4096)
					ctx := &dialects.EncodeContext{}
					for b.Loop() {
						res, err := tr.Translate(buf[:0], from, to, msg, translate.Options{Context: ctx})
						if err != nil {
							b.Fatal(err)
						}
						buf = res.Output
					}
				})
			}
		}
	}
}

// renames is the baseline's field renaming: about as many names as a
// translation rewrites.
var renames = map[string]string{
	"message_id": "messageId", "messageId": "message_id", "id": "message_id",
	"sender": "source", "sender_id": "source", "source": "sender_id",
	"receiver": "target", "receiver_id": "destination", "target": "receiver_id", "destination": "receiver_id",
	"timestamp": "time", "payload": "body", "body": "payload", "content": "payload", "header": "envelope",
	"task_parameters": "arguments", "arguments": "parameters", "parameters": "arguments", "payload.content": "body",
	"task_type": "tool_name", "tool_name": "action", "action": "tool_name", "capability": "group",
	"priority": "urgency", "performative": "type", "message_type": "type", "messageType": "type", "type": "kind",
}

// BenchmarkBaselineMap is DESIGN.md section 8's baseline, measured on the
// same messages in the same run: encoding/json into map[string]any,
// renaming the fields of the envelope and its payload, and back.
func BenchmarkBaselineMap(b *testing.B) {
	for _, v := range variantNames {
		for _, d := range dialects.Names() {
			msg := benchMessage(b, v, d)
			b.Run(v+"/"+d, func(b *testing.B) {
				b.SetBytes(int64(len(msg)))
				b.ReportAllocs()
				for b.Loop() {
					var m map[string]any
					if err := json.Unmarshal(msg, &m); err != nil {
						b.Fatal(err)
					}
					out := renameKeys(m, 2)
					if _, err := json.Marshal(out); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// renameKeys renames the members of m and of its objects depth levels down.
func renameKeys(m map[string]any, depth int) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if n, ok := renames[k]; ok {
			k = n
		}
		if sub, ok := v.(map[string]any); ok && depth > 0 {
			v = renameKeys(sub, depth-1)
		}
		out[k] = v
	}
	return out
}

// BenchmarkRewrites translates the nested swarm bench message to elizaacl
// with no mapping rules and with five rewrite rules that all apply, in the
// same run (issue: five rules cost at most 1.5x).
func BenchmarkRewrites(b *testing.B) {
	msg := benchMessage(b, "nested", "swarm")
	withRules := translate.BenchRewriteRules(b)
	for _, c := range []struct {
		name string
		m    *mappings.Set
	}{{"none", dialects.DefaultMappings()}, {"five", withRules}} {
		tr := translate.Translator{Registry: builtin.Default(), Mappings: c.m}
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(msg)))
			b.ReportAllocs()
			buf := make([]byte, 0, 4096)
			ctx := &dialects.EncodeContext{}
			for b.Loop() {
				res, err := tr.Translate(buf[:0], "swarm", "elizaacl", msg, translate.Options{Context: ctx})
				if err != nil {
					b.Fatal(err)
				}
				buf = res.Output
			}
		})
	}
}
