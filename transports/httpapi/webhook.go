package httpapi

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/mcp-bridge/mcp-bridge/bridge"
)

// Webhook delivers the bridge's messages for one agent by POSTing each to
// the agent's URL. Attach it to the bridge bound to the agent.
type Webhook struct {
	URL string
	// Token, when set, is sent as "Authorization: Bearer".
	Token string
	// Client defaults to http.DefaultClient; the bridge's write timeout
	// bounds each POST through its context.
	Client *http.Client
}

// Send POSTs one message; any status but 2xx is an error.
func (h *Webhook) Send(ctx context.Context, out bridge.Outbound) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, bytes.NewReader(out.Frame))
	if err != nil {
		return fmt.Errorf("webhook %s: %w", h.URL, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if tp := Traceparent(out.Trace); tp != "" {
		req.Header.Set("traceparent", tp)
	}
	if h.Token != "" {
		req.Header.Set("Authorization", "Bearer "+h.Token)
	}
	c := h.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("webhook %s: %w", h.URL, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("webhook %s: %s", h.URL, resp.Status)
	}
	return nil
}

// Transport names the transport.
func (h *Webhook) Transport() string { return "http" }
