package kafka

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/tests/kafka/kafkatest"
)

// The pipeline of the exactly-once tests: a topic of JSON records read by
// a source, an aggregate materialized view over it, a PLAIN sink of the
// source's rows and an UPSERT sink of the view.
//
//	in ──► src ──► agg (k, n = count(*), s = sum(v))
//	        │        └──► sink out_upsert (FORMAT UPSERT, key k)
//	        └──► sink out_plain (FORMAT PLAIN: k, v)
//
// Input record i is {"k": i mod numKeys, "v": i+1}: every v is distinct,
// so each record can be told apart in the PLAIN sink's topic, and the
// view's expected rows follow from the number of records produced.
const (
	numKeys     = 50
	inTopic     = "in"
	plainTopic  = "out_plain"
	upsertTopic = "out_upsert"
	// barrierMs is the barrier interval of the tests: frequent
	// checkpoints, so that crashes land between many epochs.
	barrierMs = 200
)

// inputLine returns input record i.
func inputLine(i int) string { return fmt.Sprintf(`{"k":%d,"v":%d}`, i%numKeys, i+1) }

// inputLines returns input records [from, to).
func inputLines(from, to int) []string {
	out := make([]string, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, inputLine(i))
	}
	return out
}

// aggRow is one row of agg: count and sum of a key's records.
type aggRow struct{ n, s int64 }

// expectedAgg computes agg over input records [0, total).
func expectedAgg(total int) map[int64]aggRow {
	m := map[int64]aggRow{}
	for i := range total {
		k := int64(i % numKeys)
		r := m[k]
		r.n++
		r.s += int64(i + 1)
		m[k] = r
	}
	return m
}

// pipeline is a running broker and weir with the pipeline above created.
type pipeline struct {
	t *testing.T
	// b is the broker of the input topic, and of the sinks' topics
	// unless sinkAddr names another (weir's embedded broker).
	b        *kafkatest.Broker
	sinkAddr string
	w        *kafkatest.Weir
	plain    bool // the PLAIN sink exists
	upsert   bool // the UPSERT sink exists
	// next is the first input record not produced yet.
	next int
}

// newPipeline starts a broker as its own process (so that killing weir
// leaves open transactions open, see package kafkatest), creates the
// topics (three partitions each), starts weir on it and creates the
// source, the view and the sinks asked for; sinkWith are extra options
// of both sinks ("sink.decouple = 'false'").
func newPipeline(t *testing.T, plain, upsert bool, sinkWith ...string) *pipeline {
	t.Helper()
	kafkatest.Kcat(t)
	b := kafkatest.StartBroker(t, "")
	w := kafkatest.StartWeir(t, kafkatest.Options{Broker: b})
	kafkatest.KeepLogs(t, w.LogPath, b.LogPath)
	return createPipeline(t, b, w, b.Addr, plain, upsert, sinkWith...)
}

// newPipelineEmbeddedSinks is newPipeline with the input on a broker of
// its own and the sinks' topics on weir's embedded broker
// (--embedded-kafka), which dies with weir: a SIGKILL of weir then also
// loses the broker's open transactions (kfake aborts them on restart).
func newPipelineEmbeddedSinks(t *testing.T, plain, upsert bool, sinkWith ...string) *pipeline {
	t.Helper()
	kafkatest.Kcat(t)
	b := kafkatest.StartBroker(t, "")
	w := kafkatest.StartWeir(t, kafkatest.Options{})
	kafkatest.KeepLogs(t, w.LogPath, b.LogPath)
	return createPipeline(t, b, w, w.KafkaAddr, plain, upsert, sinkWith...)
}

// createPipeline creates the topics (the input on b, the sinks' on
// sinkAddr), the source, the view and the sinks asked for.
func createPipeline(t *testing.T, b *kafkatest.Broker, w *kafkatest.Weir, sinkAddr string, plain, upsert bool, sinkWith ...string) *pipeline {
	t.Helper()
	kafkatest.CreateTopic(t, b.Addr, inTopic, 3)
	p := &pipeline{t: t, b: b, sinkAddr: sinkAddr, w: w, plain: plain, upsert: upsert}
	extra := ""
	for _, o := range sinkWith {
		extra += ", " + o
	}
	stmts := []string{
		fmt.Sprintf("ALTER SYSTEM SET barrier_interval_ms = %d", barrierMs),
		fmt.Sprintf(`CREATE SOURCE src (k int, v bigint) WITH (connector = 'kafka', topic = '%s',
			properties.bootstrap.server = '%s', scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE JSON`, inTopic, b.Addr),
		"CREATE MATERIALIZED VIEW agg AS SELECT k, count(*) AS n, sum(v) AS s FROM src GROUP BY k",
	}
	if plain {
		kafkatest.CreateTopic(t, sinkAddr, plainTopic, 3)
		stmts = append(stmts, fmt.Sprintf(`CREATE SINK out_plain AS SELECT k, v FROM src WITH (connector = 'kafka',
			topic = '%s', properties.bootstrap.server = '%s'%s) FORMAT PLAIN ENCODE JSON`, plainTopic, sinkAddr, extra))
	}
	if upsert {
		kafkatest.CreateTopic(t, sinkAddr, upsertTopic, 3)
		stmts = append(stmts, fmt.Sprintf(`CREATE SINK out_upsert FROM agg WITH (connector = 'kafka',
			topic = '%s', properties.bootstrap.server = '%s', primary_key = 'k'%s) FORMAT UPSERT ENCODE JSON`, upsertTopic, sinkAddr, extra))
	}
	kafkatest.Exec(t, w.ConnString(), stmts...)
	return p
}

// produce writes the input records up to record to (exclusive) with one
// kcat run.
func (p *pipeline) produce(to int) {
	p.t.Helper()
	if err := kafkatest.ProduceLines(p.b.Addr, inTopic, inputLines(p.next, to)); err != nil {
		p.t.Fatal(err)
	}
	p.next = max(p.next, to)
}

// produceAsync writes the input records up to record to (exclusive) in
// batches of batch records, one kcat run each with pause between them,
// from a goroutine; the channel yields the first error, or nil once all
// are written. The broker is its own process, so weir dying meanwhile
// does not disturb it.
func (p *pipeline) produceAsync(to, batch int, pause time.Duration) <-chan error {
	errc := make(chan error, 1)
	from := p.next
	p.next = max(p.next, to)
	go func() {
		for i := from; i < to; i += batch {
			if err := kafkatest.ProduceLines(p.b.Addr, inTopic, inputLines(i, min(i+batch, to))); err != nil {
				errc <- err
				return
			}
			time.Sleep(pause)
		}
		errc <- nil
	}()
	return errc
}

// mvCount returns sum(n) of agg: how many input records the view has
// counted. ok is false when weir does not answer (it may be restarting).
func (p *pipeline) mvCount() (n int64, ok bool) {
	rows, err := kafkatest.QueryErr(p.w.ConnString(), "SELECT coalesce(sum(n), 0) FROM agg")
	if err != nil || len(rows) != 1 {
		return 0, false
	}
	n, err = strconv.ParseInt(rows[0][0], 10, 64)
	return n, err == nil
}

// waitMV waits until agg has counted total records. A count above total
// means some record was counted twice, and fails at once.
func (p *pipeline) waitMV(total int) {
	p.t.Helper()
	kafkatest.Eventually(p.t, 2*time.Minute, fmt.Sprintf("agg counting %d input records", total), func() (bool, string) {
		n, ok := p.mvCount()
		if ok && n > int64(total) {
			p.t.Fatalf("agg counts %d records, but only %d were produced: records were counted twice", n, total)
		}
		return ok && n == int64(total), fmt.Sprintf("sum(n) = %d (answered: %v)", n, ok)
	})
}

// mvRows reads agg.
func (p *pipeline) mvRows() map[int64]aggRow {
	p.t.Helper()
	got := map[int64]aggRow{}
	for _, r := range kafkatest.Query(p.t, p.w.ConnString(), "SELECT k, n, s FROM agg") {
		k, err1 := strconv.ParseInt(r[0], 10, 64)
		n, err2 := strconv.ParseInt(r[1], 10, 64)
		s, err3 := strconv.ParseInt(r[2], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			p.t.Fatalf("agg row %q does not parse", r)
		}
		if _, dup := got[k]; dup {
			p.t.Fatalf("agg has two rows for k = %d", k)
		}
		got[k] = aggRow{n, s}
	}
	return got
}

// check runs the end-of-test checks once total input records were
// produced: agg equals the aggregate of exactly those records (so the
// source's positions survived every restart), and after FLUSH the sinks'
// topics, read at read_committed, hold every record exactly once (PLAIN)
// and the view's rows as the latest value per key (UPSERT).
func (p *pipeline) check(total int) {
	p.t.Helper()
	p.waitMV(total)
	want := expectedAgg(total)
	if got := p.mvRows(); !maps.Equal(got, want) {
		p.t.Fatalf("agg after %d records differs from their aggregate:\n%s", total, diffAgg(got, want))
	}
	kafkatest.Exec(p.t, p.w.ConnString(), "FLUSH")
	// A recovery that finds a recorded transaction aborted by the broker
	// says so in weir.stream_errors; the input has no malformed record.
	if rows := kafkatest.Query(p.t, p.w.ConnString(), "SELECT view, operator, sqlstate, last_error FROM weir.stream_errors"); len(rows) > 0 {
		p.t.Errorf("weir.stream_errors after the run:\n%s", kafkatest.Lines(rows))
	}
	if rows := kafkatest.Query(p.t, p.w.ConnString(), "SELECT name, malformed_count FROM weir.sources WHERE malformed_count <> 0"); len(rows) > 0 {
		p.t.Errorf("weir.sources counts malformed records, but the input has none:\n%s", kafkatest.Lines(rows))
	}
	if p.plain {
		checkPlain(p.t, p.sinkAddr, plainTopic, total)
	}
	if p.upsert {
		checkUpsert(p.t, p.sinkAddr, upsertTopic, want)
	}
}

// checkPlain waits until topic holds total committed records and checks
// that they are the (k, v) of input records [0, total), each exactly once.
func checkPlain(t *testing.T, addr, topic string, total int) {
	t.Helper()
	var recs []kafkatest.Record
	kafkatest.Eventually(t, 2*time.Minute, fmt.Sprintf("%s holding %d committed records", topic, total), func() (bool, string) {
		recs = kafkatest.Consume(t, addr, topic)
		return len(recs) >= total, fmt.Sprintf("%d records", len(recs))
	})
	seen := make([]int, total+1) // by v
	var bad []string
	for _, r := range recs {
		obj, err := decodeObject(r.Value)
		k, okK := obj["k"]
		v, okV := obj["v"]
		switch {
		case err != nil || !okK || !okV || v < 1 || v > int64(total) || k != (v-1)%numKeys:
			bad = append(bad, fmt.Sprintf("%v (not an input record: %v)", r, err))
		default:
			seen[v]++
		}
	}
	for v := 1; v <= total; v++ {
		switch seen[v] {
		case 1:
		case 0:
			bad = append(bad, fmt.Sprintf("input record %s missing", inputLine(v-1)))
		default:
			bad = append(bad, fmt.Sprintf("input record %s written %d times", inputLine(v-1), seen[v]))
		}
	}
	if len(bad) > 0 {
		t.Fatalf("%s: %d committed records for %d input records; %d problems, the first:\n%s",
			topic, len(recs), total, len(bad), strings.Join(bad[:min(len(bad), 20)], "\n"))
	}
}

// checkUpsert waits until the latest committed value per key of topic,
// an UPSERT sink of agg, equals want (the view's rows, checked equal to
// the aggregate of the input already), and checks that every key's
// values count up strictly: a replayed or duplicated transaction would
// repeat or roll back a count.
func checkUpsert(t *testing.T, addr, topic string, want map[int64]aggRow) {
	t.Helper()
	var latest map[int64]aggRow
	var problems []string
	kafkatest.Eventually(t, 2*time.Minute, fmt.Sprintf("%s's latest values equal to agg", topic), func() (bool, string) {
		latest, problems = upsertLatest(kafkatest.Consume(t, addr, topic))
		return len(problems) > 0 || maps.Equal(latest, want), diffAgg(latest, want)
	})
	if len(problems) > 0 {
		t.Fatalf("%s: %d problems, the first:\n%s", topic, len(problems), strings.Join(problems[:min(len(problems), 20)], "\n"))
	}
}

// upsertLatest folds the records of an UPSERT topic of agg (key {"k":…},
// value {"k":…,"n":…,"s":…}, null for a delete) into the latest row per
// key, and lists the records that are wrong in themselves: undecodable,
// a key that disagrees with its value, a delete (agg's groups never
// disappear), or a count that does not grow.
func upsertLatest(recs []kafkatest.Record) (map[int64]aggRow, []string) {
	latest := map[int64]aggRow{}
	var problems []string
	for _, r := range recs {
		key, err := decodeKey(r.Key, "k")
		if err != nil {
			problems = append(problems, fmt.Sprintf("%v: key: %v", r, err))
			continue
		}
		if r.Value == "" {
			problems = append(problems, fmt.Sprintf("%v: a tombstone, but agg never deletes a group", r))
			delete(latest, key)
			continue
		}
		obj, err := decodeObject(r.Value)
		if err != nil || obj["k"] != key {
			problems = append(problems, fmt.Sprintf("%v: value does not decode or names another key (%v)", r, err))
			continue
		}
		row := aggRow{obj["n"], obj["s"]}
		if prev, ok := latest[key]; ok && row.n <= prev.n {
			problems = append(problems, fmt.Sprintf("%v: count %d after %d: a transaction was replayed or duplicated", r, row.n, prev.n))
		}
		latest[key] = row
	}
	return latest, problems
}

// decodeObject decodes a JSON object whose values are integers (JSON
// numbers or strings holding one).
func decodeObject(s string) (map[string]int64, error) {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var raw map[string]any
	if err := d.Decode(&raw); err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(raw))
	for k, v := range raw {
		var text string
		switch v := v.(type) {
		case json.Number:
			text = v.String()
		case string:
			text = v
		default:
			return nil, fmt.Errorf("field %s: %v is not an integer", k, v)
		}
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", k, err)
		}
		out[k] = n
	}
	return out, nil
}

// decodeKey decodes an UPSERT key: a JSON object holding the key column
// col, or the bare value.
func decodeKey(s, col string) (int64, error) {
	if t := bytes.TrimSpace([]byte(s)); len(t) > 0 && t[0] == '{' {
		obj, err := decodeObject(s)
		if err != nil {
			return 0, err
		}
		k, ok := obj[col]
		if !ok || len(obj) != 1 {
			return 0, fmt.Errorf("key %s is not {%q: …}", s, col)
		}
		return k, nil
	}
	return strconv.ParseInt(strings.TrimSpace(s), 10, 64)
}

// diffAgg describes how got differs from want, key by key (at most 10).
func diffAgg(got, want map[int64]aggRow) string {
	var lines []string
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if g, ok := got[k]; !ok {
			lines = append(lines, fmt.Sprintf("k=%d missing, want n=%d s=%d", k, want[k].n, want[k].s))
		} else if g != want[k] {
			lines = append(lines, fmt.Sprintf("k=%d: n=%d s=%d, want n=%d s=%d", k, g.n, g.s, want[k].n, want[k].s))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[k]; !ok {
			lines = append(lines, fmt.Sprintf("k=%d: n=%d s=%d, not expected", k, got[k].n, got[k].s))
		}
	}
	if len(lines) == 0 {
		return "equal"
	}
	return fmt.Sprintf("%d keys differ: %s", len(lines), strings.Join(lines[:min(len(lines), 10)], "; "))
}
