package sql

import (
	"github.com/weirdb/weir/internal/pgerr"
)

// This file holds the bridge's rewrites of PostgreSQL's DML forms the
// TiDB parser does not have: a WITH clause in front of INSERT (TiDB
// takes it in front of the INSERT's query), and multiple-column
// assignments in UPDATE's SET list (SET (a, b) = (1, 2)), and DELETE ...
// USING.

// dmlAfterWith returns the index of the INSERT, UPDATE or DELETE that
// follows a leading WITH clause in seq, or -1 when seq is not WITH ...
// followed by one of them.
func dmlAfterWith(seq []*node) int {
	if !at(seq, 0).isWord("with") {
		return -1
	}
	for i := 1; i+1 < len(seq); i++ {
		if !seq[i].isParen() {
			continue
		}
		switch seq[i+1].word() {
		case "insert", "update", "delete":
			return i + 1
		}
	}
	return -1
}

// isQueryGroup reports whether n is a parenthesised query.
func isQueryGroup(n *node) bool {
	if !n.isParen() || len(n.kids) == 0 {
		return false
	}
	switch k := n.kids[0]; {
	case k.isWord("select"), k.isWord("with"), k.isWord("values"), k.isWord("table"):
		return true
	case k.isParen():
		return isQueryGroup(k)
	}
	return false
}

// withInsert places the WITH clause with in front of the query of the
// INSERT statement seq (INSERT INTO name [(columns)] query), where the
// TiDB parser takes it. An INSERT of VALUES, DEFAULT VALUES or of a
// query with a WITH of its own is refused (0A000).
func (b *bridge) withInsert(with, seq []*node) ([]*node, error) {
	q := 2
	if at(seq, q+1).isOp(".") {
		q += 2
	}
	q++
	if n := at(seq, q); n.isParen() && !isQueryGroup(n) {
		q++
	}
	n := at(seq, q)
	if n == nil {
		return nil, b.syntaxError(b.toks[len(b.toks)-1].End)
	}
	if !(n.isWord("select") || isQueryGroup(n) && !n.kids[0].isWord("with") && !n.kids[0].isWord("values")) {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "WITH in front of INSERT is supported only for INSERT ... SELECT").
			WithPosition(charPos(b.src, with[0].off))
	}
	out := append([]*node{}, seq[:q]...)
	out = append(out, with...)
	return append(out, seq[q:]...), nil
}

// dataModifyingCTE returns the first CTE in seq (at any depth) whose body
// is an INSERT, UPDATE or DELETE, or nil.
func dataModifyingCTE(seq []*node) *node {
	for i, n := range seq {
		if n.isParen() && len(n.kids) > 0 && i > 0 && (seq[i-1].isWord("as") || seq[i-1].isWord("materialized")) {
			switch n.kids[0].word() {
			case "insert", "update", "delete":
				return n.kids[0]
			}
		}
		if c := dataModifyingCTE(n.kids); c != nil {
			return c
		}
	}
	return nil
}

// setListEnd are the words that end an UPDATE's SET list.
var setListEnd = wordSet(`from where returning`)

// multiAssign rewrites the multiple-column assignments of the SET list
// that starts after seq[set] into single ones: (a, b) = (x, y) and
// (a, b) = ROW(x, y) become a = x, b = y; (a, b) = (SELECT x, y FROM
// ...) becomes a = (SELECT x FROM ...), b = (SELECT y FROM ...), the
// same rows as long as the query has no DISTINCT, set operation or *,
// which are refused (0A000). The errors are PostgreSQL's (42601).
func (b *bridge) multiAssign(seq []*node, set int) ([]*node, error) {
	end := len(seq)
	for i := set + 1; i < len(seq); i++ {
		if setListEnd[seq[i].word()] {
			end = i
			break
		}
	}
	items := splitCommas(seq[set+1 : end])
	changed := false
	var list []*node
	for k, it := range items {
		if k > 0 {
			list = append(list, leafOp(",", it[0].offOr(seq[set].off)))
		}
		if len(it) < 3 || !it[0].isParen() || !it[1].isOp("=") {
			list = append(list, it...)
			continue
		}
		changed = true
		cols := splitCommas(it[0].kids)
		rhs := it[2:]
		vals, err := b.multiValues(rhs, len(cols))
		if err != nil {
			return nil, err
		}
		for j, c := range cols {
			if j > 0 {
				list = append(list, leafOp(",", it[0].off))
			}
			list = append(list, c...)
			list = append(list, leafOp("=", it[1].off))
			list = append(list, vals[j]...)
		}
	}
	if !changed {
		return seq, nil
	}
	out := append([]*node{}, seq[:set+1]...)
	out = append(out, list...)
	return append(out, seq[end:]...), nil
}

// selectListEnd are the words that end a SELECT's list.
var selectListEnd = wordSet(`from where group having window order limit offset fetch into for`)

// multiValues splits the source of a multiple-column assignment of n
// columns into n values.
func (b *bridge) multiValues(rhs []*node, n int) ([][]*node, error) {
	pos := charPos(b.src, rhs[0].off)
	mismatch := pgerr.New(pgerr.SyntaxError, "number of columns does not match number of values").WithPosition(pos)
	// ((ROW(1, 2))): parentheses around a ROW() stand for the ROW().
	for len(rhs) == 1 && rhs[0].isParen() && len(rhs[0].kids) == 2 && rhs[0].kids[0].isWord("row") && rhs[0].kids[1].isParen() {
		rhs = rhs[0].kids
	}
	var vals [][]*node
	switch {
	case len(rhs) == 2 && rhs[0].isWord("row") && rhs[1].isParen():
		vals = splitCommas(rhs[1].kids)
	case len(rhs) == 1 && rhs[0].isParen() && len(rhs[0].kids) > 0 && rhs[0].kids[0].isWord("select"):
		return b.splitSubSelect(rhs[0], n, mismatch)
	case len(rhs) == 1 && rhs[0].isParen() && len(splitCommas(rhs[0].kids)) > 1:
		vals = splitCommas(rhs[0].kids)
	default:
		// A parenthesised expression stands where its inside does.
		at0 := rhs[0]
		for at0.isParen() && len(at0.kids) > 0 {
			at0 = at0.kids[0]
		}
		return nil, pgerr.New(pgerr.SyntaxError, "source for a multiple-column UPDATE item must be a sub-SELECT or ROW() expression").
			WithPosition(charPos(b.src, at0.off))
	}
	if len(vals) != n {
		return nil, mismatch
	}
	return vals, nil
}

// splitSubSelect turns (SELECT x1, ..., xn rest) into n scalar
// subqueries (SELECT xi rest), each a copy.
func (b *bridge) splitSubSelect(g *node, n int, mismatch *pgerr.Error) ([][]*node, error) {
	unsupported := pgerr.New(pgerr.FeatureNotSupported, "this sub-SELECT as the source of a multiple-column UPDATE item is not supported").
		WithHint("Use one scalar sub-SELECT per column.").WithPosition(charPos(b.src, g.off))
	kids := g.kids
	e := len(kids)
	for i := 1; i < len(kids); i++ {
		switch w := kids[i].word(); {
		case w == "union" || w == "intersect" || w == "except":
			return nil, unsupported
		case selectListEnd[w] && e == len(kids):
			e = i
		}
	}
	if at(kids, 1).isWord("distinct") {
		return nil, unsupported
	}
	start := 1
	if at(kids, 1).isWord("all") {
		start = 2
	}
	items := splitCommas(kids[start:e])
	for _, it := range items {
		if last := it[len(it)-1]; last.isOp("*") && (len(it) == 1 || it[len(it)-2].isOp(".")) {
			return nil, unsupported
		}
	}
	if len(items) != n {
		return nil, mismatch
	}
	vals := make([][]*node, n)
	for j, it := range items {
		body := append([]*node{kids[0]}, it...)
		body = append(body, kids[e:]...)
		c := *g
		c.kids = cloneNodes(body)
		vals[j] = []*node{&c}
	}
	return vals, nil
}

// cloneNodes deep-copies seq, so rewrites of one copy leave the others
// alone.
func cloneNodes(seq []*node) []*node {
	out := make([]*node, len(seq))
	for i, n := range seq {
		c := *n
		c.kids = cloneNodes(n.kids)
		out[i] = &c
	}
	return out
}

// deleteUsing rewrites PostgreSQL's DELETE FROM t [[AS] x] USING u, ...
// WHERE ... into TiDB's multi-table form DELETE x FROM t [AS] x, u, ...
// WHERE ...: the target table comes first in the FROM list, which the
// binder takes as the table deleted from. Other statements are returned
// as they are.
func deleteUsing(seq []*node) []*node {
	if !at(seq, 1).isWord("from") {
		return seq
	}
	i := 2
	if at(seq, i).isWord("only") {
		i++
	}
	if !at(seq, i).isName() {
		return seq
	}
	nameStart := i
	// schema.t, and db.schema.t, whose database catalogNames checks
	for k := 0; k < 2 && at(seq, i+1).isOp(".") && at(seq, i+2).isName(); k++ {
		i += 2
	}
	target := seq[i]
	end := i + 1
	if at(seq, end).isWord("as") {
		end++
	}
	if n := at(seq, end); n.isName() && !n.isWord("using") && !n.isWord("where") {
		target = n
		end++
	}
	if !at(seq, end).isWord("using") || end+1 >= len(seq) {
		return seq
	}
	out := []*node{seq[0], {kind: target.kind, tok: target.tok, text: target.text, off: target.off}, seq[1]}
	out = append(out, seq[nameStart:end]...)
	out = append(out, leafOp(",", seq[end].off))
	return append(out, seq[end+1:]...)
}
