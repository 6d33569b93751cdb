package config

import (
	"errors"
	"fmt"
	"net"
	"os"

	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/mcp-bridge/mcp-bridge/internal/located"
	"github.com/mcp-bridge/mcp-bridge/mappings"
)

// LoadAll reads the config file at path and checks it whole: its own keys,
// the mapping files it names and those of extra (the --mapping flags), and
// its agents' dialects against the built-in ones and those the mapping
// files declare. Every problem of every file is reported at once, each
// with its file:line, in an Errors.
func LoadAll(path string, extra []string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	d := newDecoder(path, nil)
	c := d.decode(data)
	errs := d.sorted()
	names, merrs := dialectNames(append(append([]string(nil), c.Mappings...), extra...))
	errs = append(errs, merrs...)
	var derrs Errors
	if errors.As(c.CheckDialects(names), &derrs) {
		errs = append(errs, derrs...)
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	return c, nil
}

// dialectNames returns the dialects there are with the mapping files
// layered over the defaults, and the problems of those files.
func dialectNames(files []string) ([]string, Errors) {
	var errs Errors
	m, err := mappings.Defaults()
	if err != nil {
		return builtin.Names, Errors{{File: "mappings/defaults", Line: 1, Msg: err.Error()}}
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			errs = append(errs, &located.Error{File: f, Line: 1, Msg: fmt.Sprintf("cannot read the mapping file: %v", err)})
			continue
		}
		var merrs mappings.Errors
		if err := m.Add(f, data); errors.As(err, &merrs) {
			errs = append(errs, merrs...)
		} else if err != nil {
			errs = append(errs, &located.Error{File: f, Line: 1, Msg: err.Error()})
		}
	}
	reg, err := builtin.Registry(m)
	if err != nil {
		return builtin.Names, append(errs, &located.Error{File: "mappings", Line: 1, Msg: err.Error()})
	}
	return reg.Names(), errs
}

// Loopback reports whether the listen address host:port is on a loopback
// interface only.
func Loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
