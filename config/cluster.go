package config

import "time"

// Cluster configures a cluster of bridges on NATS (cluster:). With neither
// NATS nor Embedded the bridge runs alone.
type Cluster struct {
	NATS        string        // the NATS URL to join
	Name        string        // this instance's name ("": the host name and a random suffix)
	Embedded    bool          // run a NATS server in the process, and join it
	Listen      string        // where the embedded NATS listens
	Prefix      string        // the subjects' prefix
	Credentials string        // a NATS credentials file
	Token       string        // a NATS token
	Heartbeat   time.Duration // how often the instance announces its agents
}

// Enabled reports whether the bridge is to join a cluster.
func (c Cluster) Enabled() bool { return c.NATS != "" || c.Embedded }
