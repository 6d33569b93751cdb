package config

import "time"

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

// errorCodes are the canonical error codes retryable_errors may name.
var errorCodes = []string{"invalid-message", "invalid-arguments", "not-found", "unauthorized", "rejected",
	"timeout", "unavailable", "execution-failed", "internal", "too-large", "rate-limited"}
