package stream

import (
	"context"

	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// LookupJoin is a process-time temporal join (`JOIN t FOR SYSTEM_TIME AS
// OF PROCTIME()`, planner.StreamLookupJoin): each input row looks its
// key up in the table's committed rows, by a point read of the table's
// primary key, and leaves joined with what it found.
//
//   - Chunk: one snapshot of the committed state is taken for the chunk
//     (so every row of it sees the same table), each visible row's key is
//     encoded and read (each key once per chunk), the condition is evaluated over the joined rows,
//     and the rows that match leave (inner join) or every row leaves, a
//     row without a match padded with NULLs (left join). A row with a
//     NULL key matches nothing. The input is append-only: its rows are
//     inserts, and so are the output's.
//   - Watermark: forwarded (the input's columns come first, unchanged).
//   - Barrier: forwarded. LookupJoin keeps no state: nothing of the
//     table is held, and nothing of the input.
//
// Semantics: a row is joined with the table as committed when the row is
// processed; later changes of the table change no output already made.
// The table's committed state includes every write acknowledged before
// the row was processed (DML is acknowledged once its checkpoint
// commits), not the writes of epochs still in flight.
//
// Recovery: the output of the epochs after the last committed checkpoint
// was never committed (a view's state and a sink's transaction commit
// with the checkpoint), and the rows of those epochs are replayed by
// the sources. A replayed row looks its key up again, in the table as
// committed at the replay, and the output it makes then is the only one
// that ever becomes visible: each input row is joined exactly once, with
// a state of the table that was committed when it was joined. Since the
// table's writes commit in the same checkpoints as the job's state, a
// recovery from epoch e sees the table as of e (or later, when writes
// committed since), never a state older than what the committed output
// was joined with.
type LookupJoin struct {
	actx   *ActorContext
	in     Operator
	n      *planner.StreamLookupJoin
	relTs  []types.T
	outTs  []types.T
	cond   *exprEval
	keyBuf []byte
	seen   map[string]types.Row
}

var _ Operator = (*LookupJoin)(nil)

// NewLookupJoin returns the lookup join n over in.
func NewLookupJoin(actx *ActorContext, in Operator, n *planner.StreamLookupJoin) (*LookupJoin, error) {
	j := &LookupJoin{actx: actx, in: in, n: n, seen: map[string]types.Row{}}
	for _, c := range n.Rel.Cols {
		j.relTs = append(j.relTs, c.T)
	}
	for _, c := range n.Out {
		j.outTs = append(j.outTs, c.T)
	}
	if len(n.LeftKeys) != len(n.Rel.PK) || len(n.Rel.PK) == 0 {
		return nil, pgerr.New(pgerr.InternalError, "lookup join: %d keys for a primary key of %d columns", len(n.LeftKeys), len(n.Rel.PK))
	}
	if n.Cond != nil {
		ev, err := executor.Compile(n.Cond)
		if err != nil {
			return nil, err
		}
		j.cond = &exprEval{ev: ev, t: types.TBool, ec: actx.Eval, op: "LookupJoin"}
	}
	return j, nil
}

// Next implements Operator.
func (j *LookupJoin) Next(ctx context.Context) (types.Message, error) {
	for {
		msg, err := j.in.Next(ctx)
		if err != nil {
			return nil, err
		}
		c, ok := msg.(*types.Chunk)
		if !ok {
			return msg, nil
		}
		out, err := j.join(c)
		if err != nil {
			return nil, err
		}
		if out != nil && out.Len() > 0 {
			return out, nil
		}
	}
}

// join looks up every visible row of c and returns the joined rows.
func (j *LookupJoin) join(c *types.Chunk) (*types.Chunk, error) {
	snap := j.actx.DB.NewSnapshot()
	defer snap.Close()
	// The rows read through this snapshot, by key (nil: none), so that a
	// key many rows of the chunk name is read once.
	clear(j.seen)
	nl := len(c.Cols)
	nr := len(j.n.Cols)
	joined := types.NewChunk(j.outTs, c.Len())
	var matched []bool
	row := make(types.Row, nl+nr)
rows:
	for i := 0; i < c.Len(); i++ {
		if !c.Visible(i) {
			continue
		}
		if op := c.Op(i); op != types.OpInsert {
			return nil, pgerr.New(pgerr.InternalError, "lookup join: a %v row in its append-only input", op)
		}
		for k := 0; k < nl; k++ {
			row[k] = c.Cols[k].Get(i)
		}
		j.keyBuf = j.keyBuf[:0]
		found, nullKey := false, false
		var r types.Row
		for k, pk := range j.n.Rel.PK {
			d := row[j.n.LeftKeys[k]]
			if d.Null {
				if j.n.Kind == planner.InnerJoin {
					continue rows
				}
				nullKey = true
				break
			}
			j.keyBuf = types.AppendKey(j.keyBuf, d, j.relTs[pk], false)
		}
		if !nullKey {
			if hit, ok := j.seen[string(j.keyBuf)]; ok {
				r, found = hit, hit != nil
			} else {
				var err error
				r, found, err = snap.Get(j.n.Rel.ID, j.keyBuf, j.relTs)
				if err != nil {
					return nil, err
				}
				j.seen[string(j.keyBuf)] = r
			}
		}
		if !found && j.n.Kind == planner.InnerJoin {
			continue
		}
		for k, col := range j.n.Cols {
			if found {
				row[nl+k] = r[col]
			} else {
				row[nl+k] = types.NullDatum
			}
		}
		joined.AppendRow(types.OpInsert, row)
		matched = append(matched, found)
	}
	if j.cond == nil || joined.Len() == 0 {
		return joined, nil
	}
	v, err := j.cond.eval(j.actx, joined)
	if err != nil {
		return nil, err
	}
	if j.n.Kind == planner.InnerJoin {
		vis := make([]bool, joined.Len())
		for i := range vis {
			vis[i] = isTrueAt(v, i)
		}
		joined.Vis = vis
		return joined, nil
	}
	// A left join pads the rows whose match the condition refuses.
	out := types.NewChunk(j.outTs, joined.Len())
	for i := 0; i < joined.Len(); i++ {
		r := joined.Row(i)
		if matched[i] && !isTrueAt(v, i) {
			for k := nl; k < len(r); k++ {
				r[k] = types.NullDatum
			}
		}
		out.AppendRow(types.OpInsert, r)
	}
	return out, nil
}

// Close implements Operator.
func (j *LookupJoin) Close() { j.in.Close() }
