package main

import (
	"fmt"
	"io"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/translate"
)

func runValidate(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("validate", "--dialect DIALECT|auto [--mapping FILE]... [--sender ID] FILE...", stderr)
	dialect := fs.String("dialect", translate.Auto, "dialect of the messages, or auto to detect each")
	sender := fs.String("sender", "", "the agent sending the messages (a message naming another is refused; a fuse capability declaration names none)")
	var maps fileList
	fs.Var(&maps, "mapping", "a mapping file to layer over the defaults (repeatable; later files win)")
	files, help, err := parseInterspersed(fs, args)
	if err != nil {
		if help {
			return exitOK
		}
		return exitUsage
	}
	if len(files) == 0 {
		fs.Usage()
		return exitUsage
	}
	tr, ok := translator(maps, stderr)
	if !ok {
		return exitUsage
	}
	if *dialect != translate.Auto {
		if _, err := tr.Codec(*dialect); err != nil {
			fmt.Fprintf(stderr, "mcp-bridge: --dialect: %v\n", err)
			return exitUsage
		}
	}
	code := exitOK
	for _, f := range files {
		if !validateOne(tr, *dialect, *sender, f, stdin, stdout) {
			code = exitInvalid
		}
	}
	return code
}

// validateOne checks one file, sent by sender when that is set, and prints
// its verdict; it reports validity.
func validateOne(tr *translate.Translator, dialect, sender, file string, stdin io.Reader, stdout io.Writer) bool {
	name := displayName(file)
	msg, err := readInput(file, stdin)
	if err != nil {
		fmt.Fprintf(stdout, "%s: %v\n", name, err)
		return false
	}
	c, err := tr.Source(dialect, msg)
	if err != nil {
		fmt.Fprintf(stdout, "%s: %v\n", name, err)
		return false
	}
	problems := dialects.Check(c, msg)
	var env *canonical.Envelope
	if len(problems) == 0 {
		env, _ = c.Decode(msg)
		if named := env.Sender.ID; sender != "" && named != "" && named != sender {
			problems = append(problems, dialects.Problem{Message: fmt.Sprintf("the message names its sender %q, not %q (--sender)", named, sender)})
		}
	}
	if len(problems) == 0 {
		fmt.Fprintf(stdout, "%s: ok (%s%s)\n", name, c.Name(), declaredBy(env, sender))
		return true
	}
	for _, p := range problems {
		fmt.Fprintf(stdout, "%s: %s: %s\n", name, c.Name(), p)
	}
	return false
}

// declaredBy says who sends env when it is a capability declaration naming
// no sender (a fuse declaration document): sender, or the agent of the
// connection it comes on.
func declaredBy(env *canonical.Envelope, sender string) string {
	switch {
	case env.Act != canonical.ActInformCapabilities || env.Sender.ID != "":
		return ""
	case sender != "":
		return ", a capability declaration of " + sender
	}
	return ", a capability declaration naming no sender: the agent of its connection sends it"
}
