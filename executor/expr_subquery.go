package executor

import (
	"context"
	"strings"
	"time"

	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// subqueryEval evaluates a nested query as an expression. An uncorrelated
// subquery runs once per execution (per ExecCtx) and its rows are kept
// for the statement; a correlated one runs once per visible row with that
// row pushed on EvalCtx.Outer. The rows are in a rowSpool, as PostgreSQL
// keeps a subplan's in a tuplestore when they are not hashed: work_mem
// of them in memory, the rest on a tape that each row's ANY or ALL
// reads from the start again (ExecCtx.Release removes the kept ones).
//
// An uncorrelated IN or NOT IN (= ANY, <> ALL) whose argument has the
// subquery column's type is hashed instead, as PostgreSQL's hashed
// subplan is: its values go into a seenSet (work_mem in a hash table,
// the rest in sorted runs on tapes), and each row looks its argument up
// there. The type's = is then the equality hashRow and sameRow agree
// on, so the answers are the ones of the comparisons.
type subqueryEval struct {
	q   *planner.Subquery
	arg Evaluator
	cmp func(a, b types.Datum) int
	// row and cmps are the fields of a row comparison's left row and
	// their comparers with the plan's columns.
	row  []Evaluator
	cmps []func(a, b types.Datum) int

	// hashed: the subquery is an uncorrelated IN or NOT IN answered
	// from set, which holds its non-NULL values; setNull says it
	// yielded a NULL, setEmpty that it yielded no row.
	hashed   bool
	set      *seenSet
	setNull  bool
	setEmpty bool

	cachedFor *ExecCtx
	cached    *rowSpool
}

// hashableIn reports whether arg IN (subquery) over a column of type col
// may be answered by hashing: the types are one, or integers, floats or
// text of two widths, whose = is the equality of types.Compare with the
// column's type (and so of hashRow).
func hashableIn(arg, col types.T) bool {
	kind := func(t types.T) int {
		switch t.ID {
		case types.Int2, types.Int4, types.Int8:
			return 1
		case types.Float4, types.Float8:
			return 2
		case types.Text, types.Varchar:
			return 3
		}
		return 0
	}
	if k := kind(arg); k != 0 {
		return k == kind(col)
	}
	if arg.ID != col.ID {
		return false
	}
	switch arg.ID {
	case types.Unknown, types.Record, types.Json:
		return false
	}
	return true
}

func compileSubquery(e *planner.Subquery) (Evaluator, error) {
	s := &subqueryEval{q: e}
	if e.Row != nil {
		sch := e.Plan.Schema()
		if len(sch) != len(e.Row) {
			return nil, pgerr.New(pgerr.SyntaxError, "unequal number of entries in row expressions")
		}
		for i, f := range e.Row {
			ev, err := Compile(f)
			if err != nil {
				return nil, err
			}
			cmp, err := functions.Comparer(f.Type(), sch[i].T)
			if err != nil {
				return nil, err
			}
			s.row = append(s.row, ev)
			s.cmps = append(s.cmps, cmp)
		}
		return s, nil
	}
	if e.Kind == planner.SubAny || e.Kind == planner.SubAll {
		arg, err := Compile(e.Arg)
		if err != nil {
			return nil, err
		}
		s.arg = arg
		sch := e.Plan.Schema()
		if len(sch) != 1 {
			return nil, pgerr.New(pgerr.SyntaxError, "subquery has too many columns")
		}
		cmp, err := functions.Comparer(e.Arg.Type(), sch[0].T)
		if err != nil {
			return nil, err
		}
		s.cmp = cmp
		s.hashed = !e.Correlated && hashableIn(e.Arg.Type(), sch[0].T) &&
			(e.Kind == planner.SubAny && e.Op == "=" || e.Kind == planner.SubAll && e.Op == "<>")
	}
	return s, nil
}

// runHashed executes an uncorrelated IN or NOT IN's subquery into set,
// setNull and setEmpty; ExecCtx.Release removes the set.
func (s *subqueryEval) runHashed(ctx *EvalCtx) error {
	if ctx.Exec == nil {
		return pgerr.New(pgerr.FeatureNotSupported, "subqueries are not supported here")
	}
	ctx.Exec.shareTemps()
	ec := *ctx.Exec
	ec.Eval = *ctx
	ec.Eval.Exec = &ec
	op, err := Build(s.q.Plan, &ec)
	if err != nil {
		return err
	}
	defer op.Close()
	set := newSeenSet(ctx.Exec, s.q.Plan.Schema().Types()[:1])
	s.set, s.setNull, s.setEmpty = set, false, true
	ctx.Exec.keep(set)
	key := make(types.Row, 1)
	for {
		c, err := op.Next(context.Background())
		if err != nil || c == nil {
			return err
		}
		v := c.Cols[0]
		for i := 0; i < c.Len(); i++ {
			if !c.Visible(i) {
				continue
			}
			s.setEmpty = false
			if key[0] = v.Get(i); key[0].Null {
				s.setNull = true
				continue
			}
			if _, err := set.add(key); err != nil {
				return err
			}
		}
	}
}

// hashedValue is an uncorrelated IN's (= ANY) or NOT IN's (<> ALL)
// value for the argument arg, by the rules of value.
func (s *subqueryEval) hashedValue(arg types.Datum) (types.Datum, error) {
	all := s.q.Kind == planner.SubAll
	if s.setEmpty {
		return types.DBool(all), nil
	}
	if arg.Null {
		return types.NullDatum, nil
	}
	found, err := s.set.has(types.Row{arg})
	if err != nil {
		return types.NullDatum, err
	}
	if found {
		return types.DBool(!all), nil
	}
	if s.setNull {
		return types.NullDatum, nil
	}
	return types.DBool(all), nil
}

// run executes the subquery plan and returns its visible rows, which the
// caller discards. Scalar and EXISTS subqueries stop reading early.
func (s *subqueryEval) run(ctx *EvalCtx, outer types.Row) (*rowSpool, error) {
	if ctx.Exec == nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "subqueries are not supported here")
	}
	ctx.Exec.shareTemps()
	ec := *ctx.Exec
	ec.Eval = *ctx
	if outer != nil {
		ec.Eval.Outer = append(append([]types.Row(nil), ctx.Outer...), outer)
	}
	ec.Eval.Exec = &ec
	op, err := Build(s.q.Plan, &ec)
	if err != nil {
		return nil, err
	}
	defer op.Close()
	limit := -1
	switch s.q.Kind {
	case planner.SubExists:
		limit = 1
	case planner.SubScalar, planner.SubRow:
		limit = 2
	}
	rows := newRowSpool(ctx.Exec, s.q.Plan.Schema().Types())
	for {
		c, err := op.Next(context.Background())
		if err != nil {
			rows.discard()
			return nil, err
		}
		if c == nil {
			return rows, nil
		}
		for i := 0; i < c.Len(); i++ {
			if !c.Visible(i) {
				continue
			}
			r := c.Row(i)
			for j := range r {
				if r[j].D != nil {
					// Detach numerics from the chunk, which may be reused.
					r[j].D = new(apdDecimal).Set(r[j].D)
				}
			}
			if err := rows.add(r); err != nil {
				rows.discard()
				return nil, err
			}
			if limit > 0 && rows.len() >= limit {
				return rows, nil
			}
		}
	}
}

func (s *subqueryEval) Eval(ctx *EvalCtx, in *types.Chunk) (*types.Vec, error) {
	n := in.Len()
	out := newOut(s.q.T, n)
	var args *types.Vec
	if s.arg != nil {
		var err error
		if args, err = s.arg.Eval(ctx, in); err != nil {
			return nil, err
		}
	}
	rowArgs := make([]*types.Vec, len(s.row))
	for j, ev := range s.row {
		var err error
		if rowArgs[j], err = ev.Eval(ctx, in); err != nil {
			return nil, err
		}
	}
	var left []types.Datum
	if s.row != nil {
		left = make([]types.Datum, len(s.row))
	}
	if s.hashed && (s.cachedFor != ctx.Exec || s.set == nil) {
		if s.set != nil {
			s.set.discard()
			s.set = nil
		}
		if err := s.runHashed(ctx); err != nil {
			return nil, err
		}
		s.cachedFor = ctx.Exec
	}
	if s.hashed {
		for i := 0; i < n; i++ {
			if !in.Visible(i) {
				out.Nulls[i] = true
				continue
			}
			d, err := s.hashedValue(args.Get(i))
			if err != nil {
				return nil, err
			}
			setDatum(out, i, d)
		}
		return out, nil
	}
	if !s.q.Correlated && (s.cachedFor != ctx.Exec || s.cached == nil) {
		if s.cached != nil {
			s.cached.discard()
		}
		rows, err := s.run(ctx, nil)
		if err != nil {
			return nil, err
		}
		s.cachedFor, s.cached = ctx.Exec, rows
		ctx.Exec.keep(rows)
	}
	for i := 0; i < n; i++ {
		if !in.Visible(i) {
			out.Nulls[i] = true
			continue
		}
		rows := s.cached
		if s.q.Correlated {
			var err error
			if rows, err = s.run(ctx, in.Row(i)); err != nil {
				return nil, err
			}
		}
		var arg types.Datum
		if args != nil {
			arg = args.Get(i)
		}
		for j, v := range rowArgs {
			left[j] = v.Get(i)
		}
		d, err := s.value(ctx, rows, arg, left)
		if s.q.Correlated {
			rows.discard()
		}
		if err != nil {
			return nil, err
		}
		setDatum(out, i, d)
	}
	return out, nil
}

// value turns the subquery's rows into the expression's value for one
// row: arg is its argument, left its row for a row comparison.
func (s *subqueryEval) value(ctx *EvalCtx, rows *rowSpool, arg types.Datum, left []types.Datum) (types.Datum, error) {
	if left != nil {
		return s.rowValue(rows, left)
	}
	switch s.q.Kind {
	case planner.SubScalar:
		if rows.len() > 1 {
			return types.NullDatum, pgerr.New(pgerr.CardinalityViolation, "more than one row returned by a subquery used as an expression")
		}
		if rows.len() == 0 {
			return types.NullDatum, nil
		}
		r, err := rows.reader().next()
		if err != nil {
			return types.NullDatum, err
		}
		return r[0], nil
	case planner.SubExists:
		return types.DBool(rows.len() > 0), nil
	case planner.SubArray:
		t := s.q.Plan.Schema()[0].T
		var b strings.Builder
		b.WriteByte('{')
		rd := rows.reader()
		for i := 0; ; i++ {
			r, err := rd.next()
			if err != nil {
				return types.NullDatum, err
			}
			if r == nil {
				break
			}
			if i > 0 {
				b.WriteByte(',')
			}
			if r[0].Null {
				b.WriteString("NULL")
			} else {
				b.WriteString(quoteArrayElem(types.FormatText(r[0], t, ctx.loc())))
			}
		}
		b.WriteByte('}')
		return types.DString(b.String()), nil
	}
	// ANY / ALL: Postgres's rules (docs §9.23.4): ANY is true if some
	// comparison is true, else NULL if some is NULL, else false; ALL is
	// false if some comparison is false, else NULL if some is NULL, else
	// true. An empty set gives false / true whatever the argument.
	all := s.q.Kind == planner.SubAll
	sawNull := false
	rd := rows.reader()
	for {
		r, err := rd.next()
		if err != nil {
			return types.NullDatum, err
		}
		if r == nil {
			break
		}
		if arg.Null || r[0].Null {
			sawNull = true
			continue
		}
		var ok bool
		if functions.IsPatternOp(s.q.Op) {
			var err error
			if ok, err = functions.PatternMatch(s.q.Op, arg.S, r[0].S); err != nil {
				return types.NullDatum, err
			}
		} else {
			ok = functions.CmpHolds(s.q.Op, s.cmp(arg, r[0]))
		}
		if ok != all {
			return types.DBool(!all), nil
		}
	}
	if sawNull {
		return types.NullDatum, nil
	}
	return types.DBool(all), nil
}

// rowValue is the value of a row comparison with the subquery's rows:
// for SubRow with its single row (a row of NULLs when there is none), for
// SubAny and SubAll with each row, under the rules of value.
func (s *subqueryEval) rowValue(rows *rowSpool, left []types.Datum) (types.Datum, error) {
	rd := rows.reader()
	if s.q.Kind == planner.SubRow {
		if rows.len() > 1 {
			return types.NullDatum, pgerr.New(pgerr.CardinalityViolation, "more than one row returned by a subquery used as an expression")
		}
		if rows.len() == 0 {
			return types.NullDatum, nil
		}
		r, err := rd.next()
		if err != nil {
			return types.NullDatum, err
		}
		v, null := s.compareRow(left, r)
		if null {
			return types.NullDatum, nil
		}
		return types.DBool(v), nil
	}
	all := s.q.Kind == planner.SubAll
	sawNull := false
	for {
		r, err := rd.next()
		if err != nil {
			return types.NullDatum, err
		}
		if r == nil {
			break
		}
		v, null := s.compareRow(left, r)
		if null {
			sawNull = true
			continue
		}
		if v != all {
			return types.DBool(!all), nil
		}
	}
	if sawNull {
		return types.NullDatum, nil
	}
	return types.DBool(all), nil
}

// compareRow compares the row left with r under s.q.Op as PostgreSQL
// compares rows (manual §9.24.5): = is true when every pair of fields is
// equal, false when one pair differs, else NULL; <> is its negation; the
// ordering operators decide at the first pair that is unequal or holds a
// NULL (NULL then), and by the operator over equal rows. null reports a
// NULL result.
func (s *subqueryEval) compareRow(left []types.Datum, r types.Row) (v, null bool) {
	switch s.q.Op {
	case "=", "<>":
		sawNull := false
		for i, l := range left {
			if l.Null || r[i].Null {
				sawNull = true
				continue
			}
			if s.cmps[i](l, r[i]) != 0 {
				return s.q.Op == "<>", false
			}
		}
		if sawNull {
			return false, true
		}
		return s.q.Op == "=", false
	}
	for i, l := range left {
		if l.Null || r[i].Null {
			return false, true
		}
		if c := s.cmps[i](l, r[i]); c != 0 {
			return functions.CmpHolds(s.q.Op, c), false
		}
	}
	return functions.CmpHolds(s.q.Op, 0), false
}

// quoteArrayElem quotes an element of a Postgres array's text form when
// array_out would: empty strings, "NULL", and strings holding braces,
// commas, quotes, backslashes or white space.
func quoteArrayElem(s string) string {
	if s != "" && !strings.EqualFold(s, "NULL") && !strings.ContainsAny(s, "{},\"\\ \t\n\r\v\f") {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		if r == '"' || r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// loc returns the session time zone (UTC when unset).
func (ctx *EvalCtx) loc() *time.Location {
	if ctx == nil || ctx.Location == nil {
		return time.UTC
	}
	return ctx.Location
}
