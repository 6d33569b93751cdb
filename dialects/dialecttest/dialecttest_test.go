package dialecttest

import "testing"

func TestJSONEqual(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{`{"a":1,"b":[1,2]}`, `{"b":[1,2],"a":1}`, true},
		{`{"a":30}`, `{"a":30.0}`, true},
		{`{"a":1e2}`, `{"a":100}`, true},
		{`{"a":1}`, `{"a":"1"}`, false},
		{`{"a":[1,2]}`, `{"a":[2,1]}`, false},
		{`{"a":null}`, `{}`, false},
		{`{"a":{"b":1}}`, `{"a":{"b":1,"c":2}}`, false},
		{`{"a":1}`, `{"a":`, false},
	}
	for _, c := range cases {
		if got := JSONEqual([]byte(c.a), []byte(c.b)); got != c.want {
			t.Errorf("JSONEqual(%s, %s) = %v", c.a, c.b, got)
		}
	}
}
