package delivery

import (
	"fmt"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// Levels is the number of canonical priority levels (BATCH 0 .. CRITICAL 4);
// a queue keeps one line per level.
const Levels = 5

// NormalLevel is the level of a message that sets no priority.
const NormalLevel = 2

// CriticalLevel messages bypass a queue's own bound and go first.
const CriticalLevel = 4

// LevelOf returns the queue level of a priority; unset is NORMAL.
func LevelOf(p canonical.Priority) int {
	if p == 0 {
		return NormalLevel
	}
	return p.Level()
}

// LevelName names a queue level as the canonical priority scale does.
func LevelName(level int) string {
	if p, ok := canonical.PriorityFromLevel(level); ok {
		return p.String()
	}
	return fmt.Sprint(level)
}
