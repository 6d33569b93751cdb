package dialects

import "testing"

func TestCheckInput(t *testing.T) {
	cases := []struct {
		msg     string
		path    string
		problem string // "" for none
	}{
		{`{"a":"é","b":["ü",{"c":"😀"}]}`, "", ""},
		{`{"a":1,"b"x}`, "", "not valid JSON: invalid character 'x' after object key at byte 10"},
		{`{"a":`, "", "not valid JSON: unexpected end of JSON input at byte 5"},
		{``, "", "not valid JSON: unexpected end of JSON input at byte 0"},
		{`{"a":1}}`, "", "not valid JSON: invalid character '}' after top-level value at byte 7"},
		{`{"a":tru}`, "", "not valid JSON: invalid character '}' in literal true (expecting 'e') at byte 8"},
		{"{\"a\":\"x\xffy\"}", "a", "not valid UTF-8: 0xff at byte 7"},
		{"{\"a\":{\"b\":[\"ok\",\"\xc3(\"]}}", "a.b.1", "not valid UTF-8: 0xc3 at byte 17"},
		{"{\"a\":\"\xed\xa0\x80\"}", "a", "not valid UTF-8: 0xed at byte 6"}, // an encoded surrogate
		{"{\"a\":\"\xe2\x82\"}", "a", "not valid UTF-8: 0xe2 at byte 6"},     // cut short
		{"{\"a\":{\"k\xff\":1}}", "a", "a member name is not valid UTF-8: 0xff at byte 8"},
		{"[\"\xff\"]", "0", "not valid UTF-8: 0xff at byte 2"},
	}
	for _, tc := range cases {
		err := CheckInput("d", []byte(tc.msg))
		switch {
		case tc.problem == "" && err != nil:
			t.Errorf("%q: %v", tc.msg, err)
		case tc.problem == "":
		case err == nil:
			t.Errorf("%q: accepted", tc.msg)
		case err.Dialect != "d" || err.Path != tc.path || err.Problem != tc.problem:
			t.Errorf("%q:\n got %q at %q\nwant %q at %q", tc.msg, err.Problem, err.Path, tc.problem, tc.path)
		}
	}
}

// TestCheckRulesInput: Validate's first step reports a message that is not
// JSON in UTF-8 as one located problem.
func TestCheckRulesInput(t *testing.T) {
	_, rules, ok := CheckRules([]byte("{\"a\":[\"\xff\"]}"))
	if ok || len(rules.List) != 1 || rules.List[0].Path != "a.0" || rules.List[0].Message != "not valid UTF-8: 0xff at byte 7" {
		t.Errorf("ok %v, problems %v", ok, rules.List)
	}
}
