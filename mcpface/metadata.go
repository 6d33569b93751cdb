package mcpface

import (
	"encoding/json"
	"net/http"
)

// metadata is the protected resource metadata document (RFC 9728, 2).
type metadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers"`
	ScopesSupported        []string `json:"scopes_supported,omitempty"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ResourceName           string   `json:"resource_name,omitempty"`
}

// MetadataHandler serves the face's protected resource metadata (RFC 9728)
// while it is an OAuth resource server, and 404 otherwise; mount it at
// MetadataPath and MetadataPath + Path. Anyone may read it, from any
// origin: it holds nothing secret, and browser clients need it.
func (f *Face) MetadataHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		a := f.auth.Load()
		if a.OAuth == nil {
			writeError(w, http.StatusNotFound, "not_found", "this MCP endpoint is not an OAuth protected resource (mcp.oauth is not set)")
			return
		}
		o := a.OAuth
		doc := metadata{Resource: a.resource(r), AuthorizationServers: o.AuthorizationServers, ScopesSupported: o.ScopesSupported,
			BearerMethodsSupported: []string{"header"}, ResourceName: o.ResourceName}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "max-age=300")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(doc)
	})
}
