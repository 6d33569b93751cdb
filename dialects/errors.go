package dialects

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
)

// Error is a problem with a message, located by dialect and JSON path.
type Error struct {
	Dialect string
	// Path is the dotted JSON path of the offending field ("" for the
	// message as a whole).
	Path    string
	Problem string
}

func (e *Error) Error() string {
	if e.Path == "" {
		return e.Dialect + ": " + e.Problem
	}
	return e.Dialect + ": " + e.Path + ": " + e.Problem
}

// Errorf returns an *Error for dialect at path.
func Errorf(dialect, path, format string, args ...any) *Error {
	return &Error{Dialect: dialect, Path: path, Problem: fmt.Sprintf(format, args...)}
}

// Problem is one finding of Validate.
type Problem struct {
	// Path is the dotted JSON path of the field ("" for the message).
	Path    string
	Message string
}

func (p Problem) String() string {
	if p.Path == "" {
		return p.Message
	}
	return p.Path + ": " + p.Message
}

// Problems is an error made of validation problems of one dialect.
type Problems struct {
	Dialect string
	List    []Problem
}

func (p *Problems) Error() string {
	var b strings.Builder
	for i, pr := range p.List {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.Dialect + ": " + pr.String())
	}
	return b.String()
}

// Join returns a dotted path of parent and key.
func Join(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

// MergeProblems returns rule problems followed by the schema problems on
// paths the rules did not already speak of: each problem once, in the
// rules' words. A schema's "missing property 'k'" at p speaks of p.k.
func MergeProblems(rules, schema []Problem) []Problem {
	out := rules
	for _, s := range schema {
		at := s.Path
		if k, ok := strings.CutPrefix(s.Message, "missing property '"); ok && strings.HasSuffix(k, "'") {
			at = Join(s.Path, strings.TrimSuffix(k, "'"))
		}
		dup := false
		for _, r := range rules {
			if r.Path == s.Path || r.Path == at {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, s)
		}
	}
	return out
}

// ProblemOf returns err, a decoder's error, as a Problem.
func ProblemOf(err error) Problem {
	var de *Error
	if errors.As(err, &de) {
		return Problem{Path: de.Path, Message: de.Problem}
	}
	return Problem{Message: err.Error()}
}

// Check decodes msg with c and validates it, and returns what is wrong with
// it, each problem once: the decoder's error first (a message that is not
// JSON in UTF-8 has only that one), then Validate's problems on other paths.
// Like Decode, it takes ownership of msg.
func Check(c Codec, msg []byte) []Problem {
	problems := c.Validate(msg)
	if _, err := c.Decode(msg); err != nil {
		return MergeProblems([]Problem{ProblemOf(err)}, problems)
	}
	return problems
}

// Rules collects what a dialect's own rules find wrong with a message,
// beside its schema.
type Rules struct {
	List []Problem
	// vouched: the schema's fast path found the message valid
	// (Base.StartRules).
	vouched bool
}

// CheckRules starts checking msg against a dialect's rules: it returns the
// message and the Rules to record problems in; ok is false, with that one
// problem recorded, when msg is not JSON in UTF-8 (CheckInput).
func CheckRules(msg []byte) (root gjson.Result, rules *Rules, ok bool) {
	rules = &Rules{}
	if err := CheckInput("", msg); err != nil {
		rules.List = append(rules.List, Problem{Path: err.Path, Message: err.Problem})
		return gjson.Result{}, rules, false
	}
	return gjson.ParseBytes(msg), rules, true
}

// Add records a problem at path. The problem keeps copies: path and args
// may share the message's memory (Base.StartRules).
func (r *Rules) Add(path, format string, args ...any) {
	r.List = append(r.List, Problem{Path: strings.Clone(path), Message: fmt.Sprintf(format, args...)})
}

// Vouched reports whether the schema's fast path found the message valid
// (Base.StartRules): it is then JSON in UTF-8 with no object member given
// twice.
func (r *Rules) Vouched() bool { return r.vouched }
