package planner

import (
	"reflect"

	"github.com/weirdb/weir/types"
)

// This file plans temporal filters: a view's WHERE conjunct comparing an
// expression of the row with now() (or current_timestamp), optionally
// plus or minus a constant interval, as RisingWave's and Materialize's
// temporal filters. now() in a view is the processing time of the epoch
// being closed (the time encoded in the barrier's epoch), so
//
//	CREATE MATERIALIZED VIEW recent AS SELECT * FROM t WHERE ts > now() - INTERVAL '1 hour'
//
// holds, at every committed epoch, exactly the rows a plain SELECT with
// now() equal to that epoch's time would return: rows leave the view
// when the clock passes ts + 1 hour. Every other use of now() in a view
// is refused (checkExprs).

// temporalCond is one temporal conjunct `Key Op Bound`, normalised so
// that the row's side is on the left.
type temporalCond struct {
	Key   Expr   // over the row; has no time-dependent function
	Op    string // ">", ">=", "<", "<="
	Bound Expr   // now() [+/- interval], of Key's type
	// nows are the now() calls in Bound (one).
	nows []*Call
}

// flipOp mirrors a comparison: a op b is b flipOp(op) a.
var flipOp = map[string]string{">": "<", ">=": "<=", "<": ">", "<=": ">="}

// temporalConjunct recognises c as a temporal conjunct.
func temporalConjunct(c Expr) (*temporalCond, bool) {
	call, ok := c.(*Call)
	if !ok || len(call.Args) != 2 || flipOp[call.Fn] == "" {
		return nil, false
	}
	op, key, bound := call.Fn, call.Args[0], call.Args[1]
	nows, ok := nowBound(bound)
	if !ok {
		op, key, bound = flipOp[op], call.Args[1], call.Args[0]
		if nows, ok = nowBound(bound); !ok {
			return nil, false
		}
	}
	if hasTimeDependent(key) || isConstExpr(key) || hasSubquery(key) {
		return nil, false
	}
	if kt := key.Type(); kt != bound.Type() {
		// timestamp (or date) compared with now(): PostgreSQL's
		// cross-type comparison converts the row's value to timestamptz
		// in the session's time zone; the state is ordered by that. A
		// timestamptz(p) only loses its precision.
		switch kt.ID {
		case types.Timestamp, types.Date, types.Timestamptz:
			key = &Cast{Arg: key, T: bound.Type()}
		default:
			return nil, false
		}
	}
	return &temporalCond{Key: key, Op: op, Bound: bound, nows: nows}, true
}

// nowBound reports whether e is now() or current_timestamp, possibly
// plus or minus constant intervals, returning the now() call.
func nowBound(e Expr) ([]*Call, bool) {
	c, ok := e.(*Call)
	if !ok || c.T.ID != types.Timestamptz {
		return nil, false
	}
	switch {
	case (c.Fn == "now" || c.Fn == "current_timestamp") && len(c.Args) == 0:
		return []*Call{c}, true
	case (c.Fn == "+" || c.Fn == "-") && len(c.Args) == 2:
		if iv, ok := c.Args[1].(*Const); ok && iv.T.ID == types.Interval && !iv.V.Null {
			return nowBound(c.Args[0])
		}
		if iv, ok := c.Args[0].(*Const); ok && c.Fn == "+" && iv.T.ID == types.Interval && !iv.V.Null {
			return nowBound(c.Args[1])
		}
	}
	return nil, false
}

// hasTimeDependent reports whether e calls a time-dependent or volatile
// function.
func hasTimeDependent(e Expr) bool {
	found := false
	WalkExpr(e, func(x Expr) {
		if n, ok := x.(*Call); ok && n.Fn != "proctime" && isTimeDependentCall(n) {
			// proctime() has checks of its own (checkProcTime).
			found = true
		}
	})
	return found
}

// isTimeDependentCall reports whether n calls a function whose value
// depends on when it is computed (checkExprs refuses them in views).
func isTimeDependentCall(n *Call) bool {
	if timeDependent[n.Fn] {
		return true
	}
	for _, o := range Overloads(n.Fn) {
		if o.Volatile {
			return true
		}
	}
	return false
}

// temporalNows returns the now() calls of p's temporal conjuncts: the
// only ones checkExprs lets through.
func temporalNows(p Plan) map[*Call]bool {
	ok := map[*Call]bool{}
	var walk func(Plan)
	walk = func(p Plan) {
		if p == nil {
			return
		}
		if f, isF := p.(*Filter); isF {
			for _, c := range conjuncts(f.Cond) {
				if tc, yes := temporalConjunct(c); yes {
					for _, n := range tc.nows {
						ok[n] = true
					}
				}
			}
		}
		for _, in := range p.Inputs() {
			walk(in)
		}
	}
	walk(p)
	return ok
}

// splitTemporal separates a filter condition into its temporal conjuncts
// and the rest (nil when none).
func splitTemporal(cond Expr) (rest Expr, temporal []*temporalCond) {
	var others []Expr
	for _, c := range conjuncts(cond) {
		if tc, ok := temporalConjunct(c); ok {
			temporal = append(temporal, tc)
			continue
		}
		others = append(others, c)
	}
	if len(others) > 0 {
		rest = conjoin(others)
	}
	return rest, temporal
}

// dynamicFilter plans one temporal conjunct over in. Its input is
// partitioned by its stream key when it runs on several actors, so that
// each actor's state holds its own rows.
func (sp *streamPlanner) dynamicFilter(in StreamNode, tc *temporalCond) StreamNode {
	if in.Base().Dist.Kind != DistSingle {
		in = exchange(in, hashDist(in.Base().StreamKey), false)
	}
	b := in.Base()
	n := &StreamDynamicFilter{Input: in, Key: tc.Key, Op: tc.Op, Bound: tc.Bound}
	n.Out, n.StreamKey, n.Dist = b.Out, b.StreamKey, b.Dist
	// Rows leave a `>` filter as time passes; a `<` filter only lets
	// rows in, later than they arrived.
	n.AppendOnly = b.AppendOnly && !n.Retracts()
	// Rows a `<` filter holds come out after later rows did, behind
	// their watermarks; a `>` filter retracts rows behind them. Neither
	// keeps the input's watermarks.
	n.Watermarks = nil
	// State: (key value, the input row), keyed by the key value then the
	// stream key, so the rows whose condition changes first are the
	// first of a range scan.
	cols := append(types.Schema{{Name: "_time", T: tc.Key.Type()}}, b.Out...)
	keyCols := []int{0}
	for _, k := range b.StreamKey {
		keyCols = append(keyCols, k+1)
	}
	n.State = StateTableDesc{ID: sp.alloc(), Name: "dynamic_filter", Cols: cols, KeyCols: keyCols, OrderDesc: make([]bool, len(keyCols))}
	return n
}

// checkNoNow fails when a time-dependent call is left anywhere in the
// stream plan rooted at n but in a StreamDynamicFilter's Bound: the
// conversion of a filter moved a temporal conjunct elsewhere (into a
// join condition, say), where nothing would ever re-evaluate it.
func checkNoNow(n StreamNode) {
	seen := map[uintptr]bool{}
	var walkVal func(v reflect.Value)
	walkVal = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Interface, reflect.Pointer:
			if v.IsNil() {
				return
			}
			if v.Kind() == reflect.Pointer {
				if seen[v.Pointer()] {
					return
				}
				seen[v.Pointer()] = true
			}
			if e, ok := v.Interface().(Expr); ok {
				if hasTimeDependent(e) {
					failUnsupported("now() in a materialized view is supported only in a WHERE conjunct comparing an expression of the row with now() plus or minus constant intervals")
				}
				if _, isProject := n.(*StreamProject); !isProject && HasProcTime(e) {
					failUnsupported("proctime() is supported in materialized views only in a select list")
				}
				return
			}
			if _, ok := v.Interface().(StreamNode); ok {
				return // walked by checkNoNow itself
			}
			if v.Kind() == reflect.Pointer {
				walkVal(v.Elem())
			}
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				if v.Type().Field(i).IsExported() {
					walkVal(v.Field(i))
				}
			}
		case reflect.Slice, reflect.Array:
			for i := 0; i < v.Len(); i++ {
				walkVal(v.Index(i))
			}
		}
	}
	v := reflect.ValueOf(n).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		if !f.IsExported() {
			continue
		}
		if _, ok := n.(*StreamDynamicFilter); ok && f.Name == "Bound" {
			continue
		}
		walkVal(v.Field(i))
	}
	for _, in := range n.StreamInputs() {
		checkNoNow(in)
	}
}
