package translate

import (
	"strings"

	"github.com/mcp-bridge/mcp-bridge/internal/jsonw"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// The payload edits work on the text of one raw JSON field. Where gjson can
// say where a value sits (Result.Index), an edit is one splice of that text;
// sjson does the rest (members that do not exist yet, array elements).

// at returns the value at path in raw, and whether raw[v.Index:] holds it.
func at(raw, path string) (v gjson.Result, placed bool) {
	v = gjson.Get(raw, path)
	placed = v.Exists() && v.Index > 0 && v.Index+len(v.Raw) <= len(raw) && raw[v.Index:v.Index+len(v.Raw)] == v.Raw
	return v, placed
}

// splice returns raw with raw[from:to] replaced by with.
func splice(raw string, from, to int, with string) string {
	var b strings.Builder
	b.Grow(len(raw) - (to - from) + len(with))
	b.WriteString(raw[:from])
	b.WriteString(with)
	b.WriteString(raw[to:])
	return b.String()
}

// keyBefore returns where the member name of the object member whose value
// starts at i begins and ends; ok is false when the value is not an object
// member (an array element).
func keyBefore(raw string, i int) (start, end int, ok bool) {
	j := skipSpaceBack(raw, i-1)
	if j < 0 || raw[j] != ':' {
		return 0, 0, false
	}
	j = skipSpaceBack(raw, j-1)
	if j < 0 || raw[j] != '"' {
		return 0, 0, false
	}
	end = j + 1
	for j--; j >= 0; j-- {
		if raw[j] == '"' && !escaped(raw, j) {
			return j, end, true
		}
	}
	return 0, 0, false
}

// escaped reports whether the character at i follows an odd run of
// backslashes.
func escaped(raw string, i int) bool {
	n := 0
	for k := i - 1; k >= 0 && raw[k] == '\\'; k-- {
		n++
	}
	return n%2 == 1
}

func skipSpaceBack(raw string, i int) int {
	for i >= 0 && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i--
	}
	return i
}

func skipSpace(raw string, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}

// setText puts the JSON value with at path in raw: over the value there, or
// as a new last member of the object that is to hold it.
func setText(raw, path, with string) (string, error) {
	v, placed := at(raw, path)
	if placed {
		return splice(raw, v.Index, v.Index+len(v.Raw), with), nil
	}
	if !v.Exists() {
		if out, ok := insertMember(raw, path, with); ok {
			return out, nil
		}
	}
	return sjson.SetRaw(raw, path, with)
}

// insertMember adds a member to the object at path's parent, when that
// object exists and path's last segment names a member.
func insertMember(raw, path, with string) (string, bool) {
	parentPath, key := "", path
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		parentPath, key = path[:i], path[i+1:]
	}
	if key == "" || key[0] >= '0' && key[0] <= '9' { // an array index
		return raw, false
	}
	var obj string
	var start int
	if parentPath == "" {
		start = skipSpace(raw, 0)
		obj = strings.TrimRight(raw[start:], " \t\r\n")
	} else {
		p, placed := at(raw, parentPath)
		if !placed {
			return raw, false
		}
		start, obj = p.Index, p.Raw
	}
	if len(obj) < 2 || obj[0] != '{' || obj[len(obj)-1] != '}' {
		return raw, false
	}
	closing := start + len(obj) - 1
	member := make([]byte, 0, len(key)+len(with)+4)
	if skipSpace(obj, 1) < len(obj)-1 { // not empty: follow the last member
		member = append(member, ',')
	}
	member = jsonw.AppendString(member, key)
	member = append(member, ':')
	member = append(member, with...)
	return splice(raw, closing, closing, string(member)), true
}

// deleteText removes the member or element at path from raw; a path that is
// not there leaves raw as it is.
func deleteText(raw, path string) (string, error) {
	v, placed := at(raw, path)
	if !v.Exists() {
		return raw, nil
	}
	if !placed {
		return sjson.Delete(raw, path)
	}
	start, _, ok := keyBefore(raw, v.Index)
	if !ok {
		return sjson.Delete(raw, path)
	}
	end := v.Index + len(v.Raw)
	if k := skipSpace(raw, end); k < len(raw) && raw[k] == ',' {
		end = skipSpace(raw, k+1) // the member and the comma after it
	} else if k := skipSpaceBack(raw, start-1); k >= 0 && raw[k] == ',' {
		start = k // the last member: the comma before it
	}
	return splice(raw, start, end, ""), nil
}

// renameText gives the object member at path the name key, unless its
// object already has a member called key.
func renameText(raw, path, parentPath, key string) (string, bool) {
	v, placed := at(raw, path)
	if !placed {
		return raw, false
	}
	sibling := key
	if parentPath != "" {
		sibling = parentPath + "." + key
	}
	if gjson.Get(raw, sibling).Exists() {
		return raw, false
	}
	start, end, ok := keyBefore(raw, v.Index)
	if !ok {
		return raw, false
	}
	return splice(raw, start, end, string(jsonw.AppendString(nil, key))), true
}

// wrapped returns {"key": value}.
func wrapped(key, value string) string {
	b := make([]byte, 0, len(key)+len(value)+5)
	b = append(b, '{')
	b = jsonw.AppendString(b, key)
	b = append(b, ':')
	b = append(b, value...)
	return string(append(b, '}'))
}
