package kafka

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// BenchmarkSinkGuarantee measures records/s of the exactly-once writer and
// of the at-least-once writer on the embedded broker, in one run, and
// reports their ratio. Each epoch writes 10,000 100-byte records and ends
// with a barrier: PreCommit and, for exactly-once, Commit. Epochs are
// short (10,000 records), so the per-epoch transaction cost shows; the
// broker runs in the same process on the same cores.
func BenchmarkSinkGuarantee(b *testing.B) {
	const perEpoch = 10000
	broker := startBroker(b, BrokerOptions{})
	value := make([]byte, 100)
	for i := range value {
		value[i] = 'a' + byte(i%26)
	}
	recs := make([]Record, perEpoch)
	for i := range recs {
		recs[i] = Record{Key: fmt.Appendf(nil, "k%d", i%1000), Value: value}
	}
	run := func(g Guarantee, epochs int) float64 {
		ctx := context.Background()
		w, err := NewSinkWriter(ctx, SinkConfig{Brokers: []string{broker.Addr()}, Topic: "bench-" + g.String(),
			SinkID: "bench", Guarantee: g, Logger: quiet})
		if err != nil {
			b.Fatal(err)
		}
		defer w.Close()
		// Epoch 0 warms up: topic creation, connections, producer ids.
		var start time.Time
		for e := 0; e <= epochs; e++ {
			if e == 1 {
				start = time.Now()
			}
			if err := w.BeginEpoch(uint64(e)); err != nil {
				b.Fatal(err)
			}
			if err := w.Write(ctx, recs...); err != nil {
				b.Fatal(err)
			}
			rec, err := w.PreCommit(ctx)
			if err != nil {
				b.Fatal(err)
			}
			w.TakeDone()
			if err := w.Commit(ctx, rec); err != nil {
				b.Fatal(err)
			}
		}
		return float64(epochs*perEpoch) / time.Since(start).Seconds()
	}
	var eo, alo float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		alo += run(AtLeastOnce, 10)
		eo += run(ExactlyOnce, 10)
	}
	eo, alo = eo/float64(b.N), alo/float64(b.N)
	b.ReportMetric(eo, "eo-rec/s")
	b.ReportMetric(alo, "alo-rec/s")
	b.ReportMetric(eo/alo, "eo/alo")
}
