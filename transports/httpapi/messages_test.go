package httpapi

import (
	"net/http"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// TestStatusOf: whatever an agent answers is 200; the bridge's own errors
// have a status by their code.
func TestStatusOf(t *testing.T) {
	cases := []struct {
		name string
		out  bridge.Outbound
		want int
	}{
		{"an agent's result", bridge.Outbound{}, http.StatusOK},
		{"an agent's not-found", bridge.Outbound{Code: canonical.ErrNotFound}, http.StatusOK},
		{"an agent's refusal", bridge.Outbound{Code: canonical.ErrRejected}, http.StatusOK},
		{"an agent's timeout", bridge.Outbound{Code: canonical.ErrTimeout}, http.StatusOK},
		{"the bridge's accept", bridge.Outbound{ByBridge: true}, http.StatusOK},
		{"bad input", bridge.Outbound{ByBridge: true, Code: canonical.ErrInvalidMessage}, http.StatusBadRequest},
		{"bad arguments", bridge.Outbound{ByBridge: true, Code: canonical.ErrInvalidArguments}, http.StatusBadRequest},
		{"a wrong token", bridge.Outbound{ByBridge: true, Code: canonical.ErrUnauthorized}, http.StatusUnauthorized},
		{"no such receiver", bridge.Outbound{ByBridge: true, Code: canonical.ErrNotFound}, http.StatusNotFound},
		{"cannot be expressed", bridge.Outbound{ByBridge: true, Code: canonical.ErrRejected}, http.StatusUnprocessableEntity},
		{"too large", bridge.Outbound{ByBridge: true, Code: canonical.ErrTooLarge}, http.StatusRequestEntityTooLarge},
		{"rate limited", bridge.Outbound{ByBridge: true, Code: canonical.ErrRateLimited}, http.StatusTooManyRequests},
		{"unavailable", bridge.Outbound{ByBridge: true, Code: canonical.ErrUnavailable}, http.StatusServiceUnavailable},
		{"no answer in time", bridge.Outbound{ByBridge: true, Code: canonical.ErrTimeout}, http.StatusGatewayTimeout},
		{"anything else", bridge.Outbound{ByBridge: true, Code: canonical.ErrInternal}, http.StatusInternalServerError},
	}
	for _, tc := range cases {
		if got := statusOf(tc.out); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}
