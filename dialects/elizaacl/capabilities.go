package elizaacl

import (
	"strconv"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/internal/jsonw"
	"github.com/tidwall/gjson"
)

// capabilities reads an INFORM_CAPABILITIES payload (spec 4.9, patterns):
// kept whole as Capabilities.Raw, with the status as the outcome, topics
// from capabilities.topics (summary answer) or matched_capabilities
// (specific answer), and tools from capabilities.actions.
func (d *decoder) capabilities(p gjson.Result) error {
	caps := &canonical.Capabilities{Raw: canonical.JSON(p.Raw), Dialect: Name}
	d.env.Capabilities = caps
	o := object{path: "payload"}
	var err error
	d.doc.ForEach(p, func(k, v gjson.Result) bool {
		key := dialects.Key(k)
		switch key {
		case "status":
			err = d.outcome(&o, key, v)
		case "capabilities":
			if err = d.once(&o, key); err == nil {
				err = d.declared(caps, v)
			}
		case "matched_capabilities":
			if err = d.once(&o, key); err == nil {
				caps.Topics, err = d.strings("payload.matched_capabilities", v, caps.Topics)
			}
		}
		return err == nil
	})
	return err
}

// declared reads the capabilities object of a summary answer.
func (d *decoder) declared(caps *canonical.Capabilities, v gjson.Result) error {
	const path = "payload.capabilities"
	if err := d.c.Read.Object(path, v); err != nil {
		return err
	}
	o := object{path: path}
	var err error
	d.doc.ForEach(v, func(k, m gjson.Result) bool {
		switch k.Str {
		case "topics":
			if err = d.once(&o, k.Str); err == nil {
				caps.Topics, err = d.strings(path+".topics", m, caps.Topics)
			}
		case "actions":
			if err = d.once(&o, k.Str); err == nil {
				caps.Tools, err = d.actions(path+".actions", m, caps.Tools)
			}
		}
		return err == nil
	})
	return err
}

// actions reads an array of {name, description} action objects as tools.
func (d *decoder) actions(path string, v gjson.Result, tools []canonical.Tool) ([]canonical.Tool, error) {
	if err := d.c.Read.Array(path, v); err != nil {
		return tools, err
	}
	var err error
	i := 0
	d.doc.ForEach(v, func(_, a gjson.Result) bool {
		at := path + "." + strconv.Itoa(i)
		i++
		if err = d.c.Read.Object(at, a); err != nil {
			return false
		}
		var t canonical.Tool
		o := object{path: at}
		d.doc.ForEach(a, func(k, m gjson.Result) bool {
			switch k.Str {
			case "name":
				if err = d.once(&o, k.Str); err == nil {
					t.Name, err = d.c.Read.String(at+".name", m, false)
				}
			case "description":
				if err = d.once(&o, k.Str); err == nil {
					t.Description, err = d.c.Read.String(at+".description", m, true)
				}
			}
			return err == nil
		})
		tools = append(tools, t)
		return err == nil
	})
	return tools, err
}

// encodeCapabilities writes an INFORM_CAPABILITIES payload: the declaration
// as it came when it is elizaacl's own, else a summary answer built from the
// outcome, topics and tools.
func (c *Codec) encodeCapabilities(w *jsonw.Writer, env *canonical.Envelope, ctx *dialects.EncodeContext) {
	caps := env.Capabilities
	if caps != nil && caps.Dialect == Name && caps.Raw != "" {
		w.Raw(string(caps.Raw))
		return
	}
	w.Open()
	// Declaring capabilities succeeds unless the envelope says otherwise.
	status, _, _ := c.Outcomes.Word(string(canonical.OutcomeSuccess))
	if env.Outcome != "" {
		status, _ = dialects.Word(ctx, env, Name, c.Outcomes, string(env.Outcome), canonical.COutcome)
	}
	w.NameString("status", status)
	w.Name("capabilities")
	w.Open()
	w.Name("topics")
	w.OpenArray()
	if caps != nil {
		for _, t := range caps.Topics {
			w.String(t)
		}
	}
	w.CloseArray()
	w.Name("actions")
	w.OpenArray()
	var partial []string
	if caps != nil {
		for _, t := range caps.Tools {
			w.Open()
			w.Name("name")
			w.String(t.Name)
			w.NameString("description", t.Description)
			w.Close()
			if t.Capability != "" || t.Title != "" || t.InputSchema != "" || t.OutputSchema != "" || t.Version != "" {
				partial = append(partial, t.Name)
			}
		}
	}
	w.CloseArray()
	w.Close()
	w.Close()
	if len(partial) > 0 {
		ctx.Lose(dialects.Approximated, canonical.CCapabilities, canonical.CCapabilities.String(),
			"elizaacl actions carry only a name and a description; dropped the group, title, schemas and version of "+strings.Join(quoteAll(partial), ", "))
	}
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = strconv.Quote(v)
	}
	return out
}
