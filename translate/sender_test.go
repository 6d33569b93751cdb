package translate_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/mcp-bridge/mcp-bridge/dialects/dialecttest"
	"github.com/mcp-bridge/mcp-bridge/translate"
	"github.com/tidwall/gjson"
)

// TestSender: Options.Sender names the sender of a message that names none
// (fuse's capability declaration document); a declaration naming no sender
// is refused by a target that would have to invent one, and a message
// naming another sender is refused.
func TestSender(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "dialects", "fuse", dialecttest.SamplesDir, "spec_capability_declaration.json"))
	if err != nil {
		t.Fatal(err)
	}
	request, err := os.ReadFile(filepath.Join("..", "dialects", "swarm", dialecttest.SamplesDir, "realworld_factory_request.json"))
	if err != nil {
		t.Fatal(err)
	}
	tr := translate.Translator{Registry: builtin.Default()}
	cases := []struct {
		name, to, sender string
		msg              []byte
		senderErr        *translate.SenderError // the error wanted, if any
		path, value      string                 // in the output: where the sender is written
	}{
		{"declaration with --sender", "swarm", "text-bot", doc, nil, "payload.agent_id", "text-bot"},
		{"declaration to collab with --sender", "collab", "text-bot", doc, nil, "header.source", "text-bot"},
		{"declaration without a sender", "swarm", "", doc, &translate.SenderError{From: "fuse", To: "swarm"}, "", ""},
		{"declaration kept as the document", "fuse", "", doc, nil, "capabilities.0.id", "text-analysis"},
		{"declaration document given its sender", "fuse", "text-bot", doc, nil, "source.agentId", "text-bot"},
		{"the message's own sender", "collab", "agent-1", request, nil, "header.source", "agent-1"},
		{"another sender", "collab", "agent-9", request, &translate.SenderError{From: "swarm", To: "collab", Named: "agent-1", Given: "agent-9"}, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			msg := append([]byte(nil), tc.msg...)
			res, err := tr.Translate(nil, translate.Auto, tc.to, msg, translate.Options{Sender: tc.sender, Context: dialecttest.EncodeContext()})
			var se *translate.SenderError
			switch {
			case tc.senderErr != nil:
				if !errors.As(err, &se) || *se != *tc.senderErr {
					t.Fatalf("error %v, want %v", err, tc.senderErr)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if got := gjson.GetBytes(res.Output, tc.path).Str; got != tc.value {
				t.Errorf("%s = %q, want %q\n%s", tc.path, got, tc.value, res.Output)
			}
			if dst, _ := tr.Codec(tc.to); len(dst.Validate(res.Output)) != 0 {
				t.Errorf("output does not validate: %v", dst.Validate(res.Output))
			}
		})
	}
}
