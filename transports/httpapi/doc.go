// Package httpapi is the HTTP transport: agents POST messages to
// /v1/{dialect}/messages and get the answer in the response, or at their
// declared webhook, to which the bridge also POSTs the messages addressed
// to them. W3C traceparent headers carry trace context both ways.
package httpapi
