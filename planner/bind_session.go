package planner

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// This file binds session windows, a grouping of GROUP BY (Flink's group
// window syntax, the one of Nexmark q11):
//
//	SELECT bidder, count(*),
//	       SESSION_START(date_time, INTERVAL '10' SECOND),
//	       SESSION_END(date_time, INTERVAL '10' SECOND)
//	FROM bid GROUP BY bidder, SESSION(date_time, INTERVAL '10' SECOND)
//
// A session of a group (the rows equal on the other GROUP BY keys) is a
// maximal run of its rows whose times, in order, are at most gap apart;
// SESSION_START is its first time and SESSION_END its last time plus gap.
// TUMBLE and HOP are FROM items because they map each row to its windows
// alone; a session depends on the other rows of its group (a row can
// join two sessions into one), so it is a grouping, written where the
// group keys are. SESSION_START and SESSION_END take SESSION's arguments
// and may appear wherever a group key may.
//
// The time is a timestamp, timestamptz or date column or expression (a
// date taken as midnight); gap a constant interval without months, over
// zero. A row whose time is NULL is in no session: it groups with the
// other such rows of its group, with NULL start and end.
//
// The binder turns the aggregation into
//
//	Project(keys, start, max(time) + gap AS end, aggregates)
//	└─ Agg(GROUP BY keys, start; aggregates, max(time))
//	   └─ SessionWindow(partition by keys, time, gap): input + start
//	      └─ Project(input, keys, time)
//
// so only SessionWindow, which labels each row with its session's start,
// is new; the aggregates are the Agg's, batch and streaming alike. In a
// stream a row's label changes when its session merges with an earlier
// one, and SessionWindow then retracts the row and inserts it again.

// sessionGroup is the SESSION(time, gap) item of a GROUP BY.
type sessionGroup struct {
	time Expr
	gap  int64 // microseconds
	// start and end are the positions of SESSION_START and SESSION_END
	// among the aggregation's keys.
	start, end int
}

// isSessionCall returns the SESSION(...) call e is, or nil.
func isSessionCall(e ast.ExprNode) *ast.FuncCallExpr {
	if f, ok := unparen(e).(*ast.FuncCallExpr); ok && f.FnName.L == "session" {
		return f
	}
	return nil
}

// sessionCall binds the time and gap arguments of SESSION,
// SESSION_START or SESSION_END over the input scope sc into the key
// expression of fn ("session_start" or "session_end") and the gap.
func (b *binder) sessionCall(sc *scope, f *ast.FuncCallExpr, fn string) (*Call, int64) {
	name := f.FnName.O
	if len(f.Args) != 2 {
		fail(pgerr.New(pgerr.UndefinedFunction, "%s takes 2 arguments, not %d", name, len(f.Args)).
			WithHint("Write %s(time_column, gap).", name).WithPosition(b.pos(f)))
	}
	t := b.finalize(b.expr(&exprCtx{s: sc, clause: "arguments of " + name}, f.Args[0]))
	wt := types.TTimestamp
	switch t.Type().ID {
	case types.Timestamp:
	case types.Timestamptz:
		wt = types.TTimestamptz
	case types.Date:
		t = &Cast{Arg: t, T: types.TTimestamp}
	default:
		fail(typeErrorf("the time of %s must be of type timestamp, timestamp with time zone or date, not %s", name, t.Type()))
	}
	consts := &exprCtx{s: &scope{lvl: sc.lvl}, clause: "arguments of " + name}
	gap := b.windowInterval(consts, f.Args[1], name, "gap")
	if gap <= 0 {
		failf(pgerr.InvalidParameterValue, "session gap of %s must be greater than zero", name)
	}
	return &Call{Fn: fn, Args: []Expr{t, intervalConst(gap)}, T: wt}, gap
}

// bindSessionGroup adds GROUP BY's SESSION(time, gap) item f to agg: two
// keys, SESSION_START and SESSION_END of f's arguments.
func (b *binder) bindSessionGroup(agg *aggState, sc *scope, f *ast.FuncCallExpr) {
	if agg.session != nil {
		fail(pgerr.New(pgerr.FeatureNotSupported, "GROUP BY can have only one SESSION window").WithPosition(b.pos(f)))
	}
	start, gap := b.sessionCall(sc, f, "session_start")
	end := &Call{Fn: "session_end", Args: start.Args, T: start.T}
	agg.session = &sessionGroup{time: start.Args[0], gap: gap, start: len(agg.keys), end: len(agg.keys) + 1}
	agg.keys = append(agg.keys, start, end)
	agg.keyStrs = append(agg.keyStrs, exprKey(start), exprKey(end))
}

// sessionFunc binds SESSION_START or SESSION_END (fn) outside GROUP BY:
// to the key of the aggregation's SESSION with the same arguments.
// SESSION itself is only a GROUP BY item.
func (b *binder) sessionFunc(c *exprCtx, f *ast.FuncCallExpr) Expr {
	if f.FnName.L == "session" {
		fail(pgerr.New(pgerr.GroupingError, "SESSION is only allowed as an item of GROUP BY").
			WithHint("Group by SESSION(time, gap) and select SESSION_START(time, gap) and SESSION_END(time, gap).").WithPosition(b.pos(f)))
	}
	if c.agg == nil || c.agg.session == nil {
		fail(pgerr.New(pgerr.GroupingError, "%s is only allowed in a query grouped by SESSION", f.FnName.O).
			WithHint("Add SESSION(time, gap) with the same arguments to GROUP BY.").WithPosition(b.pos(f)))
	}
	e, _ := b.sessionCall(c.agg.from, f, f.FnName.L)
	k := exprKey(e)
	for i, ks := range c.agg.keyStrs {
		if ks == k {
			return &ColRef{Idx: i, T: e.T, Name: FormatExpr(c.agg.keys[i])}
		}
	}
	fail(pgerr.New(pgerr.GroupingError, "the arguments of %s must be those of GROUP BY's SESSION", f.FnName.O).WithPosition(b.pos(f)))
	return nil
}

// sessionFinder looks for SESSION_START or SESSION_END outside
// subqueries.
type sessionFinder struct{ found bool }

func (v *sessionFinder) Enter(n ast.Node) (ast.Node, bool) {
	switch n := n.(type) {
	case *ast.SubqueryExpr:
		return n, true
	case *ast.FuncCallExpr:
		if n.FnName.L == "session_start" || n.FnName.L == "session_end" {
			v.found = true
			return n, true
		}
	}
	return n, false
}

func (v *sessionFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// containsSessionFunc reports SESSION_START or SESSION_END in n outside
// subqueries: an expression over them (SESSION_END(...) -
// SESSION_START(...), a cast, a comparison in HAVING) is bound part by
// part, each call to its key, not matched whole against GROUP BY's keys.
func containsSessionFunc(n ast.Node) bool {
	v := &sessionFinder{}
	n.Accept(v)
	return v.found
}

// sessionPlan builds the plan of an aggregation grouped by a SESSION
// (see the file comment) over in; out is the output the binder expects
// of an Agg: the keys in GROUP BY order, then the aggregates.
func sessionPlan(in Plan, agg *aggState, out types.Schema) Plan {
	s := agg.session
	inS := in.Schema()
	n := len(inS)
	pr := &Project{Input: in}
	for i, c := range inS {
		pr.Exprs = append(pr.Exprs, &ColRef{Idx: i, T: c.T, Name: c.Name})
		pr.Out = append(pr.Out, c)
	}
	var parts []int // positions of the partition keys in agg.keys
	for i, k := range agg.keys {
		if i == s.start || i == s.end {
			continue
		}
		parts = append(parts, i)
		pr.Exprs = append(pr.Exprs, k)
		pr.Out = append(pr.Out, types.Column{Name: FormatExpr(k), T: k.Type()})
	}
	tc := len(pr.Exprs)
	wt := agg.keys[s.start].Type()
	pr.Exprs = append(pr.Exprs, s.time)
	pr.Out = append(pr.Out, types.Column{Name: FormatExpr(s.time), T: wt})
	sw := &SessionWindow{Input: pr, TimeCol: tc, Gap: s.gap}
	for j := range parts {
		sw.Keys = append(sw.Keys, n+j)
	}
	sw.Out = append(append(types.Schema(nil), pr.Out...), types.Column{Name: "session_start", T: wt})
	sc := len(sw.Out) - 1

	a := &Agg{Input: sw}
	for _, k := range sw.Keys {
		a.GroupBy = append(a.GroupBy, &ColRef{Idx: k, T: sw.Out[k].T, Name: sw.Out[k].Name})
		a.Out = append(a.Out, types.Column{Name: sw.Out[k].Name, T: sw.Out[k].T})
	}
	a.GroupBy = append(a.GroupBy, &ColRef{Idx: sc, T: wt, Name: "session_start"})
	a.Out = append(a.Out, types.Column{Name: "session_start", T: wt})
	a.Aggs = append(a.Aggs, agg.aggs...)
	for i := range agg.aggs {
		a.Out = append(a.Out, out[len(agg.keys)+i])
	}
	last := &AggCall{Fn: "max", Args: []Expr{&ColRef{Idx: tc, T: wt, Name: sw.Out[tc].Name}}, T: wt}
	a.Aggs = append(a.Aggs, *last)
	a.Out = append(a.Out, types.Column{Name: FormatAgg(*last), T: wt})

	np := len(parts)
	res := &Project{Input: a, Out: out}
	for i, k := range agg.keys {
		var e Expr
		switch i {
		case s.start:
			e = &ColRef{Idx: np, T: wt, Name: "session_start"}
		case s.end:
			maxT := &ColRef{Idx: len(a.Out) - 1, T: wt, Name: FormatAgg(*last)}
			e = &Call{Fn: "+", Args: []Expr{maxT, intervalConst(s.gap)}, T: wt}
		default:
			j := 0
			for parts[j] != i {
				j++
			}
			e = &ColRef{Idx: j, T: k.Type(), Name: FormatExpr(k)}
		}
		res.Exprs = append(res.Exprs, e)
	}
	for i, ac := range agg.aggs {
		res.Exprs = append(res.Exprs, &ColRef{Idx: np + 1 + i, T: ac.T, Name: FormatAgg(ac)})
	}
	return res
}
