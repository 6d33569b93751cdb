package conformance

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// The operation names of the messages the suite makes up.
const (
	unknownOperation  = "conformance-no-such-operation"
	unknownCapability = "conformance-no-such-capability"
	probeEvent        = "conformance-probe"
)

// message is one message the suite sent, and what judging its answers
// needs.
type message struct {
	send  Send
	env   *canonical.Envelope // what it was encoded from; nil for raw frames
	frame []byte
	// ids are the values a reply may quote to answer it.
	ids []string
	ttl time.Duration
	at  time.Time
	// what names it in reports.
	what string
}

// quotedBy reports whether corr quotes the message.
func (m *message) quotedBy(corr string) bool {
	for _, id := range m.ids {
		if id == corr {
			return true
		}
	}
	return false
}

// build makes the messages of a step: one, or one per declared operation.
// skip is set, with no messages, when the step cannot be made (no
// operation to call).
func (r *runner) build(s Send, earlier [][]*message) (msgs []*message, skip string, err error) {
	switch s.Kind {
	case KindRaw:
		return []*message{{send: s, frame: []byte(s.Raw), what: "malformed frame " + clip([]byte(s.Raw))}}, "", nil
	case KindResend:
		if len(earlier[s.Step]) == 0 {
			return nil, "", fmt.Errorf("conformance: step %d sent nothing to send again", s.Step)
		}
		m, err := r.resend(s, earlier[s.Step][0])
		return []*message{m}, "", err
	case KindQuery:
		env := r.envelope(canonical.ActQueryCapabilities)
		env.Capabilities = &canonical.Capabilities{}
		m, err := r.encode(s, env, "capability query")
		return []*message{m}, "", err
	case KindRPC:
		m, why, err := r.rpc(s)
		if m == nil {
			return nil, why, err
		}
		return []*message{m}, "", err
	case KindEvent:
		env := r.envelope(canonical.ActEvent)
		env.Operation = canonical.Operation{Name: probeEvent}
		env.Arguments = `{"note":"an event sent by the conformance suite; it asks for no answer"}`
		m, err := r.encode(s, env, "event")
		return []*message{m}, "", err
	}
	var ops []operation
	switch s.Op {
	case OpUnknown:
		op := canonical.Operation{Name: unknownOperation}
		if dialects.TwoLevel(r.codec) {
			op.Capability = unknownCapability
		}
		ops = []operation{{op: op, args: "{}"}}
	case OpEach:
		ops = r.ops[:min(len(r.ops), maxEach)]
	default:
		ops = r.ops[:min(len(r.ops), 1)]
	}
	if len(ops) == 0 {
		return nil, "the agent declared no operation, and no --op was given", nil
	}
	for _, op := range ops {
		env := r.envelope(canonical.ActRequest)
		env.Operation, env.Arguments = op.op, op.args
		if r.card != nil {
			env.TaskID = "" // over HTTP, a new task's message names no task: the agent does
		}
		m, err := r.encode(s, env, fmt.Sprintf("request for %q", op))
		if err != nil {
			return nil, "", err
		}
		msgs = append(msgs, m)
	}
	return msgs, "", nil
}

// envelope starts a message of act from the suite to the agent.
func (r *runner) envelope(act canonical.Act) *canonical.Envelope {
	id := r.newID()
	return &canonical.Envelope{
		Act: act, ID: id, TaskID: id,
		Sender:   canonical.Party{ID: r.suiteID},
		Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: r.agent()},
		Time:     canonical.NewTimestamp(time.Now()),
	}
}

// encode writes env in the dialect with the step's fields and edits.
func (r *runner) encode(s Send, env *canonical.Envelope, what string) (*message, error) {
	if s.TTL.Duration > 0 {
		env.TTL = canonical.Dur(s.TTL.Duration)
	}
	if s.Priority != "" {
		env.Priority, _ = canonical.ParsePriority(s.Priority)
	}
	if s.Trace {
		env.Trace = canonical.Trace{TraceID: randomHex(16), SpanID: randomHex(8)}
	}
	if s.ReplyWith {
		env.ReplyWith = "rw-" + env.ID
	}
	frame, err := r.codec.Encode(nil, env, &dialects.EncodeContext{})
	if err != nil {
		return nil, fmt.Errorf("conformance: %s cannot write the suite's %s: %w", r.codec.Name(), what, err)
	}
	m := &message{send: s, env: env, ttl: s.TTL.Duration}
	if m.frame, err = edit(frame, s); err != nil {
		return nil, err
	}
	var named string
	m.ids, named = r.quotable(m.frame)
	m.what = what + editText(s)
	if named != "" {
		m.what += " (" + named + ")"
	}
	return m, nil
}

// resend makes an earlier message again, with the step's edits.
func (r *runner) resend(s Send, earlier *message) (*message, error) {
	frame, err := edit(bytes.Clone(earlier.frame), s)
	if err != nil {
		return nil, err
	}
	m := &message{send: s, env: earlier.env, frame: frame, ttl: earlier.ttl}
	m.ids, _ = r.quotable(frame)
	m.what = "the same " + earlier.what + " again"
	return m, nil
}

// followUp is the request that gives an agent the inputs it asked for in
// needs: the same request, same task, new id, its arguments with a value
// for each input.
func (r *runner) followUp(m *message, needs *canonical.Envelope) (*message, error) {
	env := *m.env
	env.ID = r.newID()
	var args map[string]any
	if err := json.Unmarshal([]byte(env.Arguments), &args); err != nil || args == nil {
		args = map[string]any{}
	}
	for _, item := range gjson.Parse(string(needs.Inputs)).Array() {
		if id := item.Get("id").String(); id != "" {
			args[id] = inputValue(item)
		}
	}
	b, _ := json.Marshal(args) // values from JSON always marshal
	env.Arguments = canonical.JSON(b)
	f, err := r.encode(m.send, &env, "request with the inputs asked for")
	if err != nil {
		return nil, err
	}
	f.ids = append(f.ids, m.ids...)
	return f, nil
}

// inputValue makes up a value for one requested input, by its type.
func inputValue(item gjson.Result) any {
	switch item.Get("type").String() {
	case "number":
		return 1
	case "boolean":
		return true
	case "enum":
		if first := item.Get("options.0"); first.Exists() {
			return first.Value()
		}
	case "file":
		return "conformance.txt"
	}
	return "conformance"
}

// edit applies a step's sets and deletes to frame.
func edit(frame []byte, s Send) ([]byte, error) {
	var err error
	for _, p := range sortedKeys(s.Set) {
		if frame, err = sjson.SetBytes(frame, p, s.Set[p]); err != nil {
			return nil, fmt.Errorf("conformance: setting %s: %w", p, err)
		}
	}
	for _, p := range s.Delete {
		if frame, err = sjson.DeleteBytes(frame, p); err != nil {
			return nil, fmt.Errorf("conformance: deleting %s: %w", p, err)
		}
	}
	return frame, nil
}

// editText says how a step edits its message (" with performative set to
// \"PROPOSE\""), or "".
func editText(s Send) string {
	var parts []string
	for _, p := range sortedKeys(s.Set) {
		v, _ := json.Marshal(s.Set[p]) // values from YAML always marshal
		parts = append(parts, fmt.Sprintf("%s set to %s", p, clip(v)))
	}
	for _, p := range s.Delete {
		parts = append(parts, p+" left out")
	}
	if len(parts) == 0 {
		return ""
	}
	return " with " + strings.Join(parts, " and ")
}

// sortedKeys returns the keys of m, sorted.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// quotable returns the values of frame a reply may quote, and remembers
// them as the suite's; named is how to name the message by them: its last
// path present and value (`message_id "conf-3-ab12cd"`).
func (r *runner) quotable(frame []byte) (ids []string, named string) {
	root := gjson.ParseBytes(frame)
	for _, p := range r.suite.Correlation.Request {
		if v := root.Get(p); v.Type == gjson.String && v.Str != "" {
			ids = append(ids, v.Str)
			named = fmt.Sprintf("%s %q", p, v.Str)
			r.sent[v.Str] = true
		}
	}
	return ids, named
}

// exampleArgs makes arguments a JSON Schema accepts: a value for each
// required property (its default, its first enum value, its minimum, or one
// of its type), {} without a schema.
func exampleArgs(schema canonical.JSON) canonical.JSON {
	s := gjson.Parse(string(schema))
	if !s.IsObject() {
		return "{}"
	}
	args := map[string]any{}
	for _, name := range s.Get("required").Array() {
		p := s.Get("properties." + gjson.Escape(name.String()))
		args[name.String()] = exampleValue(p)
	}
	b, _ := json.Marshal(args) // values from JSON always marshal
	return canonical.JSON(b)
}

func exampleValue(p gjson.Result) any {
	if d := p.Get("default"); d.Exists() {
		return d.Value()
	}
	if e := p.Get("enum.0"); e.Exists() {
		return e.Value()
	}
	typ := p.Get("type")
	if typ.IsArray() {
		typ = typ.Get("0")
	}
	switch typ.String() {
	case "integer", "number":
		if m := p.Get("minimum"); m.Exists() {
			return m.Value()
		}
		return 1
	case "boolean":
		return true
	case "array":
		return []any{}
	case "object":
		return map[string]any{}
	}
	return "conformance"
}

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// rpc makes the JSON-RPC request of an rpc step, its params' placeholders
// filled; skip is set, with no message, when one cannot be (no task yet).
func (r *runner) rpc(s Send) (m *message, skip string, err error) {
	params, skip := r.fill(s.Params)
	if skip != "" {
		return nil, skip, nil
	}
	body := map[string]any{"jsonrpc": "2.0", "id": r.newID(), "method": s.Method}
	if params != nil {
		body["params"] = params
	}
	frame, err := json.Marshal(body)
	if err != nil {
		return nil, "", fmt.Errorf("conformance: the params of %s: %w", s.Method, err)
	}
	m = &message{send: s}
	if m.frame, err = edit(frame, s); err != nil {
		return nil, "", err
	}
	var named string
	m.ids, named = r.quotable(m.frame)
	m.what = s.Method + " request" + editText(s)
	if named != "" {
		m.what += " (" + named + ")"
	}
	return m, "", nil
}

// fill returns v with each string "{{task}}" in it replaced by the id of
// the last task the agent answered with; skip says why it cannot be.
func (r *runner) fill(v any) (out any, skip string) {
	switch x := v.(type) {
	case string:
		if x != "{{task}}" {
			return x, ""
		}
		if r.lastTask == "" {
			return nil, "no task to name: the agent answered with no task (a message is a complete answer)"
		}
		return r.lastTask, ""
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			if m[k], skip = r.fill(e); skip != "" {
				return nil, skip
			}
		}
		return m, ""
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			if l[i], skip = r.fill(e); skip != "" {
				return nil, skip
			}
		}
		return l, ""
	}
	return v, ""
}
