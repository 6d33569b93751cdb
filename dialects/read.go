package dialects

import (
	"unsafe"

	"github.com/tidwall/gjson"
)

// Reader checks the types of fields as a decoder reads them, and words its
// errors with the dialect's name and the field's path.
type Reader struct {
	Dialect string
}

// Parse checks that msg is a JSON object in UTF-8 (CheckInput) and returns
// it. The result, and every value read from it, shares msg's memory: Parse
// takes ownership of msg, as Decoder.Decode does.
func (r Reader) Parse(msg []byte) (gjson.Result, error) {
	if err := CheckInput(r.Dialect, msg); err != nil {
		return gjson.Result{}, err
	}
	v := parseInPlace(msg)
	if !v.IsObject() {
		return gjson.Result{}, &Error{Dialect: r.Dialect, Problem: "a message must be a JSON object, got " + TypeName(v)}
	}
	return v, nil
}

// parseInPlace parses msg without copying it: the result, and every value
// read from it, shares msg's memory.
func parseInPlace(msg []byte) gjson.Result {
	return gjson.Parse(unsafe.String(unsafe.SliceData(msg), len(msg)))
}

// String returns v's text; v must be a string (null counts as absent when
// nullOK).
func (r Reader) String(path string, v gjson.Result, nullOK bool) (string, error) {
	switch {
	case v.Type == gjson.String:
		return Text(v), nil
	case v.Type == gjson.Null && nullOK:
		return "", nil
	}
	return "", r.typeErr(path, "a string", v)
}

// StringAt is String for the member key of the object at parent: the
// member's path (Join) is made for an error only.
func (r Reader) StringAt(parent, key string, v gjson.Result, nullOK bool) (string, error) {
	if v.Type == gjson.String {
		return Text(v), nil
	}
	return r.String(Join(parent, key), v, nullOK)
}

// Object checks that v is an object.
func (r Reader) Object(path string, v gjson.Result) error {
	if v.IsObject() {
		return nil
	}
	return r.typeErr(path, "an object", v)
}

// Array checks that v is an array.
func (r Reader) Array(path string, v gjson.Result) error {
	if v.IsArray() {
		return nil
	}
	return r.typeErr(path, "an array", v)
}

// Bool returns v's value; v must be true or false.
func (r Reader) Bool(path string, v gjson.Result) (bool, error) {
	if v.Type == gjson.True || v.Type == gjson.False {
		return v.Bool(), nil
	}
	return false, r.typeErr(path, "true or false", v)
}

// Number returns v's value; v must be a number.
func (r Reader) Number(path string, v gjson.Result) (float64, error) {
	if v.Type == gjson.Number {
		return v.Num, nil
	}
	return 0, r.typeErr(path, "a number", v)
}

// Int returns v's value; v must be a whole number.
func (r Reader) Int(path string, v gjson.Result) (int64, error) {
	if v.Type == gjson.Number && v.Num == float64(int64(v.Num)) {
		return int64(v.Num), nil
	}
	return 0, r.typeErr(path, "a whole number", v)
}

func (r Reader) typeErr(path, want string, v gjson.Result) *Error {
	return &Error{Dialect: r.Dialect, Path: path, Problem: "must be " + want + ", got " + TypeName(v)}
}

// Errorf returns an *Error of the reader's dialect.
func (r Reader) Errorf(path, format string, args ...any) *Error {
	return Errorf(r.Dialect, path, format, args...)
}

// TypeName names the JSON type of v for error messages.
func TypeName(v gjson.Result) string {
	switch v.Type {
	case gjson.Null:
		return "null"
	case gjson.False, gjson.True:
		return "a boolean"
	case gjson.Number:
		return "a number (" + v.Raw + ")"
	case gjson.String:
		return "a string"
	}
	if v.IsArray() {
		return "an array"
	}
	return "an object"
}
