package dialects

import (
	"encoding/json"
	"testing"

	"github.com/tidwall/gjson"
)

func TestText(t *testing.T) {
	for _, raw := range []string{`"plain"`, `"tab\tnewline\n"`, `"\u00e9"`, `"\ud83d\ude00"`, `"\ud800\u0041"`, `"\udc00\ud800"`, `"a\\ud800"`} {
		var want string
		if err := json.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatal(err)
		}
		v := gjson.Parse(raw)
		if got := Text(v); got != want {
			t.Errorf("Text(%s) = %q, want %q", raw, got, want)
		}
	}
	obj := gjson.Parse(`{"\ud800\u0041":1}`)
	obj.ForEach(func(k, _ gjson.Result) bool {
		if Key(k) != "\ufffdA" {
			t.Errorf("Key = %q", Key(k))
		}
		return true
	})
}
