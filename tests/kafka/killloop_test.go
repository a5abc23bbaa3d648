package kafka

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/weirdb/weir/tests/kafka/kafkatest"
)

// The kill loop's sizes: 200,000 input records in batches, at least 20
// SIGKILLs of weir while they are produced and processed.
const (
	killTotal    = 200_000
	killBatch    = 4_000
	killPause    = 300 * time.Millisecond
	killMinKills = 20
	killMaxKills = 40
)

// TestKillLoop SIGKILLs `weir serve` (from outside, at random moments) at
// least 20 times while kcat produces 200,000 records in batches to the
// input topic, restarting it each time on the same data directory, and
// then checks the view and both sinks as the crash matrix does. The
// broker runs as its own process and is never killed. The random seed is
// logged; WEIR_KILL_SEED=<seed> replays a run's kill schedule.
func TestKillLoop(t *testing.T) {
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
	errc := p.produceAsync(killTotal, killBatch, killPause)
	produced := false
	kills := 0
	for kills < killMinKills || !produced {
		if kills == killMaxKills {
			break
		}
		// Up to 0.9 s of running between kills: long enough for a few
		// checkpoints, short enough that many kills land mid-epoch.
		time.Sleep(time.Duration(100+rng.IntN(800)) * time.Millisecond)
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
		if n > killTotal {
			t.Fatalf("agg counts %d records, but only %d are produced: records were counted twice", n, killTotal)
		}
		p.w.Kill()
		kills++
		t.Logf("kill %d: agg had counted %d records", kills, n)
		p.w.Restart()
	}
	if !produced {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	p.check(killTotal)
}
