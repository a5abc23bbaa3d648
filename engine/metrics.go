package engine

import (
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the engine's Prometheus metrics, served on --metrics-listen
// at /metrics.
type Metrics struct {
	Registry   *prometheus.Registry
	sessions   prometheus.Gauge
	statements *prometheus.CounterVec
	// kinds holds statements' counter per command tag (string ->
	// prometheus.Counter): a statement's count is then a map load, not
	// a label lookup.
	kinds sync.Map
}

// countStatement counts a statement of the kind its command tag names
// (INSERT, SELECT, ...).
func (m *Metrics) countStatement(tag string) {
	c, ok := m.kinds.Load(tag)
	if !ok {
		c, _ = m.kinds.LoadOrStore(tag, m.statements.WithLabelValues(strings.ToLower(tag)))
	}
	c.(prometheus.Counter).Inc()
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
