package schemafast

import (
	"regexp/syntax"
	"slices"
)

// A schema's patterns are matched against every message's timestamps and
// versions: in the hop benchmark's profile, regexp's matcher took 3 us a
// round trip for two timestamps. dfa is a fast path in front of it
// (DESIGN.md section 9), generic and with the library as the fallback: a
// deterministic automaton over ASCII built from the pattern's compiled
// program (regexp/syntax, the library's own), for programs that use
// nothing but characters, alternation, repetition and the text's two ends;
// any other pattern, one whose automaton would be large, and any text with
// a byte past ASCII, go to regexp. FuzzDFA holds the two to the same
// answers.

// dfa is a pattern's automaton, state 0 the start, kept small so that a
// message's check finds it in cache: the ASCII bytes fall into classes
// that lead every state alike (a timestamp's pattern tells apart digits,
// a few separators and the rest), and a state is a row of next states by
// class. A state whose 128 next states were written out took 258 bytes,
// and a timestamp read one of them per byte.
type dfa struct {
	// class is each ASCII byte's class; classes how many there are.
	class   [128]uint8
	classes int
	// next is the state after each state and class, at
	// state*classes+class: -1 when no match can follow.
	next []int8
	// flags are each state's stateMatch and stateMatchAtEnd.
	flags []uint8
}

// The flags of a state.
const (
	// stateMatch: a match has been found.
	stateMatch uint8 = 1 << iota
	// stateMatchAtEnd: a match is found if the text ends here.
	stateMatchAtEnd
)

// dfaState is one state as the builder makes it: next by ASCII byte (-1:
// no match can follow), whether a match has been found, and whether one
// is found if the text ends here.
type dfaState struct {
	next       [128]int16
	match      bool
	matchAtEnd bool
}

// maxDFAStates bounds an automaton (at most 128: a state's number is an
// int8), and maxDFAInsts the program it is made from: a pattern that needs
// more is left to regexp.
const (
	maxDFAStates = 128
	maxDFAInsts  = 128
)

// newDFA returns the automaton of the pattern expr in Go's syntax, or nil
// when it cannot make one.
func newDFA(expr string) *dfa {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil || len(prog.Inst) > maxDFAInsts {
		return nil
	}
	for _, in := range prog.Inst {
		switch in.Op {
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(in.Arg)&^(syntax.EmptyBeginText|syntax.EmptyEndText) != 0 {
				return nil // line ends, word boundaries
			}
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL,
			syntax.InstAlt, syntax.InstAltMatch, syntax.InstCapture, syntax.InstNop, syntax.InstMatch, syntax.InstFail:
		default:
			return nil
		}
	}
	b := dfaBuilder{prog: prog, index: map[string]int{}}
	b.state(b.closure([]uint32{uint32(prog.Start)}, true, false), true)
	for i := 0; i < len(b.sets); i++ {
		if len(b.sets) > maxDFAStates {
			return nil
		}
		b.fill(i)
	}
	if len(b.sets) > maxDFAStates {
		return nil
	}
	return compact(b.states)
}

// compact returns the automaton of states with its bytes in classes: two
// bytes share a class when every state leads them to the same state.
func compact(states []dfaState) *dfa {
	d := &dfa{flags: make([]uint8, len(states))}
	var firsts []int // a byte of each class
	for c := range 128 {
		cl := slices.IndexFunc(firsts, func(f int) bool {
			for i := range states {
				if states[i].next[f] != states[i].next[c] {
					return false
				}
			}
			return true
		})
		if cl < 0 {
			cl = len(firsts)
			firsts = append(firsts, c)
		}
		d.class[c] = uint8(cl)
	}
	d.classes = len(firsts)
	d.next = make([]int8, len(states)*d.classes)
	for i := range states {
		for cl, f := range firsts {
			d.next[i*d.classes+cl] = int8(states[i].next[f])
		}
		if states[i].match {
			d.flags[i] |= stateMatch
		}
		if states[i].matchAtEnd {
			d.flags[i] |= stateMatchAtEnd
		}
	}
	return d
}

// match reports whether text holds a match of the pattern, as
// regexp.Match does; known is false when text has a byte past ASCII.
func (d *dfa) match(text []byte) (matched, known bool) {
	s := 0
	for _, c := range text {
		if d.flags[s]&stateMatch != 0 {
			return true, true
		}
		if c >= 0x80 {
			return false, false
		}
		n := d.next[s*d.classes+int(d.class[c])]
		if n < 0 {
			// Nothing alive, and no match may start later: whatever
			// follows, there is none.
			return false, true
		}
		s = int(n)
	}
	return d.flags[s] != 0, true
}

// dfaBuilder makes the states: each is the set of the program's
// instructions that wait for a byte, a match, or the end of the text.
type dfaBuilder struct {
	prog   *syntax.Prog
	sets   [][]uint32
	states []dfaState
	index  map[string]int
	// restart is where a match may begin after the text's beginning;
	// seen marks what closure visited.
	restart []uint32
	seen    []bool
}

// closure returns the instructions reached from pcs without reading a
// byte, at the text's beginning or not, at its end or not. Away from the
// end, an end-of-text test is kept as it is: it passes only where the text
// ends.
func (b *dfaBuilder) closure(pcs []uint32, begin, end bool) []uint32 {
	if b.seen == nil {
		b.seen = make([]bool, len(b.prog.Inst))
	}
	clear(b.seen)
	var out []uint32
	stack := slices.Clone(pcs)
	for len(stack) > 0 {
		pc := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if b.seen[pc] {
			continue
		}
		b.seen[pc] = true
		in := &b.prog.Inst[pc]
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			stack = append(stack, in.Arg, in.Out)
		case syntax.InstCapture, syntax.InstNop:
			stack = append(stack, in.Out)
		case syntax.InstEmptyWidth:
			op := syntax.EmptyOp(in.Arg)
			switch {
			case op&syntax.EmptyBeginText != 0 && !begin:
			case op&syntax.EmptyEndText != 0 && !end:
				out = append(out, pc)
			default:
				stack = append(stack, in.Out)
			}
		case syntax.InstFail:
		default: // a byte's instruction, or the match
			out = append(out, pc)
		}
	}
	slices.Sort(out)
	return out
}

// key names a set of instructions, and whether it is the start's.
func key(set []uint32, start bool) string {
	k := make([]byte, 0, 1+2*len(set))
	if start {
		k = append(k, 1)
	}
	for _, pc := range set {
		k = append(k, byte(pc), byte(pc>>8))
	}
	return string(k)
}

// state returns the index of the state of set, making it if new.
func (b *dfaBuilder) state(set []uint32, start bool) int {
	k := key(set, start)
	if i, ok := b.index[k]; ok {
		return i
	}
	i := len(b.sets)
	b.index[k] = i
	b.sets = append(b.sets, set)
	st := dfaState{}
	for _, pc := range set {
		switch in := &b.prog.Inst[pc]; in.Op {
		case syntax.InstMatch:
			st.match = true
		case syntax.InstEmptyWidth:
			// The text ends here: the test passes (with the beginning's,
			// if it asks that too, only in the start state).
			if syntax.EmptyOp(in.Arg)&syntax.EmptyBeginText == 0 || start {
				st.matchAtEnd = st.matchAtEnd || b.matchesAtEnd(in.Out, start)
			}
		}
	}
	b.states = append(b.states, st)
	return i
}

// matchesAtEnd reports whether pc leads to the match with no byte left.
func (b *dfaBuilder) matchesAtEnd(pc uint32, begin bool) bool {
	for _, q := range b.closure([]uint32{pc}, begin, true) {
		if b.prog.Inst[q].Op == syntax.InstMatch {
			return true
		}
	}
	return false
}

// fill sets the transitions of state i: by each ASCII byte, to the
// instructions that byte leads to, and to the pattern's start again (a
// match may begin anywhere; one that must begin at the text's beginning
// then reaches nothing). Bytes that lead from the same instructions lead
// to the same state, found once.
func (b *dfaBuilder) fill(i int) {
	if b.restart == nil {
		b.restart = b.closure([]uint32{uint32(b.prog.Start)}, false, false)
	}
	set := b.sets[i]
	byOuts := map[string]int16{}
	var outs []uint32
	for c := range 128 {
		outs = outs[:0]
		for _, pc := range set {
			if in := &b.prog.Inst[pc]; consumes(in, rune(c)) {
				outs = append(outs, in.Out)
			}
		}
		k := key(outs, false)
		if n, ok := byOuts[k]; ok {
			b.states[i].next[c] = n
			continue
		}
		n := int16(-1)
		if next := slices.Compact(slices.Sorted(slices.Values(append(b.closure(outs, false, false), b.restart...)))); len(next) > 0 {
			if len(b.sets) > maxDFAStates {
				return
			}
			n = int16(b.state(next, false))
		}
		byOuts[k] = n
		b.states[i].next[c] = n
	}
}

// consumes reports whether the instruction in reads r.
func consumes(in *syntax.Inst, r rune) bool {
	switch in.Op {
	case syntax.InstRune:
		return in.MatchRune(r)
	case syntax.InstRune1:
		return r == in.Rune[0]
	case syntax.InstRuneAny:
		return true
	case syntax.InstRuneAnyNotNL:
		return r != '\n'
	}
	return false
}
