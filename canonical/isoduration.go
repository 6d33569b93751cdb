package canonical

import (
	"errors"
	"strconv"
	"strings"
	"time"
)

var errISODuration = errors.New("not an ISO 8601 duration")

// ParseISODuration reads an ISO 8601 duration of days and time ("PT5M",
// "P1DT2H", "PT0.5S"). Years, months and weeks have no fixed length and are
// refused.
func ParseISODuration(s string) (time.Duration, error) {
	if len(s) < 3 || s[0] != 'P' {
		return 0, errISODuration
	}
	rest, inTime, total, seen := s[1:], false, time.Duration(0), false
	for rest != "" {
		if rest[0] == 'T' {
			if inTime {
				return 0, errISODuration
			}
			inTime, rest = true, rest[1:]
			continue
		}
		i := strings.IndexAny(rest, "DHMS")
		if i <= 0 {
			return 0, errISODuration
		}
		n, err := strconv.ParseFloat(rest[:i], 64)
		if err != nil || n < 0 {
			return 0, errISODuration
		}
		var unit time.Duration
		switch {
		case rest[i] == 'D' && !inTime:
			unit = 24 * time.Hour
		case rest[i] == 'H' && inTime:
			unit = time.Hour
		case rest[i] == 'M' && inTime:
			unit = time.Minute
		case rest[i] == 'S' && inTime:
			unit = time.Second
		default:
			return 0, errISODuration
		}
		total += time.Duration(n * float64(unit))
		rest, seen = rest[i+1:], true
	}
	if !seen {
		return 0, errISODuration
	}
	return total, nil
}

// FormatISODuration writes d as an ISO 8601 duration ("PT5M", "PT1.5S").
func FormatISODuration(d time.Duration) string {
	if d <= 0 {
		return "PT0S"
	}
	var b strings.Builder
	b.WriteString("PT")
	if h := d / time.Hour; h > 0 {
		b.WriteString(strconv.FormatInt(int64(h), 10) + "H")
		d -= h * time.Hour
	}
	if m := d / time.Minute; m > 0 {
		b.WriteString(strconv.FormatInt(int64(m), 10) + "M")
		d -= m * time.Minute
	}
	if d > 0 {
		b.WriteString(strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "S")
	}
	return b.String()
}
