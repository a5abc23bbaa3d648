package engine

import (
	"slices"
	"sync"
	"time"
)

// checkpointTimes measures each checkpoint from the injection of its
// barrier to its commit, for benchmarks (Engine.CheckpointDurations).
type checkpointTimes struct {
	mu       sync.Mutex
	injected map[uint64]time.Time
	// done holds the latest durations, at most maxCheckpointTimes.
	done []time.Duration
}

// maxCheckpointTimes bounds the durations kept.
const maxCheckpointTimes = 100_000

func (c *checkpointTimes) inject(epoch uint64, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.injected == nil {
		c.injected = map[uint64]time.Time{}
	}
	c.injected[epoch] = at
}

func (c *checkpointTimes) committed(epoch uint64, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for e, t := range c.injected {
		// A commit of epoch e covers every earlier barrier (recovery
		// discards the rest).
		if e <= epoch {
			if e == epoch {
				c.done = append(c.done, at.Sub(t))
				if len(c.done) > maxCheckpointTimes {
					c.done = slices.Delete(c.done, 0, len(c.done)-maxCheckpointTimes)
				}
			}
			delete(c.injected, e)
		}
	}
}

// CheckpointDurations returns how long the checkpoints committed since
// the engine opened took, from injecting the barrier to committing the
// epoch (the latest 100,000, oldest first).
func (e *Engine) CheckpointDurations() []time.Duration {
	e.ckpt.mu.Lock()
	defer e.ckpt.mu.Unlock()
	return slices.Clone(e.ckpt.done)
}
