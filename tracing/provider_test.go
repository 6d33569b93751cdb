package tracing

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/config"
)

// TestProviderOff: no exporter, or "none", makes no provider; an exporter
// config.Tracing does not know is refused.
func TestProviderOff(t *testing.T) {
	for _, tc := range []struct {
		exporter string
		err      string
	}{
		{"", ""},
		{"none", ""},
		{"console", `unknown exporter "console"`},
		{"jaeger", `unknown exporter "jaeger"`},
	} {
		tp, err := Provider(t.Context(), config.Tracing{Exporter: tc.exporter, SampleRatio: 1}, "v1", io.Discard)
		if tp != nil {
			t.Errorf("%q made a provider", tc.exporter)
			_ = tp.Shutdown(t.Context())
		}
		if (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%q: %v, want %q", tc.exporter, err, tc.err)
		}
	}
}

// TestProviderStdout: the stdout exporter writes each span as JSON, with
// the resource: service.name mcp-bridge and the version, unless
// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES say otherwise; the sample
// ratio bounds the traces the bridge starts, not those it continues.
func TestProviderStdout(t *testing.T) {
	for _, tc := range []struct {
		name        string
		env         map[string]string
		ratio       float64
		want, not   []string
		spansOfRoot bool
	}{
		{"defaults", nil, 1,
			[]string{`"Key":"service.name","Value":{"Type":"STRING","Value":"mcp-bridge"}`, `"Value":"v1.2.3"`}, nil, true},
		{"from the environment", map[string]string{"OTEL_SERVICE_NAME": "edge-bridge", "OTEL_RESOURCE_ATTRIBUTES": "deployment.environment=test"}, 1,
			[]string{`"Value":"edge-bridge"`, `"deployment.environment"`}, []string{`"Value":"mcp-bridge"}`}, true},
		{"ratio 0", nil, 0, nil, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("OTEL_SERVICE_NAME", "")
			t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "")
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			var out bytes.Buffer
			tp, err := Provider(t.Context(), config.Tracing{Exporter: "stdout", SampleRatio: tc.ratio}, "v1.2.3", &out)
			if err != nil || tp == nil {
				t.Fatalf("%v, %v", tp, err)
			}
			tr := New(tp)
			_, end := tr.Received(&canonical.Envelope{ID: "root", Act: canonical.ActEvent}, "swarm", "websocket", time.Now())
			end(nil)
			_, end = tr.Received(&canonical.Envelope{ID: "child", Act: canonical.ActEvent,
				Trace: canonical.Trace{TraceID: traceID, SpanID: spanID}}, "swarm", "websocket", time.Now())
			end(nil)
			if err := tp.Shutdown(t.Context()); err != nil {
				t.Fatal(err)
			}
			got := out.String()
			for _, w := range append(tc.want, `"Name":"receive event"`, `"Value":"child"`, traceID) {
				if !strings.Contains(got, w) {
					t.Errorf("the output lacks %s:\n%s", w, got)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(got, w) {
					t.Errorf("the output has %s:\n%s", w, got)
				}
			}
			if strings.Contains(got, `"Value":"root"`) != tc.spansOfRoot {
				t.Errorf("the span of a message without a trace written: %v, want %v", !tc.spansOfRoot, tc.spansOfRoot)
			}
		})
	}
}

// TestProviderOTLP: the otlp exporter posts the spans, as OTLP protobuf
// over HTTP, where OTEL_EXPORTER_OTLP_ENDPOINT says.
func TestProviderOTLP(t *testing.T) {
	var mu sync.Mutex
	var posts []string
	var body []byte
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		posts = append(posts, r.Method+" "+r.URL.Path+" "+r.Header.Get("Content-Type"))
		body = append(body, b...)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer collector.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_INSECURE", "true")
	tp, err := Provider(t.Context(), config.Tracing{Exporter: "otlp", SampleRatio: 1}, "v9", io.Discard)
	if err != nil || tp == nil {
		t.Fatalf("%v, %v", tp, err)
	}
	_, end := New(tp).Request(canonical.Trace{TraceID: traceID, SpanID: spanID},
		&canonical.Envelope{Operation: canonical.Operation{Name: "debug_code"}}, "jules")
	end(nil)
	if err := tp.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(posts) == 0 || posts[0] != "POST /v1/traces application/x-protobuf" {
		t.Fatalf("the collector got %q, want a POST of protobuf to /v1/traces", posts)
	}
	for _, w := range []string{"request debug_code", "mcp-bridge", "v9", "jules"} {
		if !bytes.Contains(body, []byte(w)) {
			t.Errorf("the spans posted lack %q", w)
		}
	}
}
