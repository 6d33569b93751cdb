package spec

// Spec is one file format: its root node and how its files are named in
// errors and documents.
type Spec struct {
	// Root is the file's top value, usually an Object.
	Root *Node
	// Title and Description head the JSON Schema.
	Title, Description string
	// Noun names a file of the format in errors: "empty <Noun>", "a
	// <Noun> is one YAML document".
	Noun string
	// Shape is the problem of a file whose top value is not of the root's
	// YAML kind ("a config file is a YAML mapping").
	Shape string
	// Env replaces ${NAME} in scalars with the environment variable NAME
	// ($$ is a literal $).
	Env bool
	// Empty lets a file be empty: it decodes as the root's default, nil
	// when it has none.
	Empty bool
	// Columns makes errors say the column beside the line (file:line:col).
	Columns bool
	// Unknown names an unknown key in errors, "<Unknown(k)> (want
	// <keys>)"; nil says "unknown key". A node's own Unknown wins.
	Unknown func(key string) string
}
