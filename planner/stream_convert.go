package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// PlanStream converts the bound query of CREATE MATERIALIZED VIEW (the plan
// Bind returns) into a stream plan rooted at a StreamMaterialize that
// writes into mv. The conversion and its invariants are described in
// the package documentation (doc.go, "Stream plans").
//
// PlanStream fills in mv.Cols (the query's output columns, then the hidden
// stream key columns it needs to identify rows) and mv.PK (the root's
// stream key); the rest of mv (ID, Name, ...) is the caller's. The view's
// own data is the state table mv.ID. alloc hands out the IDs of all other
// state tables; it is called in a deterministic order for a given plan, so
// replaying the IDs it returned rebuilds the same plan after a restart.
//
// Errors carry SQLSTATEs: 0A000 for constructs that cannot be maintained
// incrementally yet (the message names the construct), 42701 for
// duplicate output column names (as Postgres's CREATE MATERIALIZED VIEW).
func PlanStream(p Plan, mv *catalog.Relation, alloc func() uint32) (root *StreamMaterialize, err error) {
	defer func() {
		// Like the binder, the converter reports errors by panicking with
		// a *pgerr.Error; the panic never leaves the package.
		if r := recover(); r != nil {
			pe, ok := r.(*pgerr.Error)
			if !ok {
				panic(r)
			}
			root, err = nil, pe
		}
	}()
	ttl, err := StateTTL(mv)
	if err != nil {
		return nil, err
	}
	sp := &streamPlanner{alloc: alloc, emitOnClose: emitOnWindowClose(mv), ttlMs: ttl, before5: before5(mv), before8: before8(mv),
		noFullJoinMarks: mv != nil && strings.EqualFold(mv.With[WithFullJoinMarks], "false")}
	checkRecords(p, true)
	sp.checkExprs(p)
	n := sp.plan(prunePlan(p, mv))
	checkNoNow(n)
	sp.checkEOWC(n)
	m := sp.materialize(n, p.Schema(), mv)
	// A group whose state expired comes back as an insert of a key the
	// view holds: the view overwrites it, and tells its readers an update.
	m.Upsert = sp.ttlUsed
	if sharesSubplans(mv) {
		shareSubplans(m)
	}
	return m, nil
}

// streamPlanner holds the state of one conversion.
type streamPlanner struct {
	alloc func() uint32
	// emitOnClose: the view is EMIT ON WINDOW CLOSE; eowcNodes counts the
	// aggregations and over windows planned in that mode.
	emitOnClose bool
	eowcNodes   int
	// ttlMs is the view's state TTL in milliseconds (0: none); ttlUsed
	// says an operator of the plan has one (stream_ttl.go).
	ttlMs   int64
	ttlUsed bool
	// noFullJoinMarks plans full joins without their side marks
	// (WithFullJoinMarks).
	noFullJoinMarks bool
	// before5 plans as before format version 5 (WithPlanFormat): no
	// column pruning, one table per DISTINCT aggregate.
	before5 bool
	// before8 plans as before format version 8: every min and max over a
	// retracting input keeps a table of its values (no GrowOnly).
	before8 bool
}

func unsupported(format string, args ...any) *pgerr.Error {
	return pgerr.New(pgerr.FeatureNotSupported, format, args...)
}

func failUnsupported(format string, args ...any) { fail(unsupported(format, args...)) }

// checkExprs rejects expressions whose value would differ between the
// first computation and a recomputation after recovery (volatile
// functions) or that have no value at all in a view (parameters).
func (sp *streamPlanner) checkExprs(p Plan) {
	checkProcTime(p)
	temporal := temporalNows(p)
	WalkPlanExprs(p, func(x Expr) {
		switch n := x.(type) {
		case *Param:
			fail(pgerr.New(pgerr.FeatureNotSupported, "materialized views may not be defined using bound parameters"))
		case *Call:
			if temporal[n] {
				// A temporal filter (stream_temporal.go).
				return
			}
			if (n.Fn == "now" || n.Fn == "current_timestamp") && len(n.Args) == 0 {
				fail(unsupported("function %s() is supported in materialized views only in a temporal filter", n.Fn).
					WithHint("Use it in a WHERE conjunct of the form expr > now() - INTERVAL '...' (or >=, <, <=, optionally plus or minus constant intervals)."))
			}
			if n.Fn == "proctime" {
				// Processing time (checkProcTime).
				return
			}
			if isTimeDependentCall(n) {
				fail(unsupported("function %s() is not supported in materialized views", n.Fn).
					WithHint("A materialized view is maintained incrementally; its rows must not depend on when they are computed."))
			}
		}
	})
}

// checkProcTime refuses proctime() anywhere but in the expressions of a
// projection (a select list): StreamProject evaluates it as the time of
// the epoch a row is processed in, and no other operator does.
func checkProcTime(p Plan) {
	if _, ok := p.(*Project); !ok {
		for _, e := range planExprs(p) {
			if HasProcTime(e) {
				fail(unsupported("proctime() is supported in materialized views only in a select list").
					WithHint("Compute it in a subquery or WITH query: WITH b AS (SELECT *, proctime() AS p_time FROM bid) SELECT ... FROM TUMBLE(b, p_time, ...)."))
			}
		}
	}
	for _, in := range p.Inputs() {
		checkProcTime(in)
	}
}

// HasProcTime reports whether e calls proctime(), the processing time,
// which a stream operator evaluating e must provide (functions.Context's
// ProcTime).
func HasProcTime(e Expr) bool {
	found := false
	WalkExpr(e, func(x Expr) {
		if c, ok := x.(*Call); ok && c.Fn == "proctime" {
			found = true
		}
	})
	return found
}

// timeDependent are the functions that are stable within a statement but
// whose value depends on when the statement runs: a view row computed
// from them would change meaning when recomputed.
var timeDependent = map[string]bool{
	"now": true, "current_timestamp": true, "transaction_timestamp": true, "statement_timestamp": true,
	"current_date": true, "current_time": true, "localtimestamp": true, "localtime": true,
}

// plan converts p. The returned node's first len(p.Schema()) output
// columns are p's columns in order; columns after them are hidden (they
// carry stream key columns that p's output lacks). Parents refer to p's
// columns by their logical index, which the prefix keeps valid.
func (sp *streamPlanner) plan(p Plan) StreamNode {
	switch p.(type) {
	case *Filter, *Project:
		// Their subqueries are turned into joins.
	default:
		for _, e := range planExprs(p) {
			if hasSubquery(e) {
				failUnsupported("subqueries in %s are not supported in materialized views yet", clauseOf(p))
			}
		}
	}
	switch n := p.(type) {
	case *Scan:
		return sp.scan(n)
	case *Values:
		return sp.values(n)
	case *Filter:
		return sp.filter(n)
	case *Project:
		return sp.project(n)
	case *Agg:
		return sp.agg(n)
	case *Join:
		return sp.join(n)
	case *Sort:
		// Order is not part of a relation: a view's rows have none.
		return sp.plan(n.Input)
	case *Limit:
		return sp.limit(n)
	case *Distinct:
		return sp.distinct(n)
	case *SetOp:
		return sp.setOp(n)
	case *Window:
		return sp.window(n)
	case *HopWindow:
		return sp.hopWindow(n)
	case *SessionWindow:
		return sp.sessionWindow(n)
	case *Expand:
		return sp.expand(n)
	case *ProjectSet:
		return sp.projectSet(n)
	case *RecursiveUnion, *WorkTableScan:
		failUnsupported("WITH RECURSIVE is not supported in materialized views")
	case *SystemScan:
		if n.Seq != nil {
			failUnsupported("sequence %s is not supported in materialized views", n.SeqName)
		}
		failUnsupported("system table %s.%s is not supported in materialized views", n.Schema_, n.Name)
	case *TableFunc:
		failUnsupported("table function %s() is not supported in materialized views yet", n.Fn)
	}
	failUnsupported("%T is not supported in materialized views", p)
	return nil
}

// clauseOf names the SQL clause a plan node comes from, for errors.
func clauseOf(p Plan) string {
	switch p.(type) {
	case *Join:
		return "JOIN conditions"
	case *Agg:
		return "GROUP BY or aggregate arguments"
	case *Sort, *Distinct:
		return "ORDER BY or DISTINCT ON"
	case *Limit:
		return "LIMIT"
	case *Window:
		return "window definitions"
	case *Values:
		return "VALUES"
	}
	return "this position"
}

// ---- leaves ----

// relAppendOnly reports whether a relation never deletes or updates rows:
// sources, tables created APPEND ONLY (recorded as the WITH option
// append_only = 'true') and views that EMIT ON WINDOW CLOSE.
func relAppendOnly(r *catalog.Relation) bool {
	return r.Kind == catalog.KindSource || strings.EqualFold(r.With["append_only"], "true") ||
		r.Kind == catalog.KindMView && emitOnWindowClose(r)
}

func (sp *streamPlanner) scan(s *Scan) StreamNode {
	if s.ProcTime {
		failUnsupported("FOR SYSTEM_TIME AS OF PROCTIME() is supported only on the right side of a JOIN or LEFT JOIN")
	}
	if s.Rel.Kind == catalog.KindSource {
		return sp.source(s)
	}
	n := &StreamTableScan{Rel: s.Rel, Cols: append([]int(nil), s.Cols...)}
	n.Out = append(types.Schema(nil), s.Out...)
	// The relation's primary key identifies its rows in the change stream;
	// read it even when the query does not select it.
	for _, pk := range s.Rel.PK {
		at := indexOf(n.Cols, pk)
		if at < 0 {
			at = len(n.Cols)
			n.Cols = append(n.Cols, pk)
			c := s.Rel.Cols[pk]
			n.Out = append(n.Out, types.Column{Name: c.Name, T: c.T, NotNull: c.NotNull, Hidden: true})
		}
		n.StreamKey = append(n.StreamKey, at)
	}
	n.AppendOnly = relAppendOnly(s.Rel)
	n.Dist = Distribution{Kind: DistHash, Keys: append([]int(nil), n.StreamKey...)}
	if len(s.Rel.PK) == 0 {
		// Only a view has no key: one that aggregates without GROUP BY,
		// whose one row is identified by the empty key and lives on one
		// actor.
		if s.Rel.Kind != catalog.KindMView {
			failUnsupported("relation %q has no primary key or row id", s.Rel.Name)
		}
		n.Dist = Distribution{Kind: DistSingle}
	}
	n.Watermarks = scanWatermarks(s.Rel, n.Cols)
	if s.Sample != nil {
		return sampleFilter(n, s.Sample)
	}
	return n
}

// sampleFilter keeps the rows of n that TABLESAMPLE ... REPEATABLE
// keeps: the decision is a function of the row's key and the seed
// (functions.TableSampleFn), so a row inserted later appears iff it is
// sampled and its delete retracts it. Without REPEATABLE each
// execution would draw another sample: 0A000. The arguments must be
// constants, checked now as a query checks them when it runs.
func sampleFilter(n *StreamTableScan, ts *TableSample) StreamNode {
	if ts.Seed == nil {
		failUnsupported("TABLESAMPLE without REPEATABLE is not supported in materialized views")
	}
	pct, ok1 := constDatum(ts.Percent)
	seed, ok2 := constDatum(ts.Seed)
	if !ok1 || !ok2 {
		failUnsupported("TABLESAMPLE arguments in a materialized view must be constants")
	}
	limit, sd, err := SampleArgs(pct, seed, true)
	if err != nil {
		fail(pgerr.As(err))
	}
	args := []Expr{&Const{V: types.DInt(int64(limit)), T: types.TInt8}, &Const{V: types.DInt(int64(sd)), T: types.TInt8}}
	for _, k := range n.StreamKey {
		args = append(args, &ColRef{Idx: k, T: n.Out[k].T, Name: n.Out[k].Name})
	}
	return newFilter(n, &Call{Fn: functions.TableSampleFn, Args: args, T: types.TBool})
}

// constDatum is the value of a constant, or of a cast of one.
func constDatum(e Expr) (types.Datum, bool) {
	switch x := e.(type) {
	case *Const:
		return x.V, true
	case *Cast:
		k, ok := x.Arg.(*Const)
		if !ok || x.Domain != nil {
			return types.NullDatum, false
		}
		if k.V.Null {
			return k.V, true
		}
		d, err := types.Cast(k.V, k.T, x.T, !x.Assign, nil)
		if err != nil {
			panic(pgerr.As(err))
		}
		return d, true
	}
	return types.NullDatum, false
}

func (sp *streamPlanner) values(v *Values) StreamNode {
	// A hidden row number is the stream key of constant rows.
	n := &StreamValues{}
	n.Out = append(append(types.Schema(nil), v.Out...), types.Column{Name: "_row_id", T: types.TInt8, NotNull: true, Hidden: true})
	for i, r := range v.Rows {
		row := append(append([]Expr(nil), r...), &Const{V: types.DInt(int64(i)), T: types.TInt8})
		n.Rows = append(n.Rows, row)
	}
	n.StreamKey = []int{len(v.Out)}
	n.AppendOnly = true
	n.Dist = Distribution{Kind: DistSingle}
	return n
}

// ---- filter and project ----

func (sp *streamPlanner) filter(f *Filter) StreamNode {
	if hasSubquery(f.Cond) {
		return sp.plan(sp.unnestFilter(f))
	}
	if top := sp.rankTopN(f); top != nil {
		return top
	}
	in := sp.plan(f.Input)
	rest, temporal := splitTemporal(f.Cond)
	var out StreamNode = in
	if rest != nil {
		out = newFilter(in, rest)
	}
	for _, tc := range temporal {
		out = sp.dynamicFilter(out, tc)
	}
	return out
}

func newFilter(in StreamNode, cond Expr) *StreamFilter {
	b := in.Base()
	n := &StreamFilter{Input: in, Cond: cond}
	n.StreamBase = StreamBase{Out: b.Out, StreamKey: b.StreamKey, AppendOnly: b.AppendOnly, Dist: b.Dist, Watermarks: b.Watermarks}
	return n
}

func (sp *streamPlanner) project(p *Project) StreamNode {
	for _, e := range p.Exprs {
		if hasSubquery(e) {
			return sp.plan(sp.unnestProject(p))
		}
	}
	in := sp.plan(p.Input)
	if !in.Base().AppendOnly && slices.ContainsFunc(p.Exprs, HasProcTime) {
		// A retraction is evaluated in a later epoch than the row it
		// retracts: its proctime() would differ, and downstream state
		// would be asked to retract a row it never had.
		failUnsupported("proctime() in a materialized view needs an input that only appends (a source, an APPEND ONLY table)")
	}
	return newProject(in, p.Exprs, p.Out)
}

// newProject computes exprs (named by out) over in and appends, as hidden
// columns, the input stream key columns that exprs do not pass through,
// so the output keeps a stream key.
func newProject(in StreamNode, exprs []Expr, out types.Schema) *StreamProject {
	b := in.Base()
	n := &StreamProject{Input: in, Exprs: append([]Expr(nil), exprs...)}
	n.Out = append(types.Schema(nil), out...)
	// where[i] is the output column passing input column i through.
	where := map[int]int{}
	for i, e := range exprs {
		if c, ok := e.(*ColRef); ok {
			if _, seen := where[c.Idx]; !seen {
				where[c.Idx] = i
			}
		}
	}
	for _, k := range b.StreamKey {
		at, ok := where[k]
		if !ok {
			at = len(n.Exprs)
			c := b.Out[k]
			n.Exprs = append(n.Exprs, &ColRef{Idx: k, T: c.T, Name: c.Name})
			n.Out = append(n.Out, types.Column{Name: c.Name, T: c.T, NotNull: c.NotNull, Hidden: true})
			where[k] = at
		}
		n.StreamKey = append(n.StreamKey, at)
	}
	n.AppendOnly = b.AppendOnly
	n.Dist = mapDist(b.Dist, where)
	n.Watermarks = projectWatermarks(b.Watermarks, n.Exprs)
	return n
}

// mapDist carries a distribution through a projection that moves input
// column i to output column where[i]; a hash distribution over a column
// the projection drops becomes DistAny.
func mapDist(d Distribution, where map[int]int) Distribution {
	if d.Kind != DistHash {
		return d
	}
	out := Distribution{Kind: DistHash}
	for _, k := range d.Keys {
		at, ok := where[k]
		if !ok {
			return Distribution{Kind: DistAny}
		}
		out.Keys = append(out.Keys, at)
	}
	return out
}

// columnsOf returns ColRefs for columns [0, n) of s.
func columnsOf(s types.Schema, n int) []Expr {
	out := make([]Expr, n)
	for i := 0; i < n; i++ {
		out[i] = &ColRef{Idx: i, T: s[i].T, Name: s[i].Name}
	}
	return out
}

// withColumns makes every expression of es a column of in: ColRefs are
// used as they are; other expressions are computed by a StreamProject
// that appends them (hidden) after all of in's columns. It returns the
// node and the column index of each expression.
func withColumns(in StreamNode, es []Expr) (StreamNode, []int) {
	b := in.Base()
	idx := make([]int, len(es))
	var extra []Expr
	for i, e := range es {
		if c, ok := e.(*ColRef); ok {
			idx[i] = c.Idx
			continue
		}
		idx[i] = len(b.Out) + len(extra)
		extra = append(extra, e)
	}
	if len(extra) == 0 {
		return in, idx
	}
	exprs := columnsOf(b.Out, len(b.Out))
	out := append(types.Schema(nil), b.Out...)
	for _, e := range extra {
		exprs = append(exprs, e)
		out = append(out, types.Column{Name: FormatExpr(e), T: e.Type(), Hidden: true})
	}
	return newProject(in, exprs, out), idx
}

// ---- exchanges ----

// satisfies reports whether rows distributed by have are distributed as
// want requires. For aggregation (exact false) a hash over a subset of
// the wanted keys keeps equal keys together; a join needs exactly the
// same keys in the same order on both sides.
func satisfies(have, want Distribution, exact bool) bool {
	switch want.Kind {
	case DistAny:
		return true
	case DistSingle:
		return have.Kind == DistSingle
	case DistHash:
		if have.Kind == DistSingle {
			return !exact
		}
		if have.Kind != DistHash || len(have.Keys) == 0 {
			return false
		}
		if exact {
			return equalInts(have.Keys, want.Keys)
		}
		for _, k := range have.Keys {
			if indexOf(want.Keys, k) < 0 {
				return false
			}
		}
		return true
	}
	return false
}

// exchange returns in when its distribution satisfies want, otherwise a
// StreamExchange that repartitions it to want.
func exchange(in StreamNode, want Distribution, exact bool) StreamNode {
	b := in.Base()
	if satisfies(b.Dist, want, exact) {
		return in
	}
	n := &StreamExchange{Input: in}
	n.StreamBase = StreamBase{Out: b.Out, StreamKey: b.StreamKey, AppendOnly: b.AppendOnly, Dist: want, Watermarks: b.Watermarks}
	return n
}

// keyedDist is the distribution of a node grouping its input by keys
// (columns of its output): hashed by them, unless the input runs on one
// actor and was not exchanged (an aggregation needs no exchange then),
// in which case the node runs on that one actor too and its output is
// not hash-partitioned: a consumer that needs it so must exchange it.
func keyedDist(in Distribution, keys []int) Distribution {
	if in.Kind == DistSingle {
		return in
	}
	return hashDist(keys)
}

func hashDist(keys []int) Distribution {
	if len(keys) == 0 {
		return Distribution{Kind: DistSingle}
	}
	return Distribution{Kind: DistHash, Keys: append([]int(nil), keys...)}
}

// ---- aggregation ----

// streamAggs are the aggregate functions the stream HashAgg maintains
// under retraction (functions/aggregate_impl.go).
var streamAggs = map[string]bool{
	"count": true, "sum": true, "avg": true, "min": true, "max": true, "string_agg": true,
	"bool_and": true, "bool_or": true, "every": true, "variance": true, "var_samp": true,
	"var_pop": true, "stddev": true, "stddev_samp": true, "stddev_pop": true,
	"corr": true, "covar_pop": true, "covar_samp": true, "regr_avgx": true, "regr_avgy": true,
	"regr_count": true, "regr_intercept": true, "regr_r2": true, "regr_slope": true,
	"regr_sxx": true, "regr_sxy": true, "regr_syy": true,
	"bit_and": true, "bit_or": true, "bit_xor": true,
}

// needsExtraState reports whether an aggregate must keep its input values
// (not just a running value) to stay exact: DISTINCT needs the set of
// values seen; min and max after a delete need the next extreme;
// string_agg needs every value to rebuild its result.
func needsExtraState(a AggCall, appendOnly bool) bool {
	switch {
	case a.Distinct, a.Fn == "string_agg":
		return true
	case a.Fn == "min" || a.Fn == "max":
		return !appendOnly
	}
	return false
}

func (sp *streamPlanner) agg(a *Agg) StreamNode {
	if wrapped, wraps := jsonAggsAsStringAgg(a); wraps != nil {
		return wrapJSONAggs(sp.agg(wrapped), len(a.GroupBy), wraps, a.Out)
	}
	for _, c := range a.Aggs {
		if functions.IsOrderedSet(c.Fn) {
			// They need every value of the group, sorted: not kept yet.
			failUnsupported("ordered-set aggregate %s (WITHIN GROUP) is not supported in materialized views", c.Fn)
		}
		if !streamAggs[c.Fn] {
			failUnsupported("aggregate function %s() is not supported in materialized views yet", c.Fn)
		}
	}
	if s, ok := a.Input.(*SessionWindow); ok && sp.emitOnClose {
		return sp.sessionAggEOWC(a, s)
	}
	in := sp.plan(a.Input)
	// Group keys that are expressions are computed first, so the
	// exchange and the agg see them as columns.
	in, keys := withColumns(in, a.GroupBy)
	if perm := sp.watermarkFirst(in, keys, a); perm != nil {
		// The group key with a watermark leads the state key, so closing
		// the groups a watermark passed is a range scan; a projection puts
		// the keys back in their order.
		n := sp.hashAgg(in, perm, a.Aggs, a.Out[len(a.GroupBy):])
		exprs := make([]Expr, 0, len(a.Out))
		for _, k := range keys {
			at := indexOf(perm, k)
			exprs = append(exprs, &ColRef{Idx: at, T: n.Out[at].T, Name: n.Out[at].Name})
		}
		for i := len(keys); i < len(n.Out); i++ {
			exprs = append(exprs, &ColRef{Idx: i, T: n.Out[i].T, Name: n.Out[i].Name})
		}
		return newProject(n, exprs, a.Out)
	}
	n := sp.hashAgg(in, keys, a.Aggs, a.Out[len(a.GroupBy):])
	n.EmptySets = a.EmptySets
	return n
}

// watermarkFirst returns the group keys (columns of in) with the first
// one carrying a watermark moved to the front, or nil when the first key
// has one, none has, the keys repeat or the aggregation groups grouping
// sets (whose set number must stay last). Plans before format 5 keep
// their order.
func (sp *streamPlanner) watermarkFirst(in StreamNode, keys []int, a *Agg) []int {
	if sp.before5 || len(a.EmptySets) > 0 || len(keys) < 2 || len(dedupInts(keys)) != len(keys) {
		return nil
	}
	if _, ok := a.Input.(*Expand); ok {
		return nil
	}
	wms := in.Base().Watermarks
	if slices.Contains(wms, keys[0]) {
		return nil
	}
	for j, k := range keys {
		if slices.Contains(wms, k) {
			return append(append([]int{k}, keys[:j]...), keys[j+1:]...)
		}
	}
	return nil
}

// jsonAgg says how a json aggregate or array_agg is kept as a
// string_agg: the text of each input row's element, joined by sep in the
// string_agg's order, then wrapped in prefix and suffix and cast to the
// result type.
type jsonAgg struct {
	prefix, sep, suffix string
	t                   types.T
}

// jsonAggsAsStringAgg rewrites json_agg, jsonb_agg, json_object_agg and
// jsonb_object_agg calls as string_agg over each row's element text
// (to_json(x), or pg_json_key(k) || ' : ' || to_json(v)), which the
// stream HashAgg keeps exactly under retraction: a result is the
// elements' concatenation in ORDER BY order (ties in stream key order),
// wrapped as json_agg writes it; the jsonb forms are that json text cast
// to jsonb, so jsonb_object_agg's later duplicate key wins as in
// PostgreSQL. array_agg is kept the same way: each element's text as
// an array literal writes it (pg_array_elem), joined by commas, wrapped
// in braces and cast to the array type. wraps is nil when a has no json
// aggregate or array_agg; the caller puts wrapJSONAggs over the
// rewritten aggregation.
func jsonAggsAsStringAgg(a *Agg) (*Agg, map[int]jsonAgg) {
	var wraps map[int]jsonAgg
	out := *a
	out.Aggs = append([]AggCall(nil), a.Aggs...)
	out.Out = append(types.Schema(nil), a.Out...)
	toText := func(e Expr, jsonb bool) Expr {
		fn, t := "to_json", types.TJson
		if jsonb {
			fn, t = "to_jsonb", types.TJsonb
		}
		return &Cast{Arg: &Call{Fn: fn, Args: []Expr{e}, T: t}, T: types.TText}
	}
	for i, c := range a.Aggs {
		var elem Expr
		w := jsonAgg{prefix: "[", sep: ", ", suffix: "]", t: c.T}
		switch c.Fn {
		case "array_agg":
			w.prefix, w.sep, w.suffix = "{", ",", "}"
			elem = &Call{Fn: "pg_array_elem", Args: []Expr{c.Args[0]}, T: types.TText}
		case "json_agg", "jsonb_agg":
			// to_json is strict: a NULL element is written as null.
			elem = &Coalesce{Args: []Expr{toText(c.Args[0], c.Fn == "jsonb_agg"),
				&Const{V: types.DString("null"), T: types.TText}}, T: types.TText}
		case "json_object_agg", "jsonb_object_agg":
			w.prefix, w.suffix = "{ ", " }"
			key := &Call{Fn: "pg_json_key", Args: []Expr{c.Args[0]}, T: types.TText}
			val := &Coalesce{Args: []Expr{toText(c.Args[1], false),
				&Const{V: types.DString("null"), T: types.TText}}, T: types.TText}
			elem = concatText(concatText(key, &Const{V: types.DString(" : "), T: types.TText}), val)
		default:
			continue
		}
		if c.Distinct {
			failUnsupported("%s(DISTINCT ...) is not supported in materialized views", c.Fn)
		}
		if wraps == nil {
			wraps = map[int]jsonAgg{}
		}
		wraps[i] = w
		out.Aggs[i] = AggCall{Fn: "string_agg", Args: []Expr{elem, &Const{V: types.DString(w.sep), T: types.TText}},
			Filter: c.Filter, OrderBy: c.OrderBy, T: types.TText}
		out.Out[len(a.GroupBy)+i].T = types.TText
	}
	return &out, wraps
}

// concatText is a || b over text.
func concatText(a, b Expr) Expr { return &Call{Fn: "||", Args: []Expr{a, b}, T: types.TText} }

// wrapJSONAggs projects the rewritten aggregation n back to the columns
// of the original (out): each string_agg of a json aggregate or
// array_agg wrapped and
// cast to its type (NULL over no rows, as the aggregate is).
func wrapJSONAggs(n StreamNode, nkeys int, wraps map[int]jsonAgg, out types.Schema) StreamNode {
	b := n.Base()
	exprs := columnsOf(b.Out, len(out))
	for i, w := range wraps {
		col := exprs[nkeys+i]
		text := concatText(concatText(&Const{V: types.DString(w.prefix), T: types.TText}, col),
			&Const{V: types.DString(w.suffix), T: types.TText})
		var e Expr = &Cast{Arg: text, T: types.TJson}
		switch {
		case w.t.ID == types.Jsonb:
			e = &Cast{Arg: e, T: types.TJsonb}
		case w.t.IsArray():
			e = &Cast{Arg: text, T: w.t}
		}
		exprs[nkeys+i] = e
	}
	return newProject(n, exprs, out)
}

// hashAgg builds exchange → StreamHashAgg grouping in by keys (distinct
// columns of in) computing aggs, whose output columns are named by
// aggOut.
func (sp *streamPlanner) hashAgg(in StreamNode, keys []int, aggs []AggCall, aggOut types.Schema) *StreamHashAgg {
	keys = dedupInts(keys)
	in = exchange(in, hashDist(keys), false)
	ib := in.Base()
	n := &StreamHashAgg{Input: in, GroupBy: keys, Aggs: aggs}
	var keyCols types.Schema
	for _, k := range keys {
		c := ib.Out[k]
		c.Hidden = false
		keyCols = append(keyCols, c)
	}
	n.Out = append(append(types.Schema(nil), keyCols...), aggOut...)
	n.StreamKey = seq(0, len(keys))
	n.Dist = keyedDist(ib.Dist, n.StreamKey)

	// Result: one row per group, keyed by the group keys: the encoded
	// state of each accumulator, then the group's row count.
	res := StateTableDesc{ID: sp.alloc(), Name: "agg_state", Cols: append(types.Schema(nil), keyCols...), KeyCols: seq(0, len(keys))}
	for _, c := range aggOut {
		res.Cols = append(res.Cols, types.Column{Name: c.Name, T: types.TBytea})
	}
	res.Cols = append(res.Cols, types.Column{Name: "_row_count", T: types.TInt8, NotNull: true})
	res.OrderDesc = make([]bool, len(keys))
	res.DistKeyCols = seq(0, len(keys))
	n.Result = res

	// DISTINCT aggregates over the same columns (differing in function
	// or FILTER) share one table of the values, with a count per
	// aggregate (RisingWave's dedup table): one entry and one lookup per
	// value and row instead of one per aggregate.
	shares := map[string]int{}
	if !sp.before5 {
		for _, c := range aggs {
			if k, ok := distinctShareKey(c); ok {
				shares[k]++
			}
		}
	}
	shared := map[string]StateTableDesc{}
	for i, c := range aggs {
		if !ib.AppendOnly && sp.growOnlyMax(in, keys, c) {
			if n.GrowOnly == nil {
				n.GrowOnly = make([]bool, len(aggs))
			}
			n.GrowOnly[i] = true
			continue
		}
		if !needsExtraState(c, ib.AppendOnly) {
			continue
		}
		k, ok := distinctShareKey(c)
		if !ok || shares[k] < 2 {
			n.Extra = append(n.Extra, sp.aggExtra(keyCols, c))
			n.ExtraFor = append(n.ExtraFor, i)
			continue
		}
		d, ok := shared[k]
		if !ok {
			d = sp.aggExtra(keyCols, c)
			for j := 1; j < shares[k]; j++ {
				d.Cols = append(d.Cols, types.Column{Name: fmt.Sprintf("_count%d", j), T: types.TInt8, NotNull: true})
			}
			shared[k] = d
		}
		n.Extra = append(n.Extra, d)
		n.ExtraFor = append(n.ExtraFor, i)
	}
	n.Watermarks = keyWatermarks(ib.Watermarks, keys)
	if sp.emitOnClose {
		sp.eowc(n)
	}
	if sp.ttlMs > 0 && !n.EOWC && len(keys) > 0 {
		sp.aggTTL(n, keyCols)
	}
	return n
}

// distinctShareKey returns the key under which a DISTINCT aggregate over
// input columns shares its table of values with the others over the
// same columns; ok is false for other aggregates.
func distinctShareKey(c AggCall) (string, bool) {
	if !c.Distinct || len(c.Args) == 0 {
		return "", false
	}
	var b strings.Builder
	for _, a := range c.Args {
		r, ok := a.(*ColRef)
		if !ok {
			return "", false
		}
		fmt.Fprintf(&b, "%d:%s,", r.Idx, r.T)
	}
	return b.String(), true
}

// aggExtra describes the input-value state of one aggregate: keyed by
// group keys, then the arguments (and for string_agg the ORDER BY values
// first, then the argument), with the number of input rows holding that
// key as the value, so duplicates are counted, not stored twice.
func (sp *streamPlanner) aggExtra(keyCols types.Schema, c AggCall) StateTableDesc {
	kind := "agg_distinct"
	switch {
	case c.Distinct:
	case c.Fn == "min" || c.Fn == "max":
		kind = "agg_minmax"
	default:
		kind = "agg_values"
	}
	d := StateTableDesc{ID: sp.alloc(), Name: kind, Cols: append(types.Schema(nil), keyCols...)}
	d.OrderDesc = make([]bool, len(keyCols))
	d.DistKeyCols = seq(0, len(keyCols))
	var vals []SortKey
	if !c.Distinct {
		vals = append(vals, c.OrderBy...)
	}
	for _, a := range c.Args {
		// max keeps its values in descending order, so the first entry
		// of a group is its result, as for min.
		vals = append(vals, SortKey{Expr: a, Desc: c.Fn == "max" && !c.Distinct})
	}
	for i, v := range vals {
		d.Cols = append(d.Cols, types.Column{Name: fmt.Sprintf("_arg%d", i), T: v.Expr.Type()})
		d.OrderDesc = append(d.OrderDesc, v.Desc)
	}
	d.KeyCols = seq(0, len(d.Cols))
	d.Cols = append(d.Cols, types.Column{Name: "_count", T: types.TInt8, NotNull: true})
	return d
}

// ---- joins ----

// lateralFunction rewrites an inner join of a relation with a function
// in FROM over its columns (FROM t, unnest(t.arr) [WITH ORDINALITY]) as
// the ProjectSet of a select-list call (SELECT t.*, unnest(t.arr) FROM
// t), which a view maintains row by row: each input row's change
// changes the rows the function gives for it. The join's condition
// filters the result. A left join ON true (without ordinality) is an
// outer ProjectSet, which keeps the rows the function gives none for.
func lateralFunction(j *Join) (Plan, bool) {
	right := j.Right
	var conds []Expr // over the function's columns, pushed down to it
	for {
		f, isFilter := right.(*Filter)
		if !isFilter {
			break
		}
		conds = append(conds, f.Cond)
		right = f.Input
	}
	tf, ok := right.(*TableFunc)
	outer := j.Kind == LeftJoin
	if !ok || j.Kind != InnerJoin && !outer {
		return nil, false
	}
	if outer && (len(conds) > 0 || tf.Ordinality || j.Cond != nil && !isTrueConst(j.Cond)) {
		failUnsupported("LEFT JOIN LATERAL of a function is supported in materialized views only ON true and without WITH ORDINALITY")
	}
	cols := len(tf.Out)
	if tf.Ordinality {
		cols--
	}
	if cols != 1 {
		return nil, false
	}
	args := make([]Expr, len(tf.Args))
	for i, a := range tf.Args {
		args[i] = mapExpr(a, func(x Expr) Expr {
			switch r := x.(type) {
			case *OuterRef:
				if r.Depth != 1 {
					ok = false
					return x
				}
				return &ColRef{Idx: r.Idx, T: r.T, Name: r.Name}
			case *ColRef:
				ok = false
			}
			return x
		})
	}
	if !ok {
		return nil, false
	}
	in := j.Left.Schema()
	ps := &ProjectSet{Input: j.Left, Calls: []TableFunc{{Fn: tf.Fn, Args: args, Out: tf.Out[:1]}}, Outer: outer}
	fc := tf.Out[0]
	if outer {
		fc.NotNull = false
	}
	ps.Out = append(append(append(types.Schema(nil), in...), fc), types.Column{Name: "ordinality", T: types.TInt8, Hidden: true})
	pr := &Project{Input: ps, Out: j.Out}
	for i := range j.Out {
		pr.Exprs = append(pr.Exprs, &ColRef{Idx: i, T: ps.Out[i].T, Name: ps.Out[i].Name})
	}
	var out Plan = pr
	nl := len(in)
	for _, c := range conds {
		out = &Filter{Input: out, Cond: shift(c, -nl)}
	}
	if j.Cond != nil && !outer {
		out = &Filter{Input: out, Cond: j.Cond}
	}
	return out, true
}

// isTrueConst reports whether e is the constant true.
func isTrueConst(e Expr) bool {
	c, ok := e.(*Const)
	return ok && c.T.ID == types.Bool && !c.V.Null && c.V.I != 0
}

func (sp *streamPlanner) join(j *Join) StreamNode {
	if j.Lateral {
		if p, ok := lateralFunction(j); ok {
			return sp.plan(p)
		}
		failUnsupported("LATERAL subqueries are not supported in materialized views yet")
	}
	if scan, filter, cols, ok := procTimeSide(j.Right); ok {
		return sp.lookupJoin(j, scan, filter, cols)
	}
	nl := len(j.Left.Schema())
	nr := len(j.Right.Schema())
	left := sp.plan(j.Left)
	right := sp.plan(j.Right)
	left, lk := withColumns(left, j.LeftKeys)
	right, rk := withColumns(right, j.RightKeys)
	// A full join pads rows of both sides with NULLs: when the stream
	// keys of both sides may be NULL (two aggregates grouped by a
	// nullable column), a left row padded on the right and a right row
	// padded on the left would have the same key. Each side carries a
	// constant true column into the stream key; padding makes it NULL,
	// which tells the two apart.
	var marks [2]int
	if j.Kind == FullJoin && !sp.noFullJoinMarks {
		var ix []int
		left, ix = withColumns(left, []Expr{&Const{V: types.DBool(true), T: types.TBool}})
		marks[0] = ix[0]
		left.Base().Out[marks[0]].Name = "_left_row"
		right, ix = withColumns(right, []Expr{&Const{V: types.DBool(true), T: types.TBool}})
		marks[1] = ix[0]
		right.Base().Out[marks[1]].Name = "_right_row"
	}
	lb, rb := left.Base(), right.Base()
	nlw := len(lb.Out)

	n := &StreamHashJoin{Kind: j.Kind, LeftKeys: lk, RightKeys: rk, NullAware: j.NullAware}
	if n.NullAware && (j.Kind != AntiJoin || len(lk) != 1 || j.Cond != nil) {
		fail(pgerr.New(pgerr.InternalError, "null-aware join: want an anti join with one key and no condition"))
	}
	if len(lk) == 0 || n.NullAware {
		// Without equality keys every row may match every other: one
		// actor holds both sides. A null-aware anti join's left rows
		// all depend on whether any right row has a NULL key.
		n.Left = exchange(left, Distribution{Kind: DistSingle}, true)
		n.Right = exchange(right, Distribution{Kind: DistSingle}, true)
	} else {
		n.Left = exchange(left, hashDist(lk), true)
		n.Right = exchange(right, hashDist(rk), true)
	}
	// The residual condition refers to the logical left ++ right row; the
	// physical left side may be wider.
	n.Cond = mapExpr(j.Cond, func(x Expr) Expr {
		if c, ok := x.(*ColRef); ok && c.Idx >= nl {
			return &ColRef{Idx: c.Idx - nl + nlw, T: c.T, Name: c.Name}
		}
		return x
	})

	semi := j.Kind == SemiJoin || j.Kind == AntiJoin
	n.Out = append(types.Schema(nil), lb.Out...)
	n.StreamKey = append([]int(nil), lb.StreamKey...)
	if !semi {
		// Columns of the side that an outer join pads with NULLs become
		// nullable.
		for i := range n.Out {
			if j.Kind == RightJoin || j.Kind == FullJoin {
				n.Out[i].NotNull = false
			}
		}
		for _, c := range rb.Out {
			if j.Kind == LeftJoin || j.Kind == FullJoin {
				c.NotNull = false
			}
			n.Out = append(n.Out, c)
		}
		for _, k := range rb.StreamKey {
			// In an inner join a right key column equal (by the join
			// condition) to a left stream key column adds nothing.
			if i := indexOf(rk, k); j.Kind == InnerJoin && i >= 0 && indexOf(lb.StreamKey, lk[i]) >= 0 {
				continue
			}
			n.StreamKey = append(n.StreamKey, nlw+k)
		}
	}
	// The join key joins the stream key: when a row's join key changes
	// (on either side) within an epoch, the retraction of its old
	// matches comes from the actor of the old key and the new matches
	// from the actor of the new key, and after a later exchange the two
	// travel on different channels in no particular order. With the join
	// key in the stream key they name different rows (a row padded with
	// NULLs has no key of the other side that would tell them apart), so
	// their order does not matter.
	switch j.Kind {
	case RightJoin:
		n.StreamKey = dedupInts(append(n.StreamKey, shiftInts(rk, nlw)...))
	case FullJoin:
		n.StreamKey = dedupInts(append(append(n.StreamKey, lk...), shiftInts(rk, nlw)...))
		if !sp.noFullJoinMarks {
			n.StreamKey = append(n.StreamKey, marks[0], nlw+marks[1])
		}
	default:
		n.StreamKey = dedupInts(append(n.StreamKey, lk...))
	}
	switch {
	case len(lk) == 0 || n.NullAware:
		n.Dist = Distribution{Kind: DistSingle}
	case j.Kind == RightJoin:
		n.Dist = Distribution{Kind: DistHash, Keys: shiftInts(rk, nlw)}
	case j.Kind == FullJoin:
		n.Dist = Distribution{Kind: DistAny}
	default:
		n.Dist = Distribution{Kind: DistHash, Keys: append([]int(nil), lk...)}
	}
	n.AppendOnly = (j.Kind == InnerJoin || j.Kind == SemiJoin) && lb.AppendOnly && rb.AppendOnly
	// The bounds of an interval join (stream_interval.go) decide which
	// output columns carry watermarks and how each side's state is
	// cleaned.
	n.Bounds = joinBounds(n, nlw, [2][]string{keyNames(j.LeftKeys), keyNames(j.RightKeys)})
	n.Watermarks = joinWatermarks(n, nlw)
	n.MaxPrune = sp.joinMaxPrune(n)

	// Each side's rows are kept by join key + stream key; the side whose
	// rows an outer, semi or anti join emits depending on whether they
	// match also counts its matches (the degree).
	leftDegree := j.Kind == LeftJoin || j.Kind == FullJoin || semi
	rightDegree := j.Kind == RightJoin || j.Kind == FullJoin
	n.LeftState = sp.joinState("join_left", lb, lk, leftDegree)
	n.RightState = sp.joinState("join_right", rb, rk, rightDegree)
	if n.NullAware {
		// One actor holds all the state.
		n.LeftState.DistKeyCols, n.RightState.DistKeyCols = nil, nil
		n.CountState = StateTableDesc{ID: sp.alloc(), Name: "join_right_count", Cols: types.Schema{
			{Name: "_rows", T: types.TInt8, NotNull: true}, {Name: "_nulls", T: types.TInt8, NotNull: true}}}
	}
	n.LeftClean = sp.joinClean("join_left_clean", n, 0, n.LeftState)
	n.RightClean = sp.joinClean("join_right_clean", n, 1, n.RightState)
	if sp.ttlMs > 0 {
		sp.joinTTL(n)
	}

	if semi || nlw == nl {
		return n
	}
	// Restore the logical layout (left's columns, then right's) for the
	// parents; the projection keeps the stream key columns.
	exprs := columnsOf(n.Out, nl)
	out := append(types.Schema(nil), n.Out[:nl]...)
	for i := 0; i < nr; i++ {
		c := n.Out[nlw+i]
		exprs = append(exprs, &ColRef{Idx: nlw + i, T: c.T, Name: c.Name})
		out = append(out, c)
	}
	return newProject(n, exprs, out)
}

// keyNames names join key expressions for EXPLAIN.
func keyNames(keys []Expr) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = FormatExpr(k)
	}
	return out
}

func (sp *streamPlanner) joinState(name string, side *StreamBase, keys []int, degree bool) StateTableDesc {
	d := StateTableDesc{ID: sp.alloc(), Name: name, Cols: append(types.Schema(nil), side.Out...)}
	d.KeyCols = dedupInts(append(append([]int(nil), keys...), side.StreamKey...))
	d.OrderDesc = make([]bool, len(d.KeyCols))
	d.DistKeyCols = append([]int(nil), keys...)
	if degree {
		d.Cols = append(d.Cols, types.Column{Name: "_degree", T: types.TInt8, NotNull: true})
	}
	return d
}

// ---- TopN ----

// constInt returns the value of a constant LIMIT/OFFSET expression (null
// reports whether it is NULL, which means "none").
func constInt(e Expr, what string) (v int64, null bool) {
	for {
		c, ok := e.(*Cast)
		if !ok {
			break
		}
		e = c.Arg
	}
	c, ok := e.(*Const)
	if !ok || c.T.Family() != types.FamInt {
		failUnsupported("%s must be a constant in materialized views", what)
	}
	if c.V.Null {
		return 0, true
	}
	return c.V.I, false
}

func (sp *streamPlanner) limit(l *Limit) StreamNode {
	var limit, offset int64
	var noLimit bool
	if l.Limit == nil {
		noLimit = true
	} else {
		limit, noLimit = constInt(l.Limit, "LIMIT")
	}
	if l.Offset != nil {
		offset, _ = constInt(l.Offset, "OFFSET")
	}
	if noLimit {
		if offset == 0 {
			return sp.plan(l.Input)
		}
		failUnsupported("OFFSET without LIMIT is not supported in materialized views")
	}
	var order []SortKey
	input := l.Input
	if s, ok := input.(*Sort); ok {
		order, input = s.Keys, s.Input
	}
	if l.Ties != nil && order == nil {
		failUnsupported("FETCH FIRST ... WITH TIES over DISTINCT ON is not supported in materialized views")
	}
	in := sp.plan(input)
	return sp.topN(in, nil, order, limit, offset, l.Ties != nil, "", len(input.Schema()))
}

// topN builds exchange → StreamTopN over in. order's expressions are over
// in's columns; without order, rows rank by their stream key so the
// choice of rows is deterministic. rankAt is where the rank column goes
// when rankFn is set (the Window's layout); the TopN's output otherwise
// equals its input.
func (sp *streamPlanner) topN(in StreamNode, groupBy []Expr, order []SortKey, limit, offset int64, withTies bool, rankFn string, rankAt int) StreamNode {
	if limit < 0 || offset < 0 {
		failUnsupported("negative LIMIT or OFFSET in a materialized view")
	}
	var oexprs []Expr
	for _, k := range order {
		oexprs = append(oexprs, k.Expr)
	}
	in, gcols := withColumns(in, groupBy)
	in, ocols := withColumns(in, oexprs)
	gcols = dedupInts(gcols)
	in = exchange(in, hashDist(gcols), false)
	b := in.Base()
	n := &StreamTopN{Input: in, GroupBy: gcols, Limit: limit, Offset: offset, WithTies: withTies, RankFn: rankFn, RankCol: -1}
	for i, k := range order {
		c := b.Out[ocols[i]]
		n.Order = append(n.Order, SortKey{Expr: &ColRef{Idx: ocols[i], T: c.T, Name: c.Name}, Desc: k.Desc, NullsFirst: k.NullsFirst})
	}
	if len(n.Order) == 0 {
		for _, k := range b.StreamKey {
			c := b.Out[k]
			n.Order = append(n.Order, SortKey{Expr: &ColRef{Idx: k, T: c.T, Name: c.Name}})
		}
	}
	n.Out = append(types.Schema(nil), b.Out...)
	// The stream key starts with the group keys: a row that changes group
	// leaves one actor as a delete and enters another as an insert, and
	// downstream of a later exchange the two travel on different channels
	// in no particular order; with the group in the key they name
	// different rows, so their order does not matter.
	n.StreamKey = dedupInts(append(append([]int(nil), gcols...), b.StreamKey...))
	n.Dist = keyedDist(b.Dist, gcols)
	n.Watermarks = keptWatermarks(b.Watermarks, gcols)

	// State: the input rows of each group in rank order, keyed by group
	// keys, order keys, then the stream key (ties stay distinct rows).
	st := StateTableDesc{ID: sp.alloc(), Name: "topn", Cols: append(types.Schema(nil), b.Out...)}
	for _, g := range gcols {
		st.KeyCols = append(st.KeyCols, g)
		st.OrderDesc = append(st.OrderDesc, false)
	}
	for _, k := range n.Order {
		idx := k.Expr.(*ColRef).Idx
		if indexOf(st.KeyCols, idx) < 0 {
			st.KeyCols = append(st.KeyCols, idx)
			st.OrderDesc = append(st.OrderDesc, k.Desc)
		}
	}
	for _, k := range b.StreamKey {
		if indexOf(st.KeyCols, k) < 0 {
			st.KeyCols = append(st.KeyCols, k)
			st.OrderDesc = append(st.OrderDesc, false)
		}
	}
	st.DistKeyCols = append([]int(nil), gcols...)
	n.State = st

	if rankFn == "" {
		return n
	}
	// The rank becomes an output column; when the input gained computed
	// group or order columns, a projection puts the rank where the
	// Window had it (right after the Window's input columns).
	n.RankCol = len(n.Out)
	n.Out = append(n.Out, types.Column{Name: rankFn, T: types.TInt8, NotNull: true})
	if n.RankCol == rankAt {
		return n
	}
	exprs := columnsOf(n.Out, rankAt)
	exprs = append(exprs, &ColRef{Idx: n.RankCol, T: types.TInt8, Name: rankFn})
	out := append(append(types.Schema(nil), n.Out[:rankAt]...), n.Out[n.RankCol])
	return newProject(n, exprs, out)
}

// rankTopN recognises a filter on a ranking window function, the group
// TopN pattern:
//
//	Filter [rn <= N AND rest]
//	└─Project [..., row_number() OVER (PARTITION BY p ORDER BY o) AS rn, ...]  (optional)
//	  └─Window [row_number() OVER (PARTITION BY p ORDER BY o)]
//
// and converts it into a StreamTopN grouped by p, ordered by o, keeping N
// rows (ties included for rank and dense_rank), with the other conjuncts
// as a filter above. It returns nil when f is not of that shape (the
// window then becomes a StreamOverWindow under the filter).
//
// In an EMIT ON WINDOW CLOSE view, a window ordered by a column with a
// watermark over an append-only input becomes an EOWC over window under
// the filter instead: a TopN retracts, and such a view must not.
func (sp *streamPlanner) rankTopN(f *Filter) StreamNode {
	var proj *Project
	var win *Window
	switch in := f.Input.(type) {
	case *Window:
		win = in
	case *Project:
		w, ok := in.Input.(*Window)
		if !ok {
			return nil
		}
		proj, win = in, w
	default:
		return nil
	}
	if len(win.Calls) != 1 {
		return nil
	}
	call := win.Calls[0]
	switch call.Fn {
	case "row_number", "rank", "dense_rank":
	default:
		return nil
	}
	nIn := len(win.Input.Schema())
	// isRank reports whether column i of the filter's input is the rank.
	isRank := func(e Expr) bool {
		c, ok := e.(*ColRef)
		if !ok {
			return false
		}
		if proj == nil {
			return c.Idx == nIn
		}
		pc, ok := proj.Exprs[c.Idx].(*ColRef)
		return ok && pc.Idx == nIn
	}
	limit := int64(-1)
	var rest []Expr
	for _, c := range conjuncts(f.Cond) {
		if n, ok := rankBound(c, isRank); ok && (limit < 0 || n < limit) {
			limit = n
			continue
		}
		rest = append(rest, c)
	}
	if limit < 0 {
		return nil
	}
	in := sp.plan(win.Input)
	if sp.emitOnClose && eowcOrdered(in, call) {
		var node StreamNode = sp.windowOver(win, in)
		if proj != nil {
			node = newProject(node, proj.Exprs, proj.Out)
		}
		return newFilter(node, f.Cond)
	}
	var groupBy []Expr
	groupBy = append(groupBy, call.PartitionBy...)
	var node StreamNode = sp.topN(in, groupBy, call.OrderBy, limit, 0, call.Fn != "row_number", call.Fn, nIn)
	if proj != nil {
		node = newProject(node, proj.Exprs, proj.Out)
	}
	if len(rest) > 0 {
		node = newFilter(node, conjoin(rest))
	}
	return node
}

// rankBound recognises `rank <= N`, `rank < N`, `rank = 1` (and their
// mirrored forms) and returns the number of ranks kept.
func rankBound(e Expr, isRank func(Expr) bool) (int64, bool) {
	c, ok := e.(*Call)
	if !ok || len(c.Args) != 2 {
		return 0, false
	}
	op, a, b := c.Fn, c.Args[0], c.Args[1]
	if !isRank(a) {
		mirror := map[string]string{">=": "<=", ">": "<", "=": "="}
		m, ok := mirror[op]
		if !ok || !isRank(b) {
			return 0, false
		}
		op, a, b = m, b, a
	}
	k, ok := b.(*Const)
	if !ok || k.V.Null || k.T.Family() != types.FamInt {
		return 0, false
	}
	switch op {
	case "<=":
		return max(k.V.I, 0), true
	case "<":
		return max(k.V.I-1, 0), true
	case "=":
		if k.V.I == 1 {
			return 1, true
		}
	}
	return 0, false
}

// ---- DISTINCT and set operations ----

func (sp *streamPlanner) distinct(d *Distinct) StreamNode {
	n := len(d.Input.Schema())
	if len(d.On) == 0 {
		in := sp.plan(d.Input)
		return sp.hashAgg(in, seq(0, n), nil, nil)
	}
	// DISTINCT ON keeps the first row of each group in the ORDER BY's
	// order (the binder sorts the input): a TopN of one row per group.
	var order []SortKey
	input := d.Input
	if s, ok := input.(*Sort); ok {
		order, input = s.Keys, s.Input
	}
	in := sp.plan(input)
	return sp.topN(in, d.On, order, 1, 0, false, "", n)
}

func (sp *streamPlanner) setOp(s *SetOp) StreamNode {
	n := len(s.Out)
	if s.Kind == Union {
		u := sp.union([]Plan{s.Left, s.Right}, s.Out, false)
		if s.All {
			return u
		}
		return sp.hashAgg(u, seq(0, n), nil, nil)
	}
	// INTERSECT and EXCEPT count, per distinct row, how many rows each
	// side has (a union whose rows carry a non-NULL marker in their
	// side's column), then keep the rows whose counts qualify; with ALL,
	// a StreamReplicate emits each row as many times as it qualifies.
	u := sp.union([]Plan{s.Left, s.Right}, s.Out, true)
	ub := u.Base()
	mark := func(i int) Expr { return &ColRef{Idx: n + i, T: types.TBool, Name: ub.Out[n+i].Name} }
	aggs := []AggCall{{Fn: "count", Args: []Expr{mark(0)}, T: types.TInt8}, {Fn: "count", Args: []Expr{mark(1)}, T: types.TInt8}}
	aggOut := types.Schema{{Name: "_left_count", T: types.TInt8, NotNull: true, Hidden: true}, {Name: "_right_count", T: types.TInt8, NotNull: true, Hidden: true}}
	agg := sp.hashAgg(u, seq(0, n), aggs, aggOut)
	count := func(i int) Expr { return &ColRef{Idx: n + i, T: types.TInt8, Name: aggOut[i].Name} }
	zero := &Const{V: types.DInt(0), T: types.TInt8}
	if s.All {
		return sp.setOpAll(s, agg, count(0), count(1), zero)
	}
	cond := []Expr{&Call{Fn: ">", Args: []Expr{count(0), zero}, T: types.TBool}}
	if s.Kind == Intersect {
		cond = append(cond, &Call{Fn: ">", Args: []Expr{count(1), zero}, T: types.TBool})
	} else {
		cond = append(cond, &Call{Fn: "=", Args: []Expr{count(1), zero}, T: types.TBool})
	}
	f := newFilter(agg, conjoin(cond))
	return newProject(f, columnsOf(f.Out, n), s.Out)
}

// setOpAll keeps INTERSECT ALL's min(l, r) or EXCEPT ALL's max(l - r, 0)
// copies of each row of agg (its first len(s.Out) columns, the rows
// grouped, with l and r the rows' counts on the left and the right): a
// projection computes that multiplicity and a StreamReplicate emits the
// copies, numbered, so that the copy number completes the stream key and
// a change of the counts adds or retracts only the copies above the
// smaller multiplicity.
func (sp *streamPlanner) setOpAll(s *SetOp, agg StreamNode, l, r, zero Expr) StreamNode {
	n := len(s.Out)
	var mult Expr
	if s.Kind == Intersect {
		mult = &Call{Fn: "least", Args: []Expr{l, r}, T: types.TInt8}
	} else {
		diff := &Call{Fn: "-", Args: []Expr{l, r}, T: types.TInt8}
		mult = &Call{Fn: "greatest", Args: []Expr{diff, zero}, T: types.TInt8}
	}
	ab := agg.Base()
	exprs := append(columnsOf(ab.Out, n), mult)
	out := append(append(types.Schema(nil), ab.Out[:n]...), types.Column{Name: "_multiplicity", T: types.TInt8, NotNull: true, Hidden: true})
	p := newProject(agg, exprs, out)
	rep := newReplicate(p, n)
	return newProject(rep, columnsOf(rep.Out, n), s.Out)
}

// newReplicate returns the StreamReplicate of in whose multiplicity is
// column count (bigint): in's other columns, then the copy number.
func newReplicate(in StreamNode, count int) *StreamReplicate {
	b := in.Base()
	n := &StreamReplicate{Input: in, Count: count}
	n.Out = append(append(types.Schema(nil), b.Out[:count]...), b.Out[count+1:]...)
	n.Out = append(n.Out, types.Column{Name: "_copy", T: types.TInt8, NotNull: true, Hidden: true})
	shift := func(c int) int {
		if c > count {
			return c - 1
		}
		return c
	}
	for _, k := range b.StreamKey {
		if k == count {
			fail(pgerr.New(pgerr.InternalError, "replicate: the multiplicity is a stream key column"))
		}
		n.StreamKey = append(n.StreamKey, shift(k))
	}
	n.StreamKey = append(n.StreamKey, len(n.Out)-1)
	n.AppendOnly = b.AppendOnly
	n.Dist = b.Dist
	if len(b.Dist.Keys) > 0 {
		n.Dist.Keys = nil
		for _, k := range b.Dist.Keys {
			n.Dist.Keys = append(n.Dist.Keys, shift(k))
		}
	}
	for _, w := range b.Watermarks {
		if w != count {
			n.Watermarks = append(n.Watermarks, shift(w))
		}
	}
	return n
}

// union converts inputs into a StreamUnion whose rows have the columns
// out, then (with marks) one boolean column per input that is true for
// that input's rows and NULL for the others, then per input its hidden
// stream key columns (NULL for other inputs' rows), then the number of
// the input the row came from. The stream key is the inputs' key columns
// plus that number: rows of different inputs never share a key.
func (sp *streamPlanner) union(inputs []Plan, out types.Schema, marks bool) StreamNode {
	n := len(out)
	nodes := make([]StreamNode, len(inputs))
	var visibleKeys []int
	type slot struct {
		in, col int
	}
	var slots []slot
	for i, p := range inputs {
		nodes[i] = sp.plan(p)
		b := nodes[i].Base()
		for _, k := range b.StreamKey {
			// A visible key column passes through unchanged unless the
			// union casts it; a cast one is kept in a slot of its own.
			if k < n && b.Out[k].T == out[k].T {
				if indexOf(visibleKeys, k) < 0 {
					visibleKeys = append(visibleKeys, k)
				}
				continue
			}
			slots = append(slots, slot{i, k})
		}
	}
	u := &StreamUnion{}
	u.Out = append(types.Schema(nil), out...)
	nmarks := 0
	if marks {
		nmarks = len(inputs)
		for i := range inputs {
			u.Out = append(u.Out, types.Column{Name: fmt.Sprintf("_in%d", i), T: types.TBool, Hidden: true})
		}
	}
	for _, s := range slots {
		c := nodes[s.in].Base().Out[s.col]
		u.Out = append(u.Out, types.Column{Name: c.Name, T: c.T, Hidden: true})
	}
	u.Out = append(u.Out, types.Column{Name: "_union_input", T: types.TInt4, NotNull: true, Hidden: true})
	u.AppendOnly = true
	for i, node := range nodes {
		b := node.Base()
		var exprs []Expr
		for j := 0; j < n; j++ {
			var e Expr = &ColRef{Idx: j, T: b.Out[j].T, Name: b.Out[j].Name}
			if b.Out[j].T != out[j].T {
				e = &Cast{Arg: e, T: out[j].T}
			}
			exprs = append(exprs, e)
		}
		for m := 0; m < nmarks; m++ {
			if m == i {
				exprs = append(exprs, &Const{V: types.DBool(true), T: types.TBool})
			} else {
				exprs = append(exprs, &Const{V: types.Datum{Null: true}, T: types.TBool})
			}
		}
		for _, s := range slots {
			if s.in == i {
				exprs = append(exprs, &ColRef{Idx: s.col, T: b.Out[s.col].T, Name: b.Out[s.col].Name})
			} else {
				exprs = append(exprs, &Const{V: types.Datum{Null: true}, T: nodes[s.in].Base().Out[s.col].T})
			}
		}
		exprs = append(exprs, &Const{V: types.DInt(int64(i)), T: types.TInt4})
		// The projection passes every key column through, so it adds no
		// hidden columns of its own.
		nodes[i] = newProject(node, exprs, u.Out)
		u.AppendOnly = u.AppendOnly && b.AppendOnly
	}
	u.Inputs = nodes
	u.Watermarks = unionWatermarks(nodes)
	u.StreamKey = append(visibleKeys, seq(n+nmarks, len(u.Out))...)
	u.Dist = Distribution{Kind: DistAny}
	return u
}

// ---- subqueries ----

func hasSubquery(e Expr) bool {
	found := false
	WalkExpr(e, func(x Expr) {
		if _, ok := x.(*Subquery); ok {
			found = true
		}
	})
	return found
}

// unnestFilter turns the subqueries of a filter into joins: EXISTS and
// `x op ANY (subquery)` conjuncts into semi joins, NOT EXISTS into anti
// joins, `x NOT IN (subquery)` into a null-aware anti join, the other
// quantified comparisons into semi or anti joins on the comparison's
// truth (see quantified), and uncorrelated scalar subqueries returning
// one row into cross joins (see liftScalars). Anything else is 0A000.
func (sp *streamPlanner) unnestFilter(f *Filter) Plan {
	input := f.Input
	nIn := len(input.Schema())
	var rest []Expr
	for _, c := range conjuncts(f.Cond) {
		var sub *Subquery
		kind := SemiJoin
		negated := false
		switch x := c.(type) {
		case *Subquery:
			sub = x
		case *Not:
			if s, ok := x.Arg.(*Subquery); ok {
				sub, negated = s, true
				if s.Kind == SubExists {
					kind = AntiJoin
				}
			}
		}
		if sub == nil {
			rest = append(rest, c)
			continue
		}
		simpleNotIn := sub.Row == nil && !sub.Correlated && !refersOuter(sub.Plan)
		switch {
		case sub.Kind == SubExists:
			input = sp.semiJoin(input, sub, kind, nil)
		case negated && sub.Kind == SubAny && sub.Op == "=" && simpleNotIn,
			!negated && sub.Kind == SubAll && sub.Op == "<>" && simpleNotIn:
			// NOT (x IN (subquery)) is x NOT IN (subquery).
			input = sp.notIn(input, sub)
		case sub.Kind == SubAny || sub.Kind == SubAll:
			input = sp.quantified(input, sub, negated)
		default:
			rest = append(rest, c)
		}
	}
	if len(rest) == 0 {
		return input
	}
	input, lifted := sp.liftScalars(input, rest)
	var out Plan = &Filter{Input: input, Cond: conjoin(lifted)}
	if len(input.Schema()) != nIn {
		s := input.Schema()
		out = &Project{Input: out, Exprs: columnsOf(s, nIn), Out: append(types.Schema(nil), s[:nIn]...)}
	}
	return out
}

// quantified joins left with the subquery of a conjunct `[NOT] x op
// ANY|ALL (subquery)` (x a row too). A WHERE keeps a row when the
// conjunct is true, so with cmp the comparison of x with one row of the
// subquery:
//
//	x op ANY (s)          some row has cmp true       semi join on cmp
//	x op ALL (s)          no row has cmp false|NULL   anti join on cmp IS NOT TRUE
//	NOT (x op ANY (s))    no row has cmp true|NULL    anti join on cmp IS NOT FALSE
//	NOT (x op ALL (s))    some row has cmp false      semi join on cmp IS FALSE
//
// An empty subquery keeps every row for the anti joins and none for the
// semi joins, as ALL over no rows is true and ANY false, whatever x.
func (sp *streamPlanner) quantified(left Plan, sub *Subquery, negated bool) Plan {
	all := sub.Kind == SubAll
	switch {
	case !all && !negated:
		return sp.semiJoin(left, sub, SemiJoin, nil)
	case all && !negated:
		return sp.semiJoin(left, sub, AntiJoin, func(cmp Expr) Expr { return &IsBool{Arg: cmp, Want: "true", Not: true} })
	case !all && negated:
		return sp.semiJoin(left, sub, AntiJoin, func(cmp Expr) Expr { return &IsBool{Arg: cmp, Want: "false", Not: true} })
	}
	return sp.semiJoin(left, sub, SemiJoin, func(cmp Expr) Expr { return &IsBool{Arg: cmp, Want: "false"} })
}

func (sp *streamPlanner) unnestProject(p *Project) Plan {
	input, exprs := sp.liftScalars(p.Input, p.Exprs)
	return &Project{Input: input, Exprs: exprs, Out: p.Out}
}

// semiJoin joins left with the subquery of an EXISTS or a quantified
// comparison. The subquery's plan must be `[Project] [Filter] rest`,
// where only the Project and Filter refer to the outer query (one level
// up): the Filter's condition (and for a quantified comparison, `arg op
// column`, or wrap of it when wrap is not nil) becomes the join
// condition, with outer references turned into left columns.
func (sp *streamPlanner) semiJoin(left Plan, sub *Subquery, kind JoinKind, wrap func(Expr) Expr) Plan {
	nl := len(left.Schema())
	p := sub.Plan
	var proj *Project
	if x, ok := p.(*Project); ok {
		proj, p = x, x.Input
	}
	var cond []Expr
	if x, ok := p.(*Filter); ok {
		cond, p = conjuncts(x.Cond), x.Input
	}
	if refersOuter(p) {
		failUnsupported("this correlated subquery is not supported in materialized views yet")
	}
	remap := func(e Expr) Expr {
		return mapExpr(e, func(x Expr) Expr {
			switch c := x.(type) {
			case *ColRef:
				return &ColRef{Idx: c.Idx + nl, T: c.T, Name: c.Name}
			case *OuterRef:
				if c.Depth != 1 {
					failUnsupported("subqueries referring more than one level out are not supported in materialized views yet")
				}
				return &ColRef{Idx: c.Idx, T: c.T, Name: c.Name}
			case *Subquery:
				failUnsupported("nested subqueries are not supported in materialized views yet")
			}
			return x
		})
	}
	var on []Expr
	for _, c := range cond {
		on = append(on, remap(c))
	}
	if sub.Kind == SubAny || sub.Kind == SubAll {
		col := func(i int) Expr {
			if proj != nil {
				return remap(proj.Exprs[i])
			}
			return remap(&ColRef{Idx: i, T: p.Schema()[i].T, Name: p.Schema()[i].Name})
		}
		var cmp Expr
		if sub.Row != nil {
			cols := make([]Expr, len(sub.Row))
			for i := range cols {
				cols[i] = col(i)
			}
			cmp = rowComparison(sub.Op, sub.Row, cols)
		} else {
			cmp = &Call{Fn: sub.Op, Args: []Expr{sub.Arg, col(0)}, T: types.TBool}
		}
		if wrap != nil {
			cmp = wrap(cmp)
		}
		if hasSubquery(cmp) {
			failUnsupported("nested subqueries are not supported in materialized views yet")
		}
		on = append(on, conjuncts(cmp)...)
	}
	j := &Join{Kind: kind, Left: left, Right: p, Out: left.Schema()}
	splitJoinCond(j, conjoin(on))
	return j
}

// notIn joins left with the subquery of an `x NOT IN (subquery)` (or
// `x <> ALL (subquery)`) conjunct: a null-aware anti join on x = the
// subquery's column (Join.NullAware), which keeps PostgreSQL's answer
// when x or a row of the subquery is NULL.
func (sp *streamPlanner) notIn(left Plan, sub *Subquery) Plan {
	if sub.Correlated || refersOuter(sub.Plan) {
		failUnsupported("correlated NOT IN subqueries are not supported in materialized views yet")
	}
	nl := len(left.Schema())
	c := sub.Plan.Schema()[0]
	var arg, col Expr = sub.Arg, &ColRef{Idx: nl, T: c.T, Name: c.Name}
	if at, ct := arg.Type(), col.Type(); at != ct && at.Family() == ct.Family() {
		// A cross-type comparison (int4 with int8, float4 with float8)
		// compares the values widened: the join key is the wide type.
		var wide types.T
		switch at.Family() {
		case types.FamInt:
			wide = types.TInt8
		case types.FamFloat:
			wide = types.TFloat8
		}
		if wide.ID != 0 {
			if at != wide {
				arg = &Cast{Arg: arg, T: wide}
			}
			if ct != wide {
				col = &Cast{Arg: col, T: wide}
			}
		}
	}
	eq := &Call{Fn: "=", Args: []Expr{arg, col}, T: types.TBool}
	l, r, ok := equiKey(eq, nl)
	if !ok || hasSubquery(l) {
		failUnsupported("NOT IN over this expression is not supported in materialized views yet")
	}
	return &Join{Kind: AntiJoin, NullAware: true, Left: left, Right: sub.Plan, Out: left.Schema(),
		LeftKeys: []Expr{l}, RightKeys: []Expr{r}}
}

// splitJoinCond sets j's equi-join keys and residual condition from cond
// (over left ++ right), for semi and anti joins. Conditions on the right
// side alone filter it (a right row that fails them matches nothing).
func splitJoinCond(j *Join, cond Expr) {
	nl := len(j.Left.Schema())
	var rest, right []Expr
	for _, c := range conjuncts(cond) {
		switch side(c, nl) {
		case 'r':
			right = append(right, shift(c, nl))
			continue
		case 'b':
			if l, r, ok := equiKey(c, nl); ok {
				j.LeftKeys = append(j.LeftKeys, l)
				j.RightKeys = append(j.RightKeys, r)
				continue
			}
		}
		rest = append(rest, c)
	}
	if len(right) > 0 {
		j.Right = &Filter{Input: j.Right, Cond: conjoin(right)}
	}
	j.Cond = conjoin(rest)
}

// refersOuter reports whether p or its subqueries read an enclosing
// query's row.
func refersOuter(p Plan) bool {
	// Conservative: an outer reference inside a nested subquery may point
	// into p itself, but such plans are rejected anyway.
	found := false
	WalkPlanExprs(p, func(x Expr) {
		if _, ok := x.(*OuterRef); ok {
			found = true
		}
	})
	return found
}

// liftScalars replaces the uncorrelated scalar subqueries of es by
// columns of a cross join of input with each subquery. Only subqueries
// that always return exactly one row qualify (an aggregate without GROUP
// BY), so the join neither drops nor duplicates input rows.
func (sp *streamPlanner) liftScalars(input Plan, es []Expr) (Plan, []Expr) {
	out := make([]Expr, len(es))
	for i, e := range es {
		out[i] = mapExpr(e, func(x Expr) Expr {
			s, ok := x.(*Subquery)
			if !ok {
				return x
			}
			if s.Kind != SubScalar {
				what := [...]string{"scalar", "EXISTS", "ANY/IN", "ALL/NOT IN", "ARRAY", "row comparison"}[s.Kind]
				failUnsupported("%s subqueries are not supported in this position in materialized views yet", what)
			}
			if s.Correlated || refersOuter(s.Plan) {
				failUnsupported("correlated scalar subqueries are not supported in materialized views yet")
			}
			if !singleRow(s.Plan) {
				failUnsupported("scalar subqueries that may return more than one row are not supported in materialized views yet")
			}
			nl := len(input.Schema())
			sub := s.Plan.Schema()
			ls := input.Schema()
			input = &Join{Kind: InnerJoin, Left: input, Right: s.Plan, Out: append(append(types.Schema(nil), ls...), sub...)}
			return &ColRef{Idx: nl, T: sub[0].T, Name: sub[0].Name}
		})
	}
	return input, out
}

// singleRow reports whether p always yields exactly one row.
func singleRow(p Plan) bool {
	switch n := p.(type) {
	case *Project:
		return singleRow(n.Input)
	case *Agg:
		return len(n.GroupBy) == 0
	case *Values:
		return len(n.Rows) == 1
	}
	return false
}

// ---- the root ----

// materialize puts the StreamMaterialize on top of n, whose first
// len(out) columns are the view's; it fills in mv's columns and primary
// key.
func (sp *streamPlanner) materialize(n StreamNode, out types.Schema, mv *catalog.Relation) *StreamMaterialize {
	b := n.Base()
	seen := map[string]bool{}
	var cols []int
	for i, c := range out {
		if c.Hidden {
			continue
		}
		if seen[c.Name] {
			fail(pgerr.New(pgerr.DuplicateColumn, "column \"%s\" specified more than once", c.Name))
		}
		seen[c.Name] = true
		cols = append(cols, i)
	}
	for _, k := range b.StreamKey {
		if indexOf(cols, k) < 0 {
			cols = append(cols, k)
		}
	}
	// The view is stored by its primary key, so all changes of a key must
	// reach the same actor. An index is distributed by its index columns
	// instead, so that its primary key starts with them (below) and a
	// range of index values is a range of keys; a row whose index values
	// change moves between actors as a delete and an insert of two keys.
	if k := mv.IndexKeys(); k > 0 {
		keys := make([]int, k)
		for i := range keys {
			keys[i] = cols[i]
		}
		n = exchange(n, hashDist(keys), true)
	} else {
		n = exchange(n, hashDist(b.StreamKey), false)
	}
	b = n.Base()

	m := &StreamMaterialize{Input: n, Rel: mv, Cols: cols}
	mv.Cols = nil
	for _, i := range cols {
		c := b.Out[i]
		hidden := i >= len(out) || out[i].Hidden
		name := c.Name
		if hidden {
			if strings.HasPrefix(name, "?") {
				// A binder-made name such as ?order1?: the column is kept
				// only as part of the key.
				name = "_key"
			}
			name = uniqueName(name, seen)
		}
		seen[name] = true
		mv.Cols = append(mv.Cols, catalog.Column{Name: name, T: c.T, NotNull: c.NotNull && hidden, Hidden: hidden})
		m.Out = append(m.Out, types.Column{Name: name, T: c.T, NotNull: c.NotNull, Hidden: hidden})
	}
	// The primary key starts with the distribution key, so the view's
	// storage is partitioned by a key prefix, as state tables are.
	pk := append([]int(nil), b.StreamKey...)
	if k := mv.IndexKeys(); k > 0 {
		pk = dedupInts(append(append([]int(nil), cols[:k]...), b.StreamKey...))
	} else if b.Dist.Kind == DistHash {
		pk = dedupInts(append(append([]int(nil), b.Dist.Keys...), b.StreamKey...))
	}
	mv.PK = nil
	for _, k := range pk {
		mv.PK = append(mv.PK, indexOf(cols, k))
	}
	m.StreamKey = append([]int(nil), mv.PK...)
	m.AppendOnly = b.AppendOnly
	m.Dist = mapDist(b.Dist, inverse(cols))
	m.Watermarks = mappedWatermarks(b.Watermarks, cols)
	m.State = StateTableDesc{ID: mv.ID, Name: "materialize", Cols: append(types.Schema(nil), m.Out...), KeyCols: append([]int(nil), mv.PK...)}
	m.State.OrderDesc = make([]bool, len(mv.PK))
	if m.Dist.Kind == DistHash {
		m.State.DistKeyCols = append([]int(nil), mv.PK[:len(m.Dist.Keys)]...)
	}
	return m
}

// uniqueName returns name, or name#2, name#3, ... when taken.
func uniqueName(name string, taken map[string]bool) string {
	if !taken[name] {
		return name
	}
	for i := 2; ; i++ {
		if s := fmt.Sprintf("%s#%d", name, i); !taken[s] {
			return s
		}
	}
}

// ---- small helpers ----

func indexOf(xs []int, x int) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func dedupInts(xs []int) []int {
	var out []int
	for _, x := range xs {
		if indexOf(out, x) < 0 {
			out = append(out, x)
		}
	}
	return out
}

func seq(from, to int) []int {
	out := make([]int, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

func shiftInts(xs []int, d int) []int {
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = x + d
	}
	return out
}

// inverse maps each value of xs to its position.
func inverse(xs []int) map[int]int {
	m := make(map[int]int, len(xs))
	for i, x := range xs {
		if _, ok := m[x]; !ok {
			m[x] = i
		}
	}
	return m
}
