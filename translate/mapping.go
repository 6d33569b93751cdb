package translate

import (
	"fmt"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/mappings"
)

// applyMappings runs the rules of t's mapping set on env between decoding
// it as from and encoding it as to, in this order: agent aliases, operation
// names, the act policy, payload rewrites. It reports whether a policy
// drops the message.
func (t *Translator) applyMappings(env *canonical.Envelope, from, to string, canonicalIDs bool, ctx *dialects.EncodeContext) (drop bool, err error) {
	m := t.Mappings
	if m.HasAliases() {
		idsFrom := from
		if canonicalIDs {
			idsFrom = ""
		}
		env.Sender.ID = realias(m, idsFrom, to, env.Sender.ID)
		if env.Receiver.Kind == canonical.AddressAgent {
			env.Receiver.ID = realias(m, idsFrom, to, env.Receiver.ID)
		}
	}
	op := env.Operation.Name
	if env.Operation.Capability != "" && t.twoLevel(from) {
		op = env.Operation.Capability + "/" + op
	}
	if len(m.Operations()) > 0 && op != "" {
		if name, ok := m.OperationName(from, op, to); ok {
			env.Operation = targetOperation(name, env.Operation, t.twoLevel(to))
		}
	}
	if drop, err := applyActPolicy(m, env, to, ctx); drop || err != nil {
		return drop, err
	}
	if rewriteFast(m, env, from, to, op) {
		return false, nil
	}
	p := payload{env: env}
	for _, r := range m.Rewrites() {
		if !r.When.Matches(from, to, env.Act, op) {
			continue
		}
		for _, e := range r.Do {
			if err := p.apply(e); err != nil {
				ctx.Lose(dialects.Approximated, conceptOf(e.Path.Field), e.Path.String(),
					fmt.Sprintf("rewrite at %s:%d: %s %s not applied: %v", r.File, r.Line, e.Op, e.Path, err))
			}
		}
	}
	if p.n > 0 {
		p.commit()
	}
	return false, nil
}

// realias turns the id dialect from gives an agent into the one dialect to
// gives it: from's alias back to the canonical id, then to's alias of that.
func realias(m *mappings.Set, from, to, id string) string {
	if id == "" {
		return id
	}
	if c, ok := m.Unalias(from, id); ok {
		id = c
	}
	if a, ok := m.Alias(to, id); ok {
		return a
	}
	return id
}

// twoLevel reports whether the dialect named d names operations in two
// levels (dialects.TwoLevel), which the operation names table writes
// "capability/action". A dialect the registry does not know does not.
func (t *Translator) twoLevel(d string) bool {
	c, ok := t.Registry.Lookup(d)
	return ok && dialects.TwoLevel(c)
}

// targetOperation returns the operation named name in the table, in a
// dialect that names operations in two levels or not: split into
// capability and action in the first.
func targetOperation(name string, old canonical.Operation, twoLevel bool) canonical.Operation {
	if twoLevel {
		if c, a, ok := strings.Cut(name, "/"); ok {
			return canonical.Operation{Capability: c, Name: a}
		}
		return canonical.Operation{Capability: old.Capability, Name: name}
	}
	return canonical.Operation{Name: name}
}

// applyActPolicy applies the mapping's policy when to cannot express env's
// act. Without one the encoder refuses the act (reject).
func applyActPolicy(m *mappings.Set, env *canonical.Envelope, to string, ctx *dialects.EncodeContext) (bool, error) {
	// The policy first: most acts have none, and then neither answer
	// changes anything.
	p, ok := m.ActPolicy(to, env.Act)
	if !ok {
		return false, nil
	}
	if _, _, ok := m.Vocabulary(to).Table(canonical.KindAct).Word(string(env.Act)); ok {
		return false, nil
	}
	switch p.Do {
	case mappings.PolicyDrop:
		ctx.Lose(dialects.Dropped, canonical.CAct, canonical.CAct.String(),
			fmt.Sprintf("%s cannot express %s; dropped by the policy at %s:%d", to, env.Act, p.File, p.Line))
		return true, nil
	case mappings.PolicySendAs:
		ctx.Lose(dialects.Approximated, canonical.CAct, canonical.CAct.String(),
			fmt.Sprintf("%s cannot express %s; sent as %s by the policy at %s:%d", to, env.Act, p.As, p.File, p.Line))
		env.Act = p.As
	case mappings.PolicyReject:
		return false, fmt.Errorf("%s cannot express act %s; rejected by the policy at %s:%d", to, env.Act, p.File, p.Line)
	}
	return false, nil
}

func conceptOf(fieldName string) canonical.Concept {
	if fieldName == "error.details" {
		return canonical.CErrorDetails
	}
	c, _ := canonical.ParseConcept(fieldName)
	return c
}
