package dialects

import (
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/tidwall/gjson"
)

// Undecoded reads, from a frame its codec could not decode, what the answer
// needs to name it: its own id and its sender, where the dialect's record
// says they are (Record.Load) and they are strings; nil when it names
// neither. The id is the message's id, or its task id in a dialect whose
// messages carry no message id (bluelabel).
func Undecoded(codec Codec, frame []byte) *canonical.Envelope {
	rec, ok := RecordOf(codec.Name())
	if !ok || !gjson.ValidBytes(frame) {
		return nil
	}
	env := &canonical.Envelope{}
	if id := gjson.GetBytes(frame, rec.Load.ID); rec.Load.ID != "" && id.Type == gjson.String && id.Str != "" {
		if codec.Holds(canonical.ActNotUnderstood).Has(canonical.CID) {
			env.ID = id.Str
		} else {
			env.TaskID = id.Str
		}
	}
	if from := gjson.GetBytes(frame, rec.Load.Sender); rec.Load.Sender != "" && from.Type == gjson.String {
		env.Sender.ID = from.Str
	}
	if env.ID == "" && env.TaskID == "" && env.Sender.ID == "" {
		return nil
	}
	return env
}
