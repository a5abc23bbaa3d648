package dbsink

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"
)

// The kill loop's sizes: 100,000 rows inserted in batches, 20 SIGKILLs.
const (
	killTotal = 100_000
	killKills = 20
	killBatch = 2_500
)

// TestKillLoop SIGKILLs weir (from outside, at random moments) 20 times
// while 100,000 rows are inserted into the table of both sinks of each
// target kind, restarting it on the same data directory each time, and
// then checks the target tables as the crash matrix does: every row
// exactly once, the view's rows. The random seed is logged;
// WEIR_KILL_SEED=<seed> replays a run's kill schedule.
func TestKillLoop(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("WEIR_KILL_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("WEIR_KILL_SEED=%q: %v", s, err)
		}
		seed = v
	}
	t.Logf("kill schedule seed %d (WEIR_KILL_SEED replays it)", seed)
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(seed, uint64(len(kind))))
			p := newPipeline(t, newTarget(t, kind, startServer(t, kind)))
			per := killTotal / killKills
			for kill := 1; kill <= killKills; kill++ {
				done := make(chan struct{})
				go func() {
					defer close(done)
					p.insertUntilDown(kill*per, killBatch)
				}()
				// 0.2 to 1.2 s between kills: a few checkpoints and
				// deliveries, many kills landing mid-epoch.
				time.Sleep(time.Duration(200+rng.IntN(1000)) * time.Millisecond)
				p.w.Kill()
				<-done
				p.w.Restart()
				p.resync()
				t.Logf("kill %d: %d ids inserted", kill, p.next)
			}
			p.insert(killTotal, 5_000)
			p.check()
		})
	}
}
