package planner

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/weirdb/weir/types"
)

// ExplainStream prints a stream plan for EXPLAIN CREATE MATERIALIZED VIEW:
// the operator tree, one node per line in RisingWave's form, then the
// state tables the operators keep.
//
//	StreamMaterialize { columns: [b, count], pk: [b], state: [materialize#100] }
//	└─StreamProject { exprs: [t.b, count(*) AS count] }
//	  └─StreamHashAgg { group_key: [b], aggs: [count(*)], state: [agg_state#1001], stream_key: [b] }
//	    └─StreamExchange { dist: HashShard(b) }
//	      └─StreamTableScan { table: t, columns: [a, b, c, d, e], stream_key: [a], dist: HashShard(a) }
//	State tables:
//	  materialize#100 { columns: [b, count], key: [b], dist_key: [b] }
//	  agg_state#1001 { columns: [b, count(*), _row_count], key: [b], dist_key: [b] }
//
// Every node shows its stream key (the columns identifying its rows) and
// its distribution when they differ from its first input's (an
// exchange's distribution always), "append_only" when it never
// retracts, and the columns it emits watermarks on. A join whose state
// is cleaned by watermarks shows, per side, the rows it drops:
// clean_right: [p.ts < watermark(o.ts)] drops the right side's rows
// whose ts is below the left side's watermark on o.ts. A sink shows
// compact_by_key when it compacts each epoch's changes by its key
// (StreamSink.Compact).
// Columns are named by the node's output names, suffixed #i when a name
// is not unique.
func ExplainStream(n StreamNode) string {
	var sb strings.Builder
	var tables []StateTableDesc
	explainStreamNode(&sb, n, "", "", &tables, map[int]bool{})
	if len(tables) > 0 {
		sb.WriteString("State tables:\n")
		for _, t := range tables {
			sb.WriteString("  " + describeStateTable(t) + "\n")
		}
	}
	return sb.String()
}

func explainStreamNode(sb *strings.Builder, n StreamNode, first, rest string, tables *[]StateTableDesc, shown map[int]bool) {
	sb.WriteString(first)
	sb.WriteString(describeStreamNode(n, tables))
	sb.WriteString("\n")
	ins := explainInputs(n, shown)
	for i, in := range ins {
		if i == len(ins)-1 {
			explainStreamNode(sb, in, rest+"└─", rest+"  ", tables, shown)
		} else {
			explainStreamNode(sb, in, rest+"├─", rest+"│ ", tables, shown)
		}
	}
}

// explainInputs returns the inputs shown under n: a shared subplan
// (StreamShare) is shown, with its state tables, under the first
// StreamShare of its id only, whose id shown records.
func explainInputs(n StreamNode, shown map[int]bool) []StreamNode {
	if s, ok := n.(*StreamShare); ok {
		if shown[s.ID] {
			return nil
		}
		shown[s.ID] = true
	}
	return n.StreamInputs()
}

// colNames names columns idx of s.
func colNames(s types.Schema, idx []int) string {
	parts := make([]string, len(idx))
	for i, k := range idx {
		parts[i] = colName(s, k)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func colName(s types.Schema, k int) string {
	if k < 0 || k >= len(s) {
		return "#" + strconv.Itoa(k)
	}
	name := s[k].Name
	for j, c := range s {
		if j != k && c.Name == name {
			return name + "#" + strconv.Itoa(k)
		}
	}
	return name
}

func describeDist(s types.Schema, d Distribution) string {
	switch d.Kind {
	case DistSingle:
		return "Single"
	case DistHash:
		var parts []string
		for _, k := range d.Keys {
			parts = append(parts, colName(s, k))
		}
		return "HashShard(" + strings.Join(parts, ", ") + ")"
	case DistBroadcast:
		return "Broadcast"
	}
	return "Any"
}

func describeStreamNode(n StreamNode, tables *[]StateTableDesc) string {
	f := &exprFormatter{}
	b := n.Base()
	var props []string
	add := func(format string, args ...any) { props = append(props, fmt.Sprintf(format, args...)) }
	state := func(ds ...StateTableDesc) {
		var names []string
		seen := map[uint32]bool{}
		for _, d := range ds {
			// DISTINCT aggregates over the same arguments share a table.
			if d.ID != 0 && seen[d.ID] {
				continue
			}
			seen[d.ID] = true
			names = append(names, fmt.Sprintf("%s#%d", d.Name, d.ID))
			*tables = append(*tables, d)
		}
		add("state: [%s]", strings.Join(names, ", "))
	}
	var name string
	switch x := n.(type) {
	case *StreamMaterialize:
		name = "StreamMaterialize"
		var cols []string
		for _, c := range b.Out {
			if c.Hidden {
				cols = append(cols, c.Name+" (hidden)")
			} else {
				cols = append(cols, c.Name)
			}
		}
		add("columns: [%s]", strings.Join(cols, ", "))
		add("pk: %s", colNames(b.Out, b.StreamKey))
	case *StreamTableScan:
		name = "StreamTableScan"
		add("table: %s", x.Rel.Name)
		var cols []string
		for _, c := range b.Out {
			cols = append(cols, c.Name)
		}
		add("columns: [%s]", strings.Join(cols, ", "))
	case *StreamSource:
		name = "StreamSource"
		add("source: %s", x.Rel.Name)
		var cols []string
		for _, c := range b.Out {
			cols = append(cols, c.Name)
		}
		add("columns: [%s]", strings.Join(cols, ", "))
		if w := x.Watermark; w != nil {
			add("watermark: %s AS %s", x.Rel.Cols[w.Col].Name, f.expr(w.Expr))
		}
		state(x.State)
	case *StreamSink:
		name = "StreamSink"
		add("sink: %s", x.Rel.Name)
		add("format: %s", strings.ToUpper(x.Format))
		var cols []string
		for _, c := range b.Out {
			cols = append(cols, c.Name)
		}
		add("columns: [%s]", strings.Join(cols, ", "))
		if len(x.Key) > 0 {
			add("key: %s", colNames(b.Out, x.Key))
		}
		if x.ForceAppendOnly {
			add("force_append_only")
		}
		if x.Compact {
			add("compact_by_key")
		}
		state(x.State)
	case *StreamValues:
		name = "StreamValues"
		var rows []string
		for _, r := range x.Rows {
			rows = append(rows, "("+f.list(r)+")")
		}
		add("rows: [%s]", strings.Join(rows, ", "))
	case *StreamProject:
		name = "StreamProject"
		parts := make([]string, len(x.Exprs))
		for i, e := range x.Exprs {
			s := f.expr(e)
			if c := b.Out[i]; c.Hidden {
				s += " (hidden)"
			} else if c.Name != s && !strings.HasSuffix(s, "."+c.Name) {
				s += " AS " + c.Name
			}
			parts[i] = s
		}
		add("exprs: [%s]", strings.Join(parts, ", "))
	case *StreamFilter:
		name = "StreamFilter"
		add("cond: %s", f.expr(x.Cond))
	case *StreamDynamicFilter:
		name = "StreamDynamicFilter"
		add("cond: %s %s %s", f.expr(x.Key), x.Op, f.expr(x.Bound))
		state(x.State)
	case *StreamHashAgg:
		name = "StreamHashAgg"
		in := x.Input.Base().Out
		if len(x.GroupBy) > 0 {
			add("group_key: %s", colNames(in, x.GroupBy))
		}
		var aggs []string
		for _, a := range x.Aggs {
			aggs = append(aggs, f.agg(a))
		}
		if len(aggs) > 0 {
			add("aggs: [%s]", strings.Join(aggs, ", "))
		}
		var grow []string
		for i, g := range x.GrowOnly {
			if g {
				grow = append(grow, f.agg(x.Aggs[i]))
			}
		}
		if len(grow) > 0 {
			add("grow_only: [%s]", strings.Join(grow, ", "))
		}
		if x.EOWC {
			add("emit_on_window_close")
		}
		if x.TTLMs > 0 {
			add("state_ttl: %s", types.FormatInterval(micros(x.TTLMs*1000)))
			state(append(append([]StateTableDesc{x.Result}, x.Extra...), x.TTL)...)
		} else {
			state(append([]StateTableDesc{x.Result}, x.Extra...)...)
		}
	case *StreamHashJoin:
		name = "StreamHashJoin"
		typ := [...]string{"Inner", "LeftOuter", "RightOuter", "FullOuter", "LeftSemi", "LeftAnti"}[x.Kind]
		if x.NullAware {
			typ = "LeftAntiNullAware"
		}
		add("type: %s", typ)
		lo, ro := x.Left.Base().Out, x.Right.Base().Out
		var keys []string
		for i := range x.LeftKeys {
			keys = append(keys, colName(lo, x.LeftKeys[i])+" = "+colName(ro, x.RightKeys[i]))
		}
		if len(keys) > 0 {
			add("keys: [%s]", strings.Join(keys, ", "))
		}
		if x.Cond != nil {
			add("cond: %s", f.expr(x.Cond))
		}
		tables := []StateTableDesc{x.LeftState, x.RightState}
		if x.NullAware {
			tables = append(tables, x.CountState)
		}
		for s, c := range []*JoinClean{x.LeftClean, x.RightClean} {
			if c == nil {
				continue
			}
			add("clean_%s: %s", [...]string{"left", "right"}[s], describeClean(f, x, s, c))
			if c.Index.ID != 0 {
				tables = append(tables, c.Index)
			}
		}
		if x.MaxPrune != nil {
			add("max_prune: [%s]", describeMaxPrune(lo, x.MaxPrune))
		}
		if x.TTLMs > 0 {
			add("state_ttl: %s", types.FormatInterval(micros(x.TTLMs*1000)))
			for _, d := range []StateTableDesc{x.LeftTTL, x.RightTTL} {
				if d.ID != 0 {
					tables = append(tables, d)
				}
			}
		}
		state(tables...)
	case *StreamTopN:
		name = "StreamTopN"
		in := x.Input.Base().Out
		if len(x.GroupBy) > 0 {
			name = "StreamGroupTopN"
			add("group_key: %s", colNames(in, x.GroupBy))
		}
		add("order: [%s]", f.sortKeys(x.Order))
		add("limit: %d", x.Limit)
		if x.Offset > 0 {
			add("offset: %d", x.Offset)
		}
		if x.WithTies {
			add("with_ties")
		}
		if x.RankFn != "" {
			add("rank: %s", x.RankFn)
		}
		state(x.State)
	case *StreamOverWindow:
		name = "StreamOverWindow"
		var calls []string
		for _, c := range x.Calls {
			calls = append(calls, f.window(c))
		}
		add("window_functions: [%s]", strings.Join(calls, ", "))
		if len(x.PartitionBy) > 0 {
			add("partition_by: %s", colNames(x.Input.Base().Out, x.PartitionBy))
		}
		if len(x.OrderBy) > 0 {
			add("order_by: [%s]", f.sortKeys(x.OrderBy))
		}
		if x.EOWC {
			add("emit_on_window_close")
		}
		state(x.States()...)
	case *StreamUnion:
		name = "StreamUnion"
	case *StreamProjectSet:
		name = "StreamProjectSet"
		var calls []string
		for _, c := range x.Calls {
			calls = append(calls, fmt.Sprintf("%s(%s)", c.Fn, f.list(c.Args)))
		}
		add("calls: [%s]", strings.Join(calls, ", "))
		if x.Outer {
			add("outer: true")
		}
		state(x.State)
	case *StreamExpand:
		name = "StreamExpand"
		add("sets: %s", describeSets(x.Input.Base().Out, x.Keys, x.Sets))
	case *StreamReplicate:
		name = "StreamReplicate"
		add("count: %s", x.Input.Base().Out[x.Count].Name)
	case *StreamHopWindow:
		name = "StreamHopWindow"
		add("%s", describeHop(x.Input.Base().Out, x.TimeCol, x.Slide, x.Size, x.Offset))
		if x.Emit != nil {
			// Pruned: name the columns it copies into each window.
			var cols []string
			for _, c := range b.Out {
				if c.Hidden {
					cols = append(cols, c.Name+" (hidden)")
				} else {
					cols = append(cols, c.Name)
				}
			}
			add("columns: [%s]", strings.Join(cols, ", "))
		}
	case *StreamSessionWindow:
		name = "StreamSessionWindow"
		add("%s", describeSession(x.Input.Base().Out, x.Keys, x.TimeCol, x.Gap))
		state(x.Events, x.Sessions)
	case *StreamExchange:
		name = "StreamExchange"
		add("dist: %s", describeDist(b.Out, b.Dist))
	case *StreamShare:
		name = "StreamShare"
		add("id: %d", x.ID)
	case *StreamLookupJoin:
		name = "StreamLookupJoin"
		add("type: %s", [...]string{"Inner", "LeftOuter"}[min(int(x.Kind), 1)])
		add("table: %s (as of proctime)", x.Rel.Name)
		in := x.Input.Base().Out
		var keys []string
		for i, pk := range x.Rel.PK {
			keys = append(keys, colName(in, x.LeftKeys[i])+" = "+x.Rel.Cols[pk].Name)
		}
		add("keys: [%s]", strings.Join(keys, ", "))
		if x.Cond != nil {
			add("cond: %s", f.expr(x.Cond))
		}
	default:
		name = fmt.Sprintf("%T", n)
	}
	ins := n.StreamInputs()
	if _, ok := n.(*StreamExchange); !ok {
		// Compared as printed, so a key of other columns at the same
		// positions still shows.
		var ib *StreamBase
		if len(ins) > 0 {
			ib = ins[0].Base()
		}
		if key := colNames(b.Out, b.StreamKey); ib == nil || key != colNames(ib.Out, ib.StreamKey) {
			add("stream_key: %s", key)
		}
		if dist := describeDist(b.Out, b.Dist); ib == nil || dist != describeDist(ib.Out, ib.Dist) {
			add("dist: %s", dist)
		}
	}
	if b.AppendOnly {
		add("append_only")
	}
	if len(b.Watermarks) > 0 {
		add("watermark_columns: %s", colNames(b.Out, b.Watermarks))
	}
	if x, ok := n.(*StreamMaterialize); ok {
		state(x.State)
	}
	if len(props) == 0 {
		return name
	}
	return name + " { " + strings.Join(props, ", ") + " }"
}

func describeStateTable(d StateTableDesc) string {
	var cols []string
	for _, c := range d.Cols {
		cols = append(cols, c.Name)
	}
	var keys []string
	for i, k := range d.KeyCols {
		s := colName(d.Cols, k)
		if i < len(d.OrderDesc) && d.OrderDesc[i] {
			s += " DESC"
		}
		keys = append(keys, s)
	}
	s := fmt.Sprintf("%s#%d { columns: [%s], key: [%s]", d.Name, d.ID, strings.Join(cols, ", "), strings.Join(keys, ", "))
	if len(d.DistKeyCols) > 0 {
		s += ", dist_key: " + colNames(d.Cols, d.DistKeyCols)
	}
	return s + " }"
}

// OperatorStateTable is one state table of a stream plan with the plan
// node that owns it.
type OperatorStateTable struct {
	// Operator is the node's name as EXPLAIN prints it
	// ("StreamHashAgg", "StreamHashJoin", ...).
	Operator string
	Table    StateTableDesc
}

// StateTables returns every state table of the plan rooted at n, in the
// order EXPLAIN lists them (depth first, each node's tables in the
// order of its state: [...] property).
func StateTables(n StreamNode) []OperatorStateTable {
	var out []OperatorStateTable
	shown := map[int]bool{}
	var walk func(StreamNode)
	walk = func(n StreamNode) {
		var tables []StateTableDesc
		desc := describeStreamNode(n, &tables)
		op, _, _ := strings.Cut(desc, " ")
		for _, t := range tables {
			out = append(out, OperatorStateTable{Operator: op, Table: t})
		}
		for _, in := range explainInputs(n, shown) {
			walk(in)
		}
	}
	walk(n)
	return out
}
