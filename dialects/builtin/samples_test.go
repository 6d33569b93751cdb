package builtin_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/mcp-bridge/mcp-bridge/dialects/dialecttest"
)

// shared is where the specs and realworld samples live beside the project.
const shared = "../../../shared"

// specBlock is one ```json block of a spec, by file and index.
type specBlock struct {
	spec  string
	index int
}

// taken are the spec examples that are whole messages, with the name of
// their copy in the dialect's testdata/samples.
var taken = map[specBlock]string{
	{"bluelabel", 3}: "spec_complete_task_result",
	{"collab", 1}:    "spec_request_flat",
	{"fuse", 1}:      "spec_request",
	{"fuse", 2}:      "spec_response",
	{"fuse", 3}:      "spec_event",
	{"fuse", 4}:      "spec_capability_declaration",
	{"fuse", 5}:      "spec_context_sharing",
	{"fuse", 7}:      "spec_error_response",
}

// excluded are the other spec blocks, each with why it is not a message.
var excluded = map[specBlock]string{
	{"bluelabel", 0}:         "fragment: a task_result payload",
	{"bluelabel", 1}:         "fragment: an error payload",
	{"bluelabel", 2}:         "fragment: a needs_input payload",
	{"collab", 0}:            "placeholders: { ... } bodies and a|b|c destination",
	{"collab", 2}:            "placeholders: result { ... }",
	{"collab", 3}:            "placeholders: data { ... }",
	{"collab", 4}:            "fragment: body.context only",
	{"collab", 5}:            "not a message: a log record",
	{"collab", 6}:            "fragment: a RESPONSE body",
	{"elizaacl-patterns", 0}: "fragment with // comments: a QUERY_CAPABILITIES payload",
	{"elizaacl-patterns", 1}: "fragment: an INFORM_CAPABILITIES payload",
	{"elizaacl-patterns", 2}: "fragment: an INFORM_CAPABILITIES payload",
	{"elizaacl", 0}:          "// comments and placeholder values",
	{"elizaacl", 1}:          "fragment with // comments: a TASK_REQUEST payload",
	{"elizaacl", 2}:          "fragment with // comments: a TASK_ACCEPT payload",
	{"elizaacl", 3}:          "fragment with // comments: an INFORM_RESULT payload",
	{"elizaacl", 4}:          "fragment with /* */ comments: a QUERY_IF payload",
	{"elizaacl", 5}:          "fragment with // comments: a QUERY_REF payload",
	{"elizaacl", 6}:          "fragment with // comments: a TASK_REJECT payload",
	{"elizaacl", 7}:          "fragment: a FAILURE payload",
	{"elizaacl", 8}:          "fragment: a NOT_UNDERSTOOD payload",
	{"elizaacl", 9}:          "fragment with // comments: a QUERY_CAPABILITIES payload",
	{"elizaacl", 10}:         "fragment with // comments: an INFORM_CAPABILITIES payload",
	{"elizaacl", 11}:         "fragment: a TASK_REQUEST payload",
	{"elizaacl", 12}:         "fragment with // comments: an INFORM_RESULT payload",
	{"fuse", 0}:              "// comments and a|b|c messageType",
	{"fuse", 6}:              "// comments: content placeholder",
	{"fuse", 8}:              "// comments: content placeholder",
	{"swarm", 0}:             "placeholder values: message_type a|b|c, priority a|b|c",
	{"swarm", 1}:             "fragment: a handshake_request payload",
	{"swarm", 2}:             "fragment: a handshake_response payload",
	{"swarm", 3}:             "fragment: a request payload",
	{"swarm", 4}:             "fragment: a response payload",
	{"swarm", 5}:             "fragment: a notification payload",
	{"swarm", 6}:             "fragment: an error payload",
}

var jsonBlock = regexp.MustCompile("(?s)```json\n(.*?)```")

func needShared(t *testing.T) {
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("%s not present: the testdata copies stand alone", shared)
	}
}

// dialectOf names the dialect whose samples a spec's examples belong to.
func dialectOf(spec string) string {
	if spec == "elizaacl-patterns" {
		return "elizaacl"
	}
	return spec
}

// TestSpecExamples reads every JSON block of every spec: each is either
// taken (it must decode, and its testdata copy must hold the same value) or
// excluded with a reason, so a new example in a spec cannot go unnoticed.
func TestSpecExamples(t *testing.T) {
	needShared(t)
	reg := builtin.Default()
	files, _ := filepath.Glob(filepath.Join(shared, "specs", "*.md"))
	seen := map[specBlock]bool{}
	for _, f := range files {
		spec := filepath.Base(f)
		spec = spec[:len(spec)-len(".md")]
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range jsonBlock.FindAllSubmatch(text, -1) {
			b := specBlock{spec, i}
			seen[b] = true
			name, ok := taken[b]
			if !ok {
				if _, ok := excluded[b]; !ok {
					t.Errorf("%s.md block %d is neither taken nor excluded: %.60s", spec, i, m[1])
				}
				continue
			}
			d := dialectOf(spec)
			c, _ := reg.Lookup(d)
			if _, err := c.Decode(m[1]); err != nil {
				t.Errorf("%s.md block %d does not decode: %v", spec, i, err)
			}
			cp, err := os.ReadFile(filepath.Join("..", d, dialecttest.SamplesDir, name+".json"))
			if err != nil {
				t.Errorf("%s.md block %d: no testdata copy: %v", spec, i, err)
			} else if !dialecttest.JSONEqual(cp, m[1]) {
				t.Errorf("%s.md block %d: testdata copy %s differs from the spec", spec, i, name)
			}
		}
	}
	for b := range taken {
		if !seen[b] {
			t.Errorf("taken block %v is no longer in the specs", b)
		}
	}
	for b := range excluded {
		if !seen[b] {
			t.Errorf("excluded block %v is no longer in the specs", b)
		}
	}
}

// TestRealworld decodes every realworld message with its dialect and checks
// that its testdata copy holds the same value.
func TestRealworld(t *testing.T) {
	needShared(t)
	reg := builtin.Default()
	files, _ := filepath.Glob(filepath.Join(shared, "realworld", "*", "examples", "*.json"))
	if len(files) == 0 {
		t.Fatal("no realworld samples")
	}
	copies := map[string][]string{}
	for _, f := range files {
		d := filepath.Base(filepath.Dir(filepath.Dir(f)))
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if d == "elizaacl" { // the message sits under "message" beside where it was found
			var wrap struct{ Message json.RawMessage }
			if err := json.Unmarshal(data, &wrap); err != nil || wrap.Message == nil {
				t.Fatalf("%s: no message: %v", f, err)
			}
			data = wrap.Message
		}
		c, ok := reg.Lookup(d)
		if !ok {
			t.Fatalf("no codec for %s", d)
		}
		if _, err := c.Decode(data); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		if got, err := reg.Detect(data); err != nil || got.Name() != d {
			t.Errorf("%s: detected as %v (%v), want %s", f, nameOf(got), err, d)
		}
		name := "realworld_" + regexp.MustCompile(`[^A-Za-z0-9_]+`).ReplaceAllString(filepath.Base(f[:len(f)-5]), "_")
		cp, err := os.ReadFile(filepath.Join("..", d, dialecttest.SamplesDir, name+".json"))
		if err != nil {
			t.Errorf("%s: no testdata copy: %v", f, err)
		} else if !dialecttest.JSONEqual(cp, data) {
			t.Errorf("%s: testdata copy %s differs", f, name)
		}
		copies[d] = append(copies[d], name)
	}
	for d, names := range copies {
		sort.Strings(names)
		t.Logf("%s: %d realworld messages", d, len(names))
	}
}

// TestDetectSamples checks that detection picks each sample's own dialect.
func TestDetectSamples(t *testing.T) {
	reg := builtin.Default()
	for _, d := range dialects.Names() {
		for _, s := range dialecttest.Samples(t, filepath.Join("..", d, dialecttest.SamplesDir)) {
			got, err := reg.Detect(s.Data)
			if err != nil || got.Name() != d {
				t.Errorf("%s/%s: detected as %v (%v)", d, s.Name, nameOf(got), err)
			}
		}
	}
}

func nameOf(c interface{ Name() string }) string {
	if c == nil {
		return "nothing"
	}
	return fmt.Sprint(c.Name())
}
