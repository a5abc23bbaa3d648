package testenv

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Metrics is one scrape of a Prometheus /metrics endpoint: every sample
// by metric name. A histogram or summary appears as its _count and _sum
// series (and _bucket for a histogram), as PromQL sees it.
type Metrics map[string][]Sample

// Sample is one series' labels and value.
type Sample struct {
	Labels map[string]string
	Value  float64
}

// Scrape reads http://addr/metrics and parses it. It fails the test when
// the endpoint does not answer or its text does not parse.
func Scrape(t testing.TB, addr string) Metrics {
	t.Helper()
	m, err := ScrapeErr(addr)
	if err != nil {
		t.Fatalf("scraping %s: %v", addr, err)
	}
	return m
}

// ScrapeErr is Scrape returning its error.
func ScrapeErr(addr string) (Metrics, error) {
	cl := &http.Client{Timeout: 30 * time.Second}
	resp, err := cl.Get("http://" + addr + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return nil, fmt.Errorf("status %s: %s", resp.Status, b)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, err
	}
	out := Metrics{}
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			add := func(suffix string, v float64, extra ...string) {
				ls := labels
				if len(extra) > 0 {
					ls = map[string]string{}
					for k, v := range labels {
						ls[k] = v
					}
					ls[extra[0]] = extra[1]
				}
				out[name+suffix] = append(out[name+suffix], Sample{Labels: ls, Value: v})
			}
			switch f.GetType() {
			case dto.MetricType_COUNTER:
				add("", m.GetCounter().GetValue())
			case dto.MetricType_GAUGE:
				add("", m.GetGauge().GetValue())
			case dto.MetricType_UNTYPED:
				add("", m.GetUntyped().GetValue())
			case dto.MetricType_HISTOGRAM:
				h := m.GetHistogram()
				add("_count", float64(h.GetSampleCount()))
				add("_sum", h.GetSampleSum())
				for _, b := range h.GetBucket() {
					add("_bucket", float64(b.GetCumulativeCount()), "le", fmt.Sprint(b.GetUpperBound()))
				}
			case dto.MetricType_SUMMARY:
				s := m.GetSummary()
				add("_count", float64(s.GetSampleCount()))
				add("_sum", s.GetSampleSum())
			}
		}
	}
	return out, nil
}

// Value returns the value of the one series of name whose labels include
// match (pairs of label name and value), and false when there is none.
// More than one matching series is summed.
func (m Metrics) Value(name string, match ...string) (float64, bool) {
	var sum float64
	found := false
	for _, s := range m[name] {
		ok := true
		for i := 0; i+1 < len(match); i += 2 {
			if s.Labels[match[i]] != match[i+1] {
				ok = false
			}
		}
		if ok {
			sum += s.Value
			found = true
		}
	}
	return sum, found
}

// Names returns the metric names of the scrape, sorted.
func (m Metrics) Names() []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Series renders the series of name whose labels include match, one per
// line, for failure messages.
func (m Metrics) Series(name string, match ...string) string {
	var lines []string
	for _, s := range m[name] {
		ok := true
		for i := 0; i+1 < len(match); i += 2 {
			if s.Labels[match[i]] != match[i+1] {
				ok = false
			}
		}
		if !ok {
			continue
		}
		var ls []string
		for k, v := range s.Labels {
			ls = append(ls, k+"="+fmt.Sprintf("%q", v))
		}
		slices.Sort(ls)
		lines = append(lines, fmt.Sprintf("%s{%s} %g", name, strings.Join(ls, ","), s.Value))
	}
	return strings.Join(lines, "\n")
}
