package dialects

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestReadInstance checks that, read whole, an instance is what
// jsonschema.UnmarshalJSON gives and its duplicates what DuplicateMembers
// finds.
func TestReadInstance(t *testing.T) {
	files, err := filepath.Glob("*/testdata/samples/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no samples: %v", err)
	}
	msgs := [][]byte{
		[]byte(`{"a":1,"\u0061":[{"b":1,"b":{"c":2,"c":3}}],"a":"\ud800x","\ud800\u0041":"\ud83d\ude00\n"}`),
		[]byte(` [ 1.0 , -0 , 1e400 , "\u00e9" , true , false , null , { } , [ ] ] `),
		[]byte(`"top"`), []byte(`12.5e-1`), []byte(` -7 `), []byte(`null`), []byte("\t[true]\n"),
		[]byte(`{"a":{"b":1,"b":2},"a":{"c":[{"d":1,"d":2}],"c":3},"e":"\"\\\/\b\f\n\r\t\u00e9"}`),
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, b)
	}
	for _, msg := range msgs {
		want, err := jsonschema.UnmarshalJSON(bytes.NewReader(msg))
		if err != nil {
			t.Fatalf("%s: %v", msg, err)
		}
		got, dups, ok := readInstance(msg, fullShape)
		if !ok {
			t.Errorf("%.200s: not read", msg)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%.200s:\n got %#v\nwant %#v", msg, got, want)
		}
		if wantDups := DuplicateMembers(msg); !reflect.DeepEqual(dups, wantDups) {
			t.Errorf("%.200s: duplicates %v, want %v", msg, dups, wantDups)
		}
		// Read free, the instance is empty but the duplicates the same.
		_, freeDups, _ := readInstance(msg, freeShape)
		if !reflect.DeepEqual(freeDups, dups) {
			t.Errorf("%.200s: free duplicates %v, want %v", msg, freeDups, dups)
		}
	}
	for _, bad := range []string{``, `{`, `{"a":1,}`, "{\"a\":\"\t\"}", deepArrays(maxDepth + 1)} {
		if _, _, ok := readInstance([]byte(bad), fullShape); ok {
			t.Errorf("%.40s: read, want refused", bad)
		}
	}
	if _, _, ok := readInstance([]byte(deepArrays(maxDepth)), fullShape); !ok {
		t.Error("nesting at the limit refused")
	}
}

func deepArrays(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
