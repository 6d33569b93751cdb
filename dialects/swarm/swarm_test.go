package swarm_test

import (
	"testing"

	"github.com/mcp-bridge/mcp-bridge/dialects/dialecttest"
	"github.com/mcp-bridge/mcp-bridge/dialects/swarm"
	"github.com/mcp-bridge/mcp-bridge/mappings"
)

func codec() *swarm.Codec { return swarm.New(mappings.MustDefaults().Vocabulary(swarm.Name)) }

func TestContract(t *testing.T) { dialecttest.Run(t, codec()) }

func FuzzDecode(f *testing.F) { dialecttest.Fuzz(f, codec()) }
