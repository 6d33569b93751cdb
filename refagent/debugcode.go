package refagent

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// debugCodeTool is Jules's tool of the elizaacl spec's section 7 scenario:
// Eddy asks Jules to debug a snippet that fails. It names the error, and for
// Python it fixes the bugs a snippet most often has: an IndexError from an
// off-by-one (a loop, a condition or an index that reaches a sequence's
// length) or from an unguarded constant index, and a KeyError from a
// subscript by a missing key.
func debugCodeTool() *tool {
	return &tool{
		Tool: canonical.Tool{
			Name:        "debug_code",
			Description: "Debugs a code snippet from its error message: an analysis, the fixed code and an explanation (fixes Python IndexError, off-by-one indexes among them, and KeyError).",
			InputSchema: `{"type":"object","properties":{` +
				`"code_to_debug":{"type":"string","description":"the code that fails"},` +
				`"error_message":{"type":"string","description":"the error or traceback it gives"},` +
				`"language":{"type":"string","description":"the code's language","default":"python"}},` +
				`"required":["code_to_debug"]}`,
			OutputSchema: `{"type":"object","properties":{"analysis":{"type":"string"},"fixed_code":{"type":"string"},"explanation":{"type":"string"}}}`,
		},
		run: runDebugCode,
	}
}

// debugReport is debug_code's result.
type debugReport struct {
	Analysis    string `json:"analysis"`
	FixedCode   string `json:"fixed_code"`
	Explanation string `json:"explanation"`
}

func runDebugCode(_ context.Context, raw canonical.JSON) answer {
	a, bad := readArgs("debug_code", raw)
	if bad != nil {
		return *bad
	}
	var in [3]string
	for i, names := range [][]string{
		{"code_to_debug", "code"},
		{"error_message", "error_log"},
		{"language", "programming_language"},
	} {
		if n := a.first(names...); n != "" {
			if in[i], bad = a.text(n); bad != nil {
				return *bad
			}
		}
	}
	code, errText, lang := in[0], in[1], in[2]
	if strings.TrimSpace(code) == "" {
		return failed(canonical.ErrInvalidArguments, "debug_code: argument \"code_to_debug\" (or \"code\") is missing: it must be the code to debug")
	}
	if lang == "" {
		lang = "python"
	}
	r := debug(code, errText, lang)
	summary := "debug_code: analysis only, no fix found"
	if r.FixedCode != code {
		summary = "debug_code: bug found and fixed"
	}
	return ok(r, summary)
}

// errorKinds says what each common Python error means.
var errorKinds = map[string]string{
	"IndexError":        "a sequence was indexed at a position past its end",
	"KeyError":          "a mapping was read with a key it does not have",
	"ZeroDivisionError": "a number was divided by zero",
	"TypeError":         "an operation was given a value of the wrong type",
	"NameError":         "a name was used that is not defined",
	"AttributeError":    "an attribute was read from an object that does not have it",
	"ValueError":        "a function was given a value of the right type but the wrong content",
}

var errorName = regexp.MustCompile(`\b([A-Z][A-Za-z]*(?:Error|Exception))\b`)

// errorKind returns the error's name ("IndexError"), or "" when the text
// names none.
func errorKind(text string) string {
	if m := errorName.FindStringSubmatch(text); m != nil {
		return m[1]
	}
	if strings.Contains(strings.ToLower(text), "index out of range") {
		return "IndexError"
	}
	return ""
}

// debug analyses code and the error it gives, and fixes what it can.
func debug(code, errText, lang string) debugReport {
	kind := errorKind(errText)
	var analysis string
	switch meaning, known := errorKinds[kind]; {
	case kind == "":
		analysis = "No error was named, so there is nothing to trace back."
	case known:
		analysis = fmt.Sprintf("%s: %s.", kind, meaning)
	default:
		analysis = fmt.Sprintf("%s was reported.", kind)
	}
	if !isPython(lang) {
		return debugReport{
			Analysis:    analysis,
			FixedCode:   code,
			Explanation: fmt.Sprintf("Automatic fixes are made for Python only, not %s: the code is unchanged.", lang),
		}
	}
	var fixed string
	var notes []string
	switch kind {
	case "IndexError":
		if fixed, notes = fixOffByOne(code); len(notes) > 0 {
			return debugReport{
				Analysis:    analysis + " The cause is an off-by-one. " + strings.Join(notes, " "),
				FixedCode:   fixed,
				Explanation: offByOneExplanation(len(notes)),
			}
		}
		fixed, notes = fixIndex(code)
	case "KeyError":
		fixed, notes = fixKey(code)
	default:
		fixed = code
	}
	if len(notes) == 0 {
		explanation := "No fix was found in this code: the code is unchanged."
		if kind == "" {
			explanation = "Give the error message or traceback to get a fix: the code is unchanged."
		} else if _, known := errorKinds[kind]; known && kind != "IndexError" && kind != "KeyError" {
			explanation = fmt.Sprintf("Fixes are made for IndexError and KeyError, not %s: the code is unchanged.", kind)
		}
		return debugReport{Analysis: analysis + " No statement in the code matches a known cause.", FixedCode: code, Explanation: explanation}
	}
	return debugReport{Analysis: analysis + " The cause: " + strings.Join(notes, " "), FixedCode: fixed, Explanation: explain(kind, len(notes))}
}

func isPython(lang string) bool {
	switch strings.ToLower(strings.TrimSpace(lang)) {
	case "python", "python3", "py":
		return true
	}
	return false
}

func explain(kind string, n int) string {
	where := "the subscript is"
	if n > 1 {
		where = fmt.Sprintf("the %d subscripts are", n)
	}
	if kind == "KeyError" {
		return fmt.Sprintf("Reading a missing key raises KeyError; %s now read with .get(), which gives None for a missing key.", where)
	}
	return fmt.Sprintf("Indexing past the end of a sequence raises IndexError; %s now guarded by a length check, so short inputs are skipped (in a comprehension) or give None.", where)
}

// offByOneExplanation explains n off-by-one corrections.
func offByOneExplanation(n int) string {
	what := "The corrected line stops"
	if n > 1 {
		what = fmt.Sprintf("The %d corrected lines stop", n)
	}
	return "Python counts indexes from 0, so a sequence of n items has its last item at index n - 1, and an index of n is one past the end. " +
		what + " at the last index."
}

// The patterns the fixes look for. seq is a name, possibly followed by
// attributes and calls (l.split(' ')).
const seq = `(\w+(?:\.\w+(?:\([^()\n]*\))?)*)`

var (
	// [ELEM for VAR in ITER] whose ELEM indexes seq by a constant.
	comprehension = regexp.MustCompile(`\[([^\[\]\n]*?)` + seq + `\[(-?\d+)\]([^\[\]\n]*?) for (\w+) in ([^\[\]\n]+?)\]`)
	constIndex    = regexp.MustCompile(seq + `\[(-?\d+)\]`)
	constKey      = regexp.MustCompile(`(\w+(?:\.\w+)*)\[('[^'\n]*'|"[^"\n]*")\]`)
	// an assignment to what precedes it (x[0] = ..., x['k'] += ...)
	assignment = regexp.MustCompile(`^[ \t]*(?:[-+*/%&|^@]|//|\*\*|<<|>>)?=(?:[^=]|$)`)
)

// lengthCheck is the condition under which seq[index] exists.
func lengthCheck(seq, index string) string {
	n, err := strconv.Atoi(index)
	if err != nil || n >= 0 {
		return fmt.Sprintf("len(%s) > %s", seq, index)
	}
	return fmt.Sprintf("len(%s) >= %d", seq, -n)
}

// fixIndex guards constant indexes: a comprehension gets a filter, any
// other read gets a conditional expression.
func fixIndex(code string) (string, []string) {
	var notes []string
	fixed := replace(code, comprehension, func(m []string) (string, bool) {
		pre, s, idx, post, v, iter := m[1], m[2], m[3], m[4], m[5], m[6]
		if strings.Contains(" "+iter+" ", " if ") {
			return "", false
		}
		check := lengthCheck(s, idx)
		notes = append(notes, fmt.Sprintf("%s[%s] assumes that %s has %s for every %s in %s; a shorter one raises IndexError.", s, idx, s, count(idx), v, iter))
		return fmt.Sprintf("[%s%s[%s]%s for %s in %s if %s]", pre, s, idx, post, v, iter, check), true
	})
	if len(notes) > 0 {
		return fixed, notes
	}
	fixed = replace(code, constIndex, func(m []string) (string, bool) {
		s, idx := m[1], m[2]
		notes = append(notes, fmt.Sprintf("%s[%s] assumes %s has %s.", s, idx, s, count(idx)))
		return fmt.Sprintf("(%s[%s] if %s else None)", s, idx, lengthCheck(s, idx)), true
	})
	return fixed, notes
}

// count is how many items seq[index] needs, in words.
func count(index string) string {
	n, err := strconv.Atoi(index)
	if err != nil {
		return "enough items"
	}
	if n < 0 {
		n = -n - 1
	}
	if n == 0 {
		return "at least 1 item"
	}
	return "at least " + strconv.Itoa(n+1) + " items"
}

// fixKey reads constant keys with .get().
func fixKey(code string) (string, []string) {
	var notes []string
	fixed := replace(code, constKey, func(m []string) (string, bool) {
		notes = append(notes, fmt.Sprintf("%s[%s] fails when %s has no key %s.", m[1], m[2], m[1], m[2]))
		return fmt.Sprintf("%s.get(%s)", m[1], m[2]), true
	})
	return fixed, notes
}

// replace rewrites the matches of re in code that are read, not assigned
// to; with returns the new text, or false to keep a match as it is.
func replace(code string, re *regexp.Regexp, with func(m []string) (string, bool)) string {
	var b strings.Builder
	last := 0
	for _, loc := range re.FindAllStringSubmatchIndex(code, -1) {
		if assignment.MatchString(code[loc[1]:]) {
			continue
		}
		m := make([]string, len(loc)/2)
		for i := range m {
			if loc[2*i] >= 0 {
				m[i] = code[loc[2*i]:loc[2*i+1]]
			}
		}
		text, keep := with(m)
		if !keep {
			continue
		}
		b.WriteString(code[last:loc[0]])
		b.WriteString(text)
		last = loc[1]
	}
	b.WriteString(code[last:])
	return b.String()
}
