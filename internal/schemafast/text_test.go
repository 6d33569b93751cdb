package schemafast

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"testing"
)

// escapePieces are the parts the unescape test strings are made of: plain
// text, every kind of escape, and surrogate escapes that pair and that do
// not.
var escapePieces = []string{
	`a`, `é`, `\n`, `\t`, `\b`, `\f`, `\r`, `\"`, `\\`, `\/`, `\u0041`, `\u00e9`, `\u0000`, `\uFFFD`,
	`\ud83d`, `\ude00`, `\uD800`, `\uDBFF`, `\uDC00`, `\uDFFF`, `\u005c`,
}

// TestUnescape checks unescape against encoding/json on every string of up
// to three pieces.
func TestUnescape(t *testing.T) {
	var all []string
	var grow func(s string, n int)
	grow = func(s string, n int) {
		all = append(all, s)
		if n == 0 {
			return
		}
		for _, p := range escapePieces {
			grow(s+p, n-1)
		}
	}
	grow("", 3)
	for _, raw := range all {
		var want string
		if err := json.Unmarshal([]byte(`"`+raw+`"`), &want); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if got := string(unescape(nil, []byte(raw))); got != want {
			t.Errorf("unescape(%s) = %q, want %q", raw, got, want)
		}
	}
}

// numberTexts are numbers of JSON's grammar, compared with one another.
var numberTexts = []string{
	"0", "-0", "0.0", "0e5", "1", "-1", "1.0", "1.00", "10", "1e1", "1E+1", "100e-1", "0.1", "1e-1",
	"0.10", "-0.1", "2", "1.5", "15e-1", "0.15e1", "300", "300.0000000000000001", "299.9999", "3e2",
	"123456789012345678901234567890", "123456789012345678901234567891", "1.5e-400", "-1e400", "1e400",
	"0.000001", "1e-6", "-5", "-4.99", "999.5", "1000", "1e3", "0.5", "5e-1",
}

// TestDecimal checks parseDecimal's comparisons and whole numbers
// against math/big's, which the library uses.
func TestDecimal(t *testing.T) {
	for _, a := range numberTexts {
		x, ok := parseDecimal([]byte(a))
		if !ok {
			t.Fatalf("%s: not read", a)
		}
		ra, _ := new(big.Rat).SetString(a)
		if x.integer() != ra.IsInt() {
			t.Errorf("%s: integer() = %v, want %v", a, x.integer(), ra.IsInt())
		}
		for _, b := range numberTexts {
			y, _ := parseDecimal([]byte(b))
			rb, _ := new(big.Rat).SetString(b)
			if got, want := x.cmp(&y), ra.Cmp(rb); got != want {
				t.Errorf("cmp(%s, %s) = %d, want %d", a, b, got, want)
			}
		}
	}
	for _, s := range []string{"", "-", ".", "-.", "1e", "1e+", "1.2.3", "1x", "1e10001", "1e-10001",
		"1" + strings.Repeat("2", maxDigits), "0." + strings.Repeat("0", maxNumber)} {
		if _, ok := parseDecimal([]byte(s)); ok {
			t.Errorf("%q: read, want refused", s)
		}
	}
	for _, s := range []string{"1" + strings.Repeat("0", maxDigits), "0." + strings.Repeat("0", maxDigits) + "1"} {
		x, ok := parseDecimal([]byte(s))
		r, _ := new(big.Rat).SetString(s)
		if !ok || x.integer() != r.IsInt() {
			t.Errorf("%s: read %v, integer %v", s, ok, x.integer())
		}
	}
}

// TestCanonicalDateTime checks that every date-time the fast path accepts
// by itself, the library's check accepts, and that over the whole range of
// each field the two agree on the canonical form.
func TestCanonicalDateTime(t *testing.T) {
	lib := builtinDateTime()
	if lib == nil {
		t.Fatal("no library date-time check")
	}
	check := func(s string) {
		t.Helper()
		got, want := canonicalDateTime([]byte(s)), lib(s) == nil
		if got && !want {
			t.Errorf("%q: the fast path accepts, the library refuses", s)
		}
	}
	agree := func(s string) {
		t.Helper()
		if got, want := canonicalDateTime([]byte(s)), lib(s) == nil; got != want {
			t.Errorf("%q: the fast path accepts %v, the library %v", s, got, want)
		}
	}
	for _, y := range []int{0, 1, 1900, 2000, 2023, 2024, 2100, 9999} {
		for m := 0; m <= 13; m++ {
			for d := 0; d <= 32; d++ {
				agree(fmt.Sprintf("%04d-%02d-%02dT12:00:00Z", y, m, d))
			}
		}
	}
	for h := 0; h <= 24; h++ {
		for mi := 0; mi <= 60; mi += 5 {
			agree(fmt.Sprintf("2026-01-10T%02d:%02d:%02dz", h, mi, mi))
			agree(fmt.Sprintf("2026-01-10t10:00:00.5+%02d:%02d", h, mi))
			agree(fmt.Sprintf("2026-01-10T10:00:00-%02d:%02d", h, mi))
		}
	}
	for _, s := range []string{
		"2026-01-10T14:30:00Z", "2026-01-10T14:30:00.123456789Z", "2026-01-10T14:30:00+05:30",
		"2026-01-10T14:30:00.Z", "2026-01-10T14:30:00", "2026-01-10 14:30:00Z", "2026-01-10T14:30Z",
		"2026-01-10T14:30:00+0530", "2026-01-10T14:30:00+05:3x", "2026-01-10T14:30:00ZZ",
		"+026-01-10T14:30:00Z", "2026-+1-10T14:30:00Z", "2026-01-10T+4:30:00Z", "2026-01-10T14:30:00+-5:30",
		"1998-12-31T23:59:60Z", "1998-12-31T15:59:60-08:00", "2026-01-10T14:30:60Z", "２０２６-01-10T14:30:00Z",
		"2026-01-10T14:30:00.٣Z",
	} {
		check(s)
	}
	if !canonicalDateTime([]byte("2026-01-10T14:30:00Z")) {
		t.Error("a plain date-time is left to the library")
	}
}
