package a2a

import (
	"strings"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// shape is which of its frames an a2a message is: a request of a method,
// or an answer holding a task, a message, a status update or an error.
type shape uint8

// The shapes.
const (
	shapeNone    shape = iota
	shapeSend          // SendMessage or SendStreamingMessage
	shapeGet           // GetTask
	shapeCancel        // CancelTask
	shapeTask          // a result {"task": Task} (SendMessage's answer)
	shapeBare          // a result that is a Task (GetTask's and CancelTask's answer)
	shapeStatus        // a result {"statusUpdate": TaskStatusUpdateEvent} (a streamed event)
	shapeMessage       // a result {"message": Message}
	shapeError         // a JSON-RPC error
)

var shapeNames = [...]string{
	shapeNone: "", shapeSend: "send", shapeGet: "get", shapeCancel: "cancel", shapeTask: "task",
	shapeBare: "bare-task", shapeStatus: "status-update", shapeMessage: "message", shapeError: "error",
}

// defaultShape is the frame written for act from another dialect;
// shapeNone when a2a cannot express act.
func defaultShape(act canonical.Act) shape {
	switch act {
	case canonical.ActRequest, canonical.ActQueryIf, canonical.ActQueryRef:
		return shapeSend
	case canonical.ActAccept:
		return shapeStatus
	case canonical.ActResult, canonical.ActFailure, canonical.ActRefuse, canonical.ActNeedsInput:
		return shapeTask
	case canonical.ActNotUnderstood:
		return shapeError
	}
	return shapeNone
}

// fits reports whether a frame of shape s can say act: a decoded frame is
// written back in its own shape while its act is one the shape says.
func (s shape) fits(act canonical.Act) bool {
	switch s {
	case shapeSend, shapeGet, shapeCancel:
		return act == canonical.ActRequest
	case shapeMessage:
		return act == canonical.ActResult
	case shapeError:
		return act.IsError()
	case shapeTask, shapeBare, shapeStatus:
		switch act {
		case canonical.ActAccept, canonical.ActResult, canonical.ActFailure, canonical.ActRefuse, canonical.ActNeedsInput:
			return true
		}
	}
	return false
}

// idKind is how a frame wrote its JSON-RPC id, when not as a string.
type idKind uint8

// The id kinds.
const (
	idString idKind = iota
	idNumber        // a number: the canonical id is its JSON text
	idNull          // null
	idAbsent        // no id member
)

var idNames = [...]string{idString: "", idNumber: "id=number", idNull: "id=null", idAbsent: "id=absent"}

// form is what Origin.Form records of a decoded frame so that it is
// written back as it was: its shape, how its id was written, and whether a
// canceled task's failure message was implied (the status had no text).
type form struct {
	shape    shape
	id       idKind
	canceled bool
}

// String writes f as a comma-separated list ("task,id=number").
func (f form) String() string {
	parts := []string{shapeNames[f.shape]}
	if f.id != idString {
		parts = append(parts, idNames[f.id])
	}
	if f.canceled {
		parts = append(parts, "canceled-implied")
	}
	return strings.Join(parts, ",")
}

// parseForm reads a form back from Origin.Form.
func parseForm(s string) form {
	var f form
	for part := range strings.SplitSeq(s, ",") {
		for i, n := range shapeNames {
			if n != "" && n == part {
				f.shape = shape(i)
			}
		}
		for i, n := range idNames {
			if n != "" && n == part {
				f.id = idKind(i)
			}
		}
		if part == "canceled-implied" {
			f.canceled = true
		}
	}
	return f
}
