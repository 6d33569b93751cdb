package collab

import (
	"strconv"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/tidwall/gjson"
)

// The header members (spec section 2.1), in the order the encoder writes
// them. The flat layout puts the same members at the top level.
const (
	hMessageID = iota
	hCorrelationID
	hType
	hSource
	hDestination
	hTimestamp
	hPriority
	hTTL
	headerSize
)

var headerKeys = [headerSize]string{"messageId", "correlationId", "type", "source", "destination", "timestamp", "priority", "ttl"}

// headerPaths are the paths of the header members in a message with a
// header object (headerKeys are theirs at the top level), made once
// rather than for every member read.
var headerPaths = func() (p [headerSize]string) {
	for i, k := range headerKeys {
		p[i] = "header." + k
	}
	return p
}()

// headerIndex returns the index of a header member's name, or -1.
func headerIndex(key string) int {
	switch key {
	case "messageId":
		return hMessageID
	case "correlationId":
		return hCorrelationID
	case "type":
		return hType
	case "source":
		return hSource
	case "destination":
		return hDestination
	case "timestamp":
		return hTimestamp
	case "priority":
		return hPriority
	case "ttl":
		return hTTL
	}
	return -1
}

// header holds the header members of a message as found.
type header [headerSize]gjson.Result

// Decode reads one collab message, in the header or the flat layout.
func (c *Codec) Decode(msg []byte) (*canonical.Envelope, error) {
	root, err := c.Read.Parse(msg)
	if err != nil {
		return nil, err
	}
	return c.DecodeRoot(root)
}

// DecodeRoot decodes the message whose root object is root
// (dialects.RootDecoder).
func (c *Codec) DecodeRoot(root gjson.Result) (*canonical.Envelope, error) {
	return c.decode(nil, root)
}

// DecodeDoc decodes the message d holds (dialects.DocDecoder).
func (c *Codec) DecodeDoc(d *dialects.Doc) (*canonical.Envelope, error) { return c.decode(d, d.Root()) }

// decode decodes the message whose root object is root, reading it with d
// (nil: gjson alone).
func (c *Codec) decode(d *dialects.Doc, root gjson.Result) (*canonical.Envelope, error) {
	var err error
	env := &canonical.Envelope{Origin: canonical.Origin{Dialect: Name}}
	var top, hdr header
	var hdrObj, body gjson.Result
	d.ForEach(root, func(k, v gjson.Result) bool {
		switch k.Str {
		case "header":
			hdrObj, err = v, c.Read.Object("header", v)
		case "body":
			body, err = v, c.Read.Object("body", v)
		case "trace":
			err = c.decodeTrace(d, env, v)
		default:
			if i := headerIndex(k.Str); i >= 0 {
				top[i] = v
			} else {
				dialects.Keep(env, Name, "", dialects.Key(k), v.Raw)
			}
		}
		return err == nil
	})
	if err != nil {
		return nil, err
	}

	var l layout
	h, paths, corrPath := &top, &headerKeys, headerKeys[hCorrelationID]
	if hdrObj.Exists() {
		h, paths, corrPath = &hdr, &headerPaths, headerPaths[hCorrelationID]
		d.ForEach(hdrObj, func(k, v gjson.Result) bool {
			if i := headerIndex(k.Str); i >= 0 {
				hdr[i] = v
			} else {
				dialects.Keep(env, Name, "header", dialects.Key(k), v.Raw)
			}
			return true
		})
		// Header members at the top level of a header-layout message are
		// the sender's own, except a correlationId the header lacks.
		for i, v := range top {
			switch {
			case !v.Exists():
			case i == hCorrelationID && !hdr[i].Exists():
				hdr[i], corrPath, l.topCorrelation = v, headerKeys[i], true
			default:
				dialects.Keep(env, Name, "", headerKeys[i], v.Raw)
			}
		}
	} else {
		l.flat = true
	}

	correlation, err := c.decodeHeader(env, h, paths, corrPath)
	if err != nil {
		return nil, err
	}
	if !body.Exists() {
		l.noBody = true
	}
	switch env.Act {
	case canonical.ActResult, canonical.ActFailure, canonical.ActRefuse, canonical.ActNotUnderstood:
		err = c.decodeResponse(d, env, body, &l)
	case canonical.ActEvent:
		err = c.decodeEvent(d, env, body)
	default:
		err = c.decodeRequest(d, env, body)
	}
	if err != nil {
		return nil, err
	}
	if env.Act.IsReply() {
		env.InReplyTo = correlation
	} else {
		env.CorrelationID = correlation
	}
	env.Origin.Form = l.String()
	return env, nil
}

// decodeHeader reads the header members; paths are their paths
// (headerPaths, or headerKeys in the flat layout), corrPath where the
// correlationId was found. It returns the correlationId,
// which the act decides the meaning of.
func (c *Codec) decodeHeader(env *canonical.Envelope, h *header, paths *[headerSize]string, corrPath string) (string, error) {
	path := func(i int) string { return paths[i] }
	if !h[hType].Exists() {
		return "", c.Read.Errorf(path(hType), "missing (want one of %v)", c.Acts.Words())
	}
	word, err := c.Read.String(path(hType), h[hType], false)
	if err != nil {
		return "", err
	}
	act, ok := c.Acts.Canonical(word)
	if !ok {
		return "", c.Read.Errorf(path(hType), "unknown message type %q (want one of %v)", word, c.Acts.Words())
	}
	env.Act = canonical.Act(act)
	env.Origin.SetWord(canonical.KindAct, word)

	var correlation string
	for i := range h {
		v := h[i]
		if !v.Exists() {
			continue
		}
		switch i {
		case hMessageID:
			env.ID, err = c.Read.String(path(i), v, false)
		case hCorrelationID:
			correlation, err = c.Read.String(corrPath, v, false)
		case hSource:
			env.Sender.ID, err = c.Read.String(path(i), v, false)
		case hDestination:
			var d string
			if d, err = c.Read.String(path(i), v, false); err == nil {
				env.Receiver = address(d)
			}
		case hTimestamp:
			var t string
			t, err = c.Read.String(path(i), v, false)
			env.Time = canonical.Timestamp(t)
		case hPriority:
			err = c.decodePriority(env, path(i), v)
		case hTTL:
			env.TTL, err = c.millis(path(i), v)
		}
		if err != nil {
			return "", err
		}
	}
	return correlation, nil
}

// address reads a destination: "*", "topic:<name>" or an agent id.
func address(d string) canonical.Address {
	if d == destinationAll {
		return canonical.Address{Kind: canonical.AddressBroadcast}
	}
	if topic, ok := strings.CutPrefix(d, topicPrefix); ok {
		return canonical.Address{Kind: canonical.AddressTopic, ID: topic}
	}
	return canonical.Address{Kind: canonical.AddressAgent, ID: d}
}

// decodePriority reads a 0-4 priority level (spec section 8.1).
func (c *Codec) decodePriority(env *canonical.Envelope, path string, v gjson.Result) error {
	n, err := c.Read.Int(path, v)
	if err != nil {
		return err
	}
	p, ok := c.Priorities.Canonical(strconv.FormatInt(n, 10))
	if !ok {
		return c.Read.Errorf(path, "unknown priority %d (want one of %v)", n, c.Priorities.Words())
	}
	env.Priority, _ = canonical.ParsePriority(p)
	return nil
}

// decodeTrace reads the trace object (spec section 2.1).
func (c *Codec) decodeTrace(d *dialects.Doc, env *canonical.Envelope, v gjson.Result) error {
	if err := c.Read.Object("trace", v); err != nil {
		return err
	}
	empty := true
	var err error
	d.ForEach(v, func(k, v gjson.Result) bool {
		empty = false
		var id *string
		switch k.Str {
		case "traceId":
			id = &env.Trace.TraceID
		case "spanId":
			id = &env.Trace.SpanID
		case "parentSpan":
			id = &env.Trace.ParentSpanID
		default:
			dialects.Keep(env, Name, "trace", dialects.Key(k), v.Raw)
			return true
		}
		if *id, err = c.Read.StringAt("trace", k.Str, v, false); err == nil && *id == "" {
			// An empty id is no id: kept as written.
			dialects.Keep(env, Name, "trace", dialects.Key(k), v.Raw)
		}
		return err == nil
	})
	if empty {
		// An empty trace carries nothing: kept as written.
		dialects.Keep(env, Name, "", "trace", v.Raw)
	}
	return err
}
