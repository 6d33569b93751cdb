package limits

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// maxBuckets bounds the buckets kept: past it they are all dropped, and
// every agent starts again with a full one.
const maxBuckets = 1 << 17

// Rates gives each agent a token bucket: rate messages a second, burst at
// once. It is safe for concurrent use.
type Rates struct {
	limit rate.Limit
	burst int

	mu      sync.Mutex
	buckets map[string]*rate.Limiter
}

// NewRates returns the buckets of perSecond messages a second and burst at
// once; nil when perSecond is 0 (no limit).
func NewRates(perSecond float64, burst int) *Rates {
	if perSecond <= 0 {
		return nil
	}
	return &Rates{limit: rate.Limit(perSecond), burst: max(burst, 1), buckets: map[string]*rate.Limiter{}}
}

// Allow takes one message from agent's bucket at now. When the bucket is
// empty it returns false and how long until it holds one.
func (r *Rates) Allow(agent string, now time.Time) (bool, time.Duration) {
	r.mu.Lock()
	l := r.buckets[agent]
	if l == nil {
		if len(r.buckets) >= maxBuckets {
			clear(r.buckets)
		}
		l = rate.NewLimiter(r.limit, r.burst)
		r.buckets[agent] = l
	}
	r.mu.Unlock()
	if l.AllowN(now, 1) {
		return true, 0
	}
	missing := 1 - l.TokensAt(now)
	wait := time.Duration(math.Ceil(missing / float64(r.limit) * float64(time.Second)))
	return false, max(wait, time.Millisecond)
}

// PerSecond returns the rate, in messages a second.
func (r *Rates) PerSecond() float64 { return float64(r.limit) }
