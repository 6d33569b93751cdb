package config

import "github.com/mcp-bridge/mcp-bridge/internal/located"

// Error is a problem in a config file, located by file, line and column
// (its text says file:line).
type Error = located.Error

// Errors are all the problems found in a config file, in line order.
type Errors = located.Errors
