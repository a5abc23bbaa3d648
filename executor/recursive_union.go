package executor

import (
	"context"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// RecursiveUnion evaluates WITH RECURSIVE as Postgres does (docs §7.8.2,
// executor/nodeRecursiveunion.c): it emits the non-recursive term's rows
// and keeps them as the working table; then, while the working table is
// not empty, it builds and runs the recursive term, whose WorkTableScan
// reads the working table, emits the rows it yields and makes them the
// next working table. Without ALL, rows already emitted are dropped
// (NULLs equal). Rows are emitted as they are computed, so a LIMIT above
// can stop an unbounded recursion; otherwise only the statement's
// context (cancellation, statement_timeout) ends it, as in Postgres.
// Working tables are rowSpools, as Postgres's are tuplestores: beyond
// work_mem their rows go to a tape. The rows seen, which UNION without
// ALL keeps to drop repeats, are a seenSet: work_mem of them in a hash
// table, the rest in sorted runs on tapes.
type RecursiveUnion struct {
	endState
	plan    *planner.RecursiveUnion
	ec      *ExecCtx
	ts      []types.T
	nonRec  Operator // nil once exhausted
	rec     Operator // the current round's recursive term, or nil
	seen    *seenSet
	next    *rowSpool // rows of the round being computed
	started bool
}

var _ Operator = (*RecursiveUnion)(nil)

// NewRecursiveUnion returns a RecursiveUnion over the built non-recursive
// term nonRec; it builds the recursive term once per round in ec.
func NewRecursiveUnion(nonRec Operator, p *planner.RecursiveUnion, ec *ExecCtx) *RecursiveUnion {
	r := &RecursiveUnion{plan: p, ec: ec, ts: p.Out.Types(), nonRec: nonRec}
	if !p.All {
		r.seen = newSeenSet(ec, r.ts)
	}
	return r
}

// setWorkTable makes rows working table id in ec, discarding the one it
// replaces.
func (ec *ExecCtx) setWorkTable(id int, rows *rowSpool) {
	if ec.workTables == nil {
		ec.workTables = map[int]*rowSpool{}
	}
	if old := ec.workTables[id]; old != nil {
		old.discard()
	}
	ec.workTables[id] = rows
}

// Next implements Operator.
func (r *RecursiveUnion) Next(ctx context.Context) (*types.Chunk, error) {
	if r.done {
		return nil, r.err
	}
	return r.finish(r.step(ctx))
}

func (r *RecursiveUnion) step(ctx context.Context) (*types.Chunk, error) {
	for {
		in := r.nonRec
		if in == nil {
			if r.rec == nil {
				// A round ended: its rows are the next working table.
				if r.next == nil || r.next.len() == 0 {
					return nil, nil
				}
				r.ec.setWorkTable(r.plan.WorkTable, r.next)
				r.next = nil
				op, err := Build(r.plan.Recursive, r.ec)
				if err != nil {
					return nil, err
				}
				r.rec = op
			}
			in = r.rec
		}
		c, err := nextVisible(ctx, in)
		if err != nil {
			return nil, err
		}
		if c == nil {
			in.Close()
			if in == r.nonRec {
				r.nonRec = nil
			} else {
				r.rec = nil
			}
			continue
		}
		out := types.NewChunk(r.ts, c.Len())
		for i := 0; i < c.Len(); i++ {
			if !c.Visible(i) {
				continue
			}
			row := c.Row(i)
			if r.seen != nil {
				added, err := r.seen.add(row)
				if err != nil {
					return nil, err
				}
				if !added {
					continue
				}
			}
			cp := make(types.Row, len(row))
			for j, d := range row {
				cp[j] = copyDatum(d)
			}
			if r.next == nil {
				r.next = newRowSpool(r.ec, r.ts)
			}
			if err := r.next.add(cp); err != nil {
				return nil, err
			}
			out.AppendRow(types.OpInsert, cp)
		}
		if out.Len() > 0 {
			return out, nil
		}
	}
}

// Close implements Operator.
func (r *RecursiveUnion) Close() {
	r.done = true
	closeAll(r.nonRec, r.rec)
	if r.next != nil {
		r.next.discard()
	}
	if r.seen != nil {
		r.seen.discard()
	}
	r.nonRec, r.rec, r.seen, r.next = nil, nil, nil, nil
	if w := r.ec.workTables[r.plan.WorkTable]; w != nil {
		w.discard()
		delete(r.ec.workTables, r.plan.WorkTable)
	}
}

// WorkTableScan emits the rows of its RecursiveUnion's working table.
type WorkTableScan struct {
	endState
	plan *planner.WorkTableScan
	ec   *ExecCtx
	rd   *rowSpoolReader
}

var _ Operator = (*WorkTableScan)(nil)

// NewWorkTableScan returns a scan of p's working table in ec.
func NewWorkTableScan(p *planner.WorkTableScan, ec *ExecCtx) *WorkTableScan {
	return &WorkTableScan{plan: p, ec: ec}
}

// Next implements Operator.
func (w *WorkTableScan) Next(ctx context.Context) (*types.Chunk, error) {
	if w.done {
		return nil, w.err
	}
	if w.rd == nil {
		wt := w.ec.workTables[w.plan.WorkTable]
		if wt == nil {
			return w.finish(nil, nil)
		}
		w.rd = wt.reader()
	}
	if err := ctx.Err(); err != nil {
		return w.finish(nil, err)
	}
	var c *types.Chunk
	n := w.ec.chunkRows()
	for c == nil || c.Len() < n {
		r, err := w.rd.next()
		if err != nil {
			return w.finish(nil, err)
		}
		if r == nil {
			break
		}
		if c == nil {
			c = types.NewChunk(w.plan.Out.Types(), n)
		}
		c.AppendRow(types.OpInsert, r)
	}
	return w.finish(c, nil)
}

// Close implements Operator.
func (w *WorkTableScan) Close() { w.done, w.rd = true, nil }
