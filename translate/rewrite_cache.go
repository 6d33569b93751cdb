package translate

import (
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/mappings"
)

// rewriteFast applies the rewrites of m that a translation from, to of env
// (operation op, as from names it) matches, by their plan; false, with env
// unchanged, when they have none or its pass gives up, and the node engine
// must apply them.
func rewriteFast(m *mappings.Set, env *canonical.Envelope, from, to, op string) bool {
	rules := m.Rewrites()
	if len(rules) == 0 {
		return true
	}
	if len(rules) > 64 {
		return false
	}
	var matched uint64
	for i := range rules {
		if rules[i].When.Matches(from, to, env.Act, op) {
			matched |= 1 << i
		}
	}
	return plans.get(rules, matched).run(env)
}

// The plans of the rule combinations translations have matched. A
// mapping set only ever appends rules once loaded, and never changes one,
// so a plan is known by the set's rules (where they start and how many)
// and which of them matched; a plan also keeps the edit lists it was made
// from, and is made again when they differ.
var plans planCache

// maxPlans bounds the cache: past it, it starts again empty.
const maxPlans = 256

// planKey is a combination of a set's rules: where they start, how many
// there are, and which of them matched.
type planKey struct {
	rules   *mappings.Rewrite
	n       int
	matched uint64
}

// planCache is copied on write: reads take no lock.
type planCache struct {
	mu sync.Mutex
	m  atomic.Pointer[map[planKey]*plan]
}

// get returns the plan of the rules matched marks.
func (c *planCache) get(rules []mappings.Rewrite, matched uint64) *plan {
	if matched == 0 {
		return noEdits
	}
	key := planKey{rules: &rules[0], n: len(rules), matched: matched}
	if m := c.m.Load(); m != nil {
		if p, ok := (*m)[key]; ok && p.madeFrom(rules, matched) {
			return p
		}
	}
	var edits []mappings.Edit
	var from []editList
	for bs := matched; bs != 0; bs &= bs - 1 {
		r := &rules[bits.TrailingZeros64(bs)]
		edits = append(edits, r.Do...)
		from = append(from, doList(r.Do))
	}
	p := newPlan(edits)
	if p == nil {
		p = &plan{none: true}
	}
	p.rules = from
	c.mu.Lock()
	defer c.mu.Unlock()
	next := map[planKey]*plan{key: p}
	if m := c.m.Load(); m != nil && len(*m) < maxPlans {
		for k, v := range *m {
			if k != key {
				next[k] = v
			}
		}
	}
	c.m.Store(&next)
	return p
}

// noEdits is the plan of a translation no rule matches.
var noEdits = &plan{}

// madeFrom reports whether p was made from the edit lists of the rules
// matched marks.
func (p *plan) madeFrom(rules []mappings.Rewrite, matched uint64) bool {
	if bits.OnesCount64(matched) != len(p.rules) {
		return false
	}
	i := 0
	for bs := matched; bs != 0; bs &= bs - 1 {
		if doList(rules[bits.TrailingZeros64(bs)].Do) != p.rules[i] {
			return false
		}
		i++
	}
	return true
}

// doList returns where an edit list starts and how long it is.
func doList(do []mappings.Edit) editList {
	if len(do) == 0 {
		return editList{}
	}
	return editList{first: &do[0], n: len(do)}
}
