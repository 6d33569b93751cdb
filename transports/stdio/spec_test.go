package stdio

import (
	"testing"
	"time"
)

func TestSpecDefaults(t *testing.T) {
	s := Spec{BackoffMin: time.Minute}.withDefaults()
	if s.BackoffMin != time.Minute || s.BackoffMax != time.Minute || s.StopGrace != DefaultStopGrace || s.Logger == nil {
		t.Errorf("defaults: %+v", s)
	}
	s = Spec{}.withDefaults()
	if s.BackoffMin != DefaultBackoffMin || s.BackoffMax != DefaultBackoffMax {
		t.Errorf("defaults: %+v", s)
	}
}
