package config

// The markers around the key reference in docs/config.md.
const (
	referenceBegin = "<!-- BEGIN key reference: generated from config/spec.go; `go test ./config -run TestReference -update` rewrites it -->"
	referenceEnd   = "<!-- END key reference -->"
)

// reference returns the key reference of the serve config in Markdown: a
// table of each object's keys, with their types, defaults and what they
// say, generated from the spec.
func reference() []byte { return serve().Reference() }
