package engine

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/weirdb/weir/connector/kafka"
	"github.com/weirdb/weir/executor/stream"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// Rescaling. Every state table is partitioned across a fragment's actors
// by a hash of the rows' own key columns (executor/stream/partition.go),
// not by actor, so a job's state does not move when its parallelism
// changes: each actor of the new count reads the rows whose hash falls
// to it. What is kept per actor is the backfill progress (an actor the
// old count did not have finds the backfill finished when every old one
// had) and the sinks' transactions and log stores. A coupled sink's
// actor 0 commits the transactions of actors the new count no longer
// has, and once the jobs run again the transactional ids of those actors
// are fenced, which aborts what they left open so that read_committed
// readers are not held up until it times out. A decoupled sink delivers
// what those actors left in its log store under their own identities
// (executor/stream/sink_log.go), which fences their ids, and holds the
// epochs of the new run back until every older one is delivered, so each
// epoch reaches the target once and a key's changes stay in order.
//
// A job cannot be swapped for its rescaled self between two barriers (the
// changes of the epochs in between would reach neither), so ALTER ... SET
// PARALLELISM (and weir serve --streaming-parallelism, for every job)
// records the new count and restarts every streaming job from the last
// committed checkpoint, as a recovery does: views are exact
// across the change, and statements waiting for a checkpoint at that
// moment fail with a retryable error, as in a recovery.

// setParallelism runs ALTER MATERIALIZED VIEW | SINK name SET PARALLELISM.
func (s *Session) setParallelism(ctx context.Context, st *sql.SetParallelism) (wire.Result, error) {
	tag := "ALTER " + strings.ToUpper(st.Kind)
	if err := s.noDDLInBlock(tag); err != nil {
		return nil, err
	}
	want := renameKinds[st.Kind]
	if st.Kind != "materialized view" && st.Kind != "sink" {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "SET PARALLELISM applies to materialized views and sinks")
	}
	with := map[string]string{"streaming_parallelism": st.N}
	if err := checkParallelism(with); err != nil {
		return nil, err
	}
	n, _ := strconv.Atoi(strings.TrimSpace(st.N))
	e := s.eng
	ctx, cancel := s.withTimeout(ctx)
	defer cancel()
	if err := e.ddlMu.lockContext(ctx); err != nil {
		return nil, err
	}
	defer e.ddlMu.Unlock()
	rel, ok := e.cat.Lookup(s.schemaOf(st.Name), st.Name.Name)
	if !ok {
		code := pgerr.UndefinedTable
		if st.Kind == "sink" {
			code = pgerr.UndefinedObject
		}
		return nil, pgerr.New(code, "%s \"%s\" does not exist", st.Kind, st.Name.Name)
	}
	if rel.Kind != want {
		return nil, pgerr.New(pgerr.WrongObjectType, "\"%s\" is not a %s", rel.Name, st.Kind)
	}
	if rel.With["streaming_parallelism"] == strconv.Itoa(n) {
		return done(tag)
	}
	if rel.Unpopulated {
		// No job: its REFRESH plans it with the new count.
		if err := e.writeMu.lockContext(ctx); err != nil {
			return nil, err
		}
		defer e.writeMu.Unlock()
		if err := e.setUnpopulatedParallelism(n, rel); err != nil {
			return nil, err
		}
		return done(tag)
	}
	if err := e.writeMu.lockContext(ctx); err != nil {
		return nil, err
	}
	j := e.st.jobs[types.JobID(rel.ID)]
	e.writeMu.Unlock()
	if j == nil {
		return nil, pgerr.New(pgerr.ObjectNotInPrerequisiteState, "%s \"%s\" has no running job", st.Kind, rel.Name).
			WithHint("See weir.stream_errors.")
	}
	if _, _, _, finished := j.backfillState(); !finished {
		return nil, pgerr.New(pgerr.ObjectNotInPrerequisiteState, "%s \"%s\" is still backfilling", st.Kind, rel.Name).
			WithHint("Change its parallelism once CREATE has returned.")
	}
	cause := deliberateRestart{pgerr.New(pgerr.SerializationFailure, "%s %s is being rescaled to %d actors", st.Kind, rel.Name, n)}
	if err := e.rescale(ctx, []*catalog.Relation{rel}, n, cause); err != nil {
		var past restartWaitStopped
		if !errors.As(err, &past) || past.cause.Code != pgerr.QueryCanceled {
			return nil, err
		}
		// Past its commit point, as a COMMIT waiting for its checkpoint
		// (waitApplied): the statement completes with a WARNING.
		why := "user request"
		if strings.HasSuffix(past.cause.Message, "statement timeout") {
			why = "statement timeout"
		}
		s.notices = append(s.notices, notice{severity: "WARNING", code: "01000",
			message: "canceling wait for the restarted jobs due to " + why,
			detail:  fmt.Sprintf("The parallelism of %s is changed to %d: its jobs restart with it from the last checkpoint.", rel.Name, n)})
	}
	return done(tag)
}

// rescale records parallelism n for rels, whose jobs run and have
// finished their backfills, and restarts every streaming job from the
// last committed checkpoint with it; cause (40001, as a serialization
// failure: the writes it fails were not committed, and clients retry
// statements failing with it) is what statements waiting for a
// checkpoint get. It returns once the rebuilt jobs have committed a
// checkpoint, and then fences the transactional ids of the actors that a
// coupled sink no longer has (a decoupled sink's orphan deliveries fence
// those of its removed actors themselves, once they have delivered what
// those actors left). The caller holds ddlMu.
func (e *Engine) rescale(ctx context.Context, rels []*catalog.Relation, n int, cause error) error {
	type change struct {
		up  *catalog.Relation
		old *jobRun
		// actors is the sink actors' count before the change.
		actors int
	}
	var changes []change
	if err := e.writeMu.lockContext(ctx); err != nil {
		return err
	}
	for _, rel := range rels {
		c := change{up: rel.Clone(), old: e.st.jobs[types.JobID(rel.ID)]}
		if c.old != nil && c.old.job != nil && len(c.old.job.Fragments) > 0 {
			c.actors = c.old.job.Fragments[0].Parallelism
		}
		c.up.With["streaming_parallelism"] = strconv.Itoa(n)
		changes = append(changes, c)
	}
	var err error
	for _, c := range changes {
		if err = e.cat.Replace(c.up); err != nil {
			break
		}
	}
	e.writeMu.Unlock()
	if err != nil {
		return err
	}
	for _, c := range changes {
		e.log.Info("rescaling: restarting the streaming jobs from the last checkpoint", "relation", c.up.Name, "parallelism", n)
	}
	if err := e.st.drv.ActorFailed(ctx, 0, cause); err != nil {
		return err
	}
	// Done once the rebuilt jobs have committed a checkpoint.
	for {
		rebuilt := true
		e.writeMu.Lock()
		for _, c := range changes {
			nj := e.st.jobs[types.JobID(c.up.ID)]
			rebuilt = rebuilt && nj != nil && nj != c.old
		}
		e.writeMu.Unlock()
		if rebuilt {
			if err := e.st.drv.Barrier(ctx); err == nil {
				for _, c := range changes {
					if c.up.Kind == catalog.KindSink && !stream.SinkDecoupled(c.up.With) && c.actors > n {
						e.fenceSinkActors(ctx, c.up, n, c.actors)
					}
				}
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return restartWaitStopped{pgerr.As(ctxError(ctx))}
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// fenceSinkActors initialises, and closes, the Kafka producers of the
// sink's actors [from, to), which its new parallelism no longer has: that
// aborts any transaction they left open. Their recorded transactions
// were committed by actor 0 as the job restarted. A failure is logged:
// the broker aborts the transaction when it times out.
func (e *Engine) fenceSinkActors(ctx context.Context, rel *catalog.Relation, from, to int) {
	for a := from; a < to; a++ {
		cfg, err := e.sinkConfig(rel, a)
		if err == nil && cfg.Guarantee == kafka.ExactlyOnce {
			var w *kafka.SinkWriter
			if w, err = kafka.NewSinkWriter(ctx, cfg); err == nil {
				w.Close()
			}
		}
		if err != nil {
			e.log.Warn("could not fence the transactional ids of a sink actor removed by a rescale", "sink", rel.Name, "actor", a, "err", err)
		}
	}
}

// rescaleAtStart gives every materialized view and sink parallelism n
// (weir serve --streaming-parallelism), as ALTER ... SET PARALLELISM
// does, once the jobs have started: a restored backup runs with another
// count than the original's. A job that does not run, or whose backfill
// is not finished (its positions are per actor of the old count), keeps
// its parallelism, with a warning.
func (e *Engine) rescaleAtStart(n int) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	e.ddlMu.Lock()
	defer e.ddlMu.Unlock()
	want := strconv.Itoa(n)
	var rels []*catalog.Relation
	var waiting, unpopulated []*catalog.Relation
	for _, rel := range e.cat.All() {
		if (materialized(rel) || rel.Kind == catalog.KindSink) && rel.With["streaming_parallelism"] != want {
			if rel.Unpopulated {
				unpopulated = append(unpopulated, rel)
			} else {
				waiting = append(waiting, rel)
			}
		}
	}
	if len(unpopulated) > 0 {
		e.writeMu.Lock()
		err := e.setUnpopulatedParallelism(n, unpopulated...)
		e.writeMu.Unlock()
		if err != nil {
			return err
		}
	}
	// Backfills report at every barrier, so a few checkpoints tell the
	// finished ones.
	for attempt := 0; len(waiting) > 0 && attempt < 3; attempt++ {
		if err := e.st.drv.Barrier(ctx); err != nil {
			// A job failing meanwhile is restarted on its own; the jobs
			// that ran through the next checkpoint are rescaled.
			if ctx.Err() != nil {
				return err
			}
			continue
		}
		var still []*catalog.Relation
		for _, rel := range waiting {
			e.writeMu.Lock()
			j := e.st.jobs[types.JobID(rel.ID)]
			e.writeMu.Unlock()
			if j == nil {
				still = append(still, rel)
				continue
			}
			if _, _, _, finished := j.backfillState(); finished {
				rels = append(rels, rel)
			} else {
				still = append(still, rel)
			}
		}
		waiting = still
	}
	for _, rel := range waiting {
		e.log.Warn("not rescaled at start: the job does not run or is still backfilling; use ALTER ... SET PARALLELISM later",
			"relation", rel.Name, "parallelism", rel.With["streaming_parallelism"], "wanted", n)
	}
	if len(rels) == 0 {
		return nil
	}
	cause := pgerr.New(pgerr.SerializationFailure, "the streaming jobs are being rescaled to %d actors", n)
	return e.rescale(ctx, rels, n, cause)
}

// deliberateRestart is the cause of a restart an administrator asked
// for (a rescale): statements waiting for the checkpoint it fails get
// its error, but it is no job's failure, so weir.jobs and weir.sinks do
// not show it as their last_error.
type deliberateRestart struct{ error }

// Unwrap returns the error statements get.
func (d deliberateRestart) Unwrap() error { return d.error }

// setUnpopulatedParallelism records parallelism n for unpopulated views
// (and indexes on them), which have no job to restart: their REFRESH
// plans them with it. Called under writeMu.
func (e *Engine) setUnpopulatedParallelism(n int, rels ...*catalog.Relation) error {
	var ups []*catalog.Relation
	for _, rel := range rels {
		up := rel.Clone()
		if up.With == nil {
			up.With = map[string]string{}
		}
		up.With["streaming_parallelism"] = strconv.Itoa(n)
		ups = append(ups, up)
	}
	return e.cat.ReplaceAll(ups...)
}

// restartWaitStopped is rescale's error when ctx ended once the new
// parallelism was recorded, while the jobs restart with it: the change
// stands.
type restartWaitStopped struct{ cause *pgerr.Error }

func (r restartWaitStopped) Error() string { return r.cause.Error() }
func (r restartWaitStopped) Unwrap() error { return r.cause }
