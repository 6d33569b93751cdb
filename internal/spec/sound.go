package spec

import (
	"errors"
	"fmt"
	"slices"
)

// Sound checks what a spec's own parts must agree on: every key
// documented, once per object; the keys that rules name exist; every
// default decodes against its node. It returns every disagreement, for the
// formats' tests.
func (s *Spec) Sound() error {
	var errs []error
	fail := func(path, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...)))
	}
	d := s.NewDecoder("sound.yaml")
	var walk func(f *Node, path string)
	walk = func(f *Node, path string) {
		if f.key != "" && f.doc == "" {
			fail(path, "no doc")
		}
		if f.def != "" {
			func() {
				defer func() {
					if r := recover(); r != nil {
						fail(path, "%v", r)
					}
				}()
				d.Default(f, path)
			}()
		}
		switch f.kind {
		case KindObject:
			var keys []string
			for _, c := range f.keys {
				if slices.Contains(keys, c.key) {
					fail(path, "%s twice", c.key)
				}
				keys = append(keys, c.key)
				for _, w := range c.with {
					if f.Child(w) == nil {
						fail(Join(path, c.key), "with %s, not a key of %s", w, path)
					}
				}
				walk(c, Join(path, c.key))
			}
			if f.choice != nil {
				for _, k := range f.choice.keys {
					if f.Child(k) == nil {
						fail(path, "the choice names %s, not a key", k)
					}
				}
			}
		case KindList, KindMap:
			if f.uniqueBy != "" {
				if o, _ := f.items.object(); o == nil || o.Child(f.uniqueBy) == nil {
					fail(path, "unique by %s, not a key of its items", f.uniqueBy)
				}
			}
			walk(f.items, path+"[]")
		case KindOneOf:
			for _, a := range f.forms {
				walk(a, path)
			}
		case KindEnum:
			if f.def != "" && !slices.Contains(f.options, f.def) {
				fail(path, "default %q is not an option", f.def)
			}
		}
	}
	walk(s.Root, "")
	return errors.Join(errs...)
}
