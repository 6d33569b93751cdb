package translate

import (
	"math"
	"slices"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/internal/jsonw"
	"github.com/mcp-bridge/mcp-bridge/mappings"
)

// A plan arranges the edits of the rules one translation matches by field
// and by member, so that each field they touch is written in one pass over
// its text (rewrite_pass.go) instead of being opened into nodes
// (rewrite.go). A plan gives the result the node engine gives, to the byte.
// It exists only when every edit touches members no other edit touches:
// two edits on one member, a path into an array or with names other than
// plain ASCII ones, a move within a field or in a circle of fields, unwrap,
// and edits of a whole field make no plan, and the node engine applies
// those edits one by one.

// entryOp is what a pass does with one member of an object.
type entryOp uint8

const (
	opDescend entryOp = iota // edits go into the member's value
	opDelete                 // delete: leave the member out
	opCapture                // move source: keep the value for the target, leave the member out
	opRename                 // rename: write the member under another name
	opDrop                   // rename's new name: leave that member out when the rename happens
	opSet                    // set: replace the value, or add the member
	opPut                    // move target: the moved value, when the source was there
	opWrap                   // wrap: write the value inside {key: value}
)

// entry is a member of an object that an edit touches.
type entry struct {
	key   string // the member's name
	op    entryOp
	text  string   // set: the value; rename: the new name quoted; wrap: `{"key":`
	qkey  string   // set, put, descend: the name quoted, to add the member with
	slot  int      // capture, put: the move's slot; rename, drop: the other's entry
	order int      // when the member would be added: the edit's index
	child *objPlan // descend: the edits in the value
}

// objPlan is the plan of an object: a field or a member's value.
type objPlan struct {
	entries []entry
	// adds are the entries added at the end when the object has no such
	// member, in the order the node engine would add them.
	adds []int
	// open: the node engine rebuilds the object whenever it is there;
	// openIf: also when one of these moves happens. Otherwise the object
	// keeps its text but for the members cut out of it.
	open   bool
	openIf []int
	// splice: one delete or capture and nothing else, cut from the text.
	splice bool
	drops  bool // has a drop entry
	// made is the object the sets at and below it create when it is not
	// there ("" when they create nothing); first is the index of the
	// first of those sets. makeIf are the moves at or below it: a missing
	// object one of them would create makes the pass give up.
	made   string
	first  int
	makeIf []int
}

// fieldPlan is the plan of one payload field.
type fieldPlan struct {
	name string
	root *objPlan
}

// plan is the edits of one translation, by field.
type plan struct {
	fields []fieldPlan // sources of moves before their targets
	slots  int         // moves
	none   bool        // stands in the cache for edits that have no plan
	// rules are the edit lists the plan was made from (cache checks).
	rules []editList
}

// editList is where a rule's edit list starts and how long it is.
type editList struct {
	first *mappings.Edit
	n     int
}

// Bounds of a plan, for the pass's fixed-size state.
const (
	maxSlots   = 16
	maxEntries = 64
	maxFields  = 8
)

// newPlan arranges edits into a plan; nil when they cannot be arranged.
func newPlan(edits []mappings.Edit) *plan {
	b := planner{}
	for i, e := range edits {
		if !b.add(i, e) {
			return nil
		}
	}
	return b.finish()
}

// planner is a plan being made.
type planner struct {
	fields []fieldPlan // in the order edits name them
	slots  int
	moves  [][2]string // source and target field of each move
}

// add arranges e, the i-th edit; false when it cannot be.
func (b *planner) add(i int, e mappings.Edit) bool {
	switch e.Op {
	case mappings.EditSet:
		parent, last, ok := b.walk(e.Path, -1)
		if !ok || e.Value == "" {
			return false
		}
		parent.open = true
		return parent.add(entry{key: last, op: opSet, text: string(e.Value), qkey: quoted(last), order: i})
	case mappings.EditDelete:
		parent, last, ok := b.walk(e.Path, -1)
		return ok && parent.add(entry{key: last, op: opDelete})
	case mappings.EditRename:
		parent, last, ok := b.walk(e.Path, -1)
		if !ok {
			return false
		}
		parent.open = true
		if !parent.add(entry{key: last, op: opRename, text: quoted(e.Key)}) {
			return false
		}
		if e.Key == last {
			return true
		}
		parent.drops = true
		j := len(parent.entries) - 1
		parent.entries[j].slot = j + 1
		return parent.add(entry{key: e.Key, op: opDrop, slot: j})
	case mappings.EditWrap:
		parent, last, ok := b.walk(e.Path, -1)
		return ok && parent.add(entry{key: last, op: opWrap, text: "{" + quoted(e.Key) + ":"})
	case mappings.EditMove:
		if e.Path.Field == e.To.Field || b.slots == maxSlots {
			return false
		}
		slot := b.slots
		b.slots++
		b.moves = append(b.moves, [2]string{e.Path.Field, e.To.Field})
		from, last, ok := b.walk(e.Path, -1)
		if !ok || !from.add(entry{key: last, op: opCapture, slot: slot}) {
			return false
		}
		to, last, ok := b.walk(e.To, slot)
		return ok && to.add(entry{key: last, op: opPut, slot: slot, qkey: quoted(last), order: i})
	}
	return false
}

// walk returns the plan of the object holding path's member, and the
// member's name. The node engine opens every object above that one on the
// way (slot < 0), or, for a move's target (slot >= 0), also that one, and
// only when the move happens.
func (b *planner) walk(path mappings.PayloadPath, slot int) (*objPlan, string, bool) {
	if path.Sub == "" {
		return nil, "", false
	}
	var root *objPlan
	for _, f := range b.fields {
		if f.name == path.Field {
			root = f.root
		}
	}
	if root == nil {
		if len(b.fields) == maxFields {
			return nil, "", false
		}
		root = &objPlan{}
		b.fields = append(b.fields, fieldPlan{name: path.Field, root: root})
	}
	o, rest := root, path.Sub
	for {
		seg, more, found := strings.Cut(rest, ".")
		if !plainName(seg) {
			return nil, "", false
		}
		if !found {
			if slot >= 0 {
				o.openIf = append(o.openIf, slot)
			}
			return o, seg, true
		}
		if slot >= 0 {
			o.openIf = append(o.openIf, slot)
		} else {
			o.open = true
		}
		j := o.find(seg)
		if j < 0 {
			if !o.add(entry{key: seg, op: opDescend, qkey: quoted(seg), child: &objPlan{}}) {
				return nil, "", false
			}
			j = len(o.entries) - 1
		} else if o.entries[j].op != opDescend {
			return nil, "", false
		}
		o, rest = o.entries[j].child, more
	}
}

// plainName reports whether a path segment names a member the same way
// for gjson paths and for the node engine's lookups: no array indexes, no
// characters gjson reads as syntax, ASCII only.
func plainName(seg string) bool {
	if seg == "" || seg[0] >= '0' && seg[0] <= '9' {
		return false
	}
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '$' || c == '/') {
			return false
		}
	}
	return true
}

// quoted returns name as a JSON string.
func quoted(name string) string { return string(jsonw.AppendString(nil, name)) }

// add adds an entry for a member no other edit touches.
func (o *objPlan) add(e entry) bool {
	if o.find(e.key) >= 0 || len(o.entries) == maxEntries {
		return false
	}
	o.entries = append(o.entries, e)
	return true
}

// find returns the index of the entry for the member key; -1 when none.
func (o *objPlan) find(key string) int {
	for i := range o.entries {
		if k := o.entries[i].key; len(k) == len(key) && (k == "" || k[0] == key[0]) && k == key {
			return i
		}
	}
	return -1
}

// finish orders the fields, moves' sources first, and works out what each
// object adds and creates.
func (b *planner) finish() *plan {
	p := &plan{slots: b.slots}
	left := b.fields
	for len(left) > 0 {
		next := -1
		for i, f := range left {
			if !b.receives(f.name, left) {
				next = i
				break
			}
		}
		if next < 0 {
			return nil // moves in a circle
		}
		p.fields = append(p.fields, left[next])
		left = slices.Delete(slices.Clone(left), next, next+1)
	}
	for _, f := range p.fields {
		f.root.settle()
	}
	return p
}

// receives reports whether a move into field comes from one of fields.
func (b *planner) receives(field string, fields []fieldPlan) bool {
	for _, m := range b.moves {
		if m[1] == field && slices.ContainsFunc(fields, func(f fieldPlan) bool { return f.name == m[0] }) {
			return true
		}
	}
	return false
}

// settle works out, below o first, the adds, the made object, and whether
// o is cut rather than rebuilt.
func (o *objPlan) settle() {
	o.first = math.MaxInt
	for i := range o.entries {
		e := &o.entries[i]
		switch e.op {
		case opSet:
			o.adds = append(o.adds, i)
			o.first = min(o.first, e.order)
		case opPut:
			o.adds = append(o.adds, i)
			o.makeIf = append(o.makeIf, e.slot)
		case opDescend:
			e.child.settle()
			if e.child.made != "" || len(e.child.makeIf) > 0 {
				e.order = e.child.first
				o.adds = append(o.adds, i)
				o.first = min(o.first, e.child.first)
				o.makeIf = append(o.makeIf, e.child.makeIf...)
			}
		}
	}
	slices.SortStableFunc(o.adds, func(a, b int) int { return o.entries[a].order - o.entries[b].order })
	var made []byte
	for _, i := range o.adds {
		e := &o.entries[i]
		var v string
		switch e.op {
		case opSet:
			v = e.text
		case opDescend:
			v = e.child.made
		}
		if v == "" {
			continue
		}
		if made == nil {
			made = append(made, '{')
		} else {
			made = append(made, ',')
		}
		made = append(append(append(made, e.qkey...), ':'), v...)
	}
	if made != nil {
		o.made = string(append(made, '}'))
	}
	o.splice = !o.open && len(o.openIf) == 0 && len(o.entries) == 1 &&
		(o.entries[0].op == opDelete || o.entries[0].op == opCapture)
}
