package refagent

import (
	"strings"
	"testing"
)

// TestDebug checks debug_code's fixes and analyses.
func TestDebug(t *testing.T) {
	cases := []struct {
		name     string
		code     string
		err      string
		lang     string
		fixed    string // "" when the code must come back unchanged
		analysis []string
		explain  string
	}{
		{name: "the spec's IndexError in a comprehension", code: eddyCode, err: "IndexError: list index out of range", lang: "python",
			fixed:    "def parse(lines):\n    return [l.split(' ')[3] for l in lines if len(l.split(' ')) > 3]\n",
			analysis: []string{"IndexError", "l.split(' ')[3] assumes that l.split(' ') has at least 4 items for every l in lines"},
			explain:  "guarded by a length check"},
		{name: "the error named only in words", code: eddyCode, err: "list index out of range", lang: "py",
			fixed: "def parse(lines):\n    return [l.split(' ')[3] for l in lines if len(l.split(' ')) > 3]\n"},
		{name: "a constant index outside a comprehension", code: "parts = line.split(',')\nname = parts[2]\nlast = parts[-1]\n", err: "IndexError", lang: "python",
			fixed:    "parts = line.split(',')\nname = (parts[2] if len(parts) > 2 else None)\nlast = (parts[-1] if len(parts) >= 1 else None)\n",
			analysis: []string{"parts[2] assumes parts has at least 3 items.", "parts[-1] assumes parts has at least 1 item."},
			explain:  "the 2 subscripts are"},
		{name: "an index assigned to is left alone", code: "row[0] = 1\nrow[1] += 2\nx = row[3]\n", err: "IndexError", lang: "python",
			fixed: "row[0] = 1\nrow[1] += 2\nx = (row[3] if len(row) > 3 else None)\n"},
		{name: "a comprehension that already filters", code: "[r[1] for r in rows if r]", err: "IndexError", lang: "python",
			fixed: "[(r[1] if len(r) > 1 else None) for r in rows if r]"},
		{name: "a KeyError", code: "cfg = load()\nport = cfg[\"port\"]\ncfg[\"host\"] = \"x\"\n", err: "Traceback ...\nKeyError: 'port'", lang: "python",
			fixed:    "cfg = load()\nport = cfg.get(\"port\")\ncfg[\"host\"] = \"x\"\n",
			analysis: []string{"KeyError: a mapping was read with a key it does not have.", `cfg["port"] fails when cfg has no key "port".`}},
		{name: "code that is only a description", code: "User has not provided code yet, but mentioned it's a Python script for parsing log files.", err: "IndexError", lang: "python",
			analysis: []string{"IndexError", "No statement in the code matches a known cause."}, explain: "No fix was found"},
		{name: "an error without a fix", code: "x = 1 / y\n", err: "ZeroDivisionError: division by zero", lang: "python",
			analysis: []string{"ZeroDivisionError: a number was divided by zero."}, explain: "not ZeroDivisionError"},
		{name: "an unknown error", code: "x = f()\n", err: "MyOwnError: boom", lang: "python",
			analysis: []string{"MyOwnError was reported."}, explain: "No fix was found"},
		{name: "no error given", code: "x = a[9]\n", err: "", lang: "python",
			analysis: []string{"No error was named"}, explain: "Give the error message"},
		{name: "another language", code: "let x = a[9];", err: "RangeError: index out of range", lang: "javascript",
			analysis: []string{"RangeError was reported."}, explain: "Python only, not javascript"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := debug(tc.code, tc.err, tc.lang)
			want := tc.fixed
			if want == "" {
				want = tc.code
			}
			if r.FixedCode != want {
				t.Errorf("fixed_code %q\nwant       %q", r.FixedCode, want)
			}
			for _, s := range tc.analysis {
				if !strings.Contains(r.Analysis, s) {
					t.Errorf("analysis %q lacks %q", r.Analysis, s)
				}
			}
			if !strings.Contains(r.Explanation, tc.explain) {
				t.Errorf("explanation %q lacks %q", r.Explanation, tc.explain)
			}
		})
	}
}
