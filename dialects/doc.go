// Package dialects defines the contract every dialect codec keeps (decode,
// encode, detect, validate, schema), the registry that holds them, and the
// helpers codecs share: located errors, loss reports and schema validation.
//
// Codecs know nothing of transports or routing; this package knows nothing of
// any one dialect.
package dialects
