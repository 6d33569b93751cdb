// Package spec is the engine behind the project's YAML file formats: the
// serve config, mapping files and conformance requirement files. A format
// is specified once, as a tree of nodes (maps with known keys, lists, free
// maps, scalars of a kind, each with its documentation, default and
// checks); from that one tree come the strict decoder, which reports every
// problem with its file, line and column, the JSON Schema (draft 2020-12)
// for editors, the Markdown reference page, and the YAML of a decoded file
// with its defaults filled in.
//
// It is the one package that reads YAML: the formats' packages describe
// their files here and read the decoded values.
package spec
