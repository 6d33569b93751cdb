package reach

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/internal/spec"
)

// The keys ways share: a program to run, its environment and directory,
// URLs. Each builder returns a fresh node.

// Command is the key command: a program and its arguments, each one word.
func Command(doc string) *spec.Node {
	f := spec.List("command", doc, spec.String("", "").Named("an argument").EmptyOK()).Named("a list: the program and its arguments").Rule(checkProgram)
	return f.NonEmpty().Typed("list of strings")
}

// Env is the key env: environment variables added to the bridge's own for
// a child.
func Env() *spec.Node {
	val := spec.String("", "").Named(`a value (write "" for an empty one)`).Secret().EmptyOK()
	f := spec.Map("env", "Environment variables added to the bridge's own for the child; a number or `true` is taken as its text.", val).
		Named("a mapping (variable names to values)")
	return f.CheckKey(checkEnvName)
}

// Dir is the key dir: a child's working directory, from the config file's
// directory.
func Dir() *spec.Node {
	return spec.String("dir", "The child's working directory.").Named("a directory").
		Default(".").DefaultIs("the config file's directory").Path()
}

// CheckURL checks a URL, given the schemes it may have: the whole problem
// with it, or "".
func CheckURL(s string, schemes ...string) string {
	u, err := url.Parse(s)
	if err != nil {
		if ue, ok := err.(*url.Error); ok {
			err = ue.Err
		}
		return fmt.Sprintf("%q is not a URL: %v", s, err)
	}
	ok := false
	for _, sc := range schemes {
		if u.Scheme == sc {
			ok = true
		}
	}
	if !ok {
		return fmt.Sprintf("%q: the scheme must be %s://", s, strings.Join(schemes, ":// or "))
	}
	if u.Host == "" {
		return fmt.Sprintf("%q has no host", s)
	}
	return ""
}

// CheckHTTPURL checks an http:// or https:// URL.
func CheckHTTPURL(s string) string { return CheckURL(s, "http", "https") }

// checkProgram checks that a command names a program.
func checkProgram(d *spec.Decoder, v *spec.Value) {
	if items := v.Items(); len(items) > 0 && items[0].String() == "" && items[0].Path() == v.Path()+"[0]" {
		d.Fail(items[0].Pos(), items[0].Path(), "must be the program to run")
	}
}

// checkEnvName checks an environment variable's name.
func checkEnvName(k string) string {
	if k == "" || strings.ContainsAny(k, "=\x00") {
		return fmt.Sprintf("%q is not a variable name", k)
	}
	return ""
}
