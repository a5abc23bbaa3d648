package engine

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/weirdb/weir/checkpoint"
	"github.com/weirdb/weir/engine/syscat"
	"github.com/weirdb/weir/executor/stream"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// What the weir schema shows of connectors (syscat.System):
//
//	weir.sources        sources and tables fed by a connector: topic,
//	                    format, records skipped as malformed, late rows,
//	                    partitions and lag
//	weir.source_errors  the latest malformed records per source, with
//	                    partition, offset and reason
//	weir.sinks          sinks: topic, format, delivery guarantee, last
//	                    committed epoch, pending transactions, records
//	                    written and skipped (too large); for a decoupled
//	                    sink its log store's lag (epochs, rows, bytes not
//	                    yet delivered) and whether it pauses its upstream

// Sources implements syscat.System.
func (v liveSystem) Sources() []syscat.Source { return v.e.sourceRecords(nil) }

// sourceRecords are weir.sources' rows, of the sources whose relation
// visible accepts (all when nil).
func (e *Engine) sourceRecords(visible func(*catalog.Relation) bool) []syscat.Source {
	var out []syscat.Source
	parts := e.sourcePartitions(context.Background())
	for _, r := range connectorRels(e, false) {
		if visible != nil && !visible(r) {
			continue
		}
		src := syscat.Source{Name: r.Name, Kind: kindWords[r.Kind], Topic: r.With[optTopic],
			Format: strings.ToUpper(cmp.Or(r.With[optFormat], "plain")), Encode: strings.ToUpper(cmp.Or(r.With[optEncode], "json")),
			Malformed: e.wms.malformedRecords(r.ID)}
		e.sourceExtra(&src, parts, r)
		out = append(out, src)
	}
	return out
}

// sourceExtra fills in what weir.sources has beyond a source's own
// options: late rows, partitions read, and the lag of the job furthest
// behind.
func (e *Engine) sourceExtra(src *syscat.Source, parts []sourcePartition, r *catalog.Relation) {
	byJob := map[types.JobID]int64{}
	seen := map[int32]bool{}
	known := false
	for _, p := range parts {
		if p.rel.ID != r.ID {
			continue
		}
		seen[p.partition] = true
		if l, ok := p.lag(); ok {
			byJob[p.job] += l
			known = true
		}
	}
	if known {
		m := int64(0)
		for _, l := range byJob {
			m = max(m, l)
		}
		src.Lag = syscat.Null[int64]{V: m, Valid: true}
	}
	src.LateRows, src.Partitions = e.wms.lateRows(r.ID), len(seen)
}

// SourceErrors implements syscat.System.
func (v liveSystem) SourceErrors() []syscat.SourceError { return v.e.sourceErrors(nil) }

// sourceErrors are weir.source_errors' rows, of the connectors whose
// relation visible accepts (all when nil).
func (e *Engine) sourceErrors(visible func(*catalog.Relation) bool) []syscat.SourceError {
	var out []syscat.SourceError
	for _, r := range connectorRels(e, false) {
		if visible != nil && !visible(r) {
			continue
		}
		for _, m := range e.conns.malformed(r.ID) {
			out = append(out, syscat.SourceError{Source: r.Name, Partition: m.Partition, Offset: m.Offset, Reason: m.Reason, At: m.At})
		}
	}
	return out
}

// connectorRels returns the sources and tables with a connector (sinks
// when sinks is set), by name.
func connectorRels(e *Engine, sinks bool) []*catalog.Relation {
	var rels []*catalog.Relation
	for _, r := range e.cat.All() {
		if sinks && r.Kind == catalog.KindSink || !sinks && r.Kind != catalog.KindSink && r.With[optConnector] != "" {
			rels = append(rels, r)
		}
	}
	slices.SortFunc(rels, func(a, b *catalog.Relation) int { return strings.Compare(a.Name, b.Name) })
	return rels
}

// Sinks implements syscat.System.
func (v liveSystem) Sinks() []syscat.Sink { return v.e.sinkRecords(nil) }

// sinkRecords are weir.sinks' rows, of the sinks visible accepts (all
// when nil).
func (e *Engine) sinkRecords(visible func(*catalog.Relation) bool) []syscat.Sink {
	var out []syscat.Sink
	_, running := e.jobStatuses()
	for _, r := range connectorRels(e, true) {
		if visible != nil && !visible(r) {
			continue
		}
		g, _ := sinkGuarantee(r.With)
		spec, _ := sinkSpec(r.With)
		topic := r.With[optTopic]
		if _, db := dbSinkKind(r.With); db {
			topic = r.With[optTable] // the target table, for a database sink
		}
		sk := syscat.Sink{Name: r.Name, Topic: topic, Format: strings.ToUpper(spec.Format),
			Guarantee: strings.ReplaceAll(g.String(), "_", "-"), LastCommittedEpoch: e.st.committed.Load(), Decoupled: stream.SinkDecoupled(r.With)}
		if info := e.conns.sinkInfo(r.ID); info != nil {
			ep, recs := info.snapshot()
			var ps []string
			for _, p := range recs {
				ps = append(ps, p.String())
			}
			sk.Pending = strings.Join(ps, "; ")
			if len(recs) > 0 {
				sk.LastCommittedEpoch = ep
			}
			sk.Written, sk.Skipped = info.written.Load(), info.skipped.Load()
			if sk.Decoupled {
				var delivered uint64
				sk.LagEpochs, sk.LagRows, sk.LagBytes, sk.Paused, delivered = info.logLag()
				if sk.LagEpochs > 0 {
					// Everything up to the committed checkpoint is
					// delivered only once the log store is empty.
					sk.LastCommittedEpoch = delivered
				}
			}
		}
		e.sinkExtra(&sk, r, running)
		out = append(out, sk)
	}
	return out
}

// sinkExtra fills in what weir.sinks has beyond a sink's delivery:
// state, transactions and last error.
func (e *Engine) sinkExtra(sk *syscat.Sink, r *catalog.Relation, running map[types.JobID]*jobRun) {
	if info := e.conns.sinkInfo(r.ID); info != nil {
		if ep, _ := info.snapshot(); ep > 0 {
			sk.LastCommittedAt = checkpoint.EpochTime(ep)
		}
		sk.TxCommitted, sk.TxAborted, sk.TxRecommitted = info.txCommitted.Load(), info.txAborted.Load(), info.txRecommitted.Load()
	}
	// The sink's last error: its own (weir.stream_errors) or the cause
	// of its last restart, whichever is later.
	var lastAt time.Time
	for _, er := range e.st.errs.rows() {
		if er.key.job == types.JobID(r.ID) && er.lastAt.After(lastAt) {
			sk.LastError, lastAt = er.last, er.lastAt
		}
	}
	if h := e.obs.jobHealthOf(types.JobID(r.ID)); h.lastError != "" && h.lastAt.After(lastAt) {
		sk.LastError = h.lastError
	}
	sk.State = e.sinkState(r, running[types.JobID(r.ID)])
}

// prepareShowSinks is SHOW SINKS: weir.sinks' rows.
func (s *Session) prepareShowSinks() (wire.Prepared, error) {
	_, cs, _ := syscat.Lookup(syscat.Weir, "sinks")
	fields := make([]wire.Field, len(cs))
	for i, c := range cs {
		fields[i] = wire.Field{Name: c.Name, T: c.T}
	}
	return &utilPrepared{fields: fields, run: func(context.Context, []types.Datum, wire.ExecIO) (wire.Result, error) {
		return &rowsResult{rows: syscat.SinkRows(s.sysCatalog()), tag: "SHOW"}, nil
	}}, nil
}
