package dialects

import (
	"errors"
	"fmt"
	"sort"

	"github.com/tidwall/gjson"
)

// Registry holds the codecs a bridge knows, by name.
type Registry struct {
	codecs map[string]Codec
	order  []string
	// list holds the codecs in registration order too: a handful of
	// names scanned beat a map's hashing (Lookup is on every message).
	list []Codec
}

// maxList is the most codecs Lookup finds by scanning list.
const maxList = 16

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{codecs: map[string]Codec{}} }

// Register adds a codec; a second codec of the same name is an error.
func (r *Registry) Register(c Codec) error {
	name := c.Name()
	if _, dup := r.codecs[name]; dup {
		return fmt.Errorf("dialects: %s registered twice", name)
	}
	r.codecs[name] = c
	r.order = append(r.order, name)
	r.list = append(r.list, c)
	return nil
}

// Lookup returns the codec of a dialect.
func (r *Registry) Lookup(name string) (Codec, bool) {
	if len(r.list) <= maxList {
		for i, n := range r.order {
			if len(n) == len(name) && n == name {
				return r.list[i], true
			}
		}
		return nil, false
	}
	c, ok := r.codecs[name]
	return c, ok
}

// Names returns the registered dialect names, sorted.
func (r *Registry) Names() []string {
	out := append([]string(nil), r.order...)
	sort.Strings(out)
	return out
}

// Codecs returns the registered codecs in registration order.
func (r *Registry) Codecs() []Codec {
	out := make([]Codec, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.codecs[n])
	}
	return out
}

// Preparer is implemented by codecs that can do before the first message
// what their Validate needs (compile a schema): a server that validates
// has it done as it starts, so that the first messages, all at once, do
// not wait on it (about 30 ms for the built-in dialects).
type Preparer interface {
	Prepare() error
}

// Prepare prepares every codec that is a Preparer, and returns what went
// wrong, joined.
func (r *Registry) Prepare() error {
	var errs []error
	for _, c := range r.Codecs() {
		if p, ok := c.(Preparer); ok {
			errs = append(errs, p.Prepare())
		}
	}
	return errors.Join(errs...)
}

// Detect returns the codec most sure that msg is of its dialect. It fails
// when msg is not JSON or no codec recognises it.
func (r *Registry) Detect(msg []byte) (Codec, error) {
	// Text that is not UTF-8 is left to the detected dialect's decoder,
	// which names itself in the error.
	if err := checkSyntax("auto", msg); err != nil {
		return nil, err
	}
	if !gjson.ParseBytes(msg).IsObject() {
		return nil, &Error{Dialect: "auto", Problem: "a message must be a JSON object"}
	}
	var best Codec
	bestScore := 0
	for _, n := range r.order {
		c := r.codecs[n]
		if s := c.Detect(msg); s > bestScore {
			best, bestScore = c, s
		}
	}
	if best == nil {
		return nil, &Error{Dialect: "auto", Problem: fmt.Sprintf("no dialect recognises this message (tried %v)", r.Names())}
	}
	return best, nil
}
