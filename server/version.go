package server

import "runtime/debug"

// Version returns the module version of the running binary, "(devel)" when
// it was built from a checkout without one.
func Version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
