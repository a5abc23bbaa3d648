package engine

import "github.com/prometheus/client_golang/prometheus"

// Metrics are the engine's Prometheus metrics, served on --metrics-listen
// at /metrics.
type Metrics struct {
	Registry   *prometheus.Registry
	sessions   prometheus.Gauge
	statements *prometheus.CounterVec
}

func newMetrics() *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		sessions: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: "weir", Name: "sessions", Help: "Open client sessions.",
		}),
		statements: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "weir", Name: "statements_total", Help: "Executed statements by kind.",
		}, []string{"kind"}),
	}
	m.Registry.MustRegister(m.sessions, m.statements,
		prometheus.NewGoCollector(), prometheus.NewProcessCollector(prometheus.ProcessCollectorOpts{}))
	return m
}
