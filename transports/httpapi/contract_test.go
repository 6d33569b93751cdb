package httpapi

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/transports/linktest"
)

// TestLinkContract runs the link contract on a webhook, POSTing to a real
// HTTP server on loopback that checks the token and keeps each body.
func TestLinkContract(t *testing.T) {
	linktest.Run(t, func(t *testing.T) *linktest.Conn {
		bodies := make(chan []byte, 64)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer s3cret" || r.Header.Get("Content-Type") != "application/json" {
				http.Error(w, "who are you", http.StatusUnauthorized)
				return
			}
			body, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			bodies <- body
			w.WriteHeader(http.StatusNoContent)
		}))
		t.Cleanup(srv.Close)
		return &linktest.Conn{
			Link: &Webhook{URL: srv.URL + "/inbox", Token: "s3cret", Client: srv.Client()},
			Out:  func(p []byte) bridge.Outbound { return bridge.Outbound{Frame: p} },
			Next: func(ctx context.Context) ([]byte, error) {
				select {
				case b := <-bodies:
					return b, nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			},
			Kill: srv.Close,
		}
	})
}
