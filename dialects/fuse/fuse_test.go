package fuse_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/dialecttest"
	"github.com/mcp-bridge/mcp-bridge/dialects/fuse"
	"github.com/mcp-bridge/mcp-bridge/mappings"
	"github.com/tidwall/gjson"
)

var vocabulary = sync.OnceValue(func() *mappings.Vocabulary { return dialects.DefaultMappings().Vocabulary(fuse.Name) })

func codec() *fuse.Codec { return fuse.New(vocabulary()) }

func TestContract(t *testing.T) { dialecttest.Run(t, codec()) }

func FuzzDecode(f *testing.F) { dialecttest.Fuzz(f, codec()) }

func sample(t *testing.T, name string) []byte { return dialecttest.ReadSample(t, name) }

func decode(t *testing.T, msg []byte) *canonical.Envelope {
	return dialecttest.MustDecode(t, codec(), msg)
}

// TestDecodeSamples checks the canonical values each kind of message decodes to.
func TestDecodeSamples(t *testing.T) {
	cases := []struct {
		sample    string
		act       canonical.Act
		form      string
		receiver  canonical.AddressKind
		inReplyTo string
		outcome   canonical.Outcome
		code      canonical.ErrorCode
		word      string // Origin.Words[error]
		check     func(t *testing.T, env *canonical.Envelope)
	}{
		{sample: "spec_request", act: canonical.ActRequest, receiver: canonical.AddressNone, check: func(t *testing.T, env *canonical.Envelope) {
			want := canonical.Operation{Capability: "text-analysis", Name: "sentiment-analysis"}
			if env.Operation != want || env.ConversationID != "conversation-123" || !strings.Contains(string(env.Arguments), "enjoyed") {
				t.Errorf("operation %+v, conversation %q, arguments %s", env.Operation, env.ConversationID, env.Arguments)
			}
		}},
		{sample: "realworld_complete_guide_request", act: canonical.ActRequest, receiver: canonical.AddressAgent, check: func(t *testing.T, env *canonical.Envelope) {
			if env.ID != "req-123" || env.Origin.Version != "1.0" || env.Time != "2025-04-10T15:30:00Z" {
				t.Errorf("id %q version %q time %q", env.ID, env.Origin.Version, env.Time)
			}
			if env.Sender != (canonical.Party{ID: "source-agent-id", Name: "Source Agent Name"}) || env.Receiver.ID != "target-agent-id" || env.Receiver.Name != "Target Agent Name" {
				t.Errorf("sender %+v receiver %+v", env.Sender, env.Receiver)
			}
			if env.CorrelationID != "task-456" || env.SessionID != "session-789" || env.Metadata != "" {
				t.Errorf("correlation %q session %q metadata %q", env.CorrelationID, env.SessionID, env.Metadata)
			}
		}},
		{sample: "spec_response", act: canonical.ActResult, inReplyTo: "original-request-id", outcome: canonical.OutcomeSuccess, check: func(t *testing.T, env *canonical.Envelope) {
			if !strings.Contains(string(env.Result), `"score": 0.89`) {
				t.Errorf("result %s", env.Result)
			}
		}},
		{sample: "realworld_complete_guide_response", act: canonical.ActResult, form: fuse.FormGuide, receiver: canonical.AddressAgent, inReplyTo: "req-123", outcome: canonical.OutcomeSuccess, check: func(t *testing.T, env *canonical.Envelope) {
			if !strings.Contains(string(env.Result), "detailed_analysis") || len(env.Extra) != 0 {
				t.Errorf("result %s extra %v", env.Result, env.Extra)
			}
		}},
		{sample: "spec_error_response", act: canonical.ActFailure, inReplyTo: "original-request-id", outcome: canonical.OutcomeFailure, code: canonical.ErrNotFound, word: "capability-not-found", check: func(t *testing.T, env *canonical.Envelope) {
			if !strings.HasPrefix(env.Error.Message, "The requested capability") || !strings.Contains(string(env.Error.Details), "availableCapabilities") {
				t.Errorf("error %+v", env.Error)
			}
		}},
		{sample: "made_error_response_tool_not_found", act: canonical.ActFailure, receiver: canonical.AddressAgent, inReplyTo: "req-309", outcome: canonical.OutcomeFailure, code: canonical.ErrNotFound, word: "TOOL_NOT_FOUND"},
		{sample: "made_error_response_unknown_code", act: canonical.ActFailure, receiver: canonical.AddressAgent, inReplyTo: "req-gh-2", outcome: canonical.OutcomeFailure, word: "API_ERROR"},
		{sample: "made_refuse_response", act: canonical.ActRefuse, receiver: canonical.AddressAgent, inReplyTo: "req-deploy-88", outcome: canonical.OutcomeFailure, code: canonical.ErrRejected, word: "REJECTED"},
		{sample: "made_not_understood_response", act: canonical.ActNotUnderstood, inReplyTo: "req-bad-5", outcome: canonical.OutcomeFailure, code: canonical.ErrInvalidMessage, word: "INVALID_MESSAGE"},
		{sample: "made_response_result_failed", act: canonical.ActResult, receiver: canonical.AddressAgent, inReplyTo: "req-ci-203", outcome: canonical.OutcomeFailure, check: func(t *testing.T, env *canonical.Envelope) {
			if gjson.Get(string(env.Result), "failed").Int() != 3 || env.Error != nil || env.CorrelationID != "task-ci-77" || len(env.Extra) != 0 {
				t.Errorf("result %s error %+v correlation %q extra %v", env.Result, env.Error, env.CorrelationID, env.Extra)
			}
		}},
		{sample: "made_guide_response_result_failed", act: canonical.ActResult, form: fuse.FormGuide, receiver: canonical.AddressAgent, inReplyTo: "req-128", outcome: canonical.OutcomeFailure, check: func(t *testing.T, env *canonical.Envelope) {
			if gjson.Get(string(env.Result), "cheapest.price").Int() != 342 || env.Error != nil || len(env.Extra) != 0 {
				t.Errorf("result %s error %+v extra %v", env.Result, env.Error, env.Extra)
			}
		}},
		{sample: "made_guide_failure_response", act: canonical.ActFailure, form: fuse.FormGuide, receiver: canonical.AddressAgent, inReplyTo: "req-126", outcome: canonical.OutcomeFailure, code: canonical.ErrTimeout, word: "TIMEOUT"},
		{sample: "spec_event", act: canonical.ActEvent, receiver: canonical.AddressBroadcast, check: func(t *testing.T, env *canonical.Envelope) {
			if env.Operation.Name != "workflow-completed" || !strings.Contains(string(env.Arguments), "workflow-123") {
				t.Errorf("operation %+v arguments %s", env.Operation, env.Arguments)
			}
		}},
		{sample: "made_event_targeted", act: canonical.ActEvent, receiver: canonical.AddressAgent, check: func(t *testing.T, env *canonical.Envelope) {
			if env.SessionID != "session-789" || env.Metadata != "" {
				t.Errorf("session %q metadata %q", env.SessionID, env.Metadata)
			}
		}},
		{sample: "made_request_authenticated_with_extensions", act: canonical.ActRequest, receiver: canonical.AddressAgent, check: func(t *testing.T, env *canonical.Envelope) {
			if gjson.Get(string(env.Authentication), "type").Str != "jwt" || !gjson.Get(string(env.Extensions), "0.parameters.chunkSize").Exists() {
				t.Errorf("authentication %s extensions %s", env.Authentication, env.Extensions)
			}
			if env.CorrelationID != "task-991" || gjson.Get(string(env.Metadata), "context.workspace").Str != "fuse-demo" || gjson.Get(string(env.Metadata), "correlationId").Exists() {
				t.Errorf("correlation %q metadata %s", env.CorrelationID, env.Metadata)
			}
		}},
		{sample: "made_discovery_request", act: canonical.ActQueryCapabilities, receiver: canonical.AddressAgent, check: func(t *testing.T, env *canonical.Envelope) {
			if env.Operation != (canonical.Operation{}) {
				t.Errorf("operation %+v, want none (the act says it)", env.Operation)
			}
		}},
		{sample: "made_capabilities_event", act: canonical.ActInformCapabilities, receiver: canonical.AddressBroadcast, check: func(t *testing.T, env *canonical.Envelope) {
			if env.Capabilities == nil || len(env.Capabilities.Tools) != 1 || len(env.Extra) != 0 {
				t.Fatalf("capabilities %+v extra %v", env.Capabilities, env.Extra)
			}
		}},
		{sample: "made_capabilities_response", act: canonical.ActInformCapabilities, receiver: canonical.AddressAgent, inReplyTo: "req-discover-42", check: func(t *testing.T, env *canonical.Envelope) {
			var names []string
			for _, tool := range env.Capabilities.Tools {
				names = append(names, tool.Capability+"/"+tool.Name)
			}
			if got := strings.Join(names, " "); got != "text-analysis/sentiment-analysis text-analysis/entity-extraction summarization/summarize" {
				t.Errorf("tools %s", got)
			}
		}},
		{sample: "made_capabilities_response_guide", act: canonical.ActInformCapabilities, form: fuse.FormGuide, receiver: canonical.AddressAgent, inReplyTo: "req-discover-43"},
	}
	for _, tc := range cases {
		t.Run(tc.sample, func(t *testing.T) {
			env := decode(t, sample(t, tc.sample))
			if env.Act != tc.act || env.Origin.Form != tc.form || env.Receiver.Kind != tc.receiver {
				t.Errorf("act %s form %q receiver %s, want %s %q %s", env.Act, env.Origin.Form, env.Receiver.Kind, tc.act, tc.form, tc.receiver)
			}
			if env.InReplyTo != tc.inReplyTo || env.Outcome != tc.outcome {
				t.Errorf("in reply to %q outcome %q, want %q %q", env.InReplyTo, env.Outcome, tc.inReplyTo, tc.outcome)
			}
			if tc.word != "" {
				if env.Error == nil || env.Error.Code != tc.code || env.Origin.Words.Get(canonical.KindError) != tc.word {
					t.Errorf("error %+v words %v, want code %q word %q", env.Error, env.Origin.Words, tc.code, tc.word)
				}
			}
			if tc.check != nil {
				tc.check(t, env)
			}
		})
	}
}

// TestCapabilityTools checks the tool built from the spec's declaration.
func TestCapabilityTools(t *testing.T) {
	env := decode(t, sample(t, "made_capabilities_event"))
	tool := env.Capabilities.Tools[0]
	if tool.Name != "sentiment-analysis" || tool.Capability != "text-analysis" || tool.Title != "Sentiment Analysis" || tool.Description != "Analyzes the sentiment of provided text" || tool.Version != "1.0" {
		t.Errorf("tool %+v", tool)
	}
	want := `{"type":"object","properties":{"text":{"type":"string","description":"The text to analyze"},"language":{"type":"string","description":"The language of the text (ISO code)","default":"en"}},"required":["text"]}`
	if string(tool.InputSchema) != want {
		t.Errorf("input schema\n got %s\nwant %s", tool.InputSchema, want)
	}
	if !dialecttest.JSONEqual([]byte(tool.OutputSchema), []byte(gjson.Get(string(sample(t, "made_capabilities_event")), "content.capabilities.0.actions.0.returns").Raw)) {
		t.Errorf("output schema %s", tool.OutputSchema)
	}
	if env.Capabilities.Dialect != fuse.Name || !strings.HasPrefix(string(env.Capabilities.Raw), "[") {
		t.Errorf("raw %q dialect %q", env.Capabilities.Raw, env.Capabilities.Dialect)
	}
}

// TestDeclarationDocument: the spec's Capability Declaration document,
// {"capabilities": [...]} alone, is how an agent declares itself: act
// inform-capabilities, no sender (the connection's agent sends it), written
// back as the document.
func TestDeclarationDocument(t *testing.T) {
	doc := sample(t, "spec_capability_declaration")
	if got := codec().Detect(doc); got <= 0 {
		t.Errorf("Detect = %d", got)
	}
	if p := codec().Validate(doc); len(p) != 0 {
		t.Errorf("Validate: %v", p)
	}
	env := decode(t, doc)
	if env.Act != canonical.ActInformCapabilities || env.Origin.Form != fuse.FormDeclaration || env.Sender.ID != "" ||
		env.Receiver.Kind != canonical.AddressNone || len(env.Extra) != 0 {
		t.Errorf("act %s form %q sender %q receiver %+v extra %v", env.Act, env.Origin.Form, env.Sender.ID, env.Receiver, env.Extra)
	}
	if len(env.Capabilities.Tools) != 1 || env.Capabilities.Tools[0].Name != "sentiment-analysis" || env.Capabilities.Tools[0].Capability != "text-analysis" {
		t.Errorf("tools %+v", env.Capabilities.Tools)
	}

	// Envelope members beside it are read as in any message.
	withSource := []byte(`{"source":{"agentId":"text-bot"},"capabilities":[]}`)
	if env := decode(t, withSource); env.Sender.ID != "text-bot" || env.Act != canonical.ActInformCapabilities {
		t.Errorf("sender %q act %s", env.Sender.ID, env.Act)
	}

	// Beside a message type a top-level declaration is an extra member,
	// and with content but no message type the message type is missing.
	env = decode(t, []byte(`{"messageType":"event","content":{"eventType":"e"},"capabilities":[]}`))
	if env.Act != canonical.ActEvent || len(env.Extra) != 1 || env.Extra[0].Path() != "capabilities" {
		t.Errorf("act %s extra %v", env.Act, env.Extra)
	}
	for _, tc := range []struct{ msg, path, problem string }{
		{`{"capabilities":[],"content":{}}`, "messageType", "missing"},
		{`{"capabilities":{}}`, "capabilities", "must be an array, got an object"},
		{`{"capabilities":[{"id":"a","actions":[{"id":7}]}]}`, "capabilities.0.actions.0.id", "must be a string, got a number (7)"},
	} {
		_, err := codec().Decode([]byte(tc.msg))
		var de *dialects.Error
		if !errors.As(err, &de) || de.Path != tc.path || !strings.Contains(de.Problem, tc.problem) {
			t.Errorf("%s: %v; want %s: %s", tc.msg, err, tc.path, tc.problem)
		}
	}
	if p := codec().Validate([]byte(`{"capabilities":[{"id":"x"}]}`)); len(p) != 1 || p[0].Path != "capabilities.0" {
		t.Errorf("a capability without actions: %v", p)
	}
	if p := codec().Validate([]byte(`{"capabilities":[],"content":{}}`)); len(p) == 0 {
		t.Error("a declaration with content but no message type validates")
	}

	// Another dialect's declaration is written as a message, not a
	// document.
	env.Origin = canonical.Origin{Dialect: "swarm"}
	env.Act, env.Sender.ID = canonical.ActInformCapabilities, "a"
	out, err := codec().Encode(nil, env, dialecttest.EncodeContext())
	if err != nil || gjson.GetBytes(out, "messageType").Str != "event" {
		t.Errorf("foreign declaration: %s, %v", out, err)
	}
}

// TestDecodeErrors checks that type and vocabulary errors name the dialect
// and the path.
func TestDecodeErrors(t *testing.T) {
	cases := []struct {
		msg, path, text string
	}{
		{`{"content":{}}`, "messageType", "missing"},
		{`{"messageType":"reply","content":{}}`, "messageType", `unknown message type "reply" (want one of [request response event])`},
		{`{"messageType":5,"content":{}}`, "messageType", "must be a string, got a number (5)"},
		{`{"messageType":"request","content":[]}`, "content", "must be an object, got an array"},
		{`{"messageType":"request","source":"me","content":{}}`, "source", "must be an object, got a string"},
		{`{"messageType":"request","target":{"agentId":7},"content":{}}`, "target.agentId", "must be a string, got a number (7)"},
		{`{"messageType":"request","metadata":{"sessionId":true},"content":{}}`, "metadata.sessionId", "must be a string, got a boolean"},
		{`{"messageType":"request","content":{"action":["x"]}}`, "content.action", "must be a string, got an array"},
		{`{"messageType":"response","content":{"status":"ok","requestId":"r"}}`, "content.status", `unknown status "ok" (want one of [success error])`},
		{`{"messageType":"response","content":{"success":"yes","result":1}}`, "content.success", "must be true or false, got a string"},
		{`{"messageType":"response","content":{"status":"error","error":"boom"}}`, "content.error", "must be an object, got a string"},
		{`{"messageType":"response","content":{"status":"error","error":{"code":404}}}`, "content.error.code", "must be a string, got a number (404)"},
		{`{"messageType":"response","requestId":9,"content":{"success":true}}`, "requestId", "must be a string, got a number (9)"},
		{`{"messageType":"event","content":{"eventType":null}}`, "content.eventType", "must be a string, got null"},
		{`{"messageType":"event","content":{"eventType":"capabilities","capabilities":{}}}`, "content.capabilities", "must be an array, got an object"},
		{`{"messageType":"event","content":{"capabilities":[{"id":"a","actions":[{"id":"b","parameters":[{"name":"x","required":"yes"}]}]}]}}`,
			"content.capabilities.0.actions.0.parameters.0.required", "must be true or false, got a string"},
		{`{"messageType":"response","content":{"requestId":"r","capabilities":[{"id":"a","actions":{}}]}}`, "content.capabilities.0.actions", "must be an array, got an object"},
	}
	for _, tc := range cases {
		_, err := codec().Decode([]byte(tc.msg))
		var de *dialects.Error
		if !errors.As(err, &de) {
			t.Errorf("%s: error %v is not a *dialects.Error", tc.msg, err)
			continue
		}
		if de.Dialect != fuse.Name || de.Path != tc.path || !strings.Contains(de.Problem, tc.text) {
			t.Errorf("%s:\n got %v\nwant fuse: %s: %s", tc.msg, err, tc.path, tc.text)
		}
	}
}

// TestShapes checks layouts beside the samples': mixed response shapes,
// both request ids, lifted metadata.
func TestShapes(t *testing.T) {
	cases := []struct {
		name, msg string
		act       canonical.Act
		form      string
		inReplyTo string
		extra     string // dotted paths of Extra members, space separated
	}{
		{"guide without success", `{"messageType":"response","requestId":"r1","content":{"result":{"a":1}}}`, canonical.ActResult, fuse.FormGuide, "r1", ""},
		{"guide error without success", `{"messageType":"response","requestId":"r1","content":{"error":{"code":"REJECTED","message":"no"}}}`, canonical.ActRefuse, fuse.FormGuide, "r1", ""},
		{"spec with both ids", `{"messageType":"response","requestId":"top","content":{"status":"success","requestId":"r2"}}`, canonical.ActResult, "", "r2", "requestId"},
		{"guide with both ids", `{"messageType":"response","requestId":"r3","content":{"success":true,"requestId":"inner"}}`, canonical.ActResult, fuse.FormGuide, "r3", "content.requestId"},
		{"spec id at top", `{"messageType":"response","requestId":"r4","content":{"status":"success","data":1}}`, canonical.ActResult, fuse.FormSpecTopID, "r4", ""},
		{"guide id in content", `{"messageType":"response","content":{"success":true,"result":1,"requestId":"r4"}}`, canonical.ActResult, fuse.FormGuideContentID, "r4", ""},
		{"mixed members", `{"messageType":"response","content":{"status":"success","data":1,"success":true,"result":2,"requestId":"r5"}}`, canonical.ActResult, "", "r5", "content.success content.result"},
		{"error without status", `{"messageType":"response","content":{"error":{"code":"TIMEOUT","message":"slow"},"requestId":"r6"}}`, canonical.ActFailure, "", "r6", ""},
		{"failure keeps data", `{"messageType":"response","content":{"status":"error","data":{"partial":1},"error":{"code":"x","message":"y","hint":"z"},"requestId":"r7"}}`, canonical.ActFailure, "", "r7", "content.data content.error.hint"},
		{"success keeps error", `{"messageType":"response","content":{"status":"success","error":{"code":"x"},"requestId":"r8"}}`, canonical.ActResult, "", "r8", "content.error"},
		{"request id on a request", `{"messageType":"request","requestId":"q","content":{"action":"a","requestId":"q2"}}`, canonical.ActRequest, "", "", "requestId content.requestId"},
		{"capability event with its own type", `{"messageType":"event","content":{"eventType":"capabilities-changed","data":{},"capabilities":[]}}`, canonical.ActInformCapabilities, "", "", "content.eventType content.data"},
		{"capability response members", `{"messageType":"response","content":{"status":"success","requestId":"r9","capabilities":[]}}`, canonical.ActInformCapabilities, "", "r9", "content.status"},
		{"empty party kept whole", `{"messageType":"event","source":{},"target":{"kind":"all"},"content":{"eventType":"e"}}`, canonical.ActEvent, "", "", "source target"},
		{"unknown members", `{"messageType":"request","priority":"high","source":{"agentId":"a","type":"ai_agent"},"content":{"action":"a","timeout":30}}`, canonical.ActRequest, "", "", "priority source.type content.timeout"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := decode(t, []byte(tc.msg))
			var extra []string
			for _, f := range env.Extra {
				extra = append(extra, f.Path())
			}
			if env.Act != tc.act || env.Origin.Form != tc.form || env.InReplyTo != tc.inReplyTo || strings.Join(extra, " ") != tc.extra {
				t.Errorf("act %s form %q in reply to %q extra %q\nwant %s %q %q %q", env.Act, env.Origin.Form, env.InReplyTo, extra, tc.act, tc.form, tc.inReplyTo, tc.extra)
			}
			ctx := dialecttest.EncodeContext()
			out, err := codec().Encode(nil, env, ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(ctx.Losses) != 0 {
				t.Errorf("losses %v", ctx.Losses)
			}
			if !dialecttest.JSONEqual(out, []byte(tc.msg)) {
				t.Errorf("round trip\n got %s\nwant %s", out, tc.msg)
			}
		})
	}
}

// TestMetadata checks that correlationId and sessionId are lifted out and
// written back beside the other members.
func TestMetadata(t *testing.T) {
	cases := []struct{ msg, metadata string }{
		{`{"messageType":"event","content":{"eventType":"e"},"metadata":{}}`, `{}`},
		{`{"messageType":"event","content":{"eventType":"e"},"metadata":{"correlationId":"c"}}`, ``},
		{`{"messageType":"event","content":{"eventType":"e"},"metadata":{"a":1,"sessionId":"s","b":[2]}}`, `{"a":1,"b":[2]}`},
	}
	for _, tc := range cases {
		env := decode(t, []byte(tc.msg))
		if string(env.Metadata) != tc.metadata {
			t.Errorf("%s: metadata %q, want %q", tc.msg, env.Metadata, tc.metadata)
		}
		out, err := codec().Encode(nil, env, dialecttest.EncodeContext())
		if err != nil || !dialecttest.JSONEqual(out, []byte(tc.msg)) {
			t.Errorf("round trip %s (%v), want %s", out, err, tc.msg)
		}
	}
}

// TestDetect checks that fuse does not claim the other dialects' samples.
func TestDetect(t *testing.T) {
	files, err := filepath.Glob("../*/testdata/samples/*.json")
	if err != nil {
		t.Fatal(err)
	}
	c := codec()
	for _, f := range files {
		if strings.HasPrefix(f, "../fuse/") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if s := c.Detect(b); s != 0 {
			t.Errorf("%s: Detect = %d, want 0", f, s)
		}
	}
}

// TestValidate checks the rules beside the schema.
func TestValidate(t *testing.T) {
	cases := []struct{ msg, path string }{
		{`{"messageType":"request","content":{"parameters":{}}}`, "content"},
		{`{"messageType":"request","content":{"capability":"","action":""}}`, "content"},
		{`{"messageType":"response","content":{"status":"success","data":1}}`, "content.requestId"},
		{`{"messageType":"response","content":{"requestId":"r","data":1}}`, "content.status"},
		{`{"messageType":"response","content":{"status":"error","requestId":"r"}}`, "content.error"},
		{`{"messageType":"response","requestId":"r","content":{"success":false,"error":{"code":"TIMEOUT"}}}`, "content.error.message"},
		{`{"messageType":"response","content":{"status":"error","requestId":"r","error":{"message":"m"}}}`, "content.error.code"},
		{`{"messageType":"event","content":{"data":{}}}`, "content"},
		{`{"messageType":"event","content":{"eventType":"e","data":[1]}}`, "content.data"},
		{`{"messageType":"response","content":{"requestId":"r","capabilities":[{"id":"x"}]}}`, "content.capabilities.0"},
		{`{"messageType":"notify","content":{}}`, "messageType"},
		{`{"messageType":"event"}`, ""},
		{`{"messageType":"event","a\ud800\u0041":1,"a\ufffdA":2,"content":{"eventType":"e"}}`, "a\ufffdA"},
	}
	for _, tc := range cases {
		probs := codec().Validate([]byte(tc.msg))
		found := false
		for _, p := range probs {
			found = found || p.Path == tc.path
		}
		if !found {
			t.Errorf("%s: problems %v, want one at %q", tc.msg, probs, tc.path)
		}
	}
}
