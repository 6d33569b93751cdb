package swarm

import "strings"

// layout records which members a swarm message left out, so that a message
// decoded from swarm is written back as it was: the encoder writes the
// members upstream's factory always writes, unless the source lacked them.
// It also records the optional members the source wrote as null where the
// encoder writes nothing for an absent value (upstream's ToolRequest writes
// "timeout": null when none is set, ToolResponse "execution_time": null).
// Such a null carries no value: it is no loss in another dialect. It travels in
// Origin.Form as a comma-separated list of member names, the null ones
// suffixed "=null".
type layout uint16

// The members the encoder would otherwise always write.
const (
	absMessageID layout = 1 << iota
	absSender
	absReceiver
	absTimestamp
	absCorrelation
	absPayload
	absAccepted
	absToolName
	absSuccess
	absResult
	absError
	absErrorMessage
	absEventType
	nullTimeout  // payload.timeout was null
	nullExecTime // payload.execution_time was null
)

var layoutNames = []struct {
	bit  layout
	name string
}{
	{absMessageID, "message_id"}, {absSender, "sender_id"}, {absReceiver, "receiver_id"},
	{absTimestamp, "timestamp"}, {absCorrelation, "correlation_id"}, {absPayload, "payload"},
	{absAccepted, "accepted"}, {absToolName, "payload.tool_name"}, {absSuccess, "payload.success"},
	{absResult, "payload.result"}, {absError, "payload.error"},
	{absErrorMessage, "payload.error_message"}, {absEventType, "payload.event_type"},
	{nullTimeout, "payload.timeout=null"}, {nullExecTime, "payload.execution_time=null"},
}

// String lists the absent and null members ("" when none).
func (l layout) String() string {
	var parts []string
	for _, n := range layoutNames {
		if l&n.bit != 0 {
			parts = append(parts, n.name)
		}
	}
	return strings.Join(parts, ",")
}

// parseLayout reads a layout back from Origin.Form.
func parseLayout(form string) layout {
	var l layout
	for part := range strings.SplitSeq(form, ",") {
		for _, n := range layoutNames {
			if n.name == part {
				l |= n.bit
			}
		}
	}
	return l
}

// has reports whether member bit was absent (or, for a null bit, null).
func (l layout) has(bit layout) bool { return l&bit != 0 }
