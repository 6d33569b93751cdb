package translate_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/mcp-bridge/mcp-bridge/dialects/dialecttest"
	"github.com/mcp-bridge/mcp-bridge/translate"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// goldenEntry is one sample's translation as a golden file records it.
type goldenEntry struct {
	Output   json.RawMessage `json:"output,omitempty"`
	Error    string          `json:"error,omitempty"`
	Warnings []string        `json:"warnings,omitempty"`
}

// TestGolden translates every sample for each of the 25 ordered pairs and
// compares with testdata/golden/FROM_to_TO.json (go test -update rewrites
// them).
func TestGolden(t *testing.T) {
	tr := translate.Translator{Registry: builtin.Default()}
	bySource := map[string][]sample{}
	for _, s := range allSamples(t) {
		bySource[s.dialect] = append(bySource[s.dialect], s)
	}
	for _, from := range dialects.Names() {
		for _, to := range dialects.Names() {
			name := from + "_to_" + to
			t.Run(name, func(t *testing.T) {
				got := goldenFile(t, &tr, from, to, bySource[from])
				path := filepath.Join("testdata", "golden", name+".json")
				if *update {
					if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, got, 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run go test ./translate -run TestGolden -update)", err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s differs from the translation; run with -update if the change is meant, then read the diff", path)
				}
			})
		}
	}
}

// goldenFile renders the translations of samples from -> to as one
// indented JSON object keyed by sample name.
func goldenFile(t *testing.T, tr *translate.Translator, from, to string, samples []sample) []byte {
	t.Helper()
	entries := map[string]goldenEntry{}
	for _, s := range samples {
		res, err := tr.Translate(nil, from, to, s.Data, translate.Options{Context: dialecttest.EncodeContext()})
		var e goldenEntry
		if err != nil {
			e.Error = err.Error()
		} else {
			var buf bytes.Buffer
			if err := json.Compact(&buf, res.Output); err != nil {
				t.Fatalf("%s: output is not JSON: %v", s.Name, err)
			}
			e.Output = buf.Bytes()
			for _, l := range res.Losses {
				e.Warnings = append(e.Warnings, l.String())
			}
		}
		entries[s.Name] = e
	}
	out, err := json.MarshalIndent(entries, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}
