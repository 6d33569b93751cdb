package conformance

import (
	"sort"
	"strings"
	"testing"
	"time"
)

// TestFaults runs each dialect's suite against agents that break one rule
// each (faults): each fails the requirement it breaks (a warning for a
// SHOULD), and no other MUST. A suite that passes everything proves
// nothing.
func TestFaults(t *testing.T) {
	names := make([]string, 0, len(faults))
	for n := range faults {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		f := faults[name]
		t.Run(f.dialect+"/"+name, func(t *testing.T) {
			t.Parallel()
			timeout := time.Second
			if f.delay != nil {
				timeout = 3 * time.Second // longer than the delay: only the ttl is missed
			}
			rep := runTest(t, testAgent(f.dialect+":"+name), testOptions(f.dialect, timeout))
			results := byID(rep)
			broken, ok := results[f.breaks]
			if !ok {
				t.Fatalf("no result for %s", f.breaks)
			}
			if want := failed(broken.Level); broken.Status != want {
				t.Errorf("%s: %s, want %s", f.breaks, describe(broken), want)
			}
			if !strings.Contains(describe(broken), f.shows) {
				t.Errorf("the report of %s does not say %q: %s", f.breaks, f.shows, describe(broken))
			}
			for _, res := range rep.Results {
				if res.ID != f.breaks && res.Status == Fail {
					t.Errorf("another MUST failed: %s", describe(res))
				}
			}
			if v := rep.Verdict(); (v.Code == 1) != (broken.Level == Must) {
				t.Errorf("verdict %+v for a broken %s", v, broken.Level)
			}
		})
	}
}
