package spec

import (
	"encoding/json"
	"fmt"

	"gopkg.in/yaml.v3"
)

// YAMLAsJSON returns the YAML document data as JSON, the value an editor checks
// against a format's JSON Schema (Spec.Schema).
func YAMLAsJSON(data []byte) ([]byte, error) {
	var x any
	if err := yaml.Unmarshal(data, &x); err != nil {
		return nil, fmt.Errorf("spec: read YAML: %w", err)
	}
	b, err := json.Marshal(x)
	if err != nil {
		return nil, fmt.Errorf("spec: YAML as JSON: %w", err)
	}
	return b, nil
}
