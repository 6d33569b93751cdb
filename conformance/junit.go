package conformance

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// The JUnit XML document --junit writes: a testsuite per section of the
// dialect's spec, a testcase per requirement. A failed MUST is a
// <failure>; a failed SHOULD passes with a <system-out> that starts with
// "warn" and a property status=warn, as JUnit has no warnings; a skipped
// requirement is <skipped>.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name       string          `xml:"name,attr"`
	Classname  string          `xml:"classname,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Failure    *junitMessage   `xml:"failure"`
	Skipped    *junitMessage   `xml:"skipped"`
	SystemOut  string          `xml:"system-out,omitempty"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the report as JUnit XML.
func (r *Report) WriteJUnit(w io.Writer) error {
	doc := junitSuites{Name: "mcp-bridge conformance " + r.Dialect, Time: seconds(r.Duration.Seconds())}
	order, by := r.sections()
	for _, section := range order {
		s := junitSuite{Name: r.Dialect + ": " + r.Spec + " " + section}
		var total float64
		for _, res := range by[section] {
			c := junitCase{
				Name: res.ID, Classname: "conformance." + r.Dialect, Time: seconds(res.Duration.Seconds()),
				Properties: []junitProperty{{"level", string(res.Level)}, {"status", string(res.Status)}, {"section", res.Section}, {"title", res.Title}},
			}
			total += res.Duration.Seconds()
			switch res.Status {
			case Fail:
				c.Failure = &junitMessage{Message: res.Detail, Type: string(res.Level), Text: evidence(res)}
				s.Failures++
			case Warn:
				c.SystemOut = "warn (SHOULD): " + res.Detail + "\n" + evidence(res)
			case Skip:
				c.Skipped = &junitMessage{Message: res.Detail}
				s.Skipped++
			}
			s.Tests++
			s.Cases = append(s.Cases, c)
		}
		s.Time = seconds(total)
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Skipped += s.Skipped
		doc.Suites = append(doc.Suites, s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func seconds(s float64) string { return fmt.Sprintf("%.3f", s) }

// evidence is the frame, path and rule of a result, as lines of text.
func evidence(res Result) string {
	var b strings.Builder
	if res.Frame != "" {
		fmt.Fprintf(&b, "frame: %s\n", res.Frame)
	}
	if res.Rule != "" {
		path := res.Path
		if path == "" {
			path = "(the message)"
		}
		fmt.Fprintf(&b, "at %s: %s\n", path, res.Rule)
	}
	return b.String()
}
