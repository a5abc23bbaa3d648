package engine

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/weirdb/weir/executor/stream"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// weir's system views of connectors:
//
//	weir.sources        sources and tables fed by a connector: topic,
//	                    format, records skipped as malformed
//	weir.source_errors  the latest malformed records per source, with
//	                    partition, offset and reason
//	weir.sinks          sinks: topic, format, delivery guarantee, last
//	                    committed epoch, pending transactions, records
//	                    written and skipped (too large); for a decoupled
//	                    sink its log store's lag (epochs, rows, bytes not
//	                    yet delivered) and whether it pauses its upstream
func init() {
	addSys("weir", "sources", "name:text kind:text topic:text format:text encode:text malformed_count:int8 late_rows:int8 partitions:int4 lag:int8", func(e *Engine, s *Session) []types.Row {
		var out []types.Row
		parts := e.sourcePartitions(context.Background())
		for _, r := range connectorRels(e, false) {
			n := e.wms.malformedRecords(r.ID)
			row := types.Row{vStr(r.Name), vStr(kindWords[r.Kind]), vStr(r.With[optTopic]),
				vStr(strings.ToUpper(cmp.Or(r.With[optFormat], "plain"))), vStr(strings.ToUpper(cmp.Or(r.With[optEncode], "json"))), types.DInt(n)}
			out = append(out, append(row, e.sourceExtra(parts, r)...))
		}
		return out
	})
	addSys("weir", "source_errors", "source:text partition:int4 offset:int8 reason:text seen_at:timestamptz", func(e *Engine, s *Session) []types.Row {
		var out []types.Row
		for _, r := range connectorRels(e, false) {
			recs := e.conns.malformed(r.ID)
			for _, m := range recs {
				out = append(out, types.Row{vStr(r.Name), types.DInt(int64(m.Partition)), types.DInt(m.Offset), vStr(m.Reason), types.DInt(m.At.UnixMicro())})
			}
		}
		return out
	})
	addSys("weir", "sinks", sinkColumns, func(e *Engine, s *Session) []types.Row { return sinkRows(e) })
}

// sinkColumns are the columns of weir.sinks and SHOW SINKS.
const sinkColumns = "name:text topic:text format:text guarantee:text last_committed_epoch:int8 pending_transactions:text records_written:int8 records_skipped:int8 " +
	"decoupled:bool lag_epochs:int8 lag_rows:int8 lag_bytes:int8 paused:bool" +
	" state:text last_committed_at:timestamptz transactions_committed:int8 transactions_aborted:int8 transactions_recommitted:int8 last_error:text"

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

func sinkRows(e *Engine) []types.Row {
	var out []types.Row
	_, running := e.jobStatuses()
	for _, r := range connectorRels(e, true) {
		g, _ := sinkGuarantee(r.With)
		last, pending, written, skipped := e.st.committed.Load(), "", int64(0), int64(0)
		decoupled := stream.SinkDecoupled(r.With)
		var lagEpochs, lagRows, lagBytes int64
		var paused bool
		if info := e.conns.sinkInfo(r.ID); info != nil {
			ep, recs := info.snapshot()
			var ps []string
			for _, p := range recs {
				ps = append(ps, p.String())
			}
			pending = strings.Join(ps, "; ")
			if len(recs) > 0 {
				last = ep
			}
			written, skipped = info.written.Load(), info.skipped.Load()
			if decoupled {
				var delivered uint64
				lagEpochs, lagRows, lagBytes, paused, delivered = info.logLag()
				if lagEpochs > 0 {
					// Everything up to the committed checkpoint is
					// delivered only once the log store is empty.
					last = delivered
				}
			}
		}
		spec, _ := sinkSpec(r.With)
		pend := vStr(pending)
		if pending == "" {
			pend = null
		}
		topic := r.With[optTopic]
		if _, db := dbSinkKind(r.With); db {
			topic = r.With[optTable] // the target table, for a database sink
		}
		out = append(out, types.Row{vStr(r.Name), vStr(topic), vStr(strings.ToUpper(spec.Format)),
			vStr(strings.ReplaceAll(g.String(), "_", "-")), types.DInt(int64(last)), pend, types.DInt(written), types.DInt(skipped),
			types.DBool(decoupled), types.DInt(lagEpochs), types.DInt(lagRows), types.DInt(lagBytes), types.DBool(paused)})
		out[len(out)-1] = append(out[len(out)-1], e.sinkExtra(r, running)...)
	}
	return out
}

// prepareShowSinks is SHOW SINKS: weir.sinks' rows.
func (s *Session) prepareShowSinks() (wire.Prepared, error) {
	cs := cols(sinkColumns)
	fields := make([]wire.Field, len(cs))
	for i, c := range cs {
		fields[i] = wire.Field{Name: c.Name, T: c.T}
	}
	return &utilPrepared{fields: fields, run: func(context.Context, []types.Datum, wire.ExecIO) (wire.Result, error) {
		return &rowsResult{rows: sinkRows(s.eng), tag: "SHOW"}, nil
	}}, nil
}
