package engine

import (
	"testing"
	"time"

	"github.com/weirdb/weir/checkpoint"
)

// TestDMLBarrierInjectedAtOnce checks that with the coordinator
// configuration the engine starts its streams with, a barrier asked for
// (by DML) right after the previous checkpoint committed is injected at
// once, at the same instant of the coordinator's clock, instead of
// waiting for a minimum pause after the previous injection: a single
// session's INSERT then waits for its checkpoint, not for a timer.
func TestDMLBarrierInjectedAtOnce(t *testing.T) {
	c := checkpoint.New(streamCheckpointConfig(time.Second, 0))
	now := time.UnixMilli(1_000_000)
	step := func(ev checkpoint.Event) []checkpoint.Action {
		t.Helper()
		if err := c.Step(ev); err != nil {
			t.Fatalf("%T: %v", ev, err)
		}
		return c.Ready()
	}
	injected := func(as []checkpoint.Action) (checkpoint.InjectBarrier, bool) {
		for _, a := range as {
			if b, ok := a.(checkpoint.InjectBarrier); ok {
				return b, true
			}
		}
		return checkpoint.InjectBarrier{}, false
	}
	committed := func(as []checkpoint.Action) bool {
		for _, a := range as {
			if _, ok := a.(checkpoint.Committed); ok {
				return true
			}
		}
		return false
	}
	c.Ready() // StartRecovery
	step(checkpoint.Tick{Now: now})
	as := step(checkpoint.RecoveryDone{Jobs: []checkpoint.Job{{ID: 1, Actors: []checkpoint.ActorID{1}}}})
	b, ok := injected(as)
	if !ok {
		t.Fatalf("no Initial barrier after recovery: %v", as)
	}
	// One INSERT after another, each asking for its barrier right after
	// the previous one committed, the clock never moving.
	for i := range 3 {
		step(checkpoint.Ack{Epoch: b.Barrier.Epoch.Curr, Actor: 1})
		if as := step(checkpoint.CommitDone{Epoch: b.Barrier.Epoch.Curr}); !committed(as) {
			t.Fatalf("checkpoint %d: no Committed after CommitDone: %v", i, as)
		}
		as := step(checkpoint.RequestBarrier{Waiter: checkpoint.WaiterID(i + 1)})
		if b, ok = injected(as); !ok {
			t.Fatalf("request %d: no barrier injected at once (the coordinator waits until %v): %v", i+1, deadline(c), as)
		}
	}
}

func deadline(c *checkpoint.Coordinator) string {
	if dl, ok := c.NextDeadline(); ok {
		return dl.String()
	}
	return "no deadline"
}
