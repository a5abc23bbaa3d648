package sql

// groupByEnd are the words that end a GROUP BY list.
var groupByEnd = wordSet(`having order limit offset window union intersect except fetch for returning`)

// groupingSets rewrites the grouping-set forms of a GROUP BY list, which
// TiDB's grammar lacks (doc.go #38): ROLLUP (...) becomes pg_rollup(...),
// CUBE (...) pg_cube(...), GROUPING SETS (...) pg_grouping_sets(...) and
// an empty grouping set () pg_empty_set(), at the top of the list and
// inside GROUPING SETS. The binder expands them into grouping sets.
// GROUP BY ALL is GROUP BY; GROUP BY DISTINCT (grouping sets without
// duplicates) starts the list with pg_group_distinct().
func (b *bridge) groupingSets(seq []*node) []*node {
	for i := 0; i+1 < len(seq); i++ {
		if !seq[i].isWord("group") || !seq[i+1].isWord("by") {
			continue
		}
		j := i + 2
		switch {
		case at(seq, j).isWord("all"):
			seq = splice(seq, j, j+1)
		case at(seq, j).isWord("distinct"):
			seq = splice(seq, j, j+1, textNode("pg_group_distinct()", seq[j].off), leafOp(",", seq[j].off))
			j += 2
		}
		end := j
		for end < len(seq) && !(seq[end].kind == nLeaf && groupByEnd[seq[end].word()]) && !seq[end].isOp(";") {
			end++
		}
		items := b.groupingItems(seq[j:end], true)
		seq = splice(seq, j, end, items...)
		i = j + len(items) - 1
	}
	return seq
}

// groupingItems rewrites the comma-separated items of a GROUP BY list
// (top) or of a GROUPING SETS list.
func (b *bridge) groupingItems(seq []*node, top bool) []*node {
	var out []*node
	var commas []*node
	for _, n := range seq {
		if n.isOp(",") {
			commas = append(commas, n)
		}
	}
	for k, item := range splitCommas(seq) {
		if len(item) == 0 && k < len(commas) {
			// An empty item (GROUP BY , a): PostgreSQL stops at the
			// comma after it.
			b.fail(syntaxErrorAt(b.src, commas[k].tok))
			return out
		}
		if k > 0 {
			off := seq[0].off
			if len(item) > 0 {
				off = item[0].off
			} else if len(out) > 0 {
				off = out[len(out)-1].off
			}
			out = append(out, leafOp(",", off))
		}
		switch {
		case len(item) == 1 && item[0].isParen() && len(item[0].kids) == 0:
			out = append(out, textNode("pg_empty_set()", item[0].off))
		case len(item) == 2 && (item[0].isWord("rollup") || item[0].isWord("cube")) && item[1].isParen():
			for _, k := range item[1].kids {
				if k.isParen() && len(k.kids) == 0 {
					// PostgreSQL's grammar takes () only as a grouping
					// set, not as an element of ROLLUP or CUBE.
					b.fail(b.syntaxError(b.nextTokenOff(k.off)))
					return out
				}
			}
			out = append(out, synth("pg_"+item[0].word()+"(", item[1].kids, ")", item[0].off))
		case len(item) == 3 && item[0].isWord("grouping") && item[1].isWord("sets") && item[2].isParen():
			out = append(out, synth("pg_grouping_sets(", b.groupingItems(item[2].kids, false), ")", item[0].off))
		default:
			out = append(out, item...)
		}
	}
	return out
}

// srfNames are the set-returning functions the binder takes in a select
// list (planner/bind_srf.go).
var srfNames = wordSet(`generate_series unnest regexp_split_to_table regexp_matches json_array_elements json_array_elements_text
	json_object_keys jsonb_array_elements jsonb_array_elements_text jsonb_object_keys`)

// findSRF returns the first call of a set-returning function in seq,
// outside subqueries, or nil.
func findSRF(seq []*node) *node {
	for i, n := range seq {
		if srfNames[n.word()] && at(seq, i+1).isParen() {
			return n
		}
		if n.kind == nGroup && !isSubquery(n.kids) {
			if f := findSRF(n.kids); f != nil {
				return f
			}
		}
	}
	return nil
}
