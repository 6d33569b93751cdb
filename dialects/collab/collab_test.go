package collab_test

import (
	"testing"

	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/collab"
	"github.com/mcp-bridge/mcp-bridge/dialects/dialecttest"
)

func newCodec() *collab.Codec { return collab.New(dialects.DefaultMappings().Vocabulary(collab.Name)) }

// shared is one codec for the tests, so that its schema compiles once.
var shared = newCodec()

func codec() *collab.Codec { return shared }

func TestContract(t *testing.T) { dialecttest.Run(t, newCodec()) }

func FuzzDecode(f *testing.F) { dialecttest.Fuzz(f, newCodec()) }
