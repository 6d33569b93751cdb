package schemafast

import "github.com/santhosh-tekuri/jsonschema/v6"

// Most dialects' schemas state their message types as entries of an allOf,
// one per type, each an if on one member's string constant:
//
//	{"if": {"properties": {F: {"const": V}}, "required": [F]}, "then": T, "else": E}
//
// Checking an object against them one by one reads, for each entry, the
// entry's node, its if's, the member's and the constant: a few dozen cache
// lines a message, seldom in cache on the bridge's hot path. keyed holds
// such entries in one list by value: eval finds the member once and
// compares its value with each entry's. An entry's if holds exactly when
// the object has F and F is a string whose text is V (a const compares a
// value of another kind unequal, and a missing required member fails), so
// the entry comes to T when it holds and to E (valid when there is none)
// when it does not, as eval of the entry would. A value that is not an
// object satisfies every if (properties and required say nothing of it),
// and is checked against the allOf as written.

// keyed is the allOf of a node whose entries include at least two such
// entries on one member: those entries, and the others in order.
type keyed struct {
	name    string
	entries []keyedEntry
	others  []*node
}

// keyedEntry is one entry of a keyed allOf: the member's value that makes
// its if hold, and its then and else (nil: none).
type keyedEntry struct {
	value     string
	then, els *node
}

// keyAll sets the keyed allOf of every node that has one. It runs after
// breakCycles, which may mark an entry unknown (an entry so marked is not
// keyed).
func keyAll(nodes map[*jsonschema.Schema]*node) {
	for _, n := range nodes {
		n.keyed = keyedOf(n)
	}
}

// keyedOf returns n's allOf as keyed, nil when fewer than two of its
// entries are ifs on one member's string constant.
func keyedOf(n *node) *keyed {
	if len(n.allOf) < 2 {
		return nil
	}
	k := &keyed{}
	for _, e := range n.allOf {
		name, entry, ok := keyedEntryOf(e)
		if ok && (k.name == "" || name == k.name) {
			k.name = name
			k.entries = append(k.entries, entry)
			continue
		}
		k.others = append(k.others, e)
	}
	if len(k.entries) < 2 {
		return nil
	}
	return k
}

// keyedEntryOf returns e as a keyed entry, and the member its if is on;
// false when e is not an if on one required member's string constant with
// a then or an else and nothing else.
func keyedEntryOf(e *node) (string, keyedEntry, bool) {
	if e.groups != gCond || e.single != nil || e.unknown || e.never || e.unknownFor != 0 || e.hasTypes ||
		e.not != nil || len(e.allOf) > 0 || len(e.anyOf) > 0 || len(e.oneOf) > 0 || e.cond == nil {
		return "", keyedEntry{}, false
	}
	m := e.cond.single
	if m == nil || !m.required || m.name == "" {
		return "", keyedEntry{}, false
	}
	c := m.node
	if c.groups != gConst || c.single != nil || c.unknown || c.never || c.unknownFor != 0 || c.hasTypes ||
		c.constant.kind != kindString {
		return "", keyedEntry{}, false
	}
	return m.name, keyedEntry{value: c.constant.text, then: e.then, els: e.els}, true
}

// keyedAllOf returns whether the object at token i is valid under every
// entry of k.
func (p *pass) keyedAllOf(k *keyed, i int32) Verdict {
	v := Valid
	for _, c := range k.others {
		if all(&v, p.eval(c, i)) {
			return v
		}
	}
	var text []byte
	str := false
	if x := p.memberValue(i, k.name); x >= 0 && p.toks[x].kind == kindString {
		text, str = p.text(x), true
	}
	for j := range k.entries {
		e := &k.entries[j]
		b := e.els
		if str && string(text) == e.value {
			b = e.then
		}
		if b != nil && all(&v, p.eval(b, i)) {
			return v
		}
	}
	return v
}

// memberValue returns the token of the value of the object at token i's
// member name, -1 when it has none. Names are given once in an object
// (scan refuses repeats).
func (p *pass) memberValue(i int32, name string) int32 {
	end := p.toks[i].next
	for k := i + 1; k < end; k = p.toks[k+1].next {
		if string(p.text(k)) == name {
			return k + 1
		}
	}
	return -1
}
