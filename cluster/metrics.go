package cluster

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the cluster's Prometheus metrics.
type metrics struct {
	connected prometheus.Gauge       // bridge_cluster_connected
	instances prometheus.Gauge       // bridge_cluster_instances
	sent      *prometheus.CounterVec // bridge_cluster_messages_sent_total{kind}
	received  *prometheus.CounterVec // bridge_cluster_messages_received_total{kind}
}

func newMetrics(r prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		connected: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "bridge_cluster_connected", Help: "1 while this instance is connected to the cluster's NATS, 0 while not.",
		}),
		instances: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "bridge_cluster_instances", Help: "The other instances of the cluster heard from lately.",
		}),
		sent: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "bridge_cluster_messages_sent_total", Help: "Messages sent to the other instances, by kind (deliver, answer, snapshot, agent, bye).",
		}, []string{"kind"}),
		received: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "bridge_cluster_messages_received_total", Help: "Messages received from the other instances, by kind.",
		}, []string{"kind"}),
	}
	if r == nil {
		return m, nil
	}
	for _, c := range []prometheus.Collector{m.connected, m.instances, m.sent, m.received} {
		if err := r.Register(c); err != nil {
			return nil, errors.Join(errors.New("cluster: register metrics"), err)
		}
	}
	return m, nil
}
