package mappings

import (
	"strings"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// Aliases are one dialect's names for agents: the canonical id (as the
// router knows the agent) and the id messages of the dialect use.
type Aliases struct {
	toDialect   map[string]string // canonical id -> dialect id
	toCanonical map[string]string // dialect id -> canonical id
	order       []string          // canonical ids in declaration order
}

// Operation is one entry of the operation names table: the name each
// dialect gives one operation (fuse's as "capability/action").
type Operation struct {
	Names map[string]string
	File  string
	Line  int
}

// The policies for an act a target dialect cannot express.
const (
	PolicyReject = "reject"  // refuse the message: an error goes back to its sender
	PolicyDrop   = "drop"    // deliver nothing and log it
	PolicySendAs = "send_as" // send it as another act the target can express
)

// ActPolicy says what to do with an act a target dialect cannot express.
type ActPolicy struct {
	// Do is PolicyReject, PolicyDrop or PolicySendAs.
	Do string
	// As is the act to send instead, for PolicySendAs.
	As   canonical.Act
	File string
	Line int
}

// Rewrite is a payload rewrite rule: when a translation matches When, Do's
// edits are applied to the envelope's raw payload fields, in order.
type Rewrite struct {
	When Condition
	Do   []Edit
	File string
	Line int
}

// Condition selects translations; an empty member matches anything.
type Condition struct {
	From, To string
	Act      canonical.Act
	// Operation is the operation name as the source dialect spells it.
	Operation string
}

// Matches reports whether a translation from, to of an envelope with act and
// operation name op is selected.
func (c Condition) Matches(from, to string, act canonical.Act, op string) bool {
	return (c.From == "" || c.From == from) && (c.To == "" || c.To == to) &&
		(c.Act == "" || c.Act == act) && (c.Operation == "" || c.Operation == op)
}

// The edits a rewrite can make.
const (
	EditRename = "rename" // give a member another name in the same object
	EditMove   = "move"   // move a value to another path, in any payload field
	EditSet    = "set"    // set a path to a constant JSON value
	EditDelete = "delete" // remove a path
	EditWrap   = "wrap"   // replace the value at Path by {Key: value}
	EditUnwrap = "unwrap" // replace the object holding Path by the value at Path
)

// Edit is one step of a rewrite.
type Edit struct {
	Op string
	// Path is the payload path edited (the source path of rename and move).
	Path PayloadPath
	// To is the destination of rename and move.
	To PayloadPath
	// Value is the raw JSON value of set.
	Value canonical.JSON
	// Key is the member name wrap puts the value under.
	Key string
}

// PayloadPath is a path into one of the envelope's raw JSON fields: the
// field's name (arguments, result, context, metadata, inputs,
// authentication, extensions, error.details) and a dotted path inside it
// ("" for the field itself).
type PayloadPath struct {
	Field string
	Sub   string
}

// PayloadFields are the envelope fields a rewrite may edit.
var PayloadFields = []string{"arguments", "result", "context", "metadata", "inputs", "authentication", "extensions", "error.details"}

// String returns the path as written in a mapping file.
func (p PayloadPath) String() string {
	if p.Sub == "" {
		return p.Field
	}
	return p.Field + "." + p.Sub
}

// parsePayloadPath reads a payload path, or says what is wrong with it.
func parsePayloadPath(s string) (PayloadPath, string) {
	field := ""
	for _, f := range PayloadFields {
		if s == f || strings.HasPrefix(s, f+".") {
			field = f
			break
		}
	}
	if field == "" {
		return PayloadPath{}, "a path starts with one of " + strings.Join(PayloadFields, ", ")
	}
	sub := strings.TrimPrefix(strings.TrimPrefix(s, field), ".")
	if strings.HasSuffix(s, ".") {
		return PayloadPath{}, "a path does not end with '.'"
	}
	if sub != "" {
		for _, seg := range strings.Split(sub, ".") {
			if seg == "" {
				return PayloadPath{}, "empty path segment"
			}
			if i := strings.IndexAny(seg, `*?#|@\!=<>%"`); i >= 0 {
				return PayloadPath{}, "character " + string(seg[i]) + " is not allowed in a path (plain member names and array indexes only)"
			}
		}
	}
	return PayloadPath{Field: field, Sub: sub}, ""
}

// Alias returns the id dialect uses for the agent with canonical id id.
func (s *Set) Alias(dialect, id string) (string, bool) {
	a := s.aliases[dialect]
	if a == nil {
		return "", false
	}
	v, ok := a.toDialect[id]
	return v, ok
}

// Unalias returns the canonical id of the agent dialect calls id.
func (s *Set) Unalias(dialect, id string) (string, bool) {
	a := s.aliases[dialect]
	if a == nil {
		return "", false
	}
	v, ok := a.toCanonical[id]
	return v, ok
}

// HasAliases reports whether any dialect has aliases.
func (s *Set) HasAliases() bool { return len(s.aliases) > 0 }

// OperationName returns the name dialect to gives the operation dialect
// from calls name, by the operation names table; ok is false when no entry
// names it (the name then travels unchanged).
func (s *Set) OperationName(from, name, to string) (string, bool) {
	for i := len(s.operations) - 1; i >= 0; i-- { // later files win
		op := s.operations[i]
		if op.Names[from] == name {
			if v, ok := op.Names[to]; ok {
				return v, true
			}
		}
	}
	return "", false
}

// Operations returns the operation names table.
func (s *Set) Operations() []Operation { return s.operations }

// ActPolicy returns what to do with act bound for dialect, when the dialect
// cannot express it; ok is false when no file says (the default is reject).
func (s *Set) ActPolicy(dialect string, act canonical.Act) (ActPolicy, bool) {
	p, ok := s.acts[dialect][act]
	return p, ok
}

// Rewrites returns the payload rewrite rules, in the order they apply.
func (s *Set) Rewrites() []Rewrite { return s.rewrites }

// Declarations returns the dialects declared by mapping files, by name.
func (s *Set) Declarations() []*Declaration {
	out := make([]*Declaration, 0, len(s.decls))
	for _, n := range sortedKeys(s.decls) {
		out = append(out, s.decls[n])
	}
	return out
}
