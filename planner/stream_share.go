package planner

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql/catalog"
)

// Shared subplans. A query that reads the same thing twice (q5 of
// Nexmark counts the bids of each auction per HOP window in two
// subqueries, one per side of a join) is converted into two identical
// subtrees, each with its own source reader and its own state. After
// conversion, shareSubplans finds the subtrees that compute the same
// changelog and keeps one of them: every place that read one of the
// copies reads the kept one through a StreamShare of its own, and the
// stream builder runs the kept subtree once, its actors sending their
// output to every StreamShare's consumer (as RisingWave's StreamShare).
//
// Two subtrees compute the same changelog when they are equal node by
// node in every field but the ids of their state tables: same operator,
// same expressions, same inputs. Stream plans hold no volatile function
// (checkExprs refuses them), and every operator's output is a function
// of its input's changelog and the barriers' times, so the copies emit
// the same rows in the same epochs, but for the order in which an
// exchange interleaves its senders (where rows tie, a top-N or a
// string_agg without ORDER BY may keep either): sharing makes every
// reader see one such order. The copy's state tables are never created:
// their ids stay allocated (the allocation order, which a restart
// replays, does not change) and unused.
//
//	SELECT a.dept, a.n, b.n AS m
//	FROM (SELECT dept, count(*) AS n FROM emp GROUP BY dept) a
//	JOIN (SELECT dept, count(*) AS n FROM emp GROUP BY dept) b ON a.n = b.n
//
//	StreamHashJoin { type: Inner, keys: [n = n], ... }
//	├─StreamExchange { dist: HashShard(n) }
//	│ └─StreamProject { exprs: [emp.dept, count(*) AS n] }
//	│   └─StreamShare { id: 1 }
//	│     └─StreamHashAgg { group_key: [dept], aggs: [count(*)], ... }
//	│       └─StreamExchange { dist: HashShard(dept) }
//	│         └─StreamTableScan { table: emp, ... }
//	└─StreamExchange { dist: HashShard(n) }
//	  └─StreamProject { exprs: [count(*) AS n, dept (hidden)] }
//	    └─StreamShare { id: 1 }
//
// Sharing stops at exchanges: when two exchanges are equal their inputs
// are shared, and each consumer keeps its exchange (the kept subtree's
// actors dispatch to both). Only subtrees that keep state are shared
// (worthSharing): two readers of a source each with its own stateless
// operators stay apart. A relation planned by an older format
// (WithPlanFormat below 6) shares nothing, keeping its state layout.

// StreamShare reads the output of a subplan that several nodes of the
// plan read (Input, the same node under every StreamShare of the same
// ID): a fragment boundary, where the stream builder connects the
// actors running Input once to the consumer of each StreamShare,
// without repartitioning. Its properties are Input's.
type StreamShare struct {
	StreamBase
	Input StreamNode
	// ID numbers the shared subplans of a plan, 1, 2, ...
	ID int
}

// Base implements StreamNode.
func (n *StreamShare) Base() *StreamBase { return &n.StreamBase }

// StreamInputs implements StreamNode.
func (n *StreamShare) StreamInputs() []StreamNode { return []StreamNode{n.Input} }

// sharesSubplans reports whether rel (nil for none) is planned with
// shared subplans: from format version 6 on.
func sharesSubplans(rel *catalog.Relation) bool {
	v := planFormat(rel)
	return v == 0 || v >= 6
}

// shareSubplans replaces, in the plan rooted at root, every subtree
// equal to one met before it (depth first, inputs in order) by a
// StreamShare of the first, which gets a StreamShare too. The largest
// equal subtrees are shared: an equal subtree is not entered.
func shareSubplans(root StreamNode) {
	k := &subplanKeys{ids: map[StreamNode]int{}, interned: map[string]int{}}
	type occurrence struct {
		parent StreamNode
		input  int
		node   StreamNode
		share  *StreamShare
	}
	first := map[int]*occurrence{}
	shares := 0
	var visit func(parent StreamNode, input int, n StreamNode)
	visit = func(parent StreamNode, input int, n StreamNode) {
		if _, isX := n.(*StreamExchange); !isX && parent != nil && worthSharing(n) {
			id := k.of(n)
			if o, ok := first[id]; ok {
				if o.share == nil {
					shares++
					o.share = newShare(o.node, shares)
					setStreamInput(o.parent, o.input, o.share)
				}
				setStreamInput(parent, input, newShare(o.node, o.share.ID))
				return
			}
			first[id] = &occurrence{parent: parent, input: input, node: n}
		}
		for i, in := range n.StreamInputs() {
			visit(n, i, in)
		}
	}
	visit(nil, 0, root)
}

// worthSharing reports whether the subtree rooted at n is worth
// computing once: it keeps state (an aggregation, a join, a top-N, ...)
// (or looks rows up: a lookup join) and reads a source or a table.
// Without state a subtree is a reader
// and stateless operators over each row, cheaper to compute twice than
// to copy each chunk to its consumers; and a consumer of a shared
// subtree waits for the slowest of the others, where its own reader
// would run ahead (an interval join whose side runs ahead drops the
// other side's rows sooner). A subtree over constant rows (VALUES)
// emits its rows once.
func worthSharing(n StreamNode) bool {
	var state, reads bool
	var walk func(StreamNode)
	walk = func(n StreamNode) {
		switch n.(type) {
		case *StreamSource, *StreamTableScan:
			reads = true
		case *StreamValues, *StreamProject, *StreamFilter, *StreamHopWindow, *StreamExpand, *StreamProjectSet,
			*StreamReplicate, *StreamUnion, *StreamExchange, *StreamShare:
		default:
			state = true
		}
		for _, in := range n.StreamInputs() {
			walk(in)
		}
	}
	walk(n)
	return state && reads
}

func newShare(in StreamNode, id int) *StreamShare {
	return &StreamShare{StreamBase: *in.Base(), Input: in, ID: id}
}

var (
	streamNodeType  = reflect.TypeOf((*StreamNode)(nil)).Elem()
	streamNodesType = reflect.TypeOf([]StreamNode(nil))
	stateDescType   = reflect.TypeOf(StateTableDesc{})
)

// setStreamInput makes in the input number i of n (in StreamInputs'
// order, which is the order of n's StreamNode fields and the elements
// of a []StreamNode field).
func setStreamInput(n StreamNode, i int, in StreamNode) {
	set := func() bool {
		v := reflect.ValueOf(n).Elem()
		k := 0
		for f := 0; f < v.NumField(); f++ {
			switch fv := v.Field(f); fv.Type() {
			case streamNodeType:
				if k == i {
					fv.Set(reflect.ValueOf(in))
					return true
				}
				k++
			case streamNodesType:
				if i < k+fv.Len() {
					fv.Index(i - k).Set(reflect.ValueOf(in))
					return true
				}
				k += fv.Len()
			}
		}
		return false
	}
	if !set() || i >= len(n.StreamInputs()) || n.StreamInputs()[i] != in {
		fail(pgerr.New(pgerr.InternalError, "stream plan: cannot set input %d of %T", i, n))
	}
}

// subplanKeys numbers subtrees so that two subtrees get the same number
// exactly when they are equal in every field but their state tables'
// ids.
type subplanKeys struct {
	ids      map[StreamNode]int
	interned map[string]int
}

func (k *subplanKeys) of(n StreamNode) int {
	if id, ok := k.ids[n]; ok {
		return id
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%T", n)
	writeValue(&b, reflect.ValueOf(n).Elem(), nil)
	b.WriteByte('(')
	for _, in := range n.StreamInputs() {
		b.WriteString(strconv.Itoa(k.of(in)))
		b.WriteByte(' ')
	}
	b.WriteByte(')')
	id, ok := k.interned[b.String()]
	if !ok {
		id = len(k.interned) + 1
		k.interned[b.String()] = id
	}
	k.ids[n] = id
	return id
}

// writeValue writes v for subplanKeys: every field, through pointers
// and interfaces, except a node's inputs (StreamNode fields, keyed
// apart) and the ids of state tables. path holds the pointers being
// written, so a cycle ends.
func writeValue(b *strings.Builder, v reflect.Value, path []uintptr) {
	switch v.Kind() {
	case reflect.Invalid:
		b.WriteString("<nil>")
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		if v.Kind() == reflect.Pointer {
			p := v.Pointer()
			if slices.Contains(path, p) {
				b.WriteString("<cycle>")
				return
			}
			path = append(path, p)
		} else {
			fmt.Fprintf(b, "%s:", v.Elem().Type())
		}
		writeValue(b, v.Elem(), path)
	case reflect.Struct:
		t := v.Type()
		b.WriteByte('{')
		for i := 0; i < v.NumField(); i++ {
			ft := t.Field(i)
			if ft.Type == streamNodeType || ft.Type == streamNodesType || t == stateDescType && ft.Name == "ID" {
				continue
			}
			b.WriteString(ft.Name)
			b.WriteByte(':')
			writeValue(b, v.Field(i), path)
			b.WriteByte(' ')
		}
		b.WriteByte('}')
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			b.WriteString("nil")
			return
		}
		b.WriteByte('[')
		for i := 0; i < v.Len(); i++ {
			writeValue(b, v.Index(i), path)
			b.WriteByte(' ')
		}
		b.WriteByte(']')
	case reflect.Map:
		keys := v.MapKeys()
		ks := make([]string, len(keys))
		for i, key := range keys {
			var kb strings.Builder
			writeValue(&kb, key, path)
			kb.WriteByte('=')
			writeValue(&kb, v.MapIndex(key), path)
			ks[i] = kb.String()
		}
		slices.Sort(ks)
		fmt.Fprintf(b, "map%v", ks)
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		fmt.Fprintf(b, "%s@%x", v.Kind(), v.Pointer())
	case reflect.String:
		b.WriteString(strconv.Quote(v.String()))
	case reflect.Bool:
		b.WriteString(strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		b.WriteString(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		b.WriteString(strconv.FormatUint(v.Uint(), 10))
	case reflect.Float32, reflect.Float64:
		b.WriteString(strconv.FormatFloat(v.Float(), 'g', -1, 64))
	case reflect.Complex64, reflect.Complex128:
		fmt.Fprint(b, v.Complex())
	}
}
