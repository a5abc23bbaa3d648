package planner

import "strings"

// StreamOperator is one node of a stream plan as EXPLAIN lists it, with
// the number that identifies it among the plan's nodes in monitoring
// (weir.operators, the weir_operator_* metrics and EXPLAIN of a running
// view).
type StreamOperator struct {
	// ID numbers the nodes 1, 2, ... depth first, in EXPLAIN's order.
	ID   int
	Node StreamNode
	// Name is the node's name as EXPLAIN prints it ("StreamHashAgg").
	Name string
	// Tables are the node's state tables.
	Tables []StateTableDesc
}

// StreamOperators lists the nodes of the plan rooted at n in EXPLAIN's
// order (depth first).
func StreamOperators(n StreamNode) []StreamOperator {
	var out []StreamOperator
	shown := map[int]bool{}
	var walk func(StreamNode)
	walk = func(n StreamNode) {
		var tables []StateTableDesc
		desc := describeStreamNode(n, &tables)
		name, _, _ := strings.Cut(desc, " ")
		out = append(out, StreamOperator{ID: len(out) + 1, Node: n, Name: name, Tables: tables})
		for _, in := range explainInputs(n, shown) {
			walk(in)
		}
	}
	walk(n)
	return out
}

// ExplainStreamLive prints the plan as ExplainStream does, each node's
// line followed by what annotate returns for it (when not empty): the
// form of EXPLAIN for a running job, whose annotations are the
// operators' live counts.
func ExplainStreamLive(n StreamNode, annotate func(StreamNode) string) string {
	var sb strings.Builder
	var tables []StateTableDesc
	shown := map[int]bool{}
	var walk func(n StreamNode, first, rest string)
	walk = func(n StreamNode, first, rest string) {
		sb.WriteString(first)
		sb.WriteString(describeStreamNode(n, &tables))
		if a := annotate(n); a != "" {
			sb.WriteString(" ")
			sb.WriteString(a)
		}
		sb.WriteString("\n")
		ins := explainInputs(n, shown)
		for i, in := range ins {
			if i == len(ins)-1 {
				walk(in, rest+"└─", rest+"  ")
			} else {
				walk(in, rest+"├─", rest+"│ ")
			}
		}
	}
	walk(n, "", "")
	if len(tables) > 0 {
		sb.WriteString("State tables:\n")
		for _, t := range tables {
			sb.WriteString("  " + describeStateTable(t) + "\n")
		}
	}
	return sb.String()
}
