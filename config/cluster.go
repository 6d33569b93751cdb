package config

import (
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Cluster configures a cluster of bridges on NATS (cluster:). With neither
// NATS nor Embedded the bridge runs alone.
type Cluster struct {
	NATS        string        // the NATS URL to join
	Name        string        // this instance's name (default: host name and a random suffix)
	Embedded    bool          // run a NATS server in the process, and join it
	Listen      string        // where the embedded NATS listens (default 127.0.0.1:4222)
	Prefix      string        // the subjects' prefix (default mcp-bridge)
	Credentials string        // a NATS credentials file
	Token       string        // a NATS token
	Heartbeat   time.Duration // how often the instance announces its agents (default 2s)
}

// DefaultClusterListen is where an embedded NATS listens by default.
const DefaultClusterListen = "127.0.0.1:4222"

// Enabled reports whether the bridge is to join a cluster.
func (c Cluster) Enabled() bool { return c.NATS != "" || c.Embedded }

const clusterKeys = "nats, name, embedded, listen, prefix, credentials, token, heartbeat"

// cluster reads the cluster section.
func (d *decoder) cluster(n *yaml.Node, c *Config) {
	if !d.mapping(n, "cluster", clusterKeys) {
		return
	}
	d.pairs("cluster.", n, func(k, v *yaml.Node) {
		at := "cluster." + k.Value
		switch k.Value {
		case "nats":
			c.Cluster.NATS = d.url(v, at, "a NATS URL (nats:// or tls://; several comma-separated)", "nats", "tls")
		case "name":
			if s, ok := d.scalar(v, at, "an instance name"); ok {
				if strings.ContainsAny(s, ".*> \t") {
					d.fail(v.Line, at, "%q has a character NATS subjects cannot hold (. * > or a space)", s)
					return
				}
				c.Cluster.Name = s
			}
		case "embedded":
			d.boolean(v, at, &c.Cluster.Embedded)
		case "listen":
			if s, ok := d.scalar(v, at, "host:port"); ok {
				if problem := checkListen(s); problem != "" {
					d.fail(v.Line, at, "%q is not host:port: %s", s, problem)
					return
				}
				c.Cluster.Listen = s
			}
		case "prefix":
			if s, ok := d.scalar(v, at, "a subject prefix"); ok {
				if strings.ContainsAny(s, "*> \t") || strings.HasPrefix(s, ".") || strings.HasSuffix(s, ".") {
					d.fail(v.Line, at, "%q is not a NATS subject prefix", s)
					return
				}
				c.Cluster.Prefix = s
			}
		case "credentials":
			if s, ok := d.scalar(v, at, "a credentials file"); ok {
				c.Cluster.Credentials = d.path(s)
			}
		case "token":
			c.Cluster.Token, _ = d.scalar(v, at, "a token")
		case "heartbeat":
			d.duration(v, at, &c.Cluster.Heartbeat)
		default:
			d.fail(k.Line, at, "unknown key (want %s)", clusterKeys)
		}
	})
}
