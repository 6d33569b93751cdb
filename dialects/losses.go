package dialects

import (
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/internal/jsonw"
)

// ReportLosses records in ctx every concept env holds that target cannot
// carry (holds says what it can), and every Extra member of another dialect.
func ReportLosses(ctx *EncodeContext, env *canonical.Envelope, target string, holds canonical.ConceptSet) {
	if ctx == nil {
		return
	}
	lost := env.PresentSet() &^ holds &^ canonical.SetOf(canonical.CExtra)
	extras := 0
	for i := range env.Extra {
		if env.Extra[i].Dialect != target {
			extras++
		}
	}
	if lost == 0 && extras == 0 {
		return
	}
	// Room for all of them at once: a message with a few members the
	// target has no place for would otherwise grow the list a few times.
	ctx.Losses = slices.Grow(ctx.Losses, bits.OnesCount64(uint64(lost))+extras)
	if lost != 0 {
		for _, c := range lost.List() {
			ctx.Losses = append(ctx.Losses, Loss{Kind: Dropped, Concept: c, Path: c.String(), tmpl: tmplDropped, env: env, target: target})
		}
	}
	for i := range env.Extra {
		if f := &env.Extra[i]; f.Dialect != target {
			ctx.Losses = append(ctx.Losses, Loss{Kind: Dropped, Concept: canonical.CExtra, Path: extraPath(f), tmpl: tmplDropped, field: f, target: target})
		}
	}
}

// paths holds the paths extraPath made last, a few by a hash of the member:
// an agent sends the same members message after message.
var paths [64]atomic.Pointer[string]

// extraPath returns f.Path(), the same string as the last time when it is
// still in paths, else a new one it puts there. A cached path is compared
// with f's parent and key, never trusted by the hash; it owns its bytes
// (none of the message's).
func extraPath(f *canonical.Field) string {
	parent, key := f.Parent, f.Key
	if parent == "" {
		return key
	}
	h := len(parent)*7 + len(key)
	if key != "" {
		h += int(key[0])*31 + int(key[len(key)-1])
	}
	slot := &paths[h&(len(paths)-1)]
	if p := slot.Load(); p != nil {
		s := *p
		if len(s) == len(parent)+1+len(key) && s[len(parent)] == '.' && s[:len(parent)] == parent && s[len(parent)+1:] == key {
			return s
		}
	}
	s := f.Path()
	slot.Store(&s)
	return s
}

// Approximate records that concept's value from could not be written as it
// is, and to, the nearest thing the target dialect has, was written instead.
func Approximate(ctx *EncodeContext, c canonical.Concept, target, from, to string) {
	if ctx != nil {
		ctx.Losses = append(ctx.Losses, Loss{Kind: Approximated, Concept: c, Path: c.String(), tmpl: tmplApprox, target: target, from: from, to: to})
	}
}

// WriteExtras writes the members of env.Extra that belong to dialect and sit
// in the object at parent.
func WriteExtras(w *jsonw.Writer, env *canonical.Envelope, dialect, parent string) {
	for i := range env.Extra {
		f := &env.Extra[i]
		if f.Parent == parent && f.Dialect == dialect {
			w.Key(f.Key)
			w.Raw(string(f.Value))
		}
	}
}

// HasExtras reports whether env.Extra has members of dialect at parent.
func HasExtras(env *canonical.Envelope, dialect, parent string) bool {
	for i := range env.Extra {
		if env.Extra[i].Parent == parent && env.Extra[i].Dialect == dialect {
			return true
		}
	}
	return false
}

// Keep appends a member with no canonical field to env.Extra.
func Keep(env *canonical.Envelope, dialect, parent, key string, value string) {
	env.Extra = append(env.Extra, canonical.Field{Dialect: dialect, Parent: parent, Key: key, Value: canonical.JSON(value)})
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}

// IsObject reports whether raw JSON text is an object.
func IsObject(raw canonical.JSON) bool { return firstByte(raw) == '{' }

// IsArray reports whether raw JSON text is an array.
func IsArray(raw canonical.JSON) bool { return firstByte(raw) == '[' }

func firstByte(raw canonical.JSON) byte {
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return raw[i]
	}
	return 0
}

// Unknown is the stand-in encoders write for a required id the envelope
// lacks (upper-cased where ids must be); readers treat it as absent.
const Unknown = "unknown"
