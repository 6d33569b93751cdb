package translate

import (
	"sync"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/tidwall/gjson"
)

// A pass writes the fields a plan touches, each in one gjson pass over its
// text, into one buffer. It gives up, changing nothing, whenever the text
// is not what the plan can handle the node engine's way: a value the edits
// go into that is not an object, a member named twice, an object the node
// engine would leave as it was written but whose text is not compact, an
// object a move would create.

// pass is the state of one plan's run.
type pass struct {
	dst   []byte
	moved [maxSlots]string // the captured values, by slot ("" when the source was not there)
}

// passBuffers keep the buffers passes write into between translations; the
// fields' text is copied out of them.
var passBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

// run applies p to env's fields; false, with env unchanged, when the pass
// gives up.
func (p *plan) run(env *canonical.Envelope) bool {
	if p.none {
		return false
	}
	if len(p.fields) == 0 {
		return true
	}
	bp := passBuffers.Get().(*[]byte)
	r := pass{dst: (*bp)[:0]}
	var ends [maxFields]int
	ok := true
	for i := range p.fields {
		if !r.object(string(*fieldOf(env, p.fields[i].name, false)), p.fields[i].root) {
			ok = false
			break
		}
		ends[i] = len(r.dst)
	}
	if ok {
		out, start := string(r.dst), 0
		for i := range p.fields {
			text := out[start:ends[i]]
			*fieldOf(env, p.fields[i].name, text != "") = canonical.JSON(text)
			start = ends[i]
		}
	}
	if cap(r.dst) <= 64<<10 {
		*bp = r.dst[:0]
		passBuffers.Put(bp)
	}
	return ok
}

// object writes the object raw ("" when absent) as o's edits leave it.
func (r *pass) object(raw string, o *objPlan) bool {
	if raw != "" && !dialects.IsObject(canonical.JSON(raw)) {
		return false
	}
	if o.splice {
		return r.cut(raw, &o.entries[0])
	}
	return r.rebuild(raw, o)
}

// cut writes raw without the member e deletes or captures, cut out of the
// text as the node engine's deleteText cuts it.
func (r *pass) cut(raw string, e *entry) bool {
	v := gjson.Get(raw, e.key)
	if !v.Exists() {
		r.dst = append(r.dst, raw...)
		return true
	}
	start, end, ok := memberSpan(raw, v)
	if !ok {
		return false
	}
	if e.op == opCapture {
		r.moved[e.slot] = v.Raw
	}
	r.dst = append(append(r.dst, raw[:start]...), raw[end:]...)
	return true
}

// rebuild writes raw member by member, compact, as the node engine writes
// an object it opened.
func (r *pass) rebuild(raw string, o *objPlan) bool {
	start := len(r.dst)
	r.dst = append(r.dst, '{')
	var seen uint64
	ok, opened, compact := true, o.open, true
	n, read, next := 0, 0, 1 // members written, members read; where the next name starts in compact text
	run := -1                // raw[run:next-1]: members kept as written, not yet written
	gjson.Result{Type: gjson.JSON, Raw: raw}.ForEach(func(k, v gjson.Result) bool {
		if compact {
			end := k.Index + len(k.Raw)
			compact = k.Index == next && raw[k.Index-1] == "{,"[min(read, 1)] && v.Index == end+1 && raw[end] == ':'
		}
		read++
		name := k.Str
		if len(k.Raw) != len(k.Str)+2 { // escapes
			name = dialects.Key(k)
		}
		i := o.find(name)
		if i < 0 && compact {
			if run < 0 {
				run = k.Index
			}
			next = v.Index + len(v.Raw) + 1
			return true
		}
		if run >= 0 { // the run before this member
			r.members(&n, raw[run:next-1])
			run = -1
		}
		next = v.Index + len(v.Raw) + 1
		if i < 0 {
			r.member(&n, k.Raw, v.Raw)
			return true
		}
		if seen&(1<<i) != 0 {
			ok = false // named twice: the node engine edits the first only
			return false
		}
		seen |= 1 << i
		e := &o.entries[i]
		switch e.op {
		case opDelete, opDrop:
		case opCapture:
			r.moved[e.slot] = v.Raw
		case opRename:
			r.member(&n, e.text, v.Raw)
		case opSet:
			r.member(&n, k.Raw, e.text)
		case opPut:
			if m := r.moved[e.slot]; m != "" {
				r.member(&n, k.Raw, m)
			} else {
				r.member(&n, k.Raw, v.Raw)
			}
		case opWrap:
			opened = true
			r.member(&n, k.Raw, e.text)
			r.dst = append(append(r.dst, v.Raw...), '}')
		case opDescend:
			r.member(&n, k.Raw, "")
			ok = r.object(v.Raw, e.child)
		}
		return ok
	})
	if !ok {
		return false
	}
	if run >= 0 {
		r.members(&n, raw[run:next-1])
	}
	// A rename whose new name was there but whose member was not leaves
	// that member: the pass has left it out.
	if o.drops {
		for i := range o.entries {
			if e := &o.entries[i]; e.op == opDrop && seen&(1<<i) != 0 && seen&(1<<e.slot) == 0 {
				return false
			}
		}
	}
	for _, s := range o.openIf {
		opened = opened || r.moved[s] != ""
	}
	if read == 0 {
		compact = raw == "{}" || raw == ""
	} else {
		compact = compact && next == len(raw) && raw[next-1] == '}'
	}
	if !opened {
		if !compact {
			return false
		}
		if raw == "" {
			r.dst = r.dst[:start]
			return true
		}
	}
	for _, i := range o.adds {
		if seen&(1<<i) != 0 {
			continue
		}
		e := &o.entries[i]
		switch e.op {
		case opSet:
			r.member(&n, e.qkey, e.text)
		case opPut:
			if m := r.moved[e.slot]; m != "" {
				r.member(&n, e.qkey, m)
			}
		case opDescend:
			for _, s := range e.child.makeIf {
				if r.moved[s] != "" {
					return false
				}
			}
			if e.child.made != "" {
				r.member(&n, e.qkey, e.child.made)
			}
		}
	}
	r.dst = append(r.dst, '}')
	return true
}

// member writes "name":value after the n members written before it.
func (r *pass) member(n *int, name, value string) {
	r.members(n, name)
	r.dst = append(append(r.dst, ':'), value...)
}

// members writes members, text as it is, after the n written before them.
func (r *pass) members(n *int, text string) {
	if *n > 0 {
		r.dst = append(r.dst, ',')
	}
	*n++
	r.dst = append(r.dst, text...)
}
