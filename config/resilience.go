package config

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Retry is the retry policy for requests whose delivery or answer failed
// retryably (specs/collab.md section 5.2).
type Retry struct {
	MaxRetries             int
	InitialDelay, MaxDelay time.Duration
	BackoffFactor          float64
	RetryableErrors        []string // canonical error codes
}

// CircuitBreaker is each agent's circuit breaker (specs/collab.md 5.3).
type CircuitBreaker struct {
	FailureThreshold int
	ResetTimeout     time.Duration
	HalfOpenRequests int
}

// The defaults of retry and circuit_breaker: collab's.
var (
	DefaultRetry = Retry{MaxRetries: 3, InitialDelay: time.Second, MaxDelay: 10 * time.Second, BackoffFactor: 2,
		RetryableErrors: []string{"timeout", "unavailable"}}
	DefaultCircuitBreaker = CircuitBreaker{FailureThreshold: 5, ResetTimeout: time.Minute, HalfOpenRequests: 3}
)

// errorCodes are the canonical error codes retryable_errors may name.
var errorCodes = []string{"invalid-message", "invalid-arguments", "not-found", "unauthorized", "rejected",
	"timeout", "unavailable", "execution-failed", "internal", "too-large", "rate-limited"}

func (d *decoder) retry(n *yaml.Node, c *Config) {
	const keys = "max_retries, initial_delay, max_delay, backoff_factor, retryable_errors"
	if !d.mapping(n, "retry", keys) {
		return
	}
	d.pairs("retry.", n, func(k, v *yaml.Node) {
		at := "retry." + k.Value
		switch k.Value {
		case "max_retries":
			d.count(v, at, &c.Retry.MaxRetries, 0)
		case "initial_delay":
			d.duration(v, at, &c.Retry.InitialDelay)
		case "max_delay":
			d.duration(v, at, &c.Retry.MaxDelay)
		case "backoff_factor":
			if s, ok := d.scalar(v, at, "a number, at least 1"); ok {
				f, err := strconv.ParseFloat(s, 64)
				if err != nil || f < 1 {
					d.fail(v.Line, at, "%q is not a number of at least 1", s)
					return
				}
				c.Retry.BackoffFactor = f
			}
		case "retryable_errors":
			codes := d.words(v, at, "canonical error code")
			for _, code := range codes {
				if !slices.Contains(errorCodes, code) {
					d.fail(v.Line, at, "%q is not a canonical error code (%s)", code, strings.Join(errorCodes, ", "))
					return
				}
			}
			c.Retry.RetryableErrors = codes
		default:
			d.fail(k.Line, at, "unknown key (want %s)", keys)
		}
	})
}

func (d *decoder) circuitBreaker(n *yaml.Node, c *Config) {
	const keys = "failure_threshold, reset_timeout, half_open_requests"
	if !d.mapping(n, "circuit_breaker", keys) {
		return
	}
	d.pairs("circuit_breaker.", n, func(k, v *yaml.Node) {
		at := "circuit_breaker." + k.Value
		switch k.Value {
		case "failure_threshold":
			d.count(v, at, &c.CircuitBreaker.FailureThreshold, 0)
		case "reset_timeout":
			d.duration(v, at, &c.CircuitBreaker.ResetTimeout)
		case "half_open_requests":
			d.count(v, at, &c.CircuitBreaker.HalfOpenRequests, 1)
		default:
			d.fail(k.Line, at, "unknown key (want %s)", keys)
		}
	})
}

// count reads a whole number of at least least into dst.
func (d *decoder) count(v *yaml.Node, at string, dst *int, least int) {
	s, ok := d.scalar(v, at, "a whole number")
	if !ok {
		return
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < least {
		d.fail(v.Line, at, "%q is not a whole number of at least %d", s, least)
		return
	}
	*dst = n
}
