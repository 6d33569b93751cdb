package collab

import (
	"testing"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// TestHolds pins the concepts each act's message carries (docs/dialects/collab.md).
func TestHolds(t *testing.T) {
	common := []canonical.Concept{canonical.CID, canonical.CAct, canonical.CSender, canonical.CReceiver,
		canonical.CTime, canonical.CPriority, canonical.CTTL, canonical.CTraceID, canonical.CSpanID,
		canonical.CParentSpanID, canonical.CContext, canonical.CExtra}
	errs := []canonical.Concept{canonical.COutcome, canonical.CErrorCode, canonical.CErrorMessage,
		canonical.CErrorRetryable, canonical.CErrorRetryAfter, canonical.CErrorDetails, canonical.CInReplyTo}
	table := map[canonical.Act][]canonical.Concept{
		canonical.ActRequest:            {canonical.COperation, canonical.CArguments, canonical.CCorrelationID},
		canonical.ActQueryIf:            {canonical.COperation, canonical.CArguments, canonical.CCorrelationID},
		canonical.ActQueryRef:           {canonical.COperation, canonical.CArguments, canonical.CCorrelationID},
		canonical.ActQueryCapabilities:  {canonical.CArguments, canonical.CCorrelationID},
		canonical.ActInformCapabilities: {canonical.CCapabilities, canonical.CSenderName, canonical.CInReplyTo},
		canonical.ActResult:             {canonical.CResult, canonical.COutcome, canonical.CInReplyTo},
		canonical.ActRefuse:             errs,
		canonical.ActFailure:            errs,
		canonical.ActNotUnderstood:      errs,
		canonical.ActEvent:              {canonical.COperation, canonical.CArguments, canonical.CCorrelationID},
	}
	for act, extra := range table {
		want := canonical.SetOf(common...).With(extra...)
		if got := holds(act); got != want {
			t.Errorf("%s: holds %v, want %v", act, got.List(), want.List())
		}
	}
}
