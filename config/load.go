package config

import (
	"errors"
	"fmt"
	"github.com/mcp-bridge/mcp-bridge/internal/spec"
	"net"
	"os"

	"github.com/mcp-bridge/mcp-bridge/dialects"
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
	c, _, err := loadAll(path, extra)
	return c, err
}

// loadAll is LoadAll, also returning the decoded values for show.
func loadAll(path string, extra []string) (*Config, *spec.Value, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read config: %w", err)
	}
	root, errs := checkAll(path, data, extra)
	if len(errs) > 0 {
		return nil, nil, errs
	}
	return bind(root, path), root, nil
}

// checkAll decodes a config file's text and checks it whole, with the
// mapping files it names and extra. It returns the decoded values, and
// every problem in file and line order.
func checkAll(name string, data []byte, extra []string) (*spec.Value, Errors) {
	root, d := decodeFile(name, data)
	// The mapping files are loaded whatever else is wrong, for their own
	// problems and the dialects they declare.
	names, merrs := dialectNames(append(root.Strs("mappings"), extra...))
	if root != nil {
		checkDialects(d, root, names)
	}
	errs := append(d.Errors(), merrs...)
	errs.Sort()
	return root, errs
}

// dialectNames returns the dialects there are with the mapping files
// layered over the defaults, and the problems of those files.
func dialectNames(files []string) ([]string, Errors) {
	var errs Errors
	m := dialects.DefaultMappings()
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
		return dialects.Names(), append(errs, &located.Error{File: "mappings", Line: 1, Msg: err.Error()})
	}
	return reg.Names(), errs
}

// Loopback reports whether the listen address host:port is on a loopback
// interface only.
func Loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	return err == nil && loopbackHost(host)
}

// loopbackHost reports whether a host name or address is loopback.
func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
