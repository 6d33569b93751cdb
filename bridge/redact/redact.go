// Package redact removes secrets from messages before they are logged or
// shown: credentials by member name, and the inputs agents asked for as
// sensitive.
package redact

import (
	"strings"
	"sync"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/internal/jsonw"
	"github.com/tidwall/gjson"
)

// redacted replaces a sensitive value in logs.
const redacted = "[REDACTED]"

// secretKeys are member names whose values never reach a log: credentials
// (fuse's authentication member, whole) and the like.
var secretKeys = map[string]bool{
	"token": true, "access_token": true, "refresh_token": true, "password": true, "secret": true,
	"api_key": true, "apikey": true, "authorization": true, "credentials": true, "private_key": true,
	"authentication": true, "jwt": true, "bearer": true, "id_token": true, "client_secret": true,
}

// Redactor removes sensitive values from messages before they are logged:
// the secretKeys, and the inputs agents asked for as sensitive (bluelabel
// needs_input requested_inputs with "sensitive": true), by their id.
type Redactor struct {
	mu        sync.RWMutex
	sensitive map[string]bool
}

// Learn records the sensitive inputs a needs-input message asks for.
func (r *Redactor) Learn(env *canonical.Envelope) {
	if env.Inputs == "" {
		return
	}
	gjson.Parse(string(env.Inputs)).ForEach(func(_, in gjson.Result) bool {
		if in.Get("sensitive").Bool() {
			if id := in.Get("id").String(); id != "" {
				r.mu.Lock()
				if r.sensitive == nil {
					r.sensitive = map[string]bool{}
				}
				r.sensitive[id] = true
				r.mu.Unlock()
			}
		}
		return true
	})
}

// Secret reports whether a member named key is never shown.
func (r *Redactor) Secret(key string) bool {
	if secretKeys[strings.ToLower(key)] {
		return true
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.sensitive[key]
}

// Redact returns msg with the value of every sensitive member, at any
// depth, replaced by "[REDACTED]".
func (r *Redactor) Redact(msg []byte) []byte {
	v := gjson.ParseBytes(msg)
	if !v.IsObject() && !v.IsArray() {
		return msg
	}
	return r.value(make([]byte, 0, len(msg)), v)
}

// Frame is Redact for a frame shown whole: one that is not JSON
// (a malformed frame, refused) is shown as it is, unless it names a
// sensitive member, when it is not shown at all.
func (r *Redactor) Frame(msg []byte) []byte {
	if gjson.ValidBytes(msg) {
		return r.Redact(msg)
	}
	lower := strings.ToLower(string(msg))
	for k := range secretKeys {
		if strings.Contains(lower, k) {
			return []byte(redacted + " (not JSON, and it may hold a secret)")
		}
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	for k := range r.sensitive {
		if strings.Contains(string(msg), k) {
			return []byte(redacted + " (not JSON, and it may hold a secret)")
		}
	}
	return msg
}

func (r *Redactor) value(dst []byte, v gjson.Result) []byte {
	switch {
	case v.IsObject():
		dst = append(dst, '{')
		first := true
		v.ForEach(func(k, m gjson.Result) bool {
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = append(dst, k.Raw...)
			dst = append(dst, ':')
			if r.Secret(k.String()) && m.Type != gjson.Null {
				dst = jsonw.AppendString(dst, redacted)
			} else {
				dst = r.value(dst, m)
			}
			return true
		})
		return append(dst, '}')
	case v.IsArray():
		dst = append(dst, '[')
		first := true
		v.ForEach(func(_, m gjson.Result) bool {
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = r.value(dst, m)
			return true
		})
		return append(dst, ']')
	}
	return append(dst, v.Raw...)
}

// Credentials returns msg with the value of every credential member
// (token, authentication, password...), at any depth, replaced by
// "[REDACTED]", for logs outside the bridge (the reference agent's frame
// log).
func Credentials(msg []byte) []byte {
	var r Redactor
	return r.Redact(msg)
}
