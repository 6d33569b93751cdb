package mappings

import "github.com/mcp-bridge/mcp-bridge/canonical"

// Declaration defines a dialect in a mapping file alone: how to recognise
// its messages, where each canonical concept sits in them, and which
// members a message must have. Its words are the file's vocabulary section.
//
//	dialect: hook
//	declare:
//	  detect: {kind: hook.v1}        # member: value that marks the dialect ("*": present)
//	  fields:                        # canonical concept: dotted path in the message
//	    id: id
//	    act: type
//	    sender: from
//	    arguments: data
//	  required: [kind, id, type]     # paths every message must have
type Declaration struct {
	// Name is the dialect's name (the file's dialect key).
	Name string
	// File and Line locate the declaration, for errors.
	File string
	Line int
	// Detect lists the members that mark a message of the dialect: each
	// path must hold the given string value, or be present when the value
	// is "*".
	Detect []Match
	// Fields gives the dotted JSON path of each concept the dialect holds.
	Fields []FieldPath
	// Required lists the dotted paths a valid message must have.
	Required []string
}

// Match is one detection mark: the member at Path holds Value ("*": any).
type Match struct {
	Path, Value string
}

// FieldPath places one canonical concept at a dotted path of the message.
type FieldPath struct {
	Concept canonical.Concept
	Path    string
}

// Path returns the path of concept c, or "" when the dialect does not
// hold it.
func (d *Declaration) Path(c canonical.Concept) string {
	for _, f := range d.Fields {
		if f.Concept == c {
			return f.Path
		}
	}
	return ""
}

// Value kinds of the concepts a declaration may place.
const (
	KindText  = "text"  // a JSON string
	KindWord  = "word"  // a JSON string from a vocabulary table
	KindRaw   = "raw"   // any JSON value, carried as it is
	KindMilli = "milli" // a number of milliseconds
)

// DeclarableConcepts says which concepts a declared dialect may place, and
// what kind of value each takes.
var DeclarableConcepts = map[canonical.Concept]string{
	canonical.CID: KindText, canonical.CAct: KindWord, canonical.CSender: KindText,
	canonical.CSenderName: KindText, canonical.CReceiver: KindText, canonical.CReceiverName: KindText,
	canonical.CInReplyTo: KindText, canonical.CReplyWith: KindText, canonical.CCorrelationID: KindText,
	canonical.CConversationID: KindText, canonical.CSessionID: KindText, canonical.CTaskID: KindText,
	canonical.CTime: KindText, canonical.CPriority: KindWord, canonical.CDeadline: KindText,
	canonical.CTTL: KindMilli, canonical.CTraceID: KindText, canonical.CSpanID: KindText,
	canonical.CParentSpanID: KindText, canonical.CLanguage: KindText, canonical.COntology: KindText,
	canonical.CCapability: KindText, canonical.COperation: KindText, canonical.CDescription: KindText,
	canonical.CArguments: KindRaw, canonical.CResult: KindRaw, canonical.COutcome: KindWord,
	canonical.CErrorCode: KindWord, canonical.CErrorMessage: KindText, canonical.CErrorDetails: KindRaw,
	canonical.CInputs: KindRaw, canonical.CContext: KindRaw, canonical.CMetadata: KindRaw,
	canonical.CAuthentication: KindRaw, canonical.CExtensions: KindRaw,
}
