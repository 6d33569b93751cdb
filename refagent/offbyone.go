package refagent

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// An off-by-one is the commonest cause of Python's "IndexError: list index
// out of range": Python counts indexes from 0, so a sequence of n items has
// its last at n - 1, and code that reaches n has gone one too far. fixOffByOne
// looks, line by line, for the shapes such code takes:
//
//   - a loop whose bound is one past the end, indexing the sequence by its
//     variable: for i in range(len(xs) + 1): ... xs[i]
//   - a condition that lets the index reach the length: while i <= len(xs): ... xs[i]
//   - a loop over every index that reads the next item: for i in range(len(xs)): ... xs[i + 1]
//   - a sequence indexed by its length: xs[len(xs)]
//   - a list written out and indexed by its length: [1, 2, 3][3]
//   - a call passing a list written out and its length as the index, to a
//     function that indexes the one by the other: get_item([1, 2, 3], 3)
//
// Each is corrected to stop at the last index. Code in none of these shapes
// comes back unchanged, with no notes.

// edit is one corrected line.
type edit struct {
	line int    // from 0
	new  string // the line as corrected
	note string // what was wrong, in a sentence
}

var (
	// for VAR in range([0, ]len(SEQ) + 1):
	loopPastEnd = regexp.MustCompile(`^(\s*for\s+(\w+)\s+in\s+range\(\s*(?:0\s*,\s*)?len\(\s*` + seq + `\s*\))(\s*\+\s*1)(\s*\)\s*:)`)
	// while|if VAR <= len(SEQ):
	condPastEnd = regexp.MustCompile(`^(\s*(?:while|if)\s+(\w+)\s*)<=(\s*len\(\s*` + seq + `\s*\)\s*:)`)
	// for VAR in range([0, ]len(SEQ)):
	loopAll = regexp.MustCompile(`^(\s*for\s+(\w+)\s+in\s+range\(\s*(?:0\s*,\s*)?len\(\s*` + seq + `\s*\))(\s*\)\s*:)`)
	// SEQ[len(SEQ)]; the two must be the same sequence
	indexByLength = regexp.MustCompile(seq + `\[\s*len\(\s*` + seq + `\s*\)\s*\]`)
	// def NAME(PARAMS):
	funcDef = regexp.MustCompile(`^\s*def\s+(\w+)\s*\(([^()]*)\)\s*(?:->[^:]*)?:`)
	// an integer written out
	intLiteral = regexp.MustCompile(`^\s*(\d+)\s*$`)
)

// fixOffByOne corrects the off-by-one indexes in code; notes say what each
// correction was, and are empty when code has none.
func fixOffByOne(code string) (string, []string) {
	lines := strings.Split(code, "\n")
	var edits []edit
	for i, line := range lines {
		if e, found := loopBound(lines, i, line); found {
			edits = append(edits, e)
			continue
		}
		if e, found := lengthIndex(i, line); found {
			edits = append(edits, e)
			continue
		}
		if e, found := literalIndex(i, line); found {
			edits = append(edits, e)
		}
	}
	edits = append(edits, callsPastEnd(lines, edits)...)
	if len(edits) == 0 {
		return code, nil
	}
	notes := make([]string, len(edits))
	for k, e := range edits {
		lines[e.line] = e.new
		notes[k] = fmt.Sprintf("Line %d: %s Corrected: `%s`.", e.line+1, e.note, strings.TrimSpace(e.new))
	}
	return strings.Join(lines, "\n"), notes
}

// loopBound finds a loop or condition on line i that lets an index reach
// the length of the sequence its block indexes.
func loopBound(lines []string, i int, line string) (edit, bool) {
	if m := loopPastEnd.FindStringSubmatchIndex(line); m != nil {
		v, s := line[m[4]:m[5]], line[m[6]:m[7]]
		if indexes(block(lines, i, m[1]), s, v) {
			fixed := line[:m[8]] + line[m[9]:]
			return edit{line: i, new: fixed, note: fmt.Sprintf(
				"`%s` runs %s up to len(%s), one past the last index of %s, so %s[%s] raises IndexError on the last turn.",
				strings.TrimSpace(line[:m[1]]), v, s, s, s, v)}, true
		}
	}
	if m := condPastEnd.FindStringSubmatchIndex(line); m != nil {
		v, s := line[m[4]:m[5]], line[m[8]:m[9]]
		if indexes(block(lines, i, m[1]), s, v) {
			fixed := line[:m[3]] + "<" + line[m[3]+2:]
			return edit{line: i, new: fixed, note: fmt.Sprintf(
				"`%s` lets %s reach len(%s), one past the last index of %s, so %s[%s] raises IndexError there.",
				strings.TrimSpace(line[:m[1]]), v, s, s, s, v)}, true
		}
	}
	if m := loopAll.FindStringSubmatchIndex(line); m != nil {
		v, s := line[m[4]:m[5]], line[m[6]:m[7]]
		if next := nextItem(s, v); next.MatchString(block(lines, i, m[1])) {
			fixed := line[:m[3]] + " - 1" + line[m[3]:]
			return edit{line: i, new: fixed, note: fmt.Sprintf(
				"`%s` runs %s up to the last index of %s, where %s[%s + 1] is one past the end and raises IndexError.",
				strings.TrimSpace(line[:m[1]]), v, s, s, v)}, true
		}
	}
	return edit{}, false
}

// block is the code a header on line i governs: the rest of its line after
// end, and the lines after it indented deeper than it.
func block(lines []string, i, end int) string {
	var b strings.Builder
	b.WriteString(lines[i][end:])
	depth := indent(lines[i])
	for _, l := range lines[i+1:] {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if indent(l) <= depth {
			break
		}
		b.WriteString("\n")
		b.WriteString(l)
	}
	return b.String()
}

// indent is the width of a line's leading blanks, a tab counted as one.
func indent(line string) int {
	return len(line) - len(strings.TrimLeft(line, " \t"))
}

// indexes says whether code subscripts the sequence s by the variable v
// alone: s[v].
func indexes(code, s, v string) bool {
	return regexp.MustCompile(`(?:^|[^\w.])` + regexp.QuoteMeta(s) + `\[\s*` + regexp.QuoteMeta(v) + `\s*\]`).MatchString(code)
}

// nextItem matches s[v + 1], the item after the one v indexes.
func nextItem(s, v string) *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[^\w.])` + regexp.QuoteMeta(s) + `\[\s*` + regexp.QuoteMeta(v) + `\s*\+\s*1\s*\]`)
}

// lengthIndex finds a sequence indexed by its own length on line i:
// xs[len(xs)].
func lengthIndex(i int, line string) (edit, bool) {
	for _, m := range indexByLength.FindAllStringSubmatchIndex(line, -1) {
		s := line[m[2]:m[3]]
		if s != line[m[4]:m[5]] || (m[0] > 0 && (isIdentByte(line[m[0]-1]) || line[m[0]-1] == '.')) {
			continue
		}
		fixed := line[:m[0]] + s + "[len(" + s + ") - 1]" + line[m[1]:]
		return edit{line: i, new: fixed, note: fmt.Sprintf(
			"`%s` reads index len(%s), one past the last index of %s, which is len(%s) - 1.",
			line[m[0]:m[1]], s, s, s)}, true
	}
	return edit{}, false
}

// isIdentByte says whether c can be part of a Python name.
func isIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// literalIndex finds a list written out and indexed by its length on line
// i: [1, 2, 3][3].
func literalIndex(i int, line string) (edit, bool) {
	for start := 0; start < len(line); start++ {
		if line[start] != '[' || (start > 0 && endsOperand(line[start-1])) {
			continue
		}
		end := closing(line, start)
		if end < 0 || end+1 >= len(line) || line[end+1] != '[' {
			continue
		}
		idxEnd := closing(line, end+1)
		if idxEnd < 0 {
			continue
		}
		n := len(splitTop(line[start+1 : end]))
		m := intLiteral.FindStringSubmatch(line[end+2 : idxEnd])
		if m == nil || n == 0 || m[1] != strconv.Itoa(n) {
			continue
		}
		list := line[start : end+1]
		fixed := line[:end+2] + strconv.Itoa(n-1) + line[idxEnd:]
		return edit{line: i, new: fixed, note: fmt.Sprintf(
			"`%s[%d]` reads index %d of a list of %d items, whose indexes run from 0 to %d: one past the end (the last item is at %d, the first at 0).",
			list, n, n, n, n-1, n-1)}, true
	}
	return edit{}, false
}

// callsPastEnd finds calls that pass a list written out and its length as
// the index to a function of code whose body indexes the one parameter by
// the other: def get_item(items, index): return items[index], called as
// get_item([1, 2, 3], 3). Lines that done already corrects are left alone.
func callsPastEnd(lines []string, done []edit) []edit {
	taken := map[int]bool{}
	for _, e := range done {
		taken[e.line] = true
	}
	var edits []edit
	for d, line := range lines {
		m := funcDef.FindStringSubmatchIndex(line)
		if m == nil {
			continue
		}
		name := line[m[2]:m[3]]
		params := splitTop(line[m[4]:m[5]])
		for k := range params {
			params[k] = strings.TrimSpace(strings.SplitN(strings.SplitN(params[k], "=", 2)[0], ":", 2)[0])
		}
		body := block(lines, d, m[1])
		for si, s := range params {
			for vi, v := range params {
				if si == vi || s == "" || v == "" || !indexes(body, s, v) {
					continue
				}
				for c := range lines {
					if c == d || taken[c] {
						continue
					}
					if e, found := callPastEnd(lines[c], c, name, si, vi, fmt.Sprintf("%s (line %d) reads %s[%s]", name, d+1, s, v)); found {
						taken[c] = true
						edits = append(edits, e)
					}
				}
			}
		}
	}
	return edits
}

// callPastEnd corrects a call of name on line c whose argument si is a list
// written out and whose argument vi is that list's length; reads says how
// the function indexes the one by the other ("get_item (line 1) reads items[index]").
func callPastEnd(line string, c int, name string, si, vi int, reads string) (edit, bool) {
	call := regexp.MustCompile(`(?:^|[^\w.])` + regexp.QuoteMeta(name) + `\s*\(`)
	for _, loc := range call.FindAllStringIndex(line, -1) {
		open := loc[1] - 1
		end := closing(line, open)
		if end < 0 {
			continue
		}
		args := splitTop(line[open+1 : end])
		if si >= len(args) || vi >= len(args) {
			continue
		}
		list := strings.TrimSpace(args[si])
		if !strings.HasPrefix(list, "[") || closing(list, 0) != len(list)-1 {
			continue
		}
		n := len(splitTop(list[1 : len(list)-1]))
		m := intLiteral.FindStringSubmatch(args[vi])
		if n == 0 || m == nil || m[1] != strconv.Itoa(n) {
			continue
		}
		callText := line[strings.LastIndex(line[:open], name) : end+1]
		args[vi] = strings.Replace(args[vi], m[1], strconv.Itoa(n-1), 1)
		fixed := line[:open+1] + strings.Join(args, ",") + line[end:]
		return edit{line: c, new: fixed, note: fmt.Sprintf(
			"`%s` passes index %d with a list of %d items, and %s; the list's indexes run from 0 to %d, so %d is one past the end (the last item is at %d, the first at 0).",
			callText, n, n, reads, n-1, n, n-1)}, true
	}
	return edit{}, false
}

// closing is the index of the bracket that closes the one at open in s,
// skipping strings and nested brackets, or -1.
func closing(s string, open int) int {
	depth := 0
	var quote byte
	for i := open; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '[' || c == '(' || c == '{':
			depth++
		case c == ']' || c == ')' || c == '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// splitTop splits s at its commas outside brackets and strings; a trailing
// comma adds no item, and an empty s has none.
func splitTop(s string) []string {
	var parts []string
	depth, last := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '[' || c == '(' || c == '{':
			depth++
		case c == ']' || c == ')' || c == '}':
			depth--
		case c == ',' && depth == 0:
			parts = append(parts, s[last:i])
			last = i + 1
		}
	}
	if strings.TrimSpace(s[last:]) != "" {
		parts = append(parts, s[last:])
	}
	return parts
}

// endsOperand says whether c can end what a bracket after it subscripts.
func endsOperand(c byte) bool {
	return isIdentByte(c) || c == ')' || c == ']'
}
