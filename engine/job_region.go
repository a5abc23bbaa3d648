package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/weirdb/weir/checkpoint"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// This file holds the restart of a failed job that other jobs read: a
// view whose output feeds other views or sinks (Flink's region
// failover). Its region is the job and every job reading its output,
// directly or through other jobs. The region leaves the checkpoints in
// one step (checkpoint.JobFailed with With), so every member's committed
// state is that of one epoch, and each reader's state holds exactly its
// upstream's output up to that epoch. Every other job and all DML go on
// committing meanwhile. After the failed job's restart delay:
//
//   - members that read only sources and other members restart from
//     their committed state, all added by one barrier, so each reader
//     gets its upstream's output from the same barrier on: the sources
//     replay from the offsets committed with that epoch, and nothing is
//     missed or counted twice;
//   - members that read a table, or a view outside the region, missed
//     its changes while down: they are rebuilt from their inputs' current
//     contents, as a view over tables restarting alone is (their state
//     is dropped in the checkpoint leaving them out), one after the
//     other in the order they read each other, each once the members it
//     reads are complete again; members reading a rebuilt one are
//     rebuilt too. Only materialized views can be rebuilt: a region with
//     a sink to rebuild (it would deliver its input again) recovers
//     every job instead, as before.
//
// When the failed job's restart strategy is exhausted, it is FAILED and
// so is every other member (a reader cannot run without its upstream),
// until ALTER ... RESUME, upstream first.

// regionMember is one job of a region and how it restarts.
type regionMember struct {
	rel     *catalog.Relation
	rebuild bool
	// reads holds the members whose output it reads.
	reads []types.JobID
}

// region returns j's region in an order where every member follows the
// members it reads (j first), and whether it can restart without the
// other jobs. Called under writeMu.
func (e *Engine) region(j *jobRun) ([]regionMember, bool) {
	order := []*jobRun{j}
	in := map[types.JobID]bool{j.id: true}
	for i := 0; i < len(order); i++ {
		x := order[i]
		if !x.active {
			return nil, false
		}
		x.subMu.Lock()
		pending := len(x.pending) > 0
		subs := append([]*jobRun(nil), x.subs...)
		x.subMu.Unlock()
		if pending {
			// A reader being added: its first barrier is not yet decided.
			return nil, false
		}
		for _, s := range subs {
			if !in[s.id] {
				in[s.id] = true
				order = append(order, s)
			}
		}
	}
	if len(order) == 1 {
		return nil, false
	}
	// Order the members so that each follows those it reads (a reader
	// may read two members, found in either order above).
	placed := map[types.JobID]bool{}
	sorted := make([]*jobRun, 0, len(order))
	for len(sorted) < len(order) {
		progress := false
		for _, x := range order {
			if placed[x.id] {
				continue
			}
			ready := true
			for _, t := range x.job.Tables {
				if id := types.JobID(t.Rel.ID); in[id] && !placed[id] && id != x.id {
					ready = false
				}
			}
			if ready {
				placed[x.id] = true
				sorted = append(sorted, x)
				progress = true
			}
		}
		if !progress {
			return nil, false
		}
	}
	members := make([]regionMember, len(sorted))
	rebuilt := map[types.JobID]bool{}
	for i, x := range sorted {
		m := regionMember{rel: x.rel}
		for _, t := range x.job.Tables {
			id := types.JobID(t.Rel.ID)
			switch {
			case in[id]:
				m.reads = append(m.reads, id)
				m.rebuild = m.rebuild || rebuilt[id]
			default:
				// A table, or a view outside the region: its changes
				// while the member is down are not kept.
				m.rebuild = true
			}
		}
		if m.rebuild {
			if !materialized(x.rel) {
				return nil, false
			}
			rebuilt[x.id] = true
		}
		members[i] = m
	}
	return members, true
}

// regionFailed takes j's region out of the checkpoints and schedules its
// restart by j's restart strategy. Called under writeMu, which it
// releases.
func (e *Engine) regionFailed(j *jobRun, members []regionMember, named error) error {
	st := e.st
	var with []types.JobID
	var stopped []*jobRun
	for _, m := range members {
		id := types.JobID(m.rel.ID)
		x := st.jobs[id]
		stopped = append(stopped, x)
		st.dropJob(id)
		x.active = false
		e.unsubscribe(x)
		if id != j.id {
			with = append(with, id)
		}
		s := e.strategyOrDefault(m.rel)
		st.health.mu.Lock()
		h := st.health.entry(id, s)
		if m.rebuild {
			h.rebuild, h.truncAt = true, nil
		}
		if id != j.id {
			h.status, h.gen = jobRestarting, h.gen+1
			h.lastErr = fmt.Sprintf("the %s \"%s\" it reads failed", kindWords[j.rel.Kind], j.rel.Name)
		}
		st.health.mu.Unlock()
	}
	e.writeMu.Unlock()
	for _, x := range stopped {
		x.cancel()
	}
	sctx, cancel := context.WithTimeout(st.health.ctx, 10*time.Second)
	err := st.drv.JobsFailed(sctx, j.id, with, named)
	cancel()
	if err != nil {
		return err
	}
	e.scheduleRegionRestart(members, named)
	return nil
}

// scheduleRegionRestart decides about the failure of the region's first
// member and restarts the region after the delay; when the strategy is
// exhausted every member is FAILED.
func (e *Engine) scheduleRegionRestart(members []regionMember, err error) {
	first := members[0].rel
	delay, gen, ok := e.decide(first, err, restartRegion)
	t := e.st.health
	if !ok {
		for _, m := range members[1:] {
			e.failMember(m.rel, first)
		}
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return
	}
	h := t.m[types.JobID(first.ID)]
	if h.timer != nil {
		h.timer.Stop()
	}
	h.timer = time.AfterFunc(delay, func() { e.restartRegion(members, gen) })
}

// failMember leaves a member of a FAILED job's region FAILED too, also
// across restarts of the server.
func (e *Engine) failMember(rel, cause *catalog.Relation) {
	reason := fmt.Sprintf("cannot be restarted: the %s \"%s\" it reads is failed", kindWords[cause.Kind], cause.Name)
	t := e.st.health
	t.mu.Lock()
	if h := t.m[types.JobID(rel.ID)]; h != nil {
		h.status, h.lastErr, h.gen = jobFailed, reason, h.gen+1
		// Whatever it is, its upstream's changes while FAILED are not
		// kept: RESUME rebuilds a view, and refuses a sink.
		h.rebuild = materialized(rel)
	}
	t.mu.Unlock()
	b := e.db.NewBatch()
	defer b.Close()
	if err := b.SetMeta(metaJobFailed(types.JobID(rel.ID)), []byte(reason)); err == nil {
		_ = b.Commit()
	}
	e.log.Error("streaming job failed and is not restarted", strings.ReplaceAll(kindWords[rel.Kind], " ", "_"), rel.Name, "reason", reason)
}

// restartRegion restarts a failed region, unless someone started its
// first member since the restart was scheduled (gen).
func (e *Engine) restartRegion(members []regionMember, gen uint64) {
	st := e.st
	t := st.health
	first := types.JobID(members[0].rel.ID)
	e.ddlMu.Lock()
	t.mu.Lock()
	h := t.m[first]
	ok := h != nil && h.gen == gen && h.status == jobRestarting && !t.stopped
	t.mu.Unlock()
	if !ok {
		e.ddlMu.Unlock()
		return
	}
	// The members as the catalog has them now (dropped ones are gone,
	// and so is every member reading them).
	var live []regionMember
	gone := map[types.JobID]bool{}
	for _, m := range members {
		rel, found := e.cat.ByID(m.rel.ID)
		lost := !found
		for _, r := range m.reads {
			lost = lost || gone[r]
		}
		if lost {
			gone[types.JobID(m.rel.ID)] = true
			t.forget(types.JobID(m.rel.ID))
			continue
		}
		m.rel = rel
		live = append(live, m)
	}
	var fresh, rebuilt []regionMember
	for _, m := range live {
		if m.rebuild {
			rebuilt = append(rebuilt, m)
		} else {
			fresh = append(fresh, m)
		}
	}
	err := e.startTogether(fresh)
	e.ddlMu.Unlock()
	if err != nil {
		e.scheduleRegionRestart(members, jobError(members[0].rel, err))
		return
	}
	if len(rebuilt) == 0 {
		return
	}
	go e.rebuildInOrder(rebuilt)
}

// startTogether builds the members restarting from their committed
// state and adds them with one barrier. Called under ddlMu.
func (e *Engine) startTogether(members []regionMember) error {
	if len(members) == 0 {
		return nil
	}
	st := e.st
	t := st.health
	e.writeMu.Lock()
	var built []*jobRun
	undo := func() {
		for _, j := range built {
			e.unsubscribe(j)
			st.dropJob(j.id)
			j.cancel()
		}
	}
	for _, m := range members {
		if st.jobs[types.JobID(m.rel.ID)] != nil {
			// A recovery started every job meanwhile.
			undo()
			e.writeMu.Unlock()
			for _, m := range members {
				t.started(types.JobID(m.rel.ID))
			}
			return nil
		}
		j, err := e.buildJob(m.rel)
		if err == nil {
			err = st.checkUpstreams(j)
		}
		if err != nil {
			if j != nil {
				j.cancel()
			}
			undo()
			e.writeMu.Unlock()
			return err
		}
		// Registered with its upstream members (just built) for the
		// barrier adding them all.
		e.subscribe(j, false)
		st.setJob(j)
		built = append(built, j)
	}
	e.writeMu.Unlock()
	specs := make([]checkpoint.Job, len(built))
	for i, j := range built {
		t.started(j.id)
		e.runJob(j)
		specs[i] = j.job.Spec()
	}
	if err := st.drv.AddJobs(t.ctx, specs); err != nil {
		// A recovery under way rebuilds them, or the database is
		// closing.
		e.log.Warn("adding a restarted region", "view", members[0].rel.Name, "err", err)
		return nil
	}
	for _, j := range built {
		e.log.Info("streaming job restarted", strings.ReplaceAll(kindWords[j.rel.Kind], " ", "_"), j.rel.Name)
	}
	return nil
}

// rebuildInOrder rebuilds the region's members that missed changes, each
// once the members it reads are running with their rows complete.
func (e *Engine) rebuildInOrder(members []regionMember) {
	t := e.st.health
	for i, m := range members {
		for _, up := range m.reads {
			if e.awaitComplete(up) {
				continue
			}
			if t.ctx.Err() != nil {
				return
			}
			// The member it reads is FAILED or gone: so are the rest.
			cause, ok := e.cat.ByID(uint32(up))
			for _, r := range members[i:] {
				if _, found := e.cat.ByID(r.rel.ID); found && ok {
					e.failMember(r.rel, cause)
				}
			}
			return
		}
		e.ddlMu.Lock()
		rel, found := e.cat.ByID(m.rel.ID)
		if !found {
			e.ddlMu.Unlock()
			t.forget(types.JobID(m.rel.ID))
			continue
		}
		t.mu.Lock()
		h := t.m[types.JobID(rel.ID)]
		waiting := h != nil && h.status == jobRestarting
		t.mu.Unlock()
		if !waiting {
			// A recovery or RESUME started it meanwhile.
			e.ddlMu.Unlock()
			continue
		}
		if !e.awaitTruncation(types.JobID(rel.ID)) {
			e.ddlMu.Unlock()
			return
		}
		err := e.startAgain(rel)
		e.ddlMu.Unlock()
		if err != nil {
			// It counts as a failure of this member, restarted alone
			// from here on (the members before it run).
			e.scheduleRestart(rel, jobError(rel, err))
		}
	}
}

// awaitComplete waits until job id runs with its rows complete (not
// restarting or being rebuilt). It returns false when that will not
// happen: the job is FAILED or dropped, or the database is closing.
func (e *Engine) awaitComplete(id types.JobID) bool {
	t := e.st.health
	for {
		t.mu.Lock()
		h := t.m[id]
		status := jobRunning
		rebuild := false
		if h != nil {
			status, rebuild = h.status, h.rebuild
		}
		t.mu.Unlock()
		e.writeMu.Lock()
		running := e.st.jobs[id] != nil
		e.writeMu.Unlock()
		if status == jobFailed {
			return false
		}
		if running && status == jobRunning && !rebuild {
			return true
		}
		if _, ok := e.cat.ByID(uint32(id)); !ok {
			return false
		}
		select {
		case <-time.After(50 * time.Millisecond):
		case <-t.ctx.Done():
			return false
		}
	}
}
