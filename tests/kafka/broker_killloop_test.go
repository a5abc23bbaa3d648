package kafka

import (
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/tests/kafka/kafkatest"
)

// The broker kill loop's sizes: brokerKills rounds of brokerBatch input
// records each, then a last batch after the last kill.
const (
	brokerKills = 6
	brokerBatch = 1_000
	// brokerKillWeirAt is the round in which weir is SIGKILLed too,
	// before the broker.
	brokerKillWeirAt = 3
)

// TestBrokerKillLoop SIGKILLs the broker (`weir kafka`, a process of its
// own) six times while weir reads the input topic through a source and
// writes a PLAIN sink of the source and an UPSERT sink of the aggregate
// view through that broker in exactly-once transactions, restarting the
// broker each time on the same data directory and port; in one round weir
// is SIGKILLed as well. Each round produces a batch of input with kcat
// while the broker is up (so that the input itself is written exactly
// once), lets weir process it for a random moment and kills the broker
// under it: weir's open sink transactions die with the broker (which
// writes their abort markers at its next start) and its source fetches
// fail. After each restart the view must catch up with everything
// produced; at the end it must equal the aggregate of exactly the input,
// and read_committed readers of the sinks' topics must see each input
// record exactly once and the view's rows as the latest values. The seed
// of the random moments is logged; WEIR_KILL_SEED=<seed> replays it.
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
	for round := 1; round <= brokerKills; round++ {
		p.produce(p.next + brokerBatch)
		// Up to 0.8 s: a few barriers, so that the kill lands while the
		// batch is read, aggregated and written to the sinks.
		time.Sleep(time.Duration(rng.IntN(800)) * time.Millisecond)
		n, _ := p.mvCount()
		if n > int64(p.next) {
			t.Fatalf("agg counts %d records, but only %d are produced: records were counted twice", n, p.next)
		}
		if round == brokerKillWeirAt {
			p.w.Kill()
		}
		p.b.Kill()
		size := kafkatest.LogSize(p.b.LogPath)
		p.b.Restart()
		markers := "no transaction was open"
		for _, l := range strings.Split(kafkatest.LogSince(p.b.LogPath, size), "\n") {
			if strings.Contains(l, "abort markers") {
				markers = l
			}
		}
		t.Logf("kill %d: agg had counted %d of %d records; at restart: %s", round, n, p.next, markers)
		if round == brokerKillWeirAt {
			p.w.Restart()
		}
		p.waitMV(p.next)
	}
	p.produce(p.next + brokerBatch)
	p.check(p.next)
}
