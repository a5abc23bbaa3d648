package kafka

import (
	"syscall"
	"testing"
	"time"

	"github.com/weirdb/weir/types"
)

// benchBid is a Nexmark bid as RisingWave's Kafka benchmark writes it.
var benchBid = []byte(`{"auction":1007,"bidder":2001,"price":1234567,"channel":"channel-4321","url":"https://www.nexmark.com/abc/d_ef/ghij/item.htm?query=1&channel_id=1234567","date_time":"2026-01-01 00:00:01.234","extra":"qwertyuiopasdfghjklzxcvbnmqwertyuiopasdfghjklzxcvbnmqwertyuiopasdfghjkl"}`)

var benchBidSchema = types.Schema{
	{Name: "auction", T: types.TInt8}, {Name: "bidder", T: types.TInt8}, {Name: "price", T: types.TInt8},
	{Name: "channel", T: types.TVarchar}, {Name: "url", T: types.TVarchar}, {Name: "date_time", T: types.TTimestamp},
	{Name: "extra", T: types.TVarchar},
}

// BenchmarkJSONDecodeBid measures decoding one bid into a row.
func BenchmarkJSONDecodeBid(b *testing.B) {
	d := NewJSONDecoder(benchBidSchema, time.UTC)
	b.SetBytes(int64(len(benchBid)))
	b.ReportAllocs()
	c0 := threadCPU()
	for b.Loop() {
		if _, err := d.Decode(benchBid); err != nil {
			b.Fatal(err)
		}
	}
	// On a shared machine wall time per op says little; CPU time of the
	// process does (the benchmark runs on one goroutine, GC aside).
	b.ReportMetric(float64(threadCPU()-c0)/float64(b.N), "cpu-ns/op")
}

// threadCPU is the process's user + system CPU time in nanoseconds.
func threadCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
