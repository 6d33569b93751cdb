package bluelabel_test

import (
	"testing"

	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/bluelabel"
	"github.com/mcp-bridge/mcp-bridge/dialects/dialecttest"
)

func codec() *bluelabel.Codec {
	return bluelabel.New(dialects.DefaultMappings().Vocabulary(bluelabel.Name))
}

func TestContract(t *testing.T) { dialecttest.Run(t, codec()) }

func FuzzDecode(f *testing.F) { dialecttest.Fuzz(f, codec()) }

func benchSample(b *testing.B) []byte {
	s := dialecttest.Samples(b, dialecttest.SamplesDir)
	for _, x := range s {
		if x.Name == "realworld_task_result_scored" {
			return x.Data
		}
	}
	b.Fatal("no sample realworld_task_result_scored")
	return nil
}

func BenchmarkDecode(b *testing.B) {
	c, msg := codec(), benchSample(b)
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Decode(msg); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRoundTrip(b *testing.B) {
	c, msg := codec(), benchSample(b)
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	buf := make([]byte, 0, 4096)
	for b.Loop() {
		env, err := c.Decode(msg)
		if err != nil {
			b.Fatal(err)
		}
		if buf, err = c.Encode(buf[:0], env, nil); err != nil {
			b.Fatal(err)
		}
	}
}
