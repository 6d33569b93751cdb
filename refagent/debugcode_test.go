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

// demoCode is the off-by-one of `mcp-bridge demo`'s debugging scene: a list
// of three items read at index 3.
const demoCode = "def get_item(items, index):\n    return items[index]\n\nprint(get_item([1, 2, 3], 3))"

// TestDebugOffByOne checks that debug_code corrects each shape of
// off-by-one index, and leaves alone the code that only looks like one.
func TestDebugOffByOne(t *testing.T) {
	const indexError = "IndexError: list index out of range"
	cases := []struct {
		name  string
		code  string
		fixed string   // "" when the code must come back unchanged
		notes []string // substrings of the analysis when fixed
	}{
		{name: "the demo's call one past the end", code: demoCode,
			fixed: "def get_item(items, index):\n    return items[index]\n\nprint(get_item([1, 2, 3], 2))",
			notes: []string{"Line 4: `get_item([1, 2, 3], 3)` passes index 3 with a list of 3 items, and get_item (line 1) reads items[index]",
				"Corrected: `print(get_item([1, 2, 3], 2))`."}},
		{name: "a list written out, indexed by its length", code: "print([1, 2, 3][3])\n", fixed: "print([1, 2, 3][2])\n",
			notes: []string{"`[1, 2, 3][3]` reads index 3 of a list of 3 items"}},
		{name: "items holding commas and brackets", code: "x = [[1, 2], 'a,]', (3, 4)][3]", fixed: "x = [[1, 2], 'a,]', (3, 4)][2]"},
		{name: "range(len + 1)", code: "def parse(lines):\n    out = []\n    for i in range(len(lines) + 1):\n        out.append(lines[i].split(' '))\n    return out\n",
			fixed: "def parse(lines):\n    out = []\n    for i in range(len(lines)):\n        out.append(lines[i].split(' '))\n    return out\n",
			notes: []string{"Line 3: `for i in range(len(lines) + 1):` runs i up to len(lines)", "Corrected: `for i in range(len(lines)):`."}},
		{name: "range(0, len+1) on one line", code: "for i in range(0, len(self.rows)+1): print(self.rows[i])",
			fixed: "for i in range(0, len(self.rows)): print(self.rows[i])"},
		{name: "while <= len", code: "i = 0\nwhile i <= len(xs):\n    total += xs[i]\n    i += 1\n",
			fixed: "i = 0\nwhile i < len(xs):\n    total += xs[i]\n    i += 1\n", notes: []string{"lets i reach len(xs)"}},
		{name: "if <= len guarding the index", code: "def at(xs, i):\n    if i <= len(xs):\n        return xs[i]\n",
			fixed: "def at(xs, i):\n    if i < len(xs):\n        return xs[i]\n"},
		{name: "the next item on the last turn", code: "for i in range(len(xs)):\n    if xs[i] > xs[i + 1]:\n        print(i)\n",
			fixed: "for i in range(len(xs) - 1):\n    if xs[i] > xs[i + 1]:\n        print(i)\n", notes: []string{"xs[i + 1] is one past the end"}},
		{name: "a sequence indexed by its length", code: "def last(xs):\n    return xs[len(xs)]\n",
			fixed: "def last(xs):\n    return xs[len(xs) - 1]\n", notes: []string{"`xs[len(xs)]` reads index len(xs), one past the last index of xs"}},
		{name: "two at once", code: "for i in range(len(a) + 1):\n    print(a[i])\nprint([0][1])\n",
			fixed: "for i in range(len(a)):\n    print(a[i])\nprint([0][0])\n", notes: []string{"Line 1:", "Line 3:"}},

		{name: "a loop from 1 that indexes i - 1", code: "for i in range(1, len(x) + 1):\n    print(x[i - 1])\n"},
		{name: "a loop one past the end that indexes nothing", code: "for i in range(len(x) + 1):\n    print(i)\n"},
		{name: "a loop one past the end of another sequence", code: "for i in range(len(a) + 1):\n    print(b[i])\n"},
		{name: "a correct loop", code: "for i in range(len(x)):\n    print(x[i])\n"},
		{name: "a correct condition", code: "while i < len(xs):\n    print(xs[i])\n"},
		{name: "the index of the last item", code: "print([1, 2, 3][2])\n"},
		{name: "one sequence indexed by another's length", code: "x = ys[len(xs)]\n"},
		{name: "an index far past the end", code: "def get_item(items, index):\n    return items[index]\nprint(get_item([1, 2, 3], 7))\n"},
		{name: "a call to a function that does not index", code: "def pair(items, n):\n    return (items, n)\nprint(pair([1, 2, 3], 3))\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := debug(tc.code, indexError, "python")
			if tc.fixed == "" {
				if r.FixedCode != tc.code || !strings.Contains(r.Explanation, "No fix was found") {
					t.Errorf("changed code it must leave alone:\nfixed_code  %q\nexplanation %q", r.FixedCode, r.Explanation)
				}
				return
			}
			if r.FixedCode != tc.fixed {
				t.Errorf("fixed_code %q\nwant       %q", r.FixedCode, tc.fixed)
			}
			for _, s := range append([]string{"IndexError", "The cause is an off-by-one."}, tc.notes...) {
				if !strings.Contains(r.Analysis, s) {
					t.Errorf("analysis %q lacks %q", r.Analysis, s)
				}
			}
			if !strings.Contains(r.Explanation, "Python counts indexes from 0") {
				t.Errorf("explanation %q", r.Explanation)
			}
		})
	}
}
