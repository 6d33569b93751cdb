// Package sixth proves that a dialect is one package and one record. Its
// tests define a throwaway dialect, memo, as a dialect package would (a
// small codec, its JSON Schema, its default words, its conformance
// requirements and samples, registered with dialects.Register from an init
// function), and show that, with no file outside this package changed:
//   - memo passes the shared contract suite (dialecttest);
//   - the registry-driven lists pick it up: the dialect names and
//     `mcp-bridge dialects` (dialects.Describe), the bridge's codecs and
//     detection, the config's dialect check, translation to and from the
//     five built-in dialects;
//   - the reference agent speaks it, through a live bridge to an agent of
//     another dialect, both ways, and passes memo's conformance suite;
//   - the load generator deals agents to it and its traffic crosses the
//     bridge to and from every other dialect intact.
//
// The package has no code of its own: memo exists only in its tests.
package sixthdialect
