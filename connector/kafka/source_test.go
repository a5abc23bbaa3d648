package kafka

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/weirdb/weir/types"
)

var srcSchema = types.Schema{
	{Name: "id", T: types.TInt8, NotNull: true},
	{Name: "name", T: types.TText},
}

// produce writes value (nil = tombstone) with key to partition p and
// waits for the ack.
func produce(t *testing.T, cl *kgo.Client, topic string, p int32, key, value string) {
	t.Helper()
	r := &kgo.Record{Topic: topic, Partition: p}
	if key != "" {
		r.Key = []byte(key)
	}
	if value != "<nil>" {
		r.Value = []byte(value)
	}
	if err := cl.ProduceSync(context.Background(), r).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

func producer(t *testing.T, b *Broker, opts ...kgo.Opt) *kgo.Client {
	return newClient(t, append([]kgo.Opt{kgo.SeedBrokers(b.Addr()), kgo.RecordPartitioner(kgo.ManualPartitioner())}, opts...)...)
}

// pollRows polls until n rows arrived (failing after 15 s) and returns
// them printed as "p<partition>@<offset> <op> <row>", sorted.
func pollRows(t *testing.T, r *SourceReader, n int) []string {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	var got []string
	for len(got) < n {
		if time.Now().After(deadline) {
			t.Fatalf("got %d of %d rows: %q (malformed: %v)", len(got), n, got, r.Malformed())
		}
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		b, err := r.Poll(ctx, 100)
		cancel()
		if err != nil && ctx.Err() == nil {
			t.Fatalf("Poll: %v", err)
		}
		for _, sr := range b.Rows {
			got = append(got, fmt.Sprintf("p%d@%d %s %s", sr.Partition, sr.Offset, sr.Op, fmtRow(r.Schema(), sr.Row)))
		}
	}
	slices.Sort(got)
	return got
}

// expectNoRows polls for a while and fails on any row.
func expectNoRows(t *testing.T, r *SourceReader) {
	t.Helper()
	for range 3 {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		b, _ := r.Poll(ctx, 100)
		cancel()
		if len(b.Rows) > 0 {
			t.Fatalf("unexpected rows %v", b.Rows)
		}
	}
}

func newReader(t *testing.T, cfg SourceConfig) *SourceReader {
	t.Helper()
	r, err := NewSourceReader(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

func TestSourceReader(t *testing.T) {
	b := startBroker(t, BrokerOptions{})
	const topic = "src"
	createTopic(t, b, topic, 2)
	cl := producer(t, b)
	produce(t, cl, topic, 0, "k1", `{"id": 1, "name": "a"}`)
	produce(t, cl, topic, 0, "", `{"id": 1,`)
	produce(t, cl, topic, 1, "k3", `{"id": 3, "name": "c"}`)
	produce(t, cl, topic, 1, "", `{"id": 4, "name": "`+strings.Repeat("x", 300)+`"}`)
	produce(t, cl, topic, 1, "", `{"name": "no id"}`)

	// An aborted transaction is invisible at read_committed.
	tx := producer(t, b, kgo.TransactionalID("src-test"))
	for _, end := range []kgo.TransactionEndTry{kgo.TryAbort, kgo.TryCommit} {
		if err := tx.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		produce(t, tx, topic, 0, "", fmt.Sprintf(`{"id": 2, "name": "commit=%v"}`, bool(end)))
		if err := tx.EndTransaction(context.Background(), end); err != nil {
			t.Fatal(err)
		}
	}

	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cfg := SourceConfig{
		Name: "s", Brokers: []string{b.Addr()}, Topic: topic, Schema: srcSchema,
		Decoder: NewJSONDecoder(srcSchema, nil), Include: []Include{IncludePartition, IncludeOffset, IncludeKey},
		MaxRecordBytes: 200, DiscoveryInterval: 200 * time.Millisecond, Logger: quiet,
		Now: func() time.Time { return now },
	}
	r := newReader(t, cfg)
	want := []string{
		`p0@0 + 1|a|0|0|\x6b31`,
		`p0@4 + 2|commit=true|0|4|NULL`,
		`p1@0 + 3|c|1|0|\x6b33`,
	}
	if got := pollRows(t, r, 3); !slices.Equal(got, want) {
		t.Fatalf("rows:\n got %q\nwant %q", got, want)
	}
	if got := r.MalformedCount(); got != 3 {
		t.Fatalf("MalformedCount = %d", got)
	}
	m := r.Malformed()
	slices.SortFunc(m, func(a, b MalformedRecord) int {
		return int(a.Partition*100) + int(a.Offset) - int(b.Partition*100) - int(b.Offset)
	})
	wantM := []string{
		"0 1 invalid JSON: unexpected end of JSON input",
		"1 1 record of 321 bytes exceeds the limit of 200",
		`1 2 missing value for NOT NULL column "id"`,
	}
	for i, mr := range m {
		if got := fmt.Sprintf("%d %d %s", mr.Partition, mr.Offset, mr.Reason); i >= len(wantM) || got != wantM[i] || !mr.At.Equal(now) {
			t.Fatalf("malformed[%d] = %s at %v, want %q", i, got, mr.At, wantM)
		}
	}
	pos := r.Positions()
	if pos[0] != 5 || pos[1] != 3 {
		t.Fatalf("positions %v, want map[0:5 1:3]", pos)
	}

	// A reader resuming from the checkpointed positions reads only what
	// came after them, including a partition added since.
	cfg.Positions = pos
	r2 := newReader(t, cfg)
	produce(t, cl, topic, 1, "", `{"id": 5}`)
	if got := pollRows(t, r2, 1); !slices.Equal(got, []string{`p1@3 + 5|NULL|1|3|NULL`}) {
		t.Fatalf("resumed: %q", got)
	}
	adm := kadm.NewClient(cl)
	if _, err := adm.CreatePartitions(context.Background(), 1, topic); err != nil {
		t.Fatal(err)
	}
	// The producer learns of the new partition from its next metadata.
	for i := 0; ; i++ {
		cl.ForceMetadataRefresh()
		err := cl.ProduceSync(context.Background(), &kgo.Record{Topic: topic, Partition: 2, Value: []byte(`{"id": 6}`)}).FirstErr()
		if err == nil {
			break
		}
		if i == 50 {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	produce(t, cl, topic, 2, "", `{"id": 7}`)
	if got := pollRows(t, r2, 2); !slices.Equal(got, []string{`p2@0 + 6|NULL|2|0|NULL`, `p2@1 + 7|NULL|2|1|NULL`}) {
		t.Fatalf("new partition: %q", got)
	}
	if got := r2.Positions(); got[0] != 5 || got[1] != 4 || got[2] != 2 {
		t.Fatalf("positions after discovery %v", got)
	}
}

func TestSourceStartupModes(t *testing.T) {
	b := startBroker(t, BrokerOptions{})
	const topic = "modes"
	createTopic(t, b, topic, 1)
	cl := producer(t, b)
	old := time.Now().Add(-time.Hour)
	for i, ts := range []time.Time{old, old.Add(time.Minute)} {
		r := &kgo.Record{Topic: topic, Value: fmt.Appendf(nil, `{"id": %d}`, i), Timestamp: ts}
		if err := cl.ProduceSync(context.Background(), r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	cfg := func(mode StartupMode, ms int64) SourceConfig {
		return SourceConfig{Brokers: []string{b.Addr()}, Topic: topic, Schema: srcSchema,
			Decoder: NewJSONDecoder(srcSchema, nil), Startup: mode, StartTimestampMillis: ms, Logger: quiet}
	}
	latest := newReader(t, cfg(StartLatest, 0))
	expectNoRows(t, latest)
	if got := latest.Positions(); got[0] != 2 {
		t.Fatalf("latest starts at %v", got)
	}
	byTime := newReader(t, cfg(StartTimestamp, old.Add(30*time.Second).UnixMilli()))
	if got := pollRows(t, byTime, 1); !slices.Equal(got, []string{"p0@1 + 1|NULL"}) {
		t.Fatalf("timestamp mode: %q", got)
	}
	produce(t, cl, topic, 0, "", `{"id": 2}`)
	if got := pollRows(t, latest, 1); !slices.Equal(got, []string{"p0@2 + 2|NULL"}) {
		t.Fatalf("latest mode: %q", got)
	}
}

func TestSourceUpsertCSV(t *testing.T) {
	b := startBroker(t, BrokerOptions{})
	const topic = "upsert"
	createTopic(t, b, topic, 1)
	cl := producer(t, b)
	produce(t, cl, topic, 0, `{"id": 1}`, `1,one`)
	produce(t, cl, topic, 0, `{"id": 1}`, `<nil>`)
	produce(t, cl, topic, 0, "", `2,two`)
	produce(t, cl, topic, 0, `{"id": "x"}`, `<nil>`)
	r := newReader(t, SourceConfig{Brokers: []string{b.Addr()}, Topic: topic, Schema: srcSchema,
		Format: SourceUpsert, Decoder: NewCSVDecoder(srcSchema, 0, nil),
		KeyDecoder: NewJSONDecoder(srcSchema[:1], nil), KeyColumns: []int{0},
		Include: []Include{IncludeTimestamp}, Logger: quiet})
	got := pollRows(t, r, 2)
	if len(got) != 2 || !strings.HasPrefix(got[0], "p0@0 + 1|one|") || !strings.HasPrefix(got[1], "p0@1 - 1|NULL|") {
		t.Fatalf("upsert rows %q", got)
	}
	for i := 0; r.MalformedCount() < 2 && i < 10; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		r.Poll(ctx, 100)
		cancel()
	}
	m := r.Malformed()
	if len(m) != 2 || m[0].Reason != "upsert record without a key" || !strings.HasPrefix(m[1].Reason, `key: column "id"`) {
		t.Fatalf("malformed %v", m)
	}
}

// TestSourceFindsTopicCreatedLater checks that a reader of a topic that
// does not exist yet keeps looking for it often, whatever its discovery
// interval: an hour here, yet the rows produced once the topic exists
// arrive (within pollRows's 15 s).
func TestSourceFindsTopicCreatedLater(t *testing.T) {
	b := startBroker(t, BrokerOptions{})
	const topic = "later"
	r := newReader(t, SourceConfig{
		Name: "s", Brokers: []string{b.Addr()}, Topic: topic, Schema: srcSchema,
		Decoder: NewJSONDecoder(srcSchema, nil), DiscoveryInterval: time.Hour, Logger: quiet,
	})
	expectNoRows(t, r)
	createTopic(t, b, topic, 1)
	produce(t, producer(t, b), topic, 0, "", `{"id": 1, "name": "a"}`)
	if got := pollRows(t, r, 1); !slices.Equal(got, []string{"p0@0 + 1|a"}) {
		t.Fatalf("rows: %q", got)
	}
}
