package bluelabel

import (
	"testing"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// TestHolds pins the holds table (docs/dialects/bluelabel.md).
func TestHolds(t *testing.T) {
	common := []canonical.Concept{canonical.CAct, canonical.CSender, canonical.CReceiver, canonical.CTime,
		canonical.CTaskID, canonical.CTraceID, canonical.CContext, canonical.CExtra}
	errs := []canonical.Concept{canonical.CErrorCode, canonical.CErrorMessage, canonical.CErrorDetails,
		canonical.CErrorRetryable, canonical.CErrorSuggestions}
	want := map[canonical.Act][]canonical.Concept{
		canonical.ActRequest: {canonical.COperation, canonical.CDescription, canonical.CArguments,
			canonical.CPriority, canonical.CDeadline, canonical.CTTL, canonical.CMetadata},
		canonical.ActResult:        {canonical.COutcome, canonical.CResult, canonical.CDescription},
		canonical.ActRefuse:        errs,
		canonical.ActFailure:       errs,
		canonical.ActNotUnderstood: errs,
		canonical.ActNeedsInput:    {canonical.CInputs, canonical.CDescription, canonical.CTTL},
	}
	for _, act := range canonical.Acts {
		w := canonical.SetOf(common...).With(want[act]...)
		if got := holds(act); got != w {
			t.Errorf("holds(%s) = %v, want %v", act, got.List(), w.List())
		}
	}
}
