package mcpface

import (
	"net/url"
	"strings"
)

// MetadataPath is where the protected resource metadata (RFC 9728) of a
// resource at a host's root is served; the face's, whose identifier has
// the path Path, is also served at MetadataPath + Path, where RFC 9728
// puts it. Clients try both.
const MetadataPath = "/.well-known/oauth-protected-resource"

// MetadataURL is the URL of the protected resource metadata of the
// resource identified by resource: its path after MetadataPath, on its
// host (RFC 9728, 3.1).
func MetadataURL(resource string) string {
	u, err := url.Parse(resource)
	if err != nil || u.Host == "" {
		return resource
	}
	u.Path = MetadataPath + strings.TrimSuffix(u.Path, "/")
	u.RawPath, u.RawQuery, u.Fragment = "", "", ""
	return u.String()
}
