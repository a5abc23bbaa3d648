package executor

import (
	"context"
	"slices"

	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/internal/pgsort"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// aggSort is the input of one aggregate call with DISTINCT or ORDER BY
// in it (count(DISTINCT x), string_agg(s, ',' ORDER BY t)) over every
// group of a HashAgg's table. PostgreSQL sorts such a call's input per
// group in a tuplesort (nodeAgg.c's process_ordered_aggregate_*), which
// spills beyond work_mem; an aggSort does the same for all the groups of
// the table at once, as an external sort whose first key is the group:
//
//   - While its rows fit in ExecCtx.WorkMem (by types.RowMemSize) they
//     stay in memory; beyond it they are sorted and written to a tape as
//     a sorted run (sortRuns), as Sort's are.
//   - Each group's rows are sorted in the order they were read with
//     PostgreSQL's quicksort (pgsort), so a group whose rows stayed in
//     memory sees them in the order PostgreSQL's in-memory tuplesort
//     gives them, ties included. Across runs, rows with equal keys keep
//     the order of their runs, which need not be PostgreSQL's.
//   - The sort keys are the call's ORDER BY keys and, with DISTINCT,
//     every argument after them (ascending, NULLs last): PostgreSQL's
//     aggdistinct list. DISTINCT then passes the first row of each run
//     of rows whose arguments are equal (NULLs equal), as
//     process_ordered_aggregate_* compare each row with the last one
//     passed.
//   - A DISTINCT call whose arguments are equal only when they are
//     identical (integers, text, timestamps: not numeric, whose 1.0 and
//     1.00 are equal, nor floats or intervals) drops a row whose group
//     and arguments it already holds, while the rows it holds (in a hash
//     table, seen) fit in WorkMem: which of identical rows the sort would
//     keep cannot show, and count(DISTINCT x) GROUP BY g over few values
//     a group never sorts more than those.
//
// A record is the group's index in the table (int8), the ORDER BY
// values, then the arguments. The HashAgg calls feed once its table is
// complete, then drops the aggSort; discard removes its tapes on an
// error or Close.
type aggSort struct {
	sortRuns
	keys     []planner.SortKey // the group, then the call's sort keys
	nkeys    int               // record columns that are keys
	argAt    int               // the first argument's column in a record
	argTs    []types.T
	distinct bool
	rows     []sortedRow
	held     int64
	// seen holds the (group, arguments) rows added, for a DISTINCT call
	// whose arguments are identical when equal, up to WorkMem (seenBytes).
	seen      *rowTable
	seenTs    []types.T
	seenBytes int64
	scratch   types.Row
}

// identicalWhenEqual reports whether values of type t that compare
// equal are identical, so that which of them is kept cannot show.
func identicalWhenEqual(t types.T) bool {
	switch t.ID {
	case types.Bool, types.Int2, types.Int4, types.Int8, types.Oid, types.Text, types.Varchar, types.Name,
		types.Bytea, types.Date, types.Time, types.Timestamp, types.Timestamptz, types.Uuid:
		return true
	}
	return false
}

// newAggSort returns the empty input of call c: its arguments of types
// argTs, then its ORDER BY keys.
func newAggSort(ec *ExecCtx, c planner.AggCall) *aggSort {
	argTs := exprTypes(c.Args)
	ts := []types.T{types.TInt8}
	keys := []planner.SortKey{{Expr: &planner.ColRef{Idx: 0, T: types.TInt8}}}
	for _, k := range c.OrderBy {
		t := k.Expr.Type()
		keys = append(keys, planner.SortKey{Expr: &planner.ColRef{Idx: len(ts), T: t}, Desc: k.Desc, NullsFirst: k.NullsFirst})
		ts = append(ts, t)
	}
	argAt := len(ts)
	for _, t := range argTs {
		if c.Distinct {
			keys = append(keys, planner.SortKey{Expr: &planner.ColRef{Idx: len(ts), T: t}})
		}
		ts = append(ts, t)
	}
	s := &aggSort{
		sortRuns: sortRuns{ec: ec, lay: newSortLayout(keys, ts)},
		keys:     keys, nkeys: len(keys), argAt: argAt, argTs: argTs, distinct: c.Distinct,
	}
	if c.Distinct && len(argTs) > 0 {
		s.seenTs = append([]types.T{types.TInt8}, argTs...)
		for _, t := range argTs {
			if !identicalWhenEqual(t) {
				s.seenTs = nil
				break
			}
		}
		if s.seenTs != nil {
			s.seen = newRowTable(s.seenTs)
		}
	}
	return s
}

// add adds a row of group gid: vals are the call's arguments, then its
// ORDER BY values, as the HashAgg evaluated them (copied here).
func (s *aggSort) add(ctx context.Context, gid int, vals []types.Datum) error {
	nargs := len(s.argTs)
	if s.seen != nil {
		key := append(append(s.scratch[:0], types.DInt(int64(gid))), vals[:nargs]...)
		s.scratch = key
		h := hashRow(key, s.seenTs)
		if s.seen.find(h, key) >= 0 {
			return nil
		}
		if !s.ec.spillable(s.seenBytes) {
			cp := make(types.Row, len(key))
			for i, d := range key {
				cp[i] = copyDatum(d)
			}
			s.seen.insert(h, cp)
			s.seenBytes += types.RowMemSize(cp) + hashTableEntry
		}
	}
	row := make(types.Row, s.argAt+nargs)
	row[0] = types.DInt(int64(gid))
	for i, d := range vals[nargs:] {
		row[1+i] = copyDatum(d)
	}
	for i, d := range vals[:nargs] {
		row[s.argAt+i] = copyDatum(d)
	}
	s.rows = append(s.rows, sortedRow{row: row, key: row[:s.nkeys:s.nkeys]})
	s.held += types.RowMemSize(row) + sortedRowOverhead
	if !s.ec.spillable(s.held) {
		return nil
	}
	s.sortMem()
	if err := s.write(ctx, s.rows); err != nil {
		return err
	}
	clear(s.rows)
	s.rows, s.held = s.rows[:0], 0
	return nil
}

// sortMem sorts the rows in memory: by group, keeping the order they
// were read in, then each group's rows with PostgreSQL's quicksort.
func (s *aggSort) sortMem() {
	rows := s.rows
	gid := func(r sortedRow) int64 { return r.row[0].I }
	if !slices.IsSortedFunc(rows, func(a, b sortedRow) int { return int(gid(a) - gid(b)) }) {
		slices.SortStableFunc(rows, func(a, b sortedRow) int {
			x, y := gid(a), gid(b)
			switch {
			case x < y:
				return -1
			case x > y:
				return 1
			}
			return 0
		})
	}
	keys := s.keys[1:]
	for lo := 0; lo < len(rows); {
		hi := lo + 1
		for hi < len(rows) && gid(rows[hi]) == gid(rows[lo]) {
			hi++
		}
		g := rows[lo:hi]
		pgsort.Sort(len(g), func(a, b int) int { return compareKeys(g[a].key[1:], g[b].key[1:], keys) },
			func(a, b int) { g[a], g[b] = g[b], g[a] })
		lo = hi
	}
}

// feed passes the rows, sorted (and without duplicates with DISTINCT),
// to accumulator j of their groups in accs, then removes the tapes.
func (s *aggSort) feed(ctx context.Context, accs [][]functions.Accumulator, j int) error {
	defer s.discard()
	s.seen = nil
	s.sortMem()
	var m *runMerge
	if len(s.runs) > 0 {
		var err error
		if m, err = s.mergeAll(ctx, s.rows); err != nil {
			return err
		}
	}
	var prev types.Row
	prevGid := int64(-1)
	for n := 0; ; n++ {
		if n%types.ChunkCap == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		var row types.Row
		if m != nil {
			r, err := m.pop()
			if err != nil {
				return err
			}
			row = r.row
		} else if n < len(s.rows) {
			row = s.rows[n].row
			s.rows[n] = sortedRow{}
		}
		if row == nil {
			return nil
		}
		gid, args := row[0].I, row[s.argAt:]
		if s.distinct && gid == prevGid && sameRow(prev, args, s.argTs) {
			continue
		}
		prev, prevGid = args, gid
		if err := accs[gid][j].Add(args); err != nil {
			return err
		}
	}
}

// discard drops the rows and removes the tapes; it may be called more
// than once.
func (s *aggSort) discard() {
	if s == nil {
		return
	}
	s.sortRuns.discard()
	s.rows, s.held, s.seen = nil, 0, nil
}
