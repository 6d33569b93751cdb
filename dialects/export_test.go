package dialects

import "github.com/tidwall/gjson"

// DocOf returns msg as s's fast path read it, for the tests: nil when the
// fast path does not vouch for msg.
func DocOf(s *Schema, msg []byte) *Doc {
	if fast := s.VouchDoc(msg); fast != nil {
		return newDoc(msg, fast)
	}
	return nil
}

// Located reports whether d reads v from the fast path's values rather
// than asking gjson.
func (d *Doc) Located(v gjson.Result) bool {
	_, _, ok := d.locate(v)
	return ok
}
