package dialects

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/mcp-bridge/mcp-bridge/mappings"
)

// Record is one dialect as the project knows it: its name, its codec, its
// default words, and what the tools around the codecs need of it. A dialect
// package registers its record in its init function; everything that lists
// or serves dialects (the bridge's registry, the default mappings,
// `mcp-bridge dialects`, the reference agent, the load generator, the
// conformance suite) reads the records. A new dialect is therefore one
// package and one import line (dialects/builtin imports the built-in ones).
//
// The reference agent needs nothing beyond the codec: how the dialect
// introduces an agent, which ids a request carries and whether operations
// have two levels, it reads from the codec's Holds.
type Record struct {
	// Name is the dialect's name: its endpoints (/ws/NAME,
	// /v1/NAME/messages) and how configs and mapping files name it.
	// Lower-case letters and digits, with '-' or '_' inside.
	Name string
	// Summary says in a line what the dialect is.
	Summary string
	// Spec names the dialect's specification ("specs/swarm.md").
	Spec string
	// New returns the dialect's codec with the words of v, the dialect's
	// tables of a mapping set. The codec's Name is the record's.
	New func(v *mappings.Vocabulary) Codec
	// Mapping is the dialect's default mapping file (YAML, the format of
	// package mappings): "dialect: NAME" and its vocabulary tables. Mapping
	// files a user gives are layered over the defaults of every dialect.
	Mapping []byte
	// Requirements is the dialect's conformance requirement file (YAML, the
	// format of package conformance); nil when it has none.
	Requirements []byte
	// Load is where the load generator finds what it reads in the
	// dialect's messages.
	Load LoadPaths
}

// LoadPaths are where a dialect's requests and answers keep what the load
// generator reads without decoding them, as gjson paths. A responder
// recognises a request by its type and answers its sender; a requester
// matches an answer to its request by the id the answer names.
type LoadPaths struct {
	// Type is the member naming a message's type; Request is its value on
	// a request.
	Type, Request string
	// Sender is the request's sender.
	Sender string
	// ID is the request's own id, which its answer names: its message id,
	// or its task id in a dialect whose requests carry no message id.
	ID string
	// Arguments are the request's arguments.
	Arguments string
	// Correlation are where an answer names the request it answers, the
	// first present winning.
	Correlation []string
}

// records are the registered dialects, by name.
var (
	recordsMu sync.RWMutex
	records   = map[string]Record{}
)

// recordName is what a dialect's name may be: it is a URL path segment and
// a YAML key.
var recordName = regexp.MustCompile(`^[a-z0-9]+([_-][a-z0-9]+)*$`)

// Register adds a dialect's record. It is called from the init function of
// the dialect's package, and panics on a record that is incomplete, whose
// default mapping does not load or speaks of another dialect, or whose name
// is registered already.
func Register(r Record) {
	if err := r.check(); err != nil {
		panic(fmt.Sprintf("dialects: Register %q: %v", r.Name, err))
	}
	recordsMu.Lock()
	defer recordsMu.Unlock()
	if _, dup := records[r.Name]; dup {
		panic(fmt.Sprintf("dialects: Register %q: registered twice", r.Name))
	}
	records[r.Name] = r
}

// check reports the first thing wrong with r.
func (r Record) check() error {
	switch {
	case !recordName.MatchString(r.Name):
		return fmt.Errorf("the name must be lower-case letters and digits, with - or _ inside")
	case r.New == nil:
		return fmt.Errorf("no New")
	case r.Summary == "":
		return fmt.Errorf("no Summary")
	case r.Load.Type == "" || r.Load.Request == "" || r.Load.Sender == "" || r.Load.ID == "" ||
		r.Load.Arguments == "" || len(r.Load.Correlation) == 0:
		return fmt.Errorf("incomplete Load: every path is needed")
	}
	s := &mappings.Set{}
	if err := s.Add(r.mappingFile(), r.Mapping); err != nil {
		return err
	}
	if got := s.Dialects(); len(got) != 1 || got[0] != r.Name {
		return fmt.Errorf("the default mapping gives the words of %v, want those of %s alone", got, r.Name)
	}
	return nil
}

// mappingFile is how errors name a record's default mapping: the file it
// is embedded from, by convention.
func (r Record) mappingFile() string { return "dialects/" + r.Name + "/mapping.yaml" }

// Records returns the registered dialects, sorted by name.
func Records() []Record {
	recordsMu.RLock()
	defer recordsMu.RUnlock()
	out := make([]Record, 0, len(records))
	for _, r := range records {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Record) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// RecordOf returns the record of a registered dialect.
func RecordOf(name string) (Record, bool) {
	recordsMu.RLock()
	defer recordsMu.RUnlock()
	r, ok := records[name]
	return r, ok
}

// Names returns the registered dialects' names, sorted.
func Names() []string {
	rs := Records()
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Name
	}
	return out
}

// DefaultMappings returns a mapping set of every registered dialect's
// default mapping: the set that mapping files are layered over.
func DefaultMappings() *mappings.Set {
	s := &mappings.Set{}
	for _, r := range Records() {
		// Register loaded each file alone, and each speaks of its own
		// dialect only: layered, they cannot conflict.
		if err := s.Add(r.mappingFile(), r.Mapping); err != nil {
			panic(fmt.Sprintf("dialects: the default mapping of %s: %v", r.Name, err))
		}
	}
	return s
}

// NewCodecs returns a registry of the codecs of every registered dialect,
// with the words of m.
func NewCodecs(m *mappings.Set) (*Registry, error) {
	reg := NewRegistry()
	for _, r := range Records() {
		c := r.New(m.Vocabulary(r.Name))
		if c.Name() != r.Name {
			return nil, fmt.Errorf("dialects: the codec of %s is named %q", r.Name, c.Name())
		}
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return reg, nil
}
