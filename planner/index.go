package planner

import (
	"strconv"
	"strings"

	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// IndexScan reads the rows of Rel whose index key (in Index, a relation
// of catalog.KindIndex on Rel) lies in a few ranges: its first len(Eq)
// key columns equal Eq's values and, when Lo or Hi is set, the next one
// lies within them, or, when In is set, equals one of In's values (one
// range per distinct value). The key ranges are read from the index,
// then each row from Rel by its primary key (the index columns PKCols,
// in Rel.PK order). A Primary scan reads Rel's own storage, keyed by its
// primary key (Index then describes that key: PrimaryIndex), and needs
// no second read. It emits what a Scan of Rel with Cols and Out would,
// restricted to those rows (a superset of the rows its Filter keeps: the
// Filter stays above it). When the source cannot serve the index at the
// statement's snapshot (inside a transaction block that wrote, say), it
// scans Rel instead.
type IndexScan struct {
	Rel    *catalog.Relation
	Index  *catalog.Relation
	Cols   []int
	Out    types.Schema
	Eq     []Expr
	Lo, Hi *IndexBound
	In     []Expr
	PKCols []int
	// Primary marks a scan of Rel's primary key: Index.ID is Rel.ID.
	Primary bool
	// Covering, when set, gives for each output column the index column
	// holding it, or -1 for a column no expression above reads (it is
	// emitted NULL): the rows come from the index alone, without
	// fetching the relation's (an index-only scan).
	Covering []int
}

// IndexBound is one end of an IndexScan's range on a key column: Value
// (an expression without column references), included or not.
type IndexBound struct {
	Value     Expr
	Inclusive bool
}

// Schema implements Plan.
func (p *IndexScan) Schema() types.Schema { return p.Out }

// Inputs implements Plan.
func (p *IndexScan) Inputs() []Plan { return nil }

// UseIndexes rewrites p, a plan about to run as a batch query or DML
// statement, so that a Filter over a Scan whose conjuncts fix the leading
// key columns of the relation's primary key or of one of its indexes
// (equality on the first ones, then a range or an IN list on the one
// after them) reads that key's ranges instead of every row (IndexScan).
// indexes returns the secondary indexes a relation may be read through
// (nil for none: the primary key still serves). Plans of subqueries are
// rewritten too.
func UseIndexes(p Plan, indexes func(relID uint32) []*catalog.Relation) Plan {
	p = useIndexes(p, indexes)
	WalkPlanExprs(p, func(e Expr) {
		if s, ok := e.(*Subquery); ok {
			s.Plan = useIndexes(s.Plan, indexes)
		}
	})
	return p
}

func useIndexes(p Plan, indexes func(uint32) []*catalog.Relation) Plan {
	rec := func(q Plan) Plan { return useIndexes(q, indexes) }
	switch n := p.(type) {
	case *Project:
		if f, ok := n.Input.(*Filter); ok {
			if s, ok := f.Input.(*Scan); ok && s.Sample == nil {
				if is := chooseIndex(s, f.Cond, indexes(s.Rel.ID)); is != nil {
					is.Covering = covering(is, append(append([]Expr(nil), n.Exprs...), f.Cond))
					f.Input = is
				}
				return n
			}
		}
		n.Input = rec(n.Input)
	case *Filter:
		if s, ok := n.Input.(*Scan); ok && s.Sample == nil {
			if is := chooseIndex(s, n.Cond, indexes(s.Rel.ID)); is != nil {
				n.Input = is
			}
			return n
		}
		n.Input = rec(n.Input)
	case *Join:
		n.Left, n.Right = rec(n.Left), rec(n.Right)
	case *Agg:
		n.Input = rec(n.Input)
	case *Sort:
		n.Input = rec(n.Input)
	case *Limit:
		n.Input = rec(n.Input)
	case *Distinct:
		n.Input = rec(n.Input)
	case *Window:
		n.Input = rec(n.Input)
	case *ProjectSet:
		n.Input = rec(n.Input)
	case *SetOp:
		n.Left, n.Right = rec(n.Left), rec(n.Right)
	case *Update:
		n.Input = rec(n.Input)
	case *Delete:
		n.Input = rec(n.Input)
	case *Insert:
		n.Input = rec(n.Input)
	}
	return p
}

// IndexesRead returns the ids of the indexes p (and the plans of its
// subqueries) reads through IndexScans.
func IndexesRead(p Plan) []uint32 {
	var ids []uint32
	var walk func(Plan)
	walk = func(q Plan) {
		if is, ok := q.(*IndexScan); ok && !is.Primary {
			ids = append(ids, is.Index.ID)
		}
		for _, in := range q.Inputs() {
			walk(in)
		}
	}
	walk(p)
	WalkPlanExprs(p, func(e Expr) {
		if s, ok := e.(*Subquery); ok {
			walk(s.Plan)
		}
	})
	return ids
}

// covering returns IndexScan.Covering for is when the expressions es
// (all that read its output) read only columns its index holds, or nil
// (always for a Primary scan, whose rows are whole already).
func covering(is *IndexScan, es []Expr) []int {
	if is.Primary {
		return nil
	}
	used := make([]bool, len(is.Cols))
	ok := true
	for _, e := range es {
		WalkExpr(e, func(x Expr) {
			switch n := x.(type) {
			case *ColRef:
				if n.Idx < len(used) {
					used[n.Idx] = true
				} else {
					ok = false
				}
			case *Subquery:
				// Its outer references read the row too.
				ok = false
			}
		})
	}
	if !ok {
		return nil
	}
	out := make([]int, len(is.Cols))
	for j, col := range is.Cols {
		out[j] = -1
		if !used[j] {
			continue
		}
		for i := range is.Index.Cols {
			if indexColumnAt(is.Index, i, is.Rel) == col {
				out[j] = i
			}
		}
		if out[j] < 0 {
			return nil
		}
	}
	return out
}

// indexPred is a conjunct comparing a column of the scan with a value,
// or (op "in") with a list of values.
type indexPred struct {
	col  int    // index into the scan's relation's Cols
	op   string // "=", "<", "<=", ">", ">=" with the column on the left, or "in"
	val  Expr
	list []Expr
}

// flipped is the comparison with its sides swapped.
var flipped = map[string]string{"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

// indexPreds returns the conjuncts of cond an index can serve: a column
// of s compared with a value of the column's own type that needs no row.
func indexPreds(s *Scan, cond Expr) []indexPred {
	var out []indexPred
	for _, c := range conjuncts(cond) {
		if in, ok := c.(*InList); ok {
			if p, ok := inPred(s, in); ok {
				out = append(out, p)
			}
			continue
		}
		call, ok := c.(*Call)
		if !ok || len(call.Args) != 2 {
			continue
		}
		op, ok := flipped[call.Fn]
		if !ok {
			continue
		}
		l, r := call.Args[0], call.Args[1]
		if isColumn(r) && rowFree(l) {
			// value op column: op is already flipped.
			l, r = r, l
		} else if isColumn(l) && rowFree(r) {
			op = call.Fn
		} else {
			continue
		}
		col, t, ok := keyColumn(s, l)
		if !ok || (trimmedKey(s, col, t) && !exactOnTrimmed(op)) {
			continue
		}
		if r, ok = keyValue(t, r); ok {
			out = append(out, indexPred{col: col, op: op, val: r})
		}
	}
	return out
}

// isColumn reports whether e is a column reference, under a cast or not
// (keyColumn says whether the cast keeps the key's order).
func isColumn(e Expr) bool {
	if c, ok := e.(*Cast); ok {
		e = c.Arg
	}
	_, ok := e.(*ColRef)
	return ok
}

// exactOnTrimmed reports whether an index on a character(n) column,
// whose keys are its values without their trailing spaces, serves the
// comparison op of the column's text (its trimmed value) with a text
// value v: the key range of v trimmed holds every row whose text equals
// v (and more when v ends in spaces, which the filter above drops), but
// a range's bound would move when trimmed and lose rows.
func exactOnTrimmed(op string) bool { return op == "=" || op == "in" }

// trimmedKey reports whether column col of s, compared in type t, is a
// character(n) column compared as text (exactOnTrimmed).
func trimmedKey(s *Scan, col int, t types.T) bool {
	return s.Rel.Cols[col].T.ID == types.Bpchar && t.ID != types.Bpchar
}

// inPred returns the predicate of `column IN (values)`: a list of
// row-free values of the column's type (NOT IN serves no range).
func inPred(s *Scan, in *InList) (indexPred, bool) {
	if in.Not || !isColumn(in.Arg) || len(in.List) == 0 {
		return indexPred{}, false
	}
	col, t, ok := keyColumn(s, in.Arg)
	if !ok || (trimmedKey(s, col, t) && !exactOnTrimmed("in")) {
		return indexPred{}, false
	}
	p := indexPred{col: col, op: "in"}
	for _, v := range in.List {
		if !rowFree(v) {
			return indexPred{}, false
		}
		v, ok := keyValue(t, v)
		if !ok {
			return indexPred{}, false
		}
		p.list = append(p.list, v)
	}
	return p, true
}

// keyColumn returns the relation column e reads when its values can be
// looked up by key, and the type they are compared in: a column of the
// scan whose key order is its comparison order, as it is or cast to text
// from a string type whose key is the text's (varchar and name, whose
// comparisons are text's, or character(n), whose key is its text: the
// value without trailing spaces, see exactOnTrimmed), or an enum as the
// float8 sort order it is compared as. Values compared with it must be
// of the returned type.
func keyColumn(s *Scan, e Expr) (int, types.T, bool) {
	var cast *Cast
	if c, ok := e.(*Cast); ok {
		cast, e = c, c.Arg
	}
	ref, ok := e.(*ColRef)
	if !ok || ref.Idx >= len(s.Cols) {
		return 0, types.T{}, false
	}
	col := s.Cols[ref.Idx]
	t := s.Rel.Cols[col].T
	if ref.T.ID != t.ID || !keyOrdered(t) {
		return 0, types.T{}, false
	}
	if cast == nil {
		return col, t, true
	}
	if t.IsEnum() && cast.T.ID == types.Float8 {
		// An enum compares as its labels' sort orders, the float8 the
		// binder relabels it to (enumCall), which is its key.
		return col, cast.T, true
	}
	if cast.T.ID != types.Text {
		return 0, types.T{}, false
	}
	switch t.ID {
	case types.Varchar, types.Name, types.Bpchar:
		return col, cast.T, true
	}
	return 0, types.T{}, false
}

// keyValue returns v as a value of the key column's type t, when it
// compares with the column as it is: of t itself, or a narrower integer
// (n = 3 over a bigint), which converts exactly; anything else would
// change the comparison's meaning or fail.
func keyValue(t types.T, v Expr) (Expr, bool) {
	vt := v.Type()
	if vt.ID == t.ID {
		return v, true
	}
	if !vt.IsInteger() || !t.IsInteger() || intWidth(vt) > intWidth(t) {
		return nil, false
	}
	return &Cast{Arg: v, T: t}, true
}

// keyOrdered reports whether the storage key order of t's values is the
// order of its comparisons (arrays and jsonb are keyed by their text,
// whose order is not theirs), so that an index range holds exactly the
// values comparing within it.
func keyOrdered(t types.T) bool {
	switch t.Family() {
	case types.FamBool, types.FamInt, types.FamFloat, types.FamDecimal, types.FamInterval:
		return true
	case types.FamString:
		switch t.ID {
		case types.Varchar, types.Bpchar, types.Text, types.Bytea, types.Name, types.Char, types.Uuid:
			return true
		}
	}
	return false
}

// rowFree reports whether e is a constant or parameter (under casts),
// with a value known before any row is read.
func rowFree(e Expr) bool {
	switch n := e.(type) {
	case *Const, *Param:
		return true
	case *Cast:
		return rowFree(n.Arg)
	}
	return false
}

// chooseIndex returns the IndexScan serving the most of cond's
// predicates on s (most equalities on leading key columns, then a range
// or an IN list on the next; the primary key before an index that
// serves as many, since it needs no second read), or nil when none
// serves any.
func chooseIndex(s *Scan, cond Expr, idxs []*catalog.Relation) *IndexScan {
	preds := indexPreds(s, cond)
	if len(preds) == 0 {
		return nil
	}
	var best *IndexScan
	bestScore := 0
	consider := func(idx *catalog.Relation, primary bool) {
		is := matchIndex(s, idx, preds)
		if is == nil {
			return
		}
		is.Primary = primary
		score := 8 * len(is.Eq)
		switch {
		case is.In != nil:
			score += 4
		case is.Lo != nil || is.Hi != nil:
			score += 2
		}
		if primary {
			score++
		}
		if score > bestScore {
			best, bestScore = is, score
		}
	}
	if pk := PrimaryIndex(s.Rel); pk != nil {
		consider(pk, true)
	}
	for _, idx := range idxs {
		consider(idx, false)
	}
	return best
}

// PrimaryIndex describes the primary key of rel, a table or materialized
// view, as an index over rel's own storage (which is keyed by it, in
// ascending order): its columns are the key's, its ID rel's. It returns
// nil for a relation without such storage.
func PrimaryIndex(rel *catalog.Relation) *catalog.Relation {
	if (rel.Kind != catalog.KindTable && rel.Kind != catalog.KindMView) || len(rel.PK) == 0 {
		return nil
	}
	pos := make([]string, len(rel.PK))
	idx := &catalog.Relation{ID: rel.ID, OID: rel.OID, Schema: rel.Schema, Name: rel.Name + "_pkey", Kind: catalog.KindIndex, Deps: []uint32{rel.ID}}
	for i, k := range rel.PK {
		idx.Cols = append(idx.Cols, rel.Cols[k])
		pos[i] = strconv.Itoa(k)
	}
	idx.With = map[string]string{catalog.IndexKeysOption: strconv.Itoa(len(rel.PK)), catalog.IndexPositionsOption: strings.Join(pos, ",")}
	return idx
}

// indexColumnAt returns the position in rel.Cols of index column i of
// idx, or -1: the position the index records (catalog.IndexPositions,
// which the engine fills in, as names change with ALTER TABLE) or else
// the column of rel with its name; either must have its type.
func indexColumnAt(idx *catalog.Relation, i int, rel *catalog.Relation) int {
	want := idx.Cols[i]
	if pos, ok := catalog.IndexPositions(idx); ok {
		if i < len(pos) && pos[i] >= 0 && pos[i] < len(rel.Cols) && rel.Cols[pos[i]].T.ID == want.T.ID && !rel.Cols[pos[i]].Dropped {
			return pos[i]
		}
		return -1
	}
	for j, c := range rel.Cols {
		if c.Name == want.Name && c.T.ID == want.T.ID {
			return j
		}
	}
	return -1
}

// matchIndex returns the IndexScan of s through idx for preds, or nil.
func matchIndex(s *Scan, idx *catalog.Relation, preds []indexPred) *IndexScan {
	k := idx.IndexKeys()
	is := &IndexScan{Rel: s.Rel, Index: idx, Cols: s.Cols, Out: s.Out}
	// The relation's key must be in the index, to fetch the rows.
	for _, pk := range s.Rel.PK {
		found := -1
		for i := range idx.Cols {
			if indexColumnAt(idx, i, s.Rel) == pk {
				found = i
			}
		}
		if found < 0 {
			return nil
		}
		is.PKCols = append(is.PKCols, found)
	}
	for i := 0; i < k && i < len(idx.Cols); i++ {
		col := indexColumnAt(idx, i, s.Rel)
		if col < 0 {
			return nil
		}
		var eq Expr
		for _, p := range preds {
			if p.col == col && p.op == "=" {
				eq = p.val
				break
			}
		}
		if eq != nil {
			is.Eq = append(is.Eq, eq)
			continue
		}
		for _, p := range preds {
			if p.col == col && p.op == "in" {
				is.In = p.list
				break
			}
		}
		for _, p := range preds {
			if p.col != col || is.In != nil || p.op == "in" {
				continue
			}
			b := &IndexBound{Value: p.val, Inclusive: p.op == "<=" || p.op == ">="}
			switch p.op {
			case ">", ">=":
				if is.Lo == nil {
					is.Lo = b
				}
			case "<", "<=":
				if is.Hi == nil {
					is.Hi = b
				}
			}
		}
		break
	}
	if len(is.Eq) == 0 && is.Lo == nil && is.Hi == nil && is.In == nil {
		return nil
	}
	return is
}
