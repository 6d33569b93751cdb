package swarm_test

import (
	"testing"

	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/dialecttest"
	"github.com/mcp-bridge/mcp-bridge/dialects/swarm"
)

func codec() *swarm.Codec { return swarm.New(dialects.DefaultMappings().Vocabulary(swarm.Name)) }

func TestContract(t *testing.T) { dialecttest.Run(t, codec()) }

func FuzzDecode(f *testing.F) { dialecttest.Fuzz(f, codec()) }
