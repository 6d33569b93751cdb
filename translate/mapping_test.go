package translate_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/mcp-bridge/mcp-bridge/dialects/dialecttest"
	"github.com/mcp-bridge/mcp-bridge/mappings"
	"github.com/mcp-bridge/mcp-bridge/translate"
)

// mappingCase is one mapping capability shown through translate: a mapping
// file, a message, a target, and the golden result.
type mappingCase struct {
	name    string
	mapping string // file under testdata/mapping, or examples/...
	input   string // file under testdata/mapping, or a sample path
	from    string
	to      string
}

var mappingCases = []mappingCase{
	{"vocabulary", "vocabulary.yaml", "vocabulary.in.json", "collab", "swarm"},
	{"vocabulary-defaults", "", "vocabulary.in.json", "collab", "swarm"},
	{"aliases", "aliases.yaml", "../../../dialects/elizaacl/testdata/samples/realworld_01_Jules_bce1787_TASK_REQUEST_full.json", "elizaacl", "bluelabel"},
	{"aliases-back", "aliases.yaml", "../../../dialects/bluelabel/testdata/samples/made_error_rejected.json", "bluelabel", "elizaacl"},
	{"operations-to-elizaacl", "operations.yaml", "operations.in.json", "swarm", "elizaacl"},
	{"operations-to-fuse", "operations.yaml", "operations.in.json", "swarm", "fuse"},
	{"operations-to-bluelabel", "operations.yaml", "operations.in.json", "swarm", "bluelabel"},
	{"operations-default-rule", "", "operations.in.json", "swarm", "fuse"},
	{"rewrites", "rewrites.yaml", "rewrites.in.json", "swarm", "elizaacl"},
	{"rewrites-not-matching", "rewrites.yaml", "rewrites.in.json", "swarm", "collab"},
	{"wrap", "wrap.yaml", "wrap.in.json", "fuse", "collab"},
	{"unwrap", "wrap.yaml", "unwrap.in.json", "collab", "fuse"},
	{"act-drop", "acts.yaml", "accept.in.json", "elizaacl", "swarm"},
	{"act-reject", "acts.yaml", "accept.in.json", "elizaacl", "collab"},
	{"act-default", "", "accept.in.json", "elizaacl", "fuse"},
	{"act-send-as", "acts.yaml", "needs_input.in.json", "bluelabel", "swarm"},
	{"id-hint", "", "../../../dialects/swarm/testdata/samples/realworld_factory_request.json", "swarm", "bluelabel"},
	{"declared-to-swarm", "../../../examples/hook.yaml", "hook.in.json", "hook", "swarm"},
	{"declared-from-elizaacl", "../../../examples/hook.yaml", "../../../dialects/elizaacl/testdata/samples/realworld_03_Jules_bce1787_INFORM_RESULT_full.json", "elizaacl", "hook"},
}

// mappingGolden is the result a golden file records.
type mappingGolden struct {
	Output   json.RawMessage `json:"output,omitempty"`
	Dropped  bool            `json:"dropped,omitempty"`
	Error    string          `json:"error,omitempty"`
	Warnings []string        `json:"warnings,omitempty"`
	Hints    []string        `json:"hints,omitempty"`
}

// TestMappingCapabilities translates each case's message with its mapping
// file layered over the defaults, and compares with
// testdata/mapping/NAME.golden.json (-update rewrites them).
func TestMappingCapabilities(t *testing.T) {
	dir := filepath.Join("testdata", "mapping")
	for _, tc := range mappingCases {
		t.Run(tc.name, func(t *testing.T) {
			m := dialects.DefaultMappings()
			if tc.mapping != "" {
				data, err := os.ReadFile(filepath.Join(dir, tc.mapping))
				if err != nil {
					t.Fatal(err)
				}
				if err := m.Add(tc.mapping, data); err != nil {
					t.Fatal(err)
				}
			}
			reg, err := builtin.Registry(m)
			if err != nil {
				t.Fatal(err)
			}
			msg, err := os.ReadFile(filepath.Join(dir, tc.input))
			if err != nil {
				t.Fatal(err)
			}
			tr := translate.Translator{Registry: reg, Mappings: m}
			res, err := tr.Translate(nil, tc.from, tc.to, msg, translate.Options{Context: dialecttest.EncodeContext()})
			var g mappingGolden
			if err != nil {
				g.Error = err.Error()
			} else {
				g.Dropped = res.Dropped
				if res.Output != nil {
					var buf bytes.Buffer
					if err := json.Compact(&buf, res.Output); err != nil {
						t.Fatal(err)
					}
					g.Output = buf.Bytes()
					dst, _ := reg.Lookup(tc.to)
					if p := dst.Validate(res.Output); len(p) != 0 {
						t.Errorf("output does not validate in %s: %v", tc.to, p)
					}
				}
				for _, l := range res.Losses {
					g.Warnings = append(g.Warnings, l.String())
					if l.Hint != "" {
						g.Hints = append(g.Hints, l.Hint)
					}
				}
			}
			got, err := json.MarshalIndent(g, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			path := filepath.Join(dir, tc.name+".golden.json")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs:\n got %s\nwant %s", path, got, want)
			}
		})
	}
}

// TestDefaultsKeepGoldens: translating through the default mapping set (no
// rules, the words moved to YAML) gives the codecs issue's golden files.
func TestDefaultsKeepGoldens(t *testing.T) {
	m := dialects.DefaultMappings()
	reg, err := builtin.Registry(m)
	if err != nil {
		t.Fatal(err)
	}
	tr := translate.Translator{Registry: reg, Mappings: m}
	bySource := map[string][]sample{}
	for _, s := range allSamples(t) {
		bySource[s.dialect] = append(bySource[s.dialect], s)
	}
	for _, from := range dialects.Names() {
		for _, to := range dialects.Names() {
			got := goldenFile(t, &tr, from, to, bySource[from])
			want, err := os.ReadFile(filepath.Join("testdata", "golden", from+"_to_"+to+".json"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s -> %s through the default mappings differs from the golden file", from, to)
			}
		}
	}
}

func TestMappingCasesCoverEveryEdit(t *testing.T) {
	var all strings.Builder
	for _, f := range []string{"rewrites.yaml", "wrap.yaml"} {
		b, err := os.ReadFile(filepath.Join("testdata", "mapping", f))
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	for _, edit := range []string{mappings.EditRename, mappings.EditMove, mappings.EditSet, mappings.EditDelete, mappings.EditWrap, mappings.EditUnwrap} {
		if !strings.Contains(all.String(), "- "+edit+":") {
			t.Errorf("no fixture shows %s", edit)
		}
	}
}
