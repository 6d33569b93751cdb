package config

import (
	"fmt"

	"github.com/mcp-bridge/mcp-bridge/internal/spec"
)

// Effective returns the config the bridge would run on, as YAML: the file
// at path checked whole as LoadAll does (path "" for the embedded
// default), every key in the spec's order with its default filled in and
// marked "# default". ${VAR} is shown replaced, but for tokens, env and
// headers, which are shown as written; relative paths are shown absolute.
func Effective(path string, extra []string) ([]byte, error) {
	var root *spec.Value
	if path == "" {
		var errs Errors
		if root, errs = checkAll(defaultName, defaultFile, extra); len(errs) > 0 {
			return nil, errs
		}
	} else {
		var err error
		if _, root, err = loadAll(path, extra); err != nil {
			return nil, err
		}
	}
	out, err := root.YAML()
	if err != nil {
		return nil, fmt.Errorf("show the config: %w", err)
	}
	return out, nil
}
