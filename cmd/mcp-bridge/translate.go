package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/translate"
)

func runTranslate(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("translate", "--from DIALECT|auto --to DIALECT [--mapping FILE]... [--sender ID] [--strict] [--compact] [FILE|-]", stderr)
	from := fs.String("from", translate.Auto, "source dialect, or auto to detect it")
	to := fs.String("to", "", "target dialect (required)")
	strict := fs.Bool("strict", false, "fail (exit 1) when the target cannot hold some of the data")
	compact := fs.Bool("compact", false, "print the message on one line")
	sender := fs.String("sender", "", "the agent sending the message, for one that names none (a fuse capability declaration)")
	var maps fileList
	fs.Var(&maps, "mapping", "a mapping file to layer over the defaults (repeatable; later files win)")
	pos, help, err := parseInterspersed(fs, args)
	if err != nil {
		if help {
			return exitOK
		}
		return exitUsage
	}
	if *to == "" || len(pos) > 1 {
		fs.Usage()
		return exitUsage
	}
	name := "-"
	if len(pos) == 1 {
		name = pos[0]
	}
	msg, err := readInput(name, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "mcp-bridge: %v\n", err)
		return exitInvalid
	}
	tr, ok := translator(maps, stderr)
	if !ok {
		return exitUsage
	}
	if _, err := tr.Codec(*to); err != nil {
		fmt.Fprintf(stderr, "mcp-bridge: --to: %v\n", err)
		return exitUsage
	}
	if *from != translate.Auto {
		if _, err := tr.Codec(*from); err != nil {
			fmt.Fprintf(stderr, "mcp-bridge: --from: %v\n", err)
			return exitUsage
		}
	}
	res, err := tr.Translate(nil, *from, *to, msg, translate.Options{Strict: *strict, Sender: *sender})
	var lossErr *translate.LossError
	if err != nil && !errors.As(err, &lossErr) {
		fmt.Fprintf(stderr, "mcp-bridge: %s: %v\n", displayName(name), err)
		if se := (*translate.SenderError)(nil); errors.As(err, &se) && se.Named == "" {
			fmt.Fprintf(stderr, "mcp-bridge: hint: name it with --sender ID (at run time the agent of its connection sends it)\n")
		}
		return exitInvalid
	}
	for _, l := range res.Losses {
		level := "warning"
		if lossErr != nil && l.Kind != dialects.Filled {
			level = "error"
		}
		fmt.Fprintf(stderr, "mcp-bridge: %s: %s -> %s: %s %s: %s\n", level, res.From, res.To, l.Kind, l.Path, l.Message())
		if l.Hint != "" {
			fmt.Fprintf(stderr, "mcp-bridge: hint: %s\n", l.Hint)
		}
	}
	if res.Dropped {
		return exitOK // the mapping's act policy drops it: nothing to print
	}
	if lossErr != nil {
		fmt.Fprintf(stderr, "mcp-bridge: %s: --strict: %d field(s) cannot be carried by %s\n", displayName(name), len(lossErr.Losses), res.To)
		return exitInvalid
	}
	if err := printJSON(stdout, res.Output, *compact); err != nil {
		fmt.Fprintf(stderr, "mcp-bridge: %v\n", err)
		return exitInvalid
	}
	return exitOK
}

// printJSON writes a JSON message indented, or on one line when compact.
func printJSON(w io.Writer, msg []byte, compact bool) error {
	var buf bytes.Buffer
	if err := json.Compact(&buf, msg); err != nil {
		return err
	}
	if !compact {
		var ind bytes.Buffer
		if err := json.Indent(&ind, buf.Bytes(), "", "  "); err != nil {
			return err
		}
		buf = ind
	}
	buf.WriteByte('\n')
	_, err := w.Write(buf.Bytes())
	return err
}
