package event

import (
	"strings"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
)

// ReportOf puts losses in words, at once: a loss's text is made from the
// envelope it was found in, which its deliverer may reuse once the message
// is encoded. A loss that may quote a secret (an authentication value,
// requested inputs, a member whose name secret says is one) is told
// without its value.
func ReportOf(losses []dialects.Loss, secret func(key string) bool) []Loss {
	if len(losses) == 0 {
		return nil
	}
	out := make([]Loss, 0, len(losses))
	for _, l := range losses {
		tl := Loss{Kind: l.Kind.String(), Concept: l.Concept.String(), Field: l.Path, Hint: l.Hint}
		if secretLoss(l, secret) {
			tl.Message = l.Kind.String() + " " + l.Path + " (its value is not shown: it may be secret)"
		} else {
			tl.Message = l.Message()
		}
		out = append(out, tl)
	}
	return out
}

func secretLoss(l dialects.Loss, secret func(string) bool) bool {
	if l.Concept == canonical.CAuthentication || l.Concept == canonical.CInputs {
		return true
	}
	for _, seg := range strings.FieldsFunc(l.Path, func(c rune) bool { return c == '.' || c == '[' || c == ']' }) {
		if secret(seg) {
			return true
		}
	}
	return false
}
