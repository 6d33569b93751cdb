package elizaacl_test

import (
	"testing"

	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/dialecttest"
	"github.com/mcp-bridge/mcp-bridge/dialects/elizaacl"
)

func codec() *elizaacl.Codec {
	return elizaacl.New(dialects.DefaultMappings().Vocabulary(elizaacl.Name))
}

func TestContract(t *testing.T) {
	dialecttest.Run(t, codec(), dialecttest.Options{Invalid: map[string]string{
		"realworld_05_Jules_bce1787_TASK_ACCEPT_partial": "a bare TASK_ACCEPT from Jules.json with no in_reply_to; spec 4.2: a TASK_ACCEPT must include in_reply_to",
	}})
}

func FuzzDecode(f *testing.F) { dialecttest.Fuzz(f, codec()) }

// BenchmarkRoundTrip decodes and re-encodes the largest realworld message
// (1.5 KB), the per-message work of an elizaacl -> elizaacl hop.
func BenchmarkRoundTrip(b *testing.B) {
	c := codec()
	msg := dialecttest.Samples(b, dialecttest.SamplesDir)
	var data []byte
	for _, s := range msg {
		if s.Name == "realworld_10_Jules_cfbfeec_INFORM_RESULT_full" {
			data = s.Data
		}
	}
	ctx := dialecttest.EncodeContext()
	buf := make([]byte, 0, 4096)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		env, err := c.Decode(data)
		if err != nil {
			b.Fatal(err)
		}
		ctx.Losses = ctx.Losses[:0]
		if buf, err = c.Encode(buf[:0], env, ctx); err != nil {
			b.Fatal(err)
		}
	}
}
