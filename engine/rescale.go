package engine

import (
	"context"
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
// had) and the sinks' transactions (actor 0 commits those of actors the
// new count no longer has, and once the jobs run again the transactional
// ids of those actors are fenced, which aborts what they left open so
// that read_committed readers are not held up until it times out).
//
// A job cannot be swapped for its rescaled self between two barriers (the
// changes of the epochs in between would reach neither), so ALTER ... SET
// PARALLELISM records the new count and restarts every streaming job from
// the last committed checkpoint, as a recovery does: views are exact
// across the change, and statements waiting for a checkpoint at that
// moment fail with a retryable error, as in a recovery.

// setParallelism runs ALTER MATERIALIZED VIEW | SINK name SET PARALLELISM.
func (s *Session) setParallelism(ctx context.Context, st *sql.SetParallelism) (wire.Result, error) {
	if err := s.noDDLInBlock("ALTER"); err != nil {
		return nil, err
	}
	tag := "ALTER " + strings.ToUpper(st.Kind)
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
	e.ddlMu.Lock()
	defer e.ddlMu.Unlock()
	rel, ok := e.cat.Lookup(schemaOf(st.Name), st.Name.Name)
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
	e.writeMu.Lock()
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
	old, _ := strconv.Atoi(rel.With["streaming_parallelism"])
	if rel.Kind == catalog.KindSink && stream.SinkDecoupled(rel.With) {
		// Each actor delivers the log store and transactions kept under
		// its own index, in its own order: with other actors, epochs of
		// an actor scaled away would never be delivered, and a key's
		// older pending epochs could land after its newer ones.
		return nil, pgerr.New(pgerr.FeatureNotSupported, "the parallelism of a decoupled sink cannot be changed (from %d to %d actors)", old, n).
			WithDetail("Its log store is kept per actor.").
			WithHint("Create it again with the parallelism wanted; a sink with sink.decouple = 'false' can be rescaled.")
	}
	up := rel.Clone()
	up.With["streaming_parallelism"] = strconv.Itoa(n)
	e.writeMu.Lock()
	err := e.cat.Replace(up)
	e.writeMu.Unlock()
	if err != nil {
		return nil, err
	}
	e.log.Info("rescaling: restarting the streaming jobs from the last checkpoint", "relation", rel.Name, "parallelism", n)
	// 40001, as a serialization failure: the writes it fails were not
	// committed, and clients retry statements failing with it.
	cause := pgerr.New(pgerr.SerializationFailure, "%s %s is being rescaled to %d actors", st.Kind, rel.Name, n)
	if err := e.st.drv.ActorFailed(ctx, 0, cause); err != nil {
		return nil, err
	}
	// Done once the rebuilt job has committed a checkpoint.
	for {
		e.writeMu.Lock()
		nj := e.st.jobs[types.JobID(rel.ID)]
		e.writeMu.Unlock()
		if nj != nil && nj != j {
			if err := e.st.drv.Barrier(ctx); err == nil {
				if rel.Kind == catalog.KindSink && old > n {
					e.fenceSinkActors(ctx, up, n, old)
				}
				return done(tag)
			}
		}
		select {
		case <-ctx.Done():
			return nil, pgerr.Wrap(pgerr.QueryCanceled, ctx.Err(), "canceling statement while the jobs restart")
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
