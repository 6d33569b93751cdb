package config

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// value is a decoded config value, checked against its field: the tree
// the decoder builds, with defaults filled in, from which the Config is
// bound (bind.go) and the effective config shown (show.go).
type value struct {
	f       *field
	path    string // the key path, as errors name it: agents[0].url
	line    int    // the line of the value; 0 for a default
	keyLine int    // the line of the key naming it; 0 for list items and defaults
	given   bool   // written in the file, not a default
	text    string // scalars: the text as written, before ${VAR} is replaced

	s     string        // kindString and kindEnum (paths joined to the config file's directory)
	n     int           // kindInt and kindSize
	x     float64       // kindFloat
	d     time.Duration // kindDuration
	b     bool          // kindBool
	raw   json.RawMessage
	key   string   // a map entry's key
	items []*value // list items, map entries, or an object's keys (given or defaulted), in order
	// written are an object's keys in the file, their values decoded or
	// not.
	written []string
}

// get returns the object's value of key, nil when it is neither given nor
// defaulted. It panics when key is not a key of the object's field: a
// mistake in the program, not in the file.
func (v *value) get(key string) *value {
	if v == nil {
		return nil
	}
	if v.f.kind != kindObject || v.f.child(key) == nil {
		panic(fmt.Sprintf("config: %s has no key %q in the spec", v.f.key, key))
	}
	for _, c := range v.items {
		if c.f.key == key {
			return c
		}
	}
	return nil
}

// has reports whether the object has a value of key.
func (v *value) has(key string) bool { return v.get(key) != nil }

// wrote reports whether the object's key is in the file, even with a
// value that did not decode.
func (v *value) wrote(key string) bool { return v != nil && slices.Contains(v.written, key) }

// str returns the string or enum of key, "" when absent.
func (v *value) str(key string) string {
	if c := v.get(key); c != nil {
		return c.s
	}
	return ""
}

// int returns the whole number or size of key, 0 when absent.
func (v *value) int(key string) int {
	if c := v.get(key); c != nil {
		return c.n
	}
	return 0
}

// dur returns the duration of key, 0 when absent.
func (v *value) dur(key string) time.Duration {
	if c := v.get(key); c != nil {
		return c.d
	}
	return 0
}

// bool returns the boolean of key, false when absent.
func (v *value) bool(key string) bool {
	if c := v.get(key); c != nil {
		return c.b
	}
	return false
}

// strs returns the list of strings of key, nil when absent.
func (v *value) strs(key string) []string {
	c := v.get(key)
	if c == nil {
		return nil
	}
	out := make([]string, len(c.items))
	for i, it := range c.items {
		out[i] = it.s
	}
	return out
}

// strMap returns the map of strings of key, nil when absent.
func (v *value) strMap(key string) map[string]string {
	c := v.get(key)
	if c == nil {
		return nil
	}
	out := make(map[string]string, len(c.items))
	for _, it := range c.items {
		out[it.key] = it.s
	}
	return out
}

// list returns the items of the list of key, nil when absent.
func (v *value) list(key string) []*value {
	if c := v.get(key); c != nil {
		return c.items
	}
	return nil
}
