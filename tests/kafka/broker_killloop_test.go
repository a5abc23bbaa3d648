package kafka

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/internal/fault"
	"github.com/weirdb/weir/tests/kafka/kafkatest"
)

// The broker kill loop's sizes: 12,000 input records produced in batches
// while the broker is SIGKILLed brokerKills times.
const (
	brokerTotal = 12_000
	brokerBatch = 300
	brokerPause = 50 * time.Millisecond
	brokerKills = 7
	// brokerKillWeirAt is the kill at which weir is SIGKILLed too,
	// just before the broker.
	brokerKillWeirAt = 3
)

// TestBrokerKillLoop SIGKILLs the broker (`weir kafka`, a process of its
// own) seven times while kcat produces the input in batches and weir
// reads it through a source and writes a PLAIN sink of the source and an
// UPSERT sink of the aggregate view through that broker in exactly-once
// transactions; the broker restarts each time on the same data directory
// and port, and at one kill weir is SIGKILLed as well. weir's open sink
// transactions outlive the broker (it keeps them open across its
// restart, as Kafka does), its source fetches fail, a commit sent as the
// broker died may be refused when repeated after the restart (to be
// settled from the log, never by delivering the epoch again), and weir
// must go on once the broker is back: between kills the view must make
// progress. kcat gives up when the broker goes away and the test runs
// the batch again, so the input topic may hold some records twice; the
// input is therefore what the topic holds at the end, read back with
// kcat. The view must equal its
// aggregate, the PLAIN sink's topic at read_committed must hold each
// input record exactly as many times as the input topic does, and the
// UPSERT sink's latest values must equal the view. The seed of the
// kill moments is logged; WEIR_KILL_SEED=<seed> replays it.
func TestBrokerKillLoop(t *testing.T) {
	kafkatest.Kcat(t)
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("WEIR_KILL_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("WEIR_KILL_SEED=%q: %v", s, err)
		}
		seed = v
	}
	t.Logf("kill schedule seed %d (WEIR_KILL_SEED replays it)", seed)
	rng := rand.New(rand.NewPCG(seed, seed))

	p := newPipeline(t, true, true)
	errc := produceRetrying(p, brokerTotal, brokerBatch, brokerPause)
	produced := false
	markers, kept := 0, 0
	for kill := 1; kill <= brokerKills; kill++ {
		// 100 to 600 ms of running: a few barriers, so that the kill
		// lands while batches are read, aggregated and written.
		time.Sleep(time.Duration(100+rng.IntN(500)) * time.Millisecond)
		if !produced {
			select {
			case err := <-errc:
				if err != nil {
					t.Fatal(err)
				}
				produced = true
			default:
			}
		}
		n, _ := p.mvCount()
		if kill == brokerKillWeirAt {
			p.w.Kill()
		}
		p.b.Kill()
		size := kafkatest.LogSize(p.b.LogPath)
		p.b.Restart()
		var notes []string
		for _, l := range strings.Split(kafkatest.LogSince(p.b.LogPath, size), "\n") {
			if _, err := fmt.Sscanf(l, "weir kafka: wrote %d abort markers", new(int)); err == nil {
				notes = append(notes, l)
				markers++
			}
			if _, err := fmt.Sscanf(l, "weir kafka: kept %d transactions", new(int)); err == nil {
				notes = append(notes, l)
				kept++
			}
		}
		repair := "no transaction was open"
		if len(notes) > 0 {
			repair = strings.Join(notes, "; ")
		}
		if kill == brokerKillWeirAt {
			p.w.Restart()
		}
		t.Logf("kill %d (weir too: %v): agg had counted %d records; at restart: %s", kill, kill == brokerKillWeirAt, n, repair)
		if produced {
			continue
		}
		// weir must get going again once the broker is back: wait for
		// the view to count more records than before the kill. More are
		// coming only while the producer is at work: it may have written
		// its last batch after the check above, and the view may have
		// counted all of it before the kill; the final check covers
		// that case.
		var produceErr error
		kafkatest.Eventually(t, 2*time.Minute, fmt.Sprintf("agg counting past %d records after kill %d", n, kill), func() (bool, string) {
			m, ok := p.mvCount()
			if ok && m > n {
				return true, ""
			}
			select {
			case produceErr = <-errc:
				produced = true
				return true, ""
			default:
			}
			return false, fmt.Sprintf("sum(n) = %d (answered: %v)", m, ok)
		})
		if produceErr != nil {
			t.Fatal(produceErr)
		}
	}
	if !produced {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d of %d restarts kept open transactions, %d wrote abort markers", kept, brokerKills, markers)
	checkAgainstInput(t, p)
}

// produceRetrying writes input records [0, total) like
// pipeline.produceAsync, but runs a batch again when kcat fails (it
// gives up when the broker goes away), so some records of such a batch
// may be written twice. The channel yields nil once every batch was
// written, or an error when a batch still fails after two minutes.
func produceRetrying(p *pipeline, total, batch int, pause time.Duration) <-chan error {
	errc := make(chan error, 1)
	p.next = total
	go func() {
		for i := 0; i < total; i += batch {
			deadline := time.Now().Add(2 * time.Minute)
			for {
				err := kafkatest.ProduceLines(p.b.Addr, inTopic, inputLines(i, min(i+batch, total)))
				if err == nil {
					break
				}
				if time.Now().After(deadline) {
					errc <- err
					return
				}
				time.Sleep(100 * time.Millisecond)
			}
			time.Sleep(pause)
		}
		errc <- nil
	}()
	return errc
}

// checkAgainstInput is pipeline.check for an input topic that may hold
// records more than once: it reads the input topic back and checks the
// view and both sinks against what it holds.
func checkAgainstInput(t *testing.T, p *pipeline) {
	t.Helper()
	in := kafkatest.Consume(t, p.b.Addr, inTopic)
	want := map[int64]aggRow{}
	copies := map[int64]int{} // by v
	for _, r := range in {
		obj, err := decodeObject(r.Value)
		k, v := obj["k"], obj["v"]
		if err != nil || v < 1 || v > brokerTotal || k != (v-1)%numKeys {
			t.Fatalf("input topic holds %v, not an input record (%v)", r, err)
		}
		copies[v]++
		w := want[k]
		w.n++
		w.s += v
		want[k] = w
	}
	var twice []int64
	for v := int64(1); v <= brokerTotal; v++ {
		switch copies[v] {
		case 0:
			t.Fatalf("input record %s is not in the input topic: kcat failed to deliver it", inputLine(int(v-1)))
		case 1:
		default:
			twice = append(twice, v)
		}
	}
	t.Logf("the input topic holds %d records for %d input records (%d written more than once by kcat's retries)", len(in), brokerTotal, len(twice))

	p.waitMV(len(in))
	if got := p.mvRows(); !maps.Equal(got, want) {
		t.Fatalf("agg differs from the aggregate of the input topic's %d records:\n%s", len(in), diffAgg(got, want))
	}
	kafkatest.Exec(t, p.w.ConnString(), "FLUSH")
	// A recovery that finds a recorded transaction aborted by the broker
	// says so in weir.stream_errors (XX001): the broker must not abort
	// what weir pre-committed, kills or not. A sink's failed delivery
	// while the broker was down (08000) is expected; its log store
	// delivers the epoch again, as the sinks' check below proves.
	if rows := kafkatest.Query(t, p.w.ConnString(), "SELECT view, operator, sqlstate, last_error FROM weir.stream_errors WHERE sqlstate <> '08000'"); len(rows) > 0 {
		t.Errorf("weir.stream_errors after the run:\n%s", kafkatest.Lines(rows))
	}
	if rows := kafkatest.Query(t, p.w.ConnString(), "SELECT view, operator, sqlstate, last_error FROM weir.stream_errors WHERE sqlstate = '08000'"); len(rows) > 0 {
		t.Logf("deliveries that failed while the broker was down:\n%s", kafkatest.Lines(rows))
	}
	if rows := kafkatest.Query(t, p.w.ConnString(), "SELECT name, malformed_count FROM weir.sources WHERE malformed_count <> 0"); len(rows) > 0 {
		t.Errorf("weir.sources counts malformed records, but the input has none:\n%s", kafkatest.Lines(rows))
	}

	var out []kafkatest.Record
	kafkatest.Eventually(t, 2*time.Minute, fmt.Sprintf("%s holding %d committed records", plainTopic, len(in)), func() (bool, string) {
		out = kafkatest.Consume(t, p.b.Addr, plainTopic)
		return len(out) >= len(in), fmt.Sprintf("%d records", len(out))
	})
	sunk := map[int64]int{}
	var bad []string
	for _, r := range out {
		obj, err := decodeObject(r.Value)
		k, v := obj["k"], obj["v"]
		if err != nil || v < 1 || v > brokerTotal || k != (v-1)%numKeys {
			bad = append(bad, fmt.Sprintf("%v (not an input record: %v)", r, err))
			continue
		}
		sunk[v]++
	}
	for v := int64(1); v <= brokerTotal; v++ {
		if sunk[v] != copies[v] {
			bad = append(bad, fmt.Sprintf("input record %s: %d times in %s, %d in %s", inputLine(int(v-1)), sunk[v], plainTopic, copies[v], inTopic))
		}
	}
	if len(bad) > 0 {
		t.Fatalf("%s: %d committed records for %d input records; %d problems, the first:\n%s",
			plainTopic, len(out), len(in), len(bad), strings.Join(bad[:min(len(bad), 20)], "\n"))
	}
	checkUpsert(t, p.b.Addr, upsertTopic, want)
}

// TestCrashMatrixBrokerKill is the crash matrix's case for the broker:
// weir, with coupled sinks, dies at checkpoint.after_commit, when its
// checkpoint records sink transactions that are pre-committed but not yet
// committed, and then the broker is SIGKILLed before weir restarts. The
// broker, restarted on its data directory, must not lose those
// transactions: like Kafka, it keeps them open (and says so at start),
// weir's recovery commits them, and the view and both sinks end up exact.
func TestCrashMatrixBrokerKill(t *testing.T) {
	kafkatest.Kcat(t)
	p := newPipeline(t, true, true, coupled)
	p.produce(crashPart1)
	p.waitMV(crashPart1)
	p.w.Stop()
	p.produce(crashPart2)
	errc := p.produceAsync(crashPart3, crashBatch, crashPause)
	dieAt(t, p.w, fault.CheckpointAfterCommit, faultHits[fault.CheckpointAfterCommit])
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	size := kafkatest.LogSize(p.b.LogPath)
	p.b.Kill()
	p.b.Restart()
	log := strings.TrimSpace(kafkatest.LogSince(p.b.LogPath, size))
	t.Logf("broker restarted after weir's crash; its log: %s", log)
	// weir died with the transactions its checkpoint recorded open.
	var kept int
	for _, l := range strings.Split(log, "\n") {
		fmt.Sscanf(l, "weir kafka: kept %d transactions", &kept)
	}
	if kept == 0 {
		t.Fatalf("the restarted broker kept no open transaction")
	}
	p.w.SetEnv()
	p.w.Restart()
	p.produce(crashTotal)
	p.check(crashTotal)
}
