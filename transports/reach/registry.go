package reach

import (
	"cmp"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sync"
)

// ways are the registered ways; sealed once they have been read, after
// which a registration is a mistake (it comes after the config's spec was
// built from them).
var (
	mu     sync.Mutex
	ways   []*Way
	sealed bool
)

// wayName is what a way's name may be: an agent key.
var wayName = regexp.MustCompile(`^[a-z0-9]+(_[a-z0-9]+)*$`)

// Register adds a way. It is called from the init function of the
// transport's package, and panics on a way that is incomplete, whose Key
// is not its Name, whose name or keys are registered already, or that
// comes after the ways were read.
func Register(w *Way) {
	if err := w.check(); err != nil {
		panic(fmt.Sprintf("reach: Register %q: %v", w.Name, err))
	}
	mu.Lock()
	defer mu.Unlock()
	for _, o := range ways {
		for _, k := range w.keys() {
			if slices.Contains(o.keys(), k) {
				panic(fmt.Sprintf("reach: Register %q: the key %s is %s's already", w.Name, k, o.Name))
			}
		}
	}
	if sealed {
		panic(fmt.Sprintf("reach: Register %q: the ways were read already; register from an init function", w.Name))
	}
	ways = append(ways, w)
}

// check reports the first thing wrong with w.
func (w *Way) check() error {
	switch {
	case !wayName.MatchString(w.Name):
		return fmt.Errorf("the name must be lower-case letters and digits, with _ inside")
	case w.Kind == "":
		return fmt.Errorf("no Kind")
	case w.Key == nil || w.Key.Key() != w.Name:
		return fmt.Errorf("the Key must be the spec of the key %s", w.Name)
	case w.Bind == nil || w.Start == nil || w.Same == nil:
		return fmt.Errorf("no Bind, Start or Same")
	case w.Dialect != "" && (w.Speaker == "" || w.Protocol == ""):
		return fmt.Errorf("a way with a Dialect needs its Speaker and Protocol")
	case w.Again != nil && w.Again.Doc == "":
		return fmt.Errorf("Again needs its Doc")
	}
	for _, k := range w.With {
		if k.Key() == "" {
			return fmt.Errorf("a key With it has no name")
		}
	}
	return nil
}

// keys are the agent keys the way owns.
func (w *Way) keys() []string {
	out := []string{w.Name}
	for _, k := range w.With {
		out = append(out, k.Key())
	}
	return out
}

// Ways returns the registered ways, by Rank (then name).
func Ways() []*Way {
	mu.Lock()
	defer mu.Unlock()
	sealed = true
	out := slices.Clone(ways)
	slices.SortStableFunc(out, func(a, b *Way) int {
		if a.Rank != b.Rank {
			return a.Rank - b.Rank
		}
		return cmp.Compare(a.Name, b.Name)
	})
	return out
}

// Lookup returns the way registered as name.
func Lookup(name string) (*Way, bool) {
	for _, w := range Ways() {
		if w.Name == name {
			return w, true
		}
	}
	return nil, false
}

// equal reports whether two settings are the same.
func equal(a, b any) bool { return reflect.DeepEqual(a, b) }
