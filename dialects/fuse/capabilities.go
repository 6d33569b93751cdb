package fuse

import (
	"strconv"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/internal/jsonw"
	"github.com/tidwall/gjson"
)

// capsPath is where a capability declaration sits in a message (but for a
// declaration document, where it is the top-level "capabilities").
const capsPath = "content.capabilities"

// defaultCapability groups the tools of a foreign declaration that name no
// capability.
const defaultCapability = "default"

// decodeCapabilities reads a capability declaration (specs/fuse.md
// "Capability Declaration") found at path. The array is kept whole as
// Capabilities.Raw; each action becomes a Tool whose input schema is built
// from the action's parameter list.
func (c *Codec) decodeCapabilities(d *dialects.Doc, env *canonical.Envelope, path string, v gjson.Result) error {
	if err := c.Read.Array(path, v); err != nil {
		return err
	}
	caps := &canonical.Capabilities{Raw: canonical.JSON(v.Raw), Dialect: Name}
	env.Capabilities = caps
	var err error
	i := 0
	d.ForEach(v, func(_, capv gjson.Result) bool {
		err = c.decodeCapability(d, caps, dialects.Join(path, strconv.Itoa(i)), capv)
		i++
		return err == nil
	})
	return err
}

// decodeCapability reads one capability and its actions: each action's
// tool is of the capability's id and version.
func (c *Codec) decodeCapability(d *dialects.Doc, caps *canonical.Capabilities, path string, v gjson.Result) error {
	if err := c.Read.Object(path, v); err != nil {
		return err
	}
	var id, version string
	var actions gjson.Result
	var err error
	d.ForEach(v, func(k, m gjson.Result) bool {
		switch k.Str {
		case "id", "name", "description", "version":
			var s string
			s, err = c.Read.StringAt(path, k.Str, m, false)
			switch k.Str {
			case "id":
				id = s
			case "version":
				version = s
			}
		case "actions":
			actions = m
			err = c.Read.Array(dialects.Join(path, "actions"), m)
		}
		return err == nil
	})
	if err != nil || !actions.Exists() {
		return err
	}
	i := 0
	d.ForEach(actions, func(_, a gjson.Result) bool {
		var t canonical.Tool
		t, err = c.decodeAction(d, dialects.Join(path, "actions."+strconv.Itoa(i)), a)
		t.Capability, t.Version = id, version
		caps.Tools = append(caps.Tools, t)
		i++
		return err == nil
	})
	return err
}

// decodeAction reads one action as a Tool.
func (c *Codec) decodeAction(d *dialects.Doc, path string, v gjson.Result) (canonical.Tool, error) {
	var t canonical.Tool
	if err := c.Read.Object(path, v); err != nil {
		return t, err
	}
	var err error
	d.ForEach(v, func(k, m gjson.Result) bool {
		at := dialects.Join(path, k.Str)
		switch k.Str {
		case "id":
			t.Name, err = c.Read.String(at, m, false)
		case "name":
			t.Title, err = c.Read.String(at, m, false)
		case "description":
			t.Description, err = c.Read.String(at, m, false)
		case "parameters":
			t.InputSchema, err = c.parametersSchema(d, at, m)
		case "returns":
			t.OutputSchema = canonical.JSON(m.Raw)
		}
		return err == nil
	})
	return t, err
}

// parametersSchema builds a JSON Schema object from an action's parameter
// list: each parameter becomes a property with its type, description,
// default and enum; the required ones are listed under "required".
func (c *Codec) parametersSchema(d *dialects.Doc, path string, v gjson.Result) (canonical.JSON, error) {
	if err := c.Read.Array(path, v); err != nil {
		return "", err
	}
	w := jsonw.New(make([]byte, 0, len(v.Raw)+64))
	w.Open()
	w.Name("type")
	w.String("object")
	w.Name("properties")
	w.Open()
	var required []string
	var err error
	i := 0
	d.ForEach(v, func(_, p gjson.Result) bool {
		var name string
		var req bool
		name, req, err = c.parameter(d, &w, dialects.Join(path, strconv.Itoa(i)), p)
		if req && name != "" {
			required = append(required, name)
		}
		i++
		return err == nil
	})
	if err != nil {
		return "", err
	}
	w.Close()
	if len(required) > 0 {
		w.Name("required")
		w.OpenArray()
		for _, r := range required {
			w.String(r)
		}
		w.CloseArray()
	}
	w.Close()
	return canonical.JSON(w.Buf), nil
}

// parameter writes one parameter as a property of the schema being built
// (none when it has no name) and returns its name and whether it is
// required.
func (c *Codec) parameter(d *dialects.Doc, w *jsonw.Writer, path string, p gjson.Result) (name string, required bool, err error) {
	if err := c.Read.Object(path, p); err != nil {
		return "", false, err
	}
	var typ, desc string
	var def, enum gjson.Result
	d.ForEach(p, func(k, m gjson.Result) bool {
		at := dialects.Join(path, k.Str)
		switch k.Str {
		case "name":
			name, err = c.Read.String(at, m, false)
		case "type":
			typ, err = c.Read.String(at, m, false)
		case "description":
			desc, err = c.Read.String(at, m, false)
		case "required":
			required, err = c.Read.Bool(at, m)
		case "default":
			def = m
		case "enum":
			enum = m
		}
		return err == nil
	})
	if err != nil || name == "" {
		return name, required, err
	}
	w.Key(name)
	w.Open()
	w.NameString("type", typ)
	w.NameString("description", desc)
	if def.Exists() {
		w.Name("default")
		w.Raw(def.Raw)
	}
	if enum.Exists() {
		w.Name("enum")
		w.Raw(enum.Raw)
	}
	w.Close()
	return name, required, nil
}

// writeCapabilities writes the capability declaration array: the source's
// own when it was fuse, else one capability per Tool.Capability group (in
// order of first appearance; defaultCapability for tools that name none),
// each tool an action.
func (c *Codec) writeCapabilities(w *jsonw.Writer, env *canonical.Envelope, ctx *dialects.EncodeContext) {
	caps := env.Capabilities
	if caps != nil && caps.Dialect == Name && caps.Raw != "" {
		w.Raw(string(caps.Raw))
		return
	}
	w.OpenArray()
	if caps == nil {
		w.CloseArray()
		ctx.Fill(canonical.CCapabilities, capsPath, "[]")
		return
	}
	if len(caps.Topics) > 0 {
		ctx.Lose(dialects.Approximated, canonical.CCapabilities, canonical.CCapabilities.String(),
			"fuse declarations have no topics; dropped "+strconv.Quote(strings.Join(caps.Topics, ", ")))
	}
	var groups []string
	seen := map[string]bool{}
	for _, t := range caps.Tools {
		g := groupOf(t)
		if !seen[g] {
			seen[g] = true
			groups = append(groups, g)
		}
	}
	for _, g := range groups {
		w.Open()
		w.Name("id")
		w.String(g)
		w.Name("name")
		w.String(g)
		w.NameString("version", groupVersion(caps.Tools, g, ctx))
		w.Name("actions")
		w.OpenArray()
		for i := range caps.Tools {
			if groupOf(caps.Tools[i]) == g {
				c.writeAction(w, &caps.Tools[i], ctx)
			}
		}
		w.CloseArray()
		w.Close()
	}
	w.CloseArray()
}

// groupVersion returns the version of capability g: its tools', the first
// one declared when they differ, which is reported.
func groupVersion(tools []canonical.Tool, g string, ctx *dialects.EncodeContext) string {
	version := ""
	for _, t := range tools {
		switch {
		case groupOf(t) != g || t.Version == "" || t.Version == version:
		case version == "":
			version = t.Version
		default:
			ctx.Lose(dialects.Approximated, canonical.CCapabilities, canonical.CCapabilities.String(),
				"fuse versions a capability, not an action; capability "+strconv.Quote(g)+" written as version "+
					strconv.Quote(version)+", though its action "+strconv.Quote(t.Name)+" declared "+strconv.Quote(t.Version))
		}
	}
	return version
}

func groupOf(t canonical.Tool) string {
	if t.Capability == "" {
		return defaultCapability
	}
	return t.Capability
}

// writeAction writes one Tool as an action.
func (c *Codec) writeAction(w *jsonw.Writer, t *canonical.Tool, ctx *dialects.EncodeContext) {
	id := t.Name
	if id == "" {
		id = "unknown"
		ctx.Fill(canonical.CCapabilities, capsPath+".actions.id", id)
	}
	title := t.Title
	if title == "" {
		title = id
	}
	w.Open()
	w.Name("id")
	w.String(id)
	w.Name("name")
	w.String(title)
	w.NameString("description", t.Description)
	if t.InputSchema != "" {
		c.writeParameters(w, id, t.InputSchema, ctx)
	}
	w.RawField("returns", string(t.OutputSchema))
	w.Close()
}

// The members of a JSON Schema that a parameter list can say: of the object
// schema, and of each property.
var (
	objectSchemaKeys   = map[string]bool{"type": true, "properties": true, "required": true, "$schema": true}
	propertySchemaKeys = map[string]bool{"type": true, "description": true, "default": true, "enum": true}
)

// writeParameters writes "parameters", a list built from an object schema's
// properties and required list. What the list cannot say (other schema
// keywords, a type that is not one name, a schema that is not an object
// schema) is reported as approximated.
func (c *Codec) writeParameters(w *jsonw.Writer, action string, schema canonical.JSON, ctx *dialects.EncodeContext) {
	s := gjson.Parse(string(schema))
	lossy := func(detail string) {
		ctx.Lose(dialects.Approximated, canonical.CCapabilities, canonical.CCapabilities.String(),
			"action "+strconv.Quote(action)+": fuse parameter lists "+detail)
	}
	if !s.IsObject() || (s.Get("type").Exists() && s.Get("type").String() != "object") {
		lossy("describe object arguments only; input schema " + clip(string(schema)) + " not written")
		return
	}
	w.Name("parameters")
	w.OpenArray()
	defer w.CloseArray()
	required := map[string]bool{}
	s.Get("required").ForEach(func(_, r gjson.Result) bool {
		name := r.String()
		if r.Type == gjson.String {
			name = dialects.Text(r)
		}
		required[name] = true
		return true
	})
	extra := ""
	s.ForEach(func(k, _ gjson.Result) bool {
		if !objectSchemaKeys[k.Str] {
			extra += " " + k.Str
		}
		return true
	})
	props := s.Get("properties")
	if props.Exists() && !props.IsObject() {
		extra += " properties"
	}
	props.ForEach(func(k, p gjson.Result) bool {
		if !props.IsObject() {
			return false
		}
		if k.Str == "" {
			extra += ` ""`
			return true
		}
		if !p.IsObject() {
			extra += " " + k.Str
		}
		w.Open()
		w.Name("name")
		w.String(dialects.Text(k))
		if t := p.Get("type"); t.Type == gjson.String {
			w.Name("type")
			w.String(dialects.Text(t))
		} else if t.Exists() {
			extra += " " + k.Str + ".type"
		}
		w.Name("required")
		w.Bool(required[dialects.Text(k)])
		if d := p.Get("description"); d.Type == gjson.String {
			w.Name("description")
			w.String(dialects.Text(d))
		} else if d.Exists() {
			extra += " " + k.Str + ".description"
		}
		if d := p.Get("default"); d.Exists() {
			w.Name("default")
			w.Raw(d.Raw)
		}
		if e := p.Get("enum"); e.IsArray() {
			w.Name("enum")
			w.Raw(e.Raw)
		} else if e.Exists() {
			extra += " " + k.Str + ".enum"
		}
		p.ForEach(func(pk, _ gjson.Result) bool {
			if !propertySchemaKeys[pk.Str] {
				extra += " " + k.Str + "." + pk.Str
			}
			return true
		})
		w.Close()
		return true
	})
	if extra != "" {
		lossy("have no place for schema keywords:" + extra)
	}
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}
