package collab

import "strings"

// The marks that make up Origin.Form for a collab message, joined by "+".
// The empty form is the header layout with correlationId in the header.
const (
	// formFlat: the header members sit at the top level (spec section 2.2).
	formFlat = "flat"
	// formTopCorrelation: header layout, correlationId at the top level
	// (the spec's RESPONSE example).
	formTopCorrelation = "top-correlation"
	// formNullError: body.error was written as null.
	formNullError = "null-error"
	// formNullResult: body.result was null on an error response.
	formNullResult = "null-result"
	// formNoBody: the message had no body member.
	formNoBody = "no-body"
)

// layout is a collab message's layout as recorded in Origin.Form.
type layout struct {
	flat, topCorrelation, nullError, nullResult, noBody bool
}

// parseForm reads the marks of a form string; unknown marks are ignored.
func parseForm(s string) layout {
	var l layout
	for s != "" {
		var mark string
		mark, s, _ = strings.Cut(s, "+")
		switch mark {
		case formFlat:
			l.flat = true
		case formTopCorrelation:
			l.topCorrelation = true
		case formNullError:
			l.nullError = true
		case formNullResult:
			l.nullResult = true
		case formNoBody:
			l.noBody = true
		}
	}
	return l
}

// String returns the form string of the layout.
func (l layout) String() string {
	var marks []string
	for _, m := range []struct {
		on   bool
		mark string
	}{
		{l.flat, formFlat}, {l.topCorrelation, formTopCorrelation},
		{l.nullError, formNullError}, {l.nullResult, formNullResult}, {l.noBody, formNoBody},
	} {
		if m.on {
			marks = append(marks, m.mark)
		}
	}
	return strings.Join(marks, "+")
}
