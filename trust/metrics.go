package trust

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics count the credentials checked: bridge_auth_total{method,
// result}, result "ok" or the reason a credential was refused.
type Metrics struct {
	checks *prometheus.CounterVec
}

// NewMetrics returns the metrics, registered with r (nil registers none).
func NewMetrics(r prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{checks: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bridge_auth_total",
		Help: "Credentials checked, by method (jwt, tls, token) and result (ok, or why it was refused: expired, not_yet_valid, audience, issuer, signature, algorithm, malformed, subject, missing, mismatch).",
	}, []string{"method", "result"})}
	if r != nil {
		if err := r.Register(m.checks); err != nil {
			return nil, errors.Join(errors.New("trust: register metrics"), err)
		}
	}
	return m, nil
}

// Checked counts one credential of method: ok, or refused for reason.
func (m *Metrics) Checked(method string, reason Reason) {
	if m == nil {
		return
	}
	result := string(reason)
	if reason == "" {
		result = "ok"
	}
	m.checks.WithLabelValues(method, result).Inc()
}
