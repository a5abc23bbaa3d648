package engine

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/weirdb/weir/engine/syscat"
	"github.com/weirdb/weir/executor/stream"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// This file is what weir measures of itself, for the Prometheus metrics
// (/metrics), the weir.* system views and EXPLAIN of a running view. The
// streaming code reports events with one-line calls (a checkpoint
// injected, committed or failed, a job restarted, a DML statement
// committed); everything else (operators' row counts, state sizes,
// source positions and lags, sinks' transactions) is read from the
// running jobs when it is asked for, so the two views of it never
// disagree.

// checkpointHistory is how many checkpoints weir.checkpoints keeps.
const checkpointHistory = syscat.CheckpointHistory

// Checkpoint outcomes, as weir.checkpoints' status and the outcome label
// of weir_checkpoints_total.
const (
	ckptSucceeded = "succeeded"
	ckptFailed    = "failed"
	ckptTimedOut  = "timed_out"
)

// checkpointRecord is one checkpoint as weir.checkpoints shows it.
type checkpointRecord struct {
	epoch    uint64
	started  time.Time
	duration time.Duration
	bytes    int64
	status   string // "" while in flight
	reason   string
}

// jobObserved is what the observer remembers of a job across its restarts.
type jobObserved struct {
	restarts  int64
	lastError string
	lastAt    time.Time
}

// observer holds the engine's measurements of its own work.
type observer struct {
	mu          sync.Mutex
	history     []checkpointRecord // oldest first, at most checkpointHistory
	lastSuccess time.Time
	jobs        map[types.JobID]*jobObserved
	// hwms are the last high watermarks read per source.
	hwms map[uint32]map[int32]int64
	// roots are the plans of the jobs last seen running, so that what is
	// known of a job being rebuilt (its sources' committed positions)
	// stays visible meanwhile.
	roots map[types.JobID]planner.StreamNode
	// running is the list of running jobs read last (runningJobs).
	running []*jobRun
	// recovering is set from a recovery's start until its Initial
	// barrier is injected.
	recovering atomic.Bool

	ckptDuration prometheus.Histogram
	ckptBytes    prometheus.Histogram
	ckptTotal    *prometheus.CounterVec
	dmlCommit    prometheus.Histogram
	dmlCommits   *prometheus.CounterVec
	// redoCommits and checkpointCommits are dmlCommits' two paths.
	redoCommits, checkpointCommits prometheus.Counter
	redoBytes                      prometheus.Counter

	// sizes caches the state tables' sizes (sizesTTL) so that scrapes
	// and catalog reads do not scan Pebble each time.
	sizesMu sync.Mutex
	sizesAt time.Time
	sizes   map[uint32]tableSize
}

// sizesTTL is how long measured state table sizes are reused.
const sizesTTL = 2 * time.Second

// tableSize is a state table's committed rows and their bytes (keys and
// values as stored).
type tableSize struct{ rows, bytes int64 }

func newObserver() *observer {
	o := &observer{
		jobs:  map[types.JobID]*jobObserved{},
		hwms:  map[uint32]map[int32]int64{},
		roots: map[types.JobID]planner.StreamNode{},
		ckptDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: "weir", Name: "checkpoint_duration_seconds",
			Help:    "Time from a checkpoint barrier's injection to the checkpoint's commit.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 16),
		}),
		ckptBytes: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: "weir", Name: "checkpoint_size_bytes",
			Help:    "Bytes written to storage by a committed checkpoint (state, table writes and positions).",
			Buckets: prometheus.ExponentialBuckets(256, 4, 12),
		}),
		ckptTotal: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "weir", Name: "checkpoints_total",
			Help: "Checkpoints by outcome: succeeded, failed, timed_out.",
		}, []string{"outcome"}),
		dmlCommit: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: "weir", Name: "dml_commit_duration_seconds",
			Help:    "Time a DML statement waited for its commit: its redo record's fsync, or the checkpoint holding its changes.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16),
		}),
		dmlCommits: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "weir", Name: "dml_commits_total",
			Help: "DML statements committed, by path: redo_log (acknowledged on their redo record's fsync) or checkpoint (on their checkpoint's commit).",
		}, []string{"path"}),
		redoBytes: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: "weir", Name: "redo_log_bytes_total",
			Help: "Bytes of redo records appended.",
		}),
	}
	o.redoCommits = o.dmlCommits.WithLabelValues("redo_log")
	o.checkpointCommits = o.dmlCommits.WithLabelValues("checkpoint")
	return o
}

// register adds the observer's metrics and the engine's live collector
// to reg.
func (o *observer) register(reg *prometheus.Registry, e *Engine) {
	for _, oc := range []string{ckptSucceeded, ckptFailed, ckptTimedOut} {
		o.ckptTotal.WithLabelValues(oc) // present at 0 from the start
	}
	reg.MustRegister(o.ckptDuration, o.ckptBytes, o.ckptTotal, o.dmlCommit, o.dmlCommits, o.redoBytes, liveCollector{e})
}

// checkpointInjected records the start of the checkpoint of epoch and the
// jobs it was injected into (the running jobs, for runningJobs).
func (o *observer) checkpointInjected(epoch uint64, initial bool, jobs []*jobRun, now time.Time) {
	if initial {
		o.recovering.Store(false)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.running = jobs
	o.history = append(o.history, checkpointRecord{epoch: epoch, started: now})
	if len(o.history) > checkpointHistory {
		o.history = slices.Delete(o.history, 0, len(o.history)-checkpointHistory)
	}
}

// record returns the in-flight record of epoch, or nil. Called with mu.
func (o *observer) record(epoch uint64) *checkpointRecord {
	for i := len(o.history) - 1; i >= 0; i-- {
		if o.history[i].epoch == epoch {
			return &o.history[i]
		}
	}
	return nil
}

// checkpointCommitted records that the checkpoint of epoch committed,
// having written bytes.
func (o *observer) checkpointCommitted(epoch uint64, bytes int64, now time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.lastSuccess = now
	r := o.record(epoch)
	if r == nil || r.status != "" {
		return
	}
	r.status, r.bytes, r.duration = ckptSucceeded, bytes, now.Sub(r.started)
	o.ckptTotal.WithLabelValues(ckptSucceeded).Inc()
	o.ckptDuration.Observe(r.duration.Seconds())
	o.ckptBytes.Observe(float64(bytes))
}

// recoveryStarted records a recovery: the checkpoint in flight, if any,
// failed (or timed out) with cause, and every job restarts. A recovery
// at start-up (cause nil) is no failure.
func (o *observer) recoveryStarted(cause error, jobs []types.JobID, now time.Time) {
	o.recovering.Store(true)
	if cause == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	msg := cause.Error()
	for i := len(o.history) - 1; i >= 0; i-- {
		r := &o.history[i]
		if r.status != "" {
			break
		}
		r.status, r.reason, r.duration = ckptFailed, msg, now.Sub(r.started)
		if pgerr.CodeOf(cause) == pgerr.QueryCanceled {
			r.status = ckptTimedOut
		}
		o.ckptTotal.WithLabelValues(r.status).Inc()
	}
	var deliberate deliberateRestart
	asked := errors.As(cause, &deliberate)
	for _, id := range jobs {
		h := o.health(id)
		h.restarts++
		if !asked {
			h.lastError, h.lastAt = msg, now
		}
	}
}

// jobFailed records err as job id's last error (a failed rebuild).
func (o *observer) jobFailed(id types.JobID, err error, now time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	h := o.health(id)
	h.lastError, h.lastAt = err.Error(), now
}

// health returns job id's record, creating it. Called with mu.
func (o *observer) health(id types.JobID) *jobObserved {
	h := o.jobs[id]
	if h == nil {
		h = &jobObserved{}
		o.jobs[id] = h
	}
	return h
}

// jobHealthOf returns a copy of job id's record.
func (o *observer) jobHealthOf(id types.JobID) jobObserved {
	o.mu.Lock()
	defer o.mu.Unlock()
	if h := o.jobs[id]; h != nil {
		return *h
	}
	return jobObserved{}
}

// checkpoints returns the recorded checkpoints, newest first.
func (o *observer) checkpoints() []checkpointRecord {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := slices.Clone(o.history)
	slices.Reverse(out)
	return out
}

// dmlWaited records how long a statement waited for its commit, when it
// committed (*err nil).
func (o *observer) dmlWaited(start time.Time, err *error) {
	if *err == nil {
		o.dmlCommit.Observe(time.Since(start).Seconds())
		o.checkpointCommits.Inc()
	}
}

// redoAppended counts a redo record of n bytes.
func (o *observer) redoAppended(n int) { o.redoBytes.Add(float64(n)) }

// redoSynced records how long a statement waited for its redo record's
// fsync, when it was synced (*err nil).
func (o *observer) redoSynced(start time.Time, err *error) {
	if *err == nil {
		o.dmlCommit.Observe(time.Since(start).Seconds())
		o.redoCommits.Inc()
	}
}

// stateSizes returns the committed rows and bytes of every state table,
// measured at most maxAge ago (scrapes reuse a recent measurement; a
// user's query measures anew).
func (e *Engine) stateSizes(maxAge time.Duration) map[uint32]tableSize {
	o := e.obs
	o.sizesMu.Lock()
	defer o.sizesMu.Unlock()
	if o.sizes != nil && time.Since(o.sizesAt) < maxAge {
		return o.sizes
	}
	sizes := map[uint32]tableSize{}
	snap := e.db.NewSnapshot()
	defer snap.Close()
	for _, j := range e.runningJobs() {
		for _, t := range planner.StateTables(j.root) {
			var s tableSize
			err := snap.ScanPrefix(storage.TablePrefix(t.Table.ID), func(k, v []byte) error {
				s.rows++
				s.bytes += int64(len(k) + len(v))
				return nil
			})
			if err == nil {
				sizes[t.Table.ID] = s
			}
		}
	}
	o.sizes, o.sizesAt = sizes, time.Now()
	return sizes
}

// runningJobs returns the running jobs by id. The jobs are guarded by
// writeMu, which a statement reading a weir view may already hold (INSERT
// ... SELECT FROM weir.jobs computes its rows under it): then, or while
// another statement holds it, the list read last is returned.
func (e *Engine) runningJobs() []*jobRun {
	if !e.writeMu.TryLock() {
		e.obs.mu.Lock()
		defer e.obs.mu.Unlock()
		return e.obs.running
	}
	js := e.st.sortedJobs()
	e.writeMu.Unlock()
	e.obs.mu.Lock()
	e.obs.running = js
	for _, j := range js {
		e.obs.roots[j.id] = j.root
	}
	e.obs.mu.Unlock()
	return js
}

// jobRoot is a job's id and plan.
type jobRoot struct {
	id   types.JobID
	root planner.StreamNode
}

// jobRoots returns the plan of every relation's job: the running one's,
// or the one last seen running while it is being rebuilt.
func (e *Engine) jobRoots() []jobRoot {
	rels, _ := e.jobStatuses() // records the running jobs' plans
	e.obs.mu.Lock()
	defer e.obs.mu.Unlock()
	var out []jobRoot
	keep := map[types.JobID]bool{}
	for _, r := range rels {
		id := types.JobID(r.ID)
		keep[id] = true
		if root := e.obs.roots[id]; root != nil {
			out = append(out, jobRoot{id, root})
		}
	}
	for id := range e.obs.roots {
		if !keep[id] {
			delete(e.obs.roots, id) // dropped
		}
	}
	return out
}

// jobStatus is a job's status as weir.jobs and weir_job_state show it:
// its restart record's (restarting, rebuilding, failed) when it has
// one, else recovering, backfilling or running.
func (e *Engine) jobStatus(rel *catalog.Relation, j *jobRun) string {
	if h, ok := e.st.health.snapshot(types.JobID(rel.ID)); ok && h.status != jobRunning {
		return h.status
	}
	switch {
	case j == nil:
		return jobFailed
	case e.obs.recovering.Load():
		return "recovering"
	}
	if _, _, n, _ := j.backfillState(); n > 0 && !j.backfillDone() {
		return "backfilling"
	}
	return jobRunning
}

// jobStatuses lists every relation with a job of its own, and its running
// job (nil when it has none: its rebuild failed).
func (e *Engine) jobStatuses() ([]*catalog.Relation, map[types.JobID]*jobRun) {
	running := map[types.JobID]*jobRun{}
	for _, j := range e.runningJobs() {
		running[j.id] = j
	}
	var rels []*catalog.Relation
	seen := map[uint32]bool{}
	for _, r := range e.cat.All() {
		if hasJob(r) {
			rels = append(rels, r)
			seen[r.ID] = true
		}
	}
	// A job whose CREATE is still backfilling runs before its relation
	// is in the catalog.
	for _, j := range running {
		if !seen[uint32(j.id)] && j.rel != nil {
			rels = append(rels, j.rel)
		}
	}
	slices.SortFunc(rels, func(a, b *catalog.Relation) int { return int(a.ID) - int(b.ID) })
	return rels, running
}

// operatorStat is one operator of a running job with its live counts.
type operatorStat struct {
	op                        planner.StreamOperator
	rowsIn, rowsOut           int64
	stateRows, stateBytes     int64
	hits, misses, evictions   int64
	prefixHits                int64
	backpressure              time.Duration
	hasState, counted, isLeaf bool
}

// operatorStats returns the operators of job j in EXPLAIN's order with
// their live counts, and state sizes measured at most maxAge ago.
func (e *Engine) operatorStats(j *jobRun, maxAge time.Duration) []operatorStat {
	stats := j.job.Stats()
	var rowsOut func(n planner.StreamNode) (int64, bool)
	rowsOut = func(n planner.StreamNode) (int64, bool) {
		switch x := n.(type) {
		case *planner.StreamExchange:
			// An exchange moves its input's rows between actors.
			return rowsOut(x.Input)
		case *planner.StreamShare:
			// Each consumer of a shared subplan reads all its rows.
			return rowsOut(x.Input)
		}
		if s := stats[n]; s != nil {
			return s.RowsOut.Load(), true
		}
		return 0, false
	}
	sizes := e.stateSizes(maxAge)
	var out []operatorStat
	for _, op := range planner.StreamOperators(j.root) {
		st := operatorStat{op: op}
		st.rowsOut, st.counted = rowsOut(op.Node)
		ins := op.Node.StreamInputs()
		st.isLeaf = len(ins) == 0
		for _, in := range ins {
			n, _ := rowsOut(in)
			st.rowsIn += n
		}
		if s := stats[op.Node]; s != nil {
			st.backpressure = time.Duration(s.BlockedNanos.Load())
		}
		for _, t := range op.Tables {
			st.hasState = true
			sz := sizes[t.ID]
			st.stateRows += sz.rows
			st.stateBytes += sz.bytes
			cs := e.st.cache.TableStats(t.ID)
			st.hits += cs.Hits.Load()
			st.misses += cs.Misses.Load()
			st.evictions += cs.Evictions.Load()
			st.prefixHits += cs.PrefixHits.Load()
		}
		out = append(out, st)
	}
	return out
}

// sourcePartition is one partition of a source as one job reads it:
// the records its reader read since it started, the reader's position,
// the position committed by the last checkpoint, and the topic's high
// watermark when the broker told it.
type sourcePartition struct {
	rel          *catalog.Relation
	job          types.JobID
	partition    int32
	records      int64
	bytes        int64
	malformed    int64
	position     int64 // the reader's next offset (-1: unknown)
	committed    int64 // the checkpointed next offset (-1: none yet)
	hwm          int64
	hasHWM       bool
	hasPosition  bool
	hasCommitted bool
}

// lag is how many records of the partition a recovery would read again
// or has not read yet: the high watermark minus the committed position
// (as a Kafka consumer group's lag is measured from its committed
// offset). Before the first checkpoint of the partition it is measured
// from the reader's position.
func (p sourcePartition) lag() (int64, bool) {
	switch {
	case !p.hasHWM:
		return 0, false
	case p.hasCommitted:
		return max(0, p.hwm-p.committed), true
	case p.hasPosition:
		return max(0, p.hwm-p.position), true
	}
	return 0, false
}

// sourceStats counts one reader's records per partition. The reader's
// goroutine adds; system views and scrapes read.
type sourceStats struct {
	mu        sync.Mutex
	records   map[int32]int64
	bytes     map[int32]int64
	malformed map[int32]int64
	positions map[int32]int64
}

// add counts a polled batch.
func (s *sourceStats) add(records, bytes, malformed, positions map[int32]int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.records == nil {
		s.records, s.bytes, s.malformed, s.positions = map[int32]int64{}, map[int32]int64{}, map[int32]int64{}, map[int32]int64{}
	}
	for p, n := range records {
		s.records[p] += n
	}
	for p, n := range malformed {
		s.malformed[p] += n
	}
	for p, n := range bytes {
		s.bytes[p] += n
	}
	for p, o := range positions {
		s.positions[p] = o
	}
}

// hwmTimeout bounds the broker request for a topic's high watermarks.
const hwmTimeout = 2 * time.Second

// sourcePartitions lists the partitions of every source read by a
// running job, asking each topic's high watermarks from its broker once.
func (e *Engine) sourcePartitions(ctx context.Context) []sourcePartition {
	type reader struct {
		stats *sourceStats
		hwm   func(context.Context) (map[int32]int64, error)
	}
	c := e.conns
	c.mu.Lock()
	readers := map[[2]uint32]reader{}
	for rel, byJob := range c.readers {
		for job, r := range byJob {
			readers[[2]uint32{rel, uint32(job)}] = reader{stats: c.stats[r], hwm: r.HighWatermarks}
		}
	}
	// A generator has no high watermarks: it makes its rows as it is
	// read.
	for rel, byJob := range c.gens {
		for job, st := range byJob {
			readers[[2]uint32{rel, uint32(job)}] = reader{stats: st}
		}
	}
	c.mu.Unlock()
	// hwmOf asks a reader of source rel for the topic's high watermarks;
	// while none runs (its jobs are being rebuilt), the last answer
	// stands.
	hwmOf := func(rel uint32) map[int32]int64 {
		for k, r := range readers {
			if k[0] != rel || r.hwm == nil {
				continue
			}
			cctx, cancel := context.WithTimeout(ctx, hwmTimeout)
			hw, err := r.hwm(cctx)
			cancel()
			if err == nil {
				e.obs.mu.Lock()
				e.obs.hwms[rel] = hw
				e.obs.mu.Unlock()
				return hw
			}
		}
		e.obs.mu.Lock()
		defer e.obs.mu.Unlock()
		return e.obs.hwms[rel]
	}
	hwms := map[uint32]map[int32]int64{}
	snap := e.db.NewSnapshot()
	defer snap.Close()
	var out []sourcePartition
	// A job that reads a source twice (a self-join) has one reader of it
	// and one row per partition, as metrics may not have two series of
	// one name and labels: both scans of the source are at the same
	// positions, committed at the same checkpoints.
	listed := map[[2]uint32]bool{}
	for _, j := range e.jobRoots() {
		for _, op := range planner.StreamOperators(j.root) {
			src, ok := op.Node.(*planner.StreamSource)
			if !ok || listed[[2]uint32{src.Rel.ID, uint32(j.id)}] {
				continue
			}
			listed[[2]uint32{src.Rel.ID, uint32(j.id)}] = true
			committed := map[int32]int64{}
			rows, err := storage.Collect(snap.Scan(src.State.ID, stream.SourceStateTypes), nil)
			if err == nil {
				for _, r := range rows {
					if r[0].I >= 0 {
						committed[int32(r[0].I)] = r[1].I
					}
				}
			}
			hw, asked := hwms[src.Rel.ID]
			if !asked {
				hw = hwmOf(src.Rel.ID)
				hwms[src.Rel.ID] = hw
			}
			parts := map[int32]bool{}
			for p := range committed {
				parts[p] = true
			}
			for p := range hw {
				parts[p] = true
			}
			rd := readers[[2]uint32{src.Rel.ID, uint32(j.id)}]
			var records, bytes, malformed, positions map[int32]int64
			if rd.stats != nil {
				rd.stats.mu.Lock()
				records, bytes, malformed, positions = maps.Clone(rd.stats.records), maps.Clone(rd.stats.bytes), maps.Clone(rd.stats.malformed), maps.Clone(rd.stats.positions)
				rd.stats.mu.Unlock()
				for p := range positions {
					parts[p] = true
				}
			}
			keys := slices.Sorted(maps.Keys(parts))
			for _, p := range keys {
				sp := sourcePartition{rel: src.Rel, job: j.id, partition: p, records: records[p], bytes: bytes[p], malformed: malformed[p]}
				sp.position, sp.hasPosition = positions[p]
				sp.committed, sp.hasCommitted = committed[p]
				sp.hwm, sp.hasHWM = hw[p]
				out = append(out, sp)
			}
		}
	}
	return out
}

// sinkState is a sink's state as weir.sinks and weir_sink_state show it:
// failed, restarting, paused (its log store is full) or running.
func (e *Engine) sinkState(rel *catalog.Relation, j *jobRun) string {
	if h, ok := e.st.health.snapshot(types.JobID(rel.ID)); ok && h.status != jobRunning {
		if h.status == jobFailed {
			return jobFailed
		}
		return jobRestarting
	}
	switch {
	case j == nil:
		return jobFailed
	case e.obs.recovering.Load():
		return jobRestarting
	case j.job.Held():
		return "paused"
	}
	return jobRunning
}

// liveCollector exports, at each scrape, what is read from the running
// jobs: operators, sources, sinks, jobs, the state cache and sessions.
// It is an unchecked collector (Describe sends nothing): its series come
// and go with the jobs.
type liveCollector struct{ e *Engine }

// Describe implements prometheus.Collector.
func (liveCollector) Describe(chan<- *prometheus.Desc) {}

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc("weir_"+name, help, labels, nil)
}

var (
	descCommittedEpoch   = desc("checkpoint_committed_epoch", "The last committed checkpoint epoch.")
	descSinceSuccess     = desc("checkpoint_seconds_since_last_success", "Seconds since the last checkpoint committed (since the server started when none has).")
	descLastSuccess      = desc("checkpoint_last_success_timestamp_seconds", "Unix time of the last committed checkpoint.")
	descJobState         = desc("job_state", "1 for each job's current state (running, backfilling, recovering, failed).", "job", "kind", "state")
	descJobRestarts      = desc("job_restarts_total", "Times the job was restarted by a recovery.", "job", "kind")
	descJobActors        = desc("job_actors", "Actors (parallel instances of operator chains) of the job.", "job", "kind")
	descBackfillRows     = desc("job_backfill_rows", "Rows of existing data the job's backfill has read.", "job", "kind")
	descBackfillProgress = desc("job_backfill_progress_ratio", "Fraction of the backfill done (1 when finished).", "job", "kind")
	descBackfillSeconds  = desc("job_backfill_seconds", "Time the job's backfill has run: so far while it runs, in all once done.", "job", "kind")
	descOpRowsIn         = desc("operator_rows_in_total", "Rows into the operator (from its inputs).", "job", "operator_id", "operator")
	descOpRowsOut        = desc("operator_rows_out_total", "Rows out of the operator.", "job", "operator_id", "operator")
	descOpStateRows      = desc("operator_state_rows", "Committed rows in the operator's state tables.", "job", "operator_id", "operator")
	descOpStateBytes     = desc("operator_state_bytes", "Committed bytes (keys and values) in the operator's state tables.", "job", "operator_id", "operator")
	descOpCacheHits      = desc("operator_state_cache_hits_total", "State lookups answered from the state cache.", "job", "operator_id", "operator")
	descOpCacheMisses    = desc("operator_state_cache_misses_total", "State lookups that read storage.", "job", "operator_id", "operator")
	descOpCacheEvictions = desc("operator_state_cache_evictions_total", "State cache entries evicted to stay within the memory budget.", "job", "operator_id", "operator")
	descOpPrefixHits     = desc("operator_state_cache_prefix_hits_total", "Reads of a join key's rows or a top-N group's window answered from memory alone by state that no longer fits in it.", "job", "operator_id", "operator")
	descOpBackpressure   = desc("operator_backpressure_seconds_total", "Time the operator's actors waited on a full output channel (its consumer is slower).", "job", "operator_id", "operator")
	descSrcRecords       = desc("source_records_total", "Records read from the partition since the reader started.", "source", "job", "partition")
	descSrcBytes         = desc("source_bytes_total", "Key and value bytes read from the partition since the reader started.", "source", "job", "partition")
	descSrcPosition      = desc("source_position", "Offset of the next record the reader will read from the partition.", "source", "job", "partition")
	descSrcCommitted     = desc("source_committed_position", "Offset of the next record of the partition after the last committed checkpoint (where a recovery resumes).", "source", "job", "partition")
	descSrcHWM           = desc("source_high_watermark", "The partition's high watermark: the offset the next record produced will get.", "source", "partition")
	descSrcLag           = desc("source_lag_records", "Records of the partition not yet covered by a committed checkpoint: high watermark minus committed position.", "source", "job", "partition")
	descSrcMalformed     = desc("source_malformed_records_total", "Records skipped as malformed (committed with the checkpoints).", "source")
	descSrcLate          = desc("source_late_rows_total", "Rows dropped for arriving behind the watermark (committed with the checkpoints).", "source")
	descSinkTxns         = desc("sink_transactions_total", "Sink transactions by outcome: committed, aborted, recommitted (committed again after a recovery), lost (a recorded transaction of a coupled sink the broker aborted: its records are lost).", "sink", "outcome")
	descSinkRecords      = desc("sink_records_total", "Records written to the sink's topic since the server started.", "sink")
	descSinkSkipped      = desc("sink_records_skipped_total", "Records not written because they exceed max.record.bytes.", "sink")
	descSinkState        = desc("sink_state", "1 for each sink's current state (running, restarting, failed).", "sink", "state")
	descSinkEpoch        = desc("sink_last_committed_epoch", "The last checkpoint epoch whose sink transaction committed.", "sink")
	descCacheBytes       = desc("state_cache_bytes", "Bytes held by the state cache (clean and dirty entries, and the epochs' write sets not yet committed).")
	descCacheBudget      = desc("state_cache_budget_bytes", "The state cache's memory budget (state_cache_bytes's bound, exceeded by at most one epoch's writes).")
	descSessionsByState  = desc("sessions_by_state", "Client sessions by state (active, idle, idle_in_transaction, idle_in_failed_transaction).", "state")
)

// Collect implements prometheus.Collector.
func (c liveCollector) Collect(ch chan<- prometheus.Metric) {
	e := c.e
	if e.st == nil {
		return
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	gauge(descCommittedEpoch, float64(e.st.committed.Load()))
	e.obs.mu.Lock()
	last := e.obs.lastSuccess
	e.obs.mu.Unlock()
	since := e.started
	if !last.IsZero() {
		since = last
		gauge(descLastSuccess, float64(last.UnixNano())/1e9)
	}
	gauge(descSinceSuccess, time.Since(since).Seconds())

	rels, running := e.jobStatuses()
	for _, r := range rels {
		j := running[types.JobID(r.ID)]
		kind := jobKind(r)
		name := r.Name
		if r.Kind == catalog.KindSink {
			st := e.sinkState(r, j)
			for _, s := range []string{"running", "restarting", "failed"} {
				gauge(descSinkState, b2f(s == st), name, s)
			}
		}
		status := e.jobStatus(r, j)
		for _, s := range []string{"running", "backfilling", "recovering", "failed"} {
			gauge(descJobState, b2f(s == status), name, kind, s)
		}
		counter(descJobRestarts, float64(e.jobRestarts(types.JobID(r.ID))), name, kind)
		if j == nil {
			continue
		}
		gauge(descJobActors, float64(len(j.job.ActorIDs())), name, kind)
		rows, total, n, done := j.backfillState()
		gauge(descBackfillRows, float64(rows), name, kind)
		gauge(descBackfillProgress, backfillRatio(rows, total, n, done), name, kind)
		if d, ok := j.backfillTime(time.Now()); ok {
			gauge(descBackfillSeconds, d.Seconds(), name, kind)
		}
		for _, op := range e.operatorStats(j, sizesTTL) {
			id := strconv.Itoa(op.op.ID)
			labels := []string{name, id, op.op.Name}
			if !op.isLeaf {
				counter(descOpRowsIn, float64(op.rowsIn), labels...)
			}
			counter(descOpRowsOut, float64(op.rowsOut), labels...)
			counter(descOpBackpressure, op.backpressure.Seconds(), labels...)
			if op.hasState {
				gauge(descOpStateRows, float64(op.stateRows), labels...)
				gauge(descOpStateBytes, float64(op.stateBytes), labels...)
				counter(descOpCacheHits, float64(op.hits), labels...)
				counter(descOpCacheMisses, float64(op.misses), labels...)
				counter(descOpCacheEvictions, float64(op.evictions), labels...)
				counter(descOpPrefixHits, float64(op.prefixHits), labels...)
			}
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*hwmTimeout)
	defer cancel()
	seenHWM := map[[2]int64]bool{}
	for _, p := range e.sourcePartitions(ctx) {
		job := jobName(e, p.job)
		part := strconv.Itoa(int(p.partition))
		counter(descSrcRecords, float64(p.records), p.rel.Name, job, part)
		counter(descSrcBytes, float64(p.bytes), p.rel.Name, job, part)
		if p.hasPosition {
			gauge(descSrcPosition, float64(p.position), p.rel.Name, job, part)
		}
		if p.hasCommitted {
			gauge(descSrcCommitted, float64(p.committed), p.rel.Name, job, part)
		}
		if p.hasHWM {
			k := [2]int64{int64(p.rel.ID), int64(p.partition)}
			if !seenHWM[k] {
				seenHWM[k] = true
				gauge(descSrcHWM, float64(p.hwm), p.rel.Name, part)
			}
		}
		if lag, ok := p.lag(); ok {
			gauge(descSrcLag, float64(lag), p.rel.Name, job, part)
		}
	}
	for _, r := range connectorRels(e, false) {
		counter(descSrcMalformed, float64(e.wms.malformedRecords(r.ID)), r.Name)
		counter(descSrcLate, float64(e.wms.lateRows(r.ID)), r.Name)
	}
	for _, r := range connectorRels(e, true) {
		info := e.conns.sinkInfo(r.ID)
		if info == nil {
			continue
		}
		counter(descSinkTxns, float64(info.txCommitted.Load()), r.Name, "committed")
		counter(descSinkTxns, float64(info.txAborted.Load()), r.Name, "aborted")
		counter(descSinkTxns, float64(info.txRecommitted.Load()), r.Name, "recommitted")
		counter(descSinkTxns, float64(info.txLost.Load()), r.Name, "lost")
		counter(descSinkRecords, float64(info.written.Load()), r.Name)
		counter(descSinkSkipped, float64(info.skipped.Load()), r.Name)
		ep, _ := info.snapshot()
		gauge(descSinkEpoch, float64(ep), r.Name)
	}
	gauge(descCacheBytes, float64(e.st.cache.Used()))
	gauge(descCacheBudget, float64(e.st.cache.Budget()))
	counts := e.sessionStates()
	for _, s := range sessionStateNames {
		gauge(descSessionsByState, float64(counts[s]), s)
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// backfillRatio is the fraction of a job's backfill done: 1 when every
// reporting actor is done or nothing is backfilled.
func backfillRatio(rows, total int64, reported int, done bool) float64 {
	if reported == 0 || done {
		return 1
	}
	if total <= 0 {
		return 0
	}
	return min(1, float64(rows)/float64(total))
}

// jobKind names the kind of relation a job maintains.
func jobKind(r *catalog.Relation) string {
	switch r.Kind {
	case catalog.KindMView:
		return "materialized view"
	case catalog.KindIndex:
		return "index"
	case catalog.KindSink:
		return "sink"
	}
	return "table"
}

// jobName is the name of job id's relation.
func jobName(e *Engine, id types.JobID) string {
	if r, ok := e.cat.ByID(uint32(id)); ok {
		return r.Name
	}
	return "#" + strconv.Itoa(int(id))
}

// Session states, as pg_stat_activity names them (with underscores).
var sessionStateNames = []string{"active", "idle", "idle_in_transaction", "idle_in_failed_transaction"}

// sessionStates counts the open sessions by state.
func (e *Engine) sessionStates() map[string]int {
	out := map[string]int{}
	e.sessions.Range(func(_, v any) bool {
		out[v.(*Session).state()]++
		return true
	})
	return out
}

// sessActive is Session.activity while a statement runs; otherwise it
// holds the ReadyForQuery status last sent ('I', 'T' or 'E').
const sessActive = 'A'

// state is the session's state for weir_sessions_by_state.
func (s *Session) state() string {
	switch s.activity.Load() {
	case sessActive:
		return "active"
	case 'T':
		return "idle_in_transaction"
	case 'E':
		return "idle_in_failed_transaction"
	}
	return "idle"
}
