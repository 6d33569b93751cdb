package a2a_test

import (
	"testing"

	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/a2a"
	"github.com/mcp-bridge/mcp-bridge/dialects/dialecttest"
)

func codec() *a2a.Codec { return a2a.New(dialects.DefaultMappings().Vocabulary(a2a.Name)) }

func TestContract(t *testing.T) { dialecttest.Run(t, codec()) }

func FuzzDecode(f *testing.F) { dialecttest.Fuzz(f, codec()) }
