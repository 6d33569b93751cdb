// Package canonical defines the envelope every dialect decodes into and
// encodes from, and the vocabularies it is written in: acts, outcomes, error
// codes and the priority scale.
//
// The envelope states what a message means, never how a dialect spells it.
// It knows nothing of any dialect: the codecs under dialects/ translate
// between their wire format and this package's types.
//
// Three rules hold throughout:
//   - Absent and zero are distinct: an empty string, a zero Priority, a nil
//     pointer or an empty JSON value all mean "not present".
//   - Payload bodies (arguments, results, details, context) are kept as raw
//     JSON text; the bridge never decodes a domain payload to route it.
//   - Nothing is dropped: whatever a dialect carries that has no field here
//     is kept in Envelope.Extra so that the same dialect can write it back.
package canonical
