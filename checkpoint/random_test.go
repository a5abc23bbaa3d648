package checkpoint

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// randomRun drives a coordinator with random interleavings of events (in
// the order a real system could produce them, plus stale, duplicate and
// bogus ones) and checks the protocol's invariants on every action:
//
//   - at most one checkpoint is in flight: no barrier is injected before
//     the previous one committed or was abandoned by a recovery;
//   - injected epochs and committed epochs strictly increase;
//   - a Commit is issued only once every target of the barrier has
//     acknowledged it, with exactly their write sets, and is answered
//     before any other Commit;
//   - a waiter is released (Committed or FailWaiters) exactly once, and
//     a Committed waiter asked before its barrier was injected;
//   - once the events stop failing, every waiter is released.
type randomRun struct {
	t   *testing.T
	rng *rand.Rand
	c   *Coordinator
	now time.Time
	seq int // event counter, orders requests against injections
	// lastEnd is when the last checkpoint committed or failed; pause is
	// the min pause between checkpoints the coordinator was given.
	lastEnd time.Time
	pause   time.Duration
	// removed are the actors of jobs that failed alone (JobFailed) while
	// the barrier in flight was collecting: its commit leaves them out.
	removed map[ActorID]bool

	inflight   *InjectBarrier
	injectSeq  int
	acked      map[ActorID]bool
	commit     *Commit
	recovering bool
	lastInject uint64
	committed  uint64

	requested map[WaiterID]int // waiter -> seq of its request
	released  map[WaiterID]int
	nextW     WaiterID
	nextJob   JobID
	nextActor ActorID
	jobs      []Job // the harness's idea of the running jobs
}

func TestRandomInterleavings(t *testing.T) {
	for seed := range uint64(20) {
		r := &randomRun{
			t:         t,
			rng:       rand.New(rand.NewPCG(seed, 7)),
			now:       time.UnixMilli(1000),
			requested: map[WaiterID]int{},
			released:  map[WaiterID]int{},
			nextJob:   1,
			nextActor: 1,
			acked:     map[ActorID]bool{},
		}
		r.c = New(Config{
			Interval: time.Duration(1+r.rng.IntN(500)) * time.Millisecond,
			MinPause: time.Duration(r.rng.IntN(20)) * time.Millisecond,
			Timeout:  time.Duration(100+r.rng.IntN(5000)) * time.Millisecond,

			MinPauseBetweenCheckpoints: time.Duration(r.rng.IntN(3)*r.rng.IntN(50)) * time.Millisecond,
			TolerableFailures:          r.rng.IntN(3),
		})
		r.pause = r.c.cfg.MinPauseBetweenCheckpoints
		r.drain()
		for range 3000 {
			r.randomEvent()
		}
		r.quiesce()
		for w, seq := range r.requested {
			if r.released[w] != 1 {
				t.Fatalf("seed %d: waiter %d (asked at event %d) released %d times", seed, w, seq, r.released[w])
			}
		}
		if len(r.requested) < 50 || r.committed == 0 {
			t.Fatalf("seed %d: run too tame: %d waiters, committed %d", seed, len(r.requested), r.committed)
		}
	}
}

func (r *randomRun) step(ev Event) error {
	r.seq++
	err := r.c.Step(ev)
	r.drain()
	return err
}

func (r *randomRun) newJob() Job {
	j := Job{ID: r.nextJob}
	r.nextJob++
	for range 1 + r.rng.IntN(3) {
		j.Actors = append(j.Actors, r.nextActor)
		r.nextActor++
	}
	return j
}

func (r *randomRun) randomEvent() {
	switch n := r.rng.IntN(100); {
	case n < 25:
		r.now = r.now.Add(time.Duration(r.rng.IntN(300)) * time.Millisecond)
		r.step(Tick{Now: r.now})
	case n < 40:
		r.nextW++
		r.requested[r.nextW] = r.seq + 1
		r.step(RequestBarrier{Waiter: r.nextW})
	case n < 65:
		if r.inflight == nil {
			return
		}
		var left []ActorID
		for _, a := range r.inflight.Targets {
			if !r.acked[a] && !r.removed[a] {
				left = append(left, a)
			}
		}
		if len(left) == 0 {
			return
		}
		a := left[r.rng.IntN(len(left))]
		r.acked[a] = true
		if err := r.step(Ack{Epoch: r.inflight.Barrier.Epoch.Curr, Actor: a, WriteSet: a}); err != nil {
			r.t.Fatalf("valid ack rejected: %v", err)
		}
	case n < 70:
		// Bogus acks: stale epoch, unknown actor, duplicate.
		e := r.lastInject - uint64(r.rng.IntN(2))
		a := ActorID(r.rng.IntN(int(r.nextActor) + 2))
		was := r.acked[a]
		dup := r.inflight != nil && was && e == r.inflight.Barrier.Epoch.Curr
		r.acked[a] = true
		err := r.step(Ack{Epoch: e, Actor: a, WriteSet: a})
		if dup && !errors.Is(err, ErrDuplicateAck) && !errors.Is(err, ErrStaleAck) {
			r.t.Fatalf("duplicate ack of %d accepted: %v", a, err)
		}
		if err != nil {
			r.acked[a] = was
		}
	case n < 82:
		if r.commit == nil {
			return
		}
		var err error
		if r.rng.IntN(10) == 0 {
			err = errors.New("injected commit failure")
		}
		e := r.commit.Epoch
		if err != nil {
			r.commit = nil // answered; a success is cleared by Committed
		}
		if serr := r.step(CommitDone{Epoch: e, Err: err}); serr != nil {
			r.t.Fatalf("commit outcome rejected: %v", serr)
		}
	case n < 84:
		if len(r.jobs) > 0 {
			j := r.jobs[r.rng.IntN(len(r.jobs))]
			r.step(ActorFailed{Actor: j.Actors[0], Err: errors.New("injected actor failure")})
		}
	case n < 86:
		if len(r.jobs) == 0 || r.recovering {
			return
		}
		i := r.rng.IntN(len(r.jobs))
		j := r.jobs[i]
		// The step checks the actions against removed: mark first, undo
		// when the job was not running.
		collecting := r.inflight != nil && r.commit == nil
		var marked []ActorID
		if collecting {
			for _, a := range j.Actors {
				if !r.removed[a] {
					r.removed[a] = true
					marked = append(marked, a)
				}
			}
		}
		if err := r.step(JobFailed{Job: j.ID, Err: errors.New("injected job failure")}); err != nil {
			for _, a := range marked {
				delete(r.removed, a)
			}
			return
		}
		r.jobs = slices.Delete(r.jobs, i, i+1)
	case n < 92:
		if !r.recovering {
			return
		}
		if r.rng.IntN(4) == 0 {
			r.recovering = false // until StartRecovery is emitted again
			if err := r.step(RecoveryDone{Err: errors.New("injected recovery failure")}); err != nil {
				r.t.Fatalf("recovery failure rejected: %v", err)
			}
			return
		}
		r.jobs = nil
		for range r.rng.IntN(3) {
			r.jobs = append(r.jobs, r.newJob())
		}
		r.recovering = false
		if err := r.step(RecoveryDone{Jobs: r.jobs}); err != nil {
			r.t.Fatalf("recovery outcome rejected: %v", err)
		}
	case n < 95:
		j := r.newJob()
		r.nextW++
		if err := r.step(AddJob{Job: j, Waiter: r.nextW}); err == nil {
			r.requested[r.nextW] = r.seq
			r.jobs = append(r.jobs, j)
		}
	case n < 97:
		if len(r.jobs) == 0 {
			return
		}
		i := r.rng.IntN(len(r.jobs))
		r.nextW++
		if err := r.step(StopJob{Job: r.jobs[i].ID, Waiter: r.nextW}); err == nil {
			r.requested[r.nextW] = r.seq
			r.jobs = slices.Delete(r.jobs, i, i+1)
		}
	default:
		r.step(SetInterval{Interval: time.Duration(1+r.rng.IntN(500)) * time.Millisecond})
	}
}

// drain checks the actions of the last step against the invariants and
// updates the harness's model.
func (r *randomRun) drain() {
	t := r.t
	for _, a := range r.c.Ready() {
		switch a := a.(type) {
		case InjectBarrier:
			if r.inflight != nil {
				t.Fatalf("barrier %d injected while %d is in flight", a.Barrier.Epoch.Curr, r.inflight.Barrier.Epoch.Curr)
			}
			if a.Barrier.Epoch.Curr <= r.lastInject || a.Barrier.Epoch.Prev >= a.Barrier.Epoch.Curr {
				t.Fatalf("epoch %v after %d", a.Barrier.Epoch, r.lastInject)
			}
			if a.Barrier.Epoch.Prev < r.committed {
				t.Fatalf("barrier prev %d below committed %d", a.Barrier.Epoch.Prev, r.committed)
			}
			if a.Barrier.Kind != KindInitial && r.now.Sub(r.lastEnd) < r.pause {
				t.Fatalf("barrier %d injected %s after the last checkpoint ended, min pause %s", a.Barrier.Epoch.Curr, r.now.Sub(r.lastEnd), r.pause)
			}
			r.lastInject = a.Barrier.Epoch.Curr
			r.inflight, r.injectSeq, r.acked, r.removed = &a, r.seq, map[ActorID]bool{}, map[ActorID]bool{}
		case Commit:
			if r.inflight == nil || r.commit != nil || a.Epoch != r.inflight.Barrier.Epoch.Curr {
				t.Fatalf("commit of %d out of turn", a.Epoch)
			}
			var want []ActorID
			for _, a := range r.inflight.Targets {
				if !r.removed[a] {
					want = append(want, a)
				}
			}
			if len(a.WriteSets) != len(want) {
				t.Fatalf("commit of %d with %d write sets for %d targets (%d left out)", a.Epoch, len(a.WriteSets), len(want), len(r.removed))
			}
			for i, w := range a.WriteSets {
				if w.Actor != want[i] || !r.acked[w.Actor] || w.WriteSet != w.Actor {
					t.Fatalf("commit of %d: write set %d of actor %d (acked %v)", a.Epoch, i, w.Actor, r.acked[w.Actor])
				}
			}
			r.commit = &a
		case Committed:
			if r.commit == nil || a.Epoch != r.commit.Epoch || a.Epoch <= r.committed {
				t.Fatalf("committed %d out of turn (last %d)", a.Epoch, r.committed)
			}
			r.committed = a.Epoch
			r.lastEnd = r.now
			for _, w := range a.Waiters {
				if seq, ok := r.requested[w]; !ok || seq > r.injectSeq {
					t.Fatalf("waiter %d (asked at %d) released by barrier injected at %d", w, seq, r.injectSeq)
				}
				r.release(w)
			}
			r.inflight, r.commit = nil, nil
		case JobRemoved:
			for _, w := range a.Dropped {
				if !r.removed[w.Actor] || !r.acked[w.Actor] {
					t.Fatalf("write set of actor %d dropped for job %d: not a removed, acknowledged actor", w.Actor, a.Job)
				}
			}
		case CheckpointTimedOut:
			if r.inflight == nil || r.commit != nil || a.Epoch != r.inflight.Barrier.Epoch.Curr || a.Failures > a.Tolerable || len(a.Missing) == 0 {
				t.Fatalf("timeout of %d reported out of turn: %+v", a.Epoch, a)
			}
		case FailWaiters:
			if a.Err == nil {
				t.Fatal("waiters failed without an error")
			}
			for _, w := range a.Waiters {
				r.release(w)
			}
		case StartRecovery:
			if r.commit != nil {
				t.Fatalf("recovery started while commit of %d is outstanding", r.commit.Epoch)
			}
			if a.FromEpoch != r.committed {
				t.Fatalf("recovery from %d, committed %d", a.FromEpoch, r.committed)
			}
			r.inflight = nil
			r.lastEnd = r.now
			r.recovering = true
			r.jobs = nil
		}
	}
}

func (r *randomRun) release(w WaiterID) {
	if _, ok := r.requested[w]; !ok {
		r.t.Fatalf("unknown waiter %d released", w)
	}
	r.released[w]++
	if r.released[w] > 1 {
		r.t.Fatalf("waiter %d released twice", w)
	}
}

// quiesce lets every outstanding thing finish without failures.
func (r *randomRun) quiesce() {
	for range 1000 {
		switch {
		case r.recovering:
			r.recovering = false
			r.jobs = []Job{r.newJob()}
			if err := r.step(RecoveryDone{Jobs: r.jobs}); err != nil {
				r.t.Fatalf("recovery outcome rejected: %v", err)
			}
		case r.commit != nil:
			r.step(CommitDone{Epoch: r.commit.Epoch})
		case r.inflight != nil:
			for _, a := range r.inflight.Targets {
				if !r.acked[a] && !r.removed[a] {
					r.acked[a] = true
					r.step(Ack{Epoch: r.inflight.Barrier.Epoch.Curr, Actor: a, WriteSet: a})
				}
			}
		default:
			if len(r.released) == len(r.requested) {
				return
			}
			// Lets a min-pause, an interval or a recovery backoff pass.
			r.now = r.now.Add(10 * time.Millisecond)
			r.step(Tick{Now: r.now})
		}
	}
	r.t.Fatal("did not quiesce")
}
