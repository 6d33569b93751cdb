package schemafast

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// maxUnique is how many items an array with uniqueItems may have for the
// fast path to compare them pairwise.
const maxUnique = 64

// all folds r into v, the verdict of every keyword so far: it reports
// whether v is now Invalid, which no later keyword changes.
func all(v *Verdict, r Verdict) bool {
	switch r {
	case Invalid:
		*v = Invalid
		return true
	case Unknown:
		*v = Unknown
	}
	return false
}

// eval returns whether the value at token i is valid under n.
func (p *pass) eval(n *node, i int32) Verdict {
	if m := n.single; m != nil {
		return p.evalMember(m, i)
	}
	if n.unknown {
		return Unknown
	}
	if n.never {
		return Invalid
	}
	k := p.toks[i].kind
	if n.unknownFor.has(k) {
		return Unknown
	}
	v := Valid
	if n.hasTypes && !n.types.has(k) {
		if !n.integer || k != kindNumber {
			return Invalid
		}
		d, ok := parseDecimal(p.raw(i))
		if !ok {
			return Unknown
		}
		if !d.integer() {
			return Invalid
		}
	}
	g := n.groups
	if g&gConst != 0 && all(&v, p.equal(i, n.constant)) {
		return v
	}
	if g&gEnum != 0 && all(&v, p.inEnum(n, i)) {
		return v
	}
	if g&gFormat != 0 && all(&v, p.format(n, i)) {
		return v
	}
	if g&gRef != 0 {
		r := p.eval(n.ref, i)
		if n.refOnly {
			return r
		}
		if all(&v, r) {
			return v
		}
	}
	r := Valid
	switch {
	case k == kindObject && g&gObject != 0:
		r = p.object(n, i)
	case k == kindArray && g&gArray != 0:
		r = p.array(n, i)
	case k == kindString && g&gString != 0:
		r = p.str(n, i)
	case k == kindNumber && g&gNumber != 0:
		r = p.number(n, i)
	}
	if all(&v, r) {
		return v
	}
	if g&gCond != 0 {
		all(&v, p.cond(n, i))
	}
	return v
}

// evalMember returns whether the value at token i is valid under a node
// that says nothing but m: a value other than an object is; an object is
// when it has m's member and that is valid under m's node, or when it has
// no such member and m does not require it. Names are given once in an
// object (scan refuses repeats), so the first member of that name is the
// one.
func (p *pass) evalMember(m *member, i int32) Verdict {
	if p.toks[i].kind != kindObject {
		return Valid
	}
	if x := p.memberValue(i, m.name); x >= 0 {
		return p.eval(m.node, x)
	}
	if m.required {
		return Invalid
	}
	return Valid
}

// raw returns the raw text of the number at token i.
func (p *pass) raw(i int32) []byte {
	t := &p.toks[i]
	return p.msg[t.start:t.end]
}

// equal returns whether the value at token i equals c, as the library
// compares: strings by their text, numbers by value.
func (p *pass) equal(i int32, c *constant) Verdict {
	k := p.toks[i].kind
	switch {
	case k == kindObject || k == kindArray:
		if c.kind == k {
			return Unknown
		}
		return Invalid
	case c.kind != k:
		return Invalid
	case k == kindString:
		if string(p.text(i)) == c.text {
			return Valid
		}
		return Invalid
	case k == kindNumber:
		d, ok := parseDecimal(p.raw(i))
		if !ok {
			return Unknown
		}
		if d.cmp(&c.num) == 0 {
			return Valid
		}
		return Invalid
	}
	return Valid // null, true, false
}

func (p *pass) inEnum(n *node, i int32) Verdict {
	if n.enumText != nil && p.toks[i].kind == kindString {
		if n.enumText[string(p.text(i))] {
			return Valid
		}
		return Invalid
	}
	v := Invalid
	for j := range n.enum {
		switch p.equal(i, &n.enum[j]) {
		case Valid:
			return Valid
		case Unknown:
			v = Unknown
		}
	}
	return v
}

func (p *pass) format(n *node, i int32) Verdict {
	var val any
	switch t := &p.toks[i]; t.kind {
	case kindString:
		s := p.text(i)
		if n.dateTime && canonicalDateTime(s) {
			return Valid
		}
		val = string(s)
	case kindNumber:
		val = json.Number(p.raw(i))
	case kindTrue:
		val = true
	case kindFalse:
		val = false
	case kindNull:
		val = nil
	default:
		return Unknown
	}
	if n.format.Validate(val) != nil {
		return Invalid
	}
	return Valid
}

// prop returns the node of n's property name, nil if n names none.
func (n *node) prop(name []byte) *node {
	if n.props != nil {
		return n.props[string(name)]
	}
	for j, pn := range n.propNames {
		if string(name) == pn {
			return n.propNodes[j]
		}
	}
	return nil
}

// has reports whether the object at token i has a member called name.
func (p *pass) has(i int32, name string) bool {
	end := p.toks[i].next
	for k := i + 1; k < end; k = p.toks[k+1].next {
		if string(p.text(k)) == name {
			return true
		}
	}
	return false
}

func (p *pass) object(n *node, i int32) Verdict {
	obj := p.toks[i]
	if (n.minProps >= 0 && int(obj.n) < n.minProps) || (n.maxProps >= 0 && int(obj.n) > n.maxProps) {
		return Invalid
	}
	for _, name := range n.required {
		if !p.has(i, name) {
			return Invalid
		}
	}
	v := Valid
	for _, d := range n.dependentRequired {
		if p.has(i, d.name) {
			for _, name := range d.required {
				if !p.has(i, name) {
					return Invalid
				}
			}
		}
	}
	for _, d := range n.dependentSchemas {
		if p.has(i, d.name) && all(&v, p.eval(d.node, i)) {
			return v
		}
	}
	members := len(n.propNames) > 0 || len(n.patterns) > 0 || n.additional != nil || n.noAdditional || n.propertyNames != nil
	for k := i + 1; members && k < obj.next; k = p.toks[k+1].next {
		name := p.text(k)
		if n.propertyNames != nil && all(&v, p.eval(n.propertyNames, k)) {
			return v
		}
		evaluated := false
		if c := n.prop(name); c != nil {
			evaluated = true
			if all(&v, p.eval(c, k+1)) {
				return v
			}
		}
		for j := range n.patterns {
			pt := &n.patterns[j]
			if pt.re.match(name) {
				evaluated = true
				if all(&v, p.eval(pt.node, k+1)) {
					return v
				}
			}
		}
		switch {
		case evaluated:
		case n.noAdditional:
			return Invalid
		case n.additional != nil:
			if all(&v, p.eval(n.additional, k+1)) {
				return v
			}
		}
	}
	return v
}

func (p *pass) array(n *node, i int32) Verdict {
	arr := p.toks[i]
	if (n.minItems >= 0 && int(arr.n) < n.minItems) || (n.maxItems >= 0 && int(arr.n) > n.maxItems) {
		return Invalid
	}
	v := Valid
	if n.unique && arr.n > 1 && all(&v, p.unique(i)) {
		return v
	}
	if len(n.prefix) > 0 || n.rest != nil || n.noRest {
		idx := 0
		for k := i + 1; k < arr.next; k = p.toks[k].next {
			var r Verdict
			switch {
			case idx < len(n.prefix):
				r = p.eval(n.prefix[idx], k)
			case n.noRest:
				r = Invalid
			case n.rest != nil:
				r = p.eval(n.rest, k)
			default:
				r = Valid
			}
			if all(&v, r) {
				return v
			}
			idx++
		}
	}
	if n.contains != nil {
		matched, maybe := 0, 0
		for k := i + 1; k < arr.next; k = p.toks[k].next {
			switch p.eval(n.contains, k) {
			case Valid:
				matched++
			case Unknown:
				maybe++
			}
		}
		least := 1
		if n.minContains >= 0 {
			least = n.minContains
		}
		most := int(arr.n)
		if n.maxContains >= 0 {
			most = n.maxContains
		}
		switch {
		case matched+maybe < least || matched > most:
			return Invalid
		case maybe > 0 && (matched < least || matched+maybe > most):
			v = Unknown
		}
	}
	return v
}

// unique returns whether the items of the array at token i are distinct.
func (p *pass) unique(i int32) Verdict {
	arr := p.toks[i]
	if arr.n > maxUnique {
		return Unknown
	}
	v := Valid
	for a := i + 1; a < arr.next; a = p.toks[a].next {
		for b := p.toks[a].next; b < arr.next; b = p.toks[b].next {
			switch p.same(a, b) {
			case Valid:
				return Invalid
			case Unknown:
				v = Unknown
			}
		}
	}
	return v
}

// same returns whether the values at tokens a and b are equal: Valid when
// they are, Invalid when not.
func (p *pass) same(a, b int32) Verdict {
	k := p.toks[a].kind
	if p.toks[b].kind != k {
		return Invalid
	}
	switch k {
	case kindString:
		if bytes.Equal(p.text(a), p.text(b)) {
			return Valid
		}
		return Invalid
	case kindNumber:
		x, ok1 := parseDecimal(p.raw(a))
		y, ok2 := parseDecimal(p.raw(b))
		if !ok1 || !ok2 {
			return Unknown
		}
		if x.cmp(&y) == 0 {
			return Valid
		}
		return Invalid
	case kindObject, kindArray:
		return Unknown
	}
	return Valid
}

func (p *pass) str(n *node, i int32) Verdict {
	if n.minLength < 0 && n.maxLength < 0 && n.pattern == nil {
		return Valid
	}
	s := p.text(i)
	if n.minLength >= 0 || n.maxLength >= 0 {
		l := utf8.RuneCount(s)
		if (n.minLength >= 0 && l < n.minLength) || (n.maxLength >= 0 && l > n.maxLength) {
			return Invalid
		}
	}
	if n.pattern != nil && !n.pattern.match(s) {
		return Invalid
	}
	return Valid
}

func (p *pass) number(n *node, i int32) Verdict {
	if n.minimum == nil && n.maximum == nil && n.exclusiveMinimum == nil && n.exclusiveMaximum == nil {
		return Valid
	}
	d, ok := parseDecimal(p.raw(i))
	if !ok {
		return Unknown
	}
	if (n.minimum != nil && d.cmp(n.minimum) < 0) || (n.maximum != nil && d.cmp(n.maximum) > 0) ||
		(n.exclusiveMinimum != nil && d.cmp(n.exclusiveMinimum) <= 0) ||
		(n.exclusiveMaximum != nil && d.cmp(n.exclusiveMaximum) >= 0) {
		return Invalid
	}
	return Valid
}

// cond applies not, allOf, anyOf, oneOf and if/then/else.
func (p *pass) cond(n *node, i int32) Verdict {
	v := Valid
	if n.not != nil {
		switch p.eval(n.not, i) {
		case Valid:
			return Invalid
		case Unknown:
			v = Unknown
		}
	}
	if n.keyed != nil && p.toks[i].kind == kindObject {
		if all(&v, p.keyedAllOf(n.keyed, i)) {
			return v
		}
	} else {
		for _, c := range n.allOf {
			if all(&v, p.eval(c, i)) {
				return v
			}
		}
	}
	if len(n.anyOf) > 0 {
		r := Invalid
		for _, c := range n.anyOf {
			switch p.eval(c, i) {
			case Valid:
				r = Valid
			case Unknown:
				r = Unknown
			}
			if r == Valid {
				break
			}
		}
		if all(&v, r) {
			return v
		}
	}
	if len(n.oneOf) > 0 {
		valid, unknown := 0, false
		for _, c := range n.oneOf {
			switch p.eval(c, i) {
			case Valid:
				valid++
			case Unknown:
				unknown = true
			}
			if valid > 1 {
				return Invalid
			}
		}
		r := Invalid
		switch {
		case unknown:
			r = Unknown
		case valid == 1:
			r = Valid
		}
		if all(&v, r) {
			return v
		}
	}
	if n.cond != nil {
		var r Verdict
		switch p.eval(n.cond, i) {
		case Valid:
			r = p.branch(n.then, i)
		case Invalid:
			r = p.branch(n.els, i)
		default:
			if r = p.branch(n.then, i); r != p.branch(n.els, i) {
				r = Unknown
			}
		}
		all(&v, r)
	}
	return v
}

// branch returns whether the value at token i is valid under then or
// else; valid when there is none.
func (p *pass) branch(n *node, i int32) Verdict {
	if n == nil {
		return Valid
	}
	return p.eval(n, i)
}
