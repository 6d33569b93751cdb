package refagent

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// TestIntroduction checks each dialect's opening frame: the act it is
// sent as, that it validates, and that it decodes back to the agent's id
// and tools.
func TestIntroduction(t *testing.T) {
	cases := []struct {
		dialect string
		act     canonical.Act // "": no introduction
		word    string        // the message's own word for it
	}{
		{"elizaacl", canonical.ActInformCapabilities, `"performative":"INFORM_CAPABILITIES"`},
		{"collab", canonical.ActInformCapabilities, `"action":"registry.register"`},
		{"bluelabel", "", ""},
		{"fuse", canonical.ActInformCapabilities, `"eventType":"capabilities"`},
		{"swarm", canonical.ActQueryCapabilities, `"message_type":"handshake_request"`},
	}
	for _, tc := range cases {
		t.Run(tc.dialect, func(t *testing.T) {
			a, err := New(Options{Dialect: tc.dialect, ID: "JULES"})
			if err != nil {
				t.Fatal(err)
			}
			frames := a.Introduction()
			if tc.act == "" {
				if len(frames) != 0 {
					t.Fatalf("%d introduction frames, want none: %s", len(frames), frames[0])
				}
				return
			}
			if len(frames) != 1 {
				t.Fatalf("%d introduction frames, want 1", len(frames))
			}
			checkValid(t, tc.dialect, "the agent", frames)
			if !strings.Contains(string(frames[0]), tc.word) {
				t.Errorf("the introduction lacks %s: %s", tc.word, frames[0])
			}
			env := decode(t, tc.dialect, frames[0])
			if env.Act != tc.act || env.Sender.ID != "JULES" || env.Capabilities == nil {
				t.Fatalf("decoded as %s from %q with %+v", env.Act, env.Sender.ID, env.Capabilities)
			}
			var names []string
			for _, tool := range env.Capabilities.Tools {
				names = append(names, tool.Name)
			}
			if want := ToolNames(); !reflect.DeepEqual(names, want) {
				t.Errorf("tools %v, want %v", names, want)
			}
		})
	}
}

// TestFuseDeclaration checks what fuse, the dialect whose declarations
// carry the most, says of the tools: the sentiment tool's capability and
// its input schema as fuse parameters.
func TestFuseDeclaration(t *testing.T) {
	a, err := New(Options{Dialect: "fuse", Tools: []string{"sentiment-analysis", "add"}})
	if err != nil {
		t.Fatal(err)
	}
	env := decode(t, "fuse", a.Introduction()[0])
	got := map[string]canonical.Tool{}
	for _, tool := range env.Capabilities.Tools {
		got[tool.Name] = tool
	}
	if len(got) != 2 || got["sentiment-analysis"].Capability != sentimentCapability {
		t.Fatalf("tools %+v", env.Capabilities.Tools)
	}
	var schema struct {
		Properties map[string]struct {
			Type    string `json:"type"`
			Default any    `json:"default"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal([]byte(got["sentiment-analysis"].InputSchema), &schema); err != nil {
		t.Fatal(err)
	}
	if schema.Properties["text"].Type != "string" || schema.Properties["language"].Default != "en" || !reflect.DeepEqual(schema.Required, []string{"text"}) {
		t.Errorf("sentiment-analysis input schema %s", got["sentiment-analysis"].InputSchema)
	}
}

// TestSubscriptions checks the subscribe requests each dialect sends.
func TestSubscriptions(t *testing.T) {
	for _, dialect := range []string{"elizaacl", "collab", "bluelabel", "fuse", "swarm"} {
		t.Run(dialect, func(t *testing.T) {
			a, err := New(Options{Dialect: dialect, Subscribe: []string{"news", "builds/ci"}})
			if err != nil {
				t.Fatal(err)
			}
			frames := a.subscriptions()
			if len(frames) != 2 {
				t.Fatalf("%d subscriptions, want 2", len(frames))
			}
			checkValid(t, dialect, "the agent", frames)
			for i, topic := range []string{"news", "builds/ci"} {
				env := decode(t, dialect, frames[i])
				wantCap := ""
				if dialect == "fuse" {
					wantCap = "events"
				}
				if env.Act != canonical.ActRequest || env.Operation != (canonical.Operation{Capability: wantCap, Name: "subscribe"}) {
					t.Errorf("act %s operation %+v", env.Act, env.Operation)
				}
				if got := jsonValue(t, string(env.Arguments)); !reflect.DeepEqual(got, map[string]any{"topic": topic}) {
					t.Errorf("arguments %s", env.Arguments)
				}
			}
		})
	}
}
