package config

import (
	"fmt"
	"math"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// checkListen says what is wrong with a listen address, or "".
func checkListen(s string) string {
	_, port, err := net.SplitHostPort(s)
	if err != nil {
		if ae, ok := err.(*net.AddrError); ok {
			return ae.Err
		}
		return err.Error()
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return fmt.Sprintf("port %q is not a number from 0 to 65535", port)
	}
	return ""
}

// sizeUnits are the suffixes a size may have, in bytes.
var sizeUnits = []struct {
	suffix string
	bytes  int64
}{
	{"KiB", 1 << 10},
	{"MiB", 1 << 20},
	{"KB", 1000},
	{"MB", 1000 * 1000},
}

// parseSize reads a positive size in bytes: an integer, or an integer with
// a KiB, MiB, KB or MB suffix. It says what is wrong, or "".
func parseSize(s string) (int, string) {
	bad := fmt.Sprintf("%q is not a size (integer bytes, or with KiB, MiB, KB, MB: 1MiB)", s)
	num, mult := s, int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(s, u.suffix) {
			num, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.bytes
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 0, fmt.Sprintf("%q is too large", s)
		}
		return 0, bad
	}
	if n <= 0 {
		return 0, fmt.Sprintf("must be more than 0 bytes, got %q", s)
	}
	if n > math.MaxInt/mult {
		return 0, fmt.Sprintf("%q is too large", s)
	}
	return int(n * mult), ""
}

// parseDuration reads a positive Go duration. It says what is wrong, or "".
func parseDuration(s string) (time.Duration, string) {
	v, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Sprintf("%q is not a duration (30s, 500ms, 2m)", s)
	}
	if v <= 0 {
		return 0, fmt.Sprintf("must be more than 0, got %q", s)
	}
	return v, ""
}

// checkURL says what is wrong with an agent's URL, given the schemes its
// reach allows, or "".
func checkURL(s string, schemes ...string) string {
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
