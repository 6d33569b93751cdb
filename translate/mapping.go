package translate

import (
	"fmt"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/mappings"
	"github.com/tidwall/gjson"
)

// applyMappings runs the mapping set's rules on env between decoding it as
// from and encoding it as to, in this order: agent aliases, operation names,
// the act policy, payload rewrites. It reports whether a policy drops the
// message.
func applyMappings(m *mappings.Set, env *canonical.Envelope, from, to string, ctx *dialects.EncodeContext) (drop bool, err error) {
	if m.HasAliases() {
		env.Sender.ID = realias(m, from, to, env.Sender.ID)
		if env.Receiver.Kind == canonical.AddressAgent {
			env.Receiver.ID = realias(m, from, to, env.Receiver.ID)
		}
	}
	op := operationName(from, env.Operation)
	if len(m.Operations()) > 0 && op != "" {
		if name, ok := m.OperationName(from, op, to); ok {
			env.Operation = targetOperation(to, name, env.Operation)
		}
	}
	if drop, err := applyActPolicy(m, env, to, ctx); drop || err != nil {
		return drop, err
	}
	for _, r := range m.Rewrites() {
		if !r.When.Matches(from, to, env.Act, op) {
			continue
		}
		for _, e := range r.Do {
			if err := applyEdit(env, e); err != nil {
				ctx.Lose(dialects.Approximated, conceptOf(e.Path.Field), e.Path.String(),
					fmt.Sprintf("rewrite at %s:%d: %s %s not applied: %v", r.File, r.Line, e.Op, e.Path, err))
			}
		}
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

// The dialect whose operations have two levels, written "capability/action"
// in the operation names table.
const twoLevel = "fuse"

// operationName returns the operation's name as dialect spells it in the
// operation names table.
func operationName(dialect string, op canonical.Operation) string {
	if dialect == twoLevel && op.Capability != "" {
		return op.Capability + "/" + op.Name
	}
	return op.Name
}

// targetOperation returns the operation named name in dialect: split into
// capability and action for the two-level dialect.
func targetOperation(dialect, name string, old canonical.Operation) canonical.Operation {
	if dialect == twoLevel {
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
	if _, _, ok := m.Vocabulary(to).Table(canonical.KindAct).Word(string(env.Act)); ok {
		return false, nil
	}
	p, ok := m.ActPolicy(to, env.Act)
	if !ok {
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

// field returns the envelope's raw field a payload path starts at.
func field(env *canonical.Envelope, name string, create bool) *canonical.JSON {
	switch name {
	case "arguments":
		return &env.Arguments
	case "result":
		return &env.Result
	case "context":
		return &env.Context
	case "metadata":
		return &env.Metadata
	case "inputs":
		return &env.Inputs
	case "authentication":
		return &env.Authentication
	case "extensions":
		return &env.Extensions
	case "error.details":
		if env.Error == nil {
			if !create {
				return new(canonical.JSON)
			}
			env.Error = &canonical.Error{}
		}
		return &env.Error.Details
	}
	return new(canonical.JSON)
}

func conceptOf(fieldName string) canonical.Concept {
	if fieldName == "error.details" {
		return canonical.CErrorDetails
	}
	c, _ := canonical.ParseConcept(fieldName)
	return c
}

// get returns the value at p.
func get(env *canonical.Envelope, p mappings.PayloadPath) (string, bool) {
	raw := *field(env, p.Field, false)
	if raw == "" {
		return "", false
	}
	if p.Sub == "" {
		return string(raw), true
	}
	v := gjson.Get(string(raw), p.Sub)
	return v.Raw, v.Exists()
}

// set puts the JSON value raw at p, creating objects along the way.
func set(env *canonical.Envelope, p mappings.PayloadPath, raw string) error {
	f := field(env, p.Field, true)
	if p.Sub == "" {
		*f = canonical.JSON(raw)
		return nil
	}
	base := string(*f)
	if base == "" {
		base = "{}"
	}
	out, err := setText(base, p.Sub, raw)
	if err != nil {
		return err
	}
	*f = canonical.JSON(out)
	return nil
}

// remove deletes the value at p.
func remove(env *canonical.Envelope, p mappings.PayloadPath) error {
	f := field(env, p.Field, false)
	if p.Sub == "" || *f == "" {
		*f = ""
		return nil
	}
	out, err := deleteText(string(*f), p.Sub)
	if err != nil {
		return err
	}
	*f = canonical.JSON(out)
	return nil
}

// parent returns the path of the object holding p's member.
func parent(p mappings.PayloadPath) mappings.PayloadPath {
	i := strings.LastIndexByte(p.Sub, '.')
	if i < 0 {
		return mappings.PayloadPath{Field: p.Field}
	}
	return mappings.PayloadPath{Field: p.Field, Sub: p.Sub[:i]}
}

// applyEdit makes one edit. A path that is not there leaves the envelope as
// it is; a value that cannot take the edit is an error.
func applyEdit(env *canonical.Envelope, e mappings.Edit) error {
	switch e.Op {
	case mappings.EditSet:
		return set(env, e.Path, string(e.Value))
	case mappings.EditDelete:
		return remove(env, e.Path)
	case mappings.EditRename:
		f := field(env, e.Path.Field, false)
		if out, ok := renameText(string(*f), e.Path.Sub, parent(e.Path).Sub, e.Key); ok {
			*f = canonical.JSON(out)
			return nil
		}
		to := parent(e.Path)
		to.Sub = strings.TrimPrefix(to.Sub+"."+e.Key, ".")
		return move(env, e.Path, to)
	case mappings.EditMove:
		return move(env, e.Path, e.To)
	case mappings.EditWrap:
		v, ok := get(env, e.Path)
		if !ok {
			return nil
		}
		return set(env, e.Path, wrapped(e.Key, v))
	case mappings.EditUnwrap:
		v, ok := get(env, e.Path)
		if !ok {
			return nil
		}
		return set(env, parent(e.Path), v)
	}
	return fmt.Errorf("unknown edit %q", e.Op)
}

// move takes the value at from to to.
func move(env *canonical.Envelope, from, to mappings.PayloadPath) error {
	v, ok := get(env, from)
	if !ok {
		return nil
	}
	if err := remove(env, from); err != nil {
		return err
	}
	return set(env, to, v)
}
