package syscat

import (
	"slices"
	"strconv"
	"strings"

	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// indexesOn returns the indexes (catalog.KindIndex) on relation r.
func indexesOn(cat Catalog, r *catalog.Relation) []*catalog.Relation {
	var out []*catalog.Relation
	for _, x := range cat.All() {
		if x.Kind == catalog.KindIndex && len(x.Deps) == 1 && x.Deps[0] == r.ID {
			out = append(out, x)
		}
	}
	return out
}

// indexedRel returns the relation an index is on.
func indexedRel(cat Catalog, idx *catalog.Relation) (*catalog.Relation, bool) {
	if len(idx.Deps) != 1 {
		return nil, false
	}
	for _, r := range cat.All() {
		if r.ID == idx.Deps[0] {
			return r, true
		}
	}
	return nil, false
}

// IndexColumns returns the names of an index's key columns and of its
// INCLUDE columns.
func IndexColumns(idx *catalog.Relation) (keys, include []string) {
	k := idx.IndexKeys()
	for i, c := range idx.Cols {
		switch {
		case i < k:
			keys = append(keys, c.Name)
		case !c.Hidden:
			include = append(include, c.Name)
		}
	}
	return keys, include
}

// onColumns returns the names of an index's key and INCLUDE columns as
// the indexed relation calls them now: an index keeps its columns' names
// when the table's columns are renamed (as in PostgreSQL), and its
// definition reads the table as pinned (catalog.Relation.DepCols). A key
// expression's entry is "".
func onColumns(idx, on *catalog.Relation) (keys, include []string) {
	keys, include = IndexColumns(idx)
	exprs := idx.IndexExprs()
	for i := range keys {
		if i < len(exprs) && exprs[i] != "" {
			keys[i] = ""
		}
	}
	pin, ok := idx.DepCols[on.ID]
	if !ok {
		return keys, include
	}
	now := func(names []string) {
		for i, n := range names {
			if n == "" {
				continue
			}
			if p := slices.Index(pin, n); p >= 0 && p < len(on.Cols) {
				names[i] = on.Cols[p].Name
			}
		}
	}
	now(keys)
	now(include)
	return keys, include
}

// IndexTexts are an index's key expressions and predicate as
// pg_get_indexdef prints them (catalog.IndexExprsOption,
// catalog.IndexPredicateOption), naming the table's columns as they are
// called now.
type IndexTexts struct {
	// Keys holds, per key column, its expression printed (in
	// parentheses unless it is a function call), "" for a column.
	Keys []string
	// Pred is the predicate of a partial index, "" for none.
	Pred string
}

// IndexDef is pg_get_indexdef (and pg_indexes.indexdef) of an index:
// CREATE [UNIQUE] INDEX name ON schema.rel USING btree (keys) [INCLUDE
// (cols)] [NULLS NOT DISTINCT] [WHERE predicate], as PostgreSQL prints
// it; on is the indexed relation, x the index's expressions printed.
func IndexDef(idx, on *catalog.Relation, x IndexTexts) string {
	keys, include := onColumns(idx, on)
	for i := range keys {
		if i < len(x.Keys) && x.Keys[i] != "" {
			keys[i] = x.Keys[i]
		} else {
			keys[i] = sql.QuoteIdent(keys[i])
		}
		keys[i] += idx.IndexKeyOrder(i)
	}
	create := "CREATE INDEX "
	if isUnique(idx) {
		create = "CREATE UNIQUE INDEX "
	}
	def := create + sql.QuoteIdent(idx.Name) + " ON " + on.Schema + "." + sql.QuoteIdent(on.Name) + " USING btree (" + strings.Join(keys, ", ") + ")"
	if len(include) > 0 {
		for i := range include {
			include[i] = sql.QuoteIdent(include[i])
		}
		def += " INCLUDE (" + strings.Join(include, ", ") + ")"
	}
	if idx.With[catalog.IndexNullsNotDistinctOption] == "true" {
		def += " NULLS NOT DISTINCT"
	}
	if x.Pred != "" {
		def += " WHERE " + x.Pred
	}
	return def
}

// IndexDefPretty is pg_get_indexdef(idx, 0, true) of an index: IndexDef
// naming the indexed relation without its schema when the asking session
// finds it by its bare name, as PostgreSQL's pretty form does.
func IndexDefPretty(p Provider, idx, on *catalog.Relation, x IndexTexts) string {
	def := IndexDef(idx, on, x)
	path := p.Setting("search_path")
	if path == "" {
		path = `"$user", public` // the default, unless the session set it
	}
	inPath := on.Temp || slices.Contains(SplitSearchPath(path), on.Schema)
	if !inPath || !isVisible(p, on, on.Name) {
		return def
	}
	qualified := " ON " + on.Schema + "." + sql.QuoteIdent(on.Name) + " USING "
	return strings.Replace(def, qualified, " ON "+sql.QuoteIdent(on.Name)+" USING ", 1)
}

// IndexColumnDef is pg_get_indexdef(idx, col, ...) of column col
// (1-based) of an index: the column's name, or its expression printed;
// "" for a column it does not have.
func IndexColumnDef(idx, on *catalog.Relation, col int, x IndexTexts) string {
	keys, include := onColumns(idx, on)
	if col-1 < len(x.Keys) && col-1 < len(keys) && x.Keys[col-1] != "" {
		return x.Keys[col-1]
	}
	if all := append(keys, include...); col <= len(all) {
		return sql.QuoteIdent(all[col-1])
	}
	return ""
}

// indexAttnums are the attribute numbers, in the indexed relation, of an
// index's key and INCLUDE columns, 0 for a key expression.
func indexAttnums(idx, on *catalog.Relation) []string {
	keys, include := onColumns(idx, on)
	var out []string
	for _, name := range append(keys, include...) {
		if name == "" {
			out = append(out, "0")
			continue
		}
		for i, c := range on.Cols {
			if c.Name == name {
				out = append(out, strconv.Itoa(attnum(on, i)))
			}
		}
	}
	return out
}

// pgIndexRow is an index's pg_index row. indexprs and indpred hold the
// expressions and the predicate printed as pg_get_expr(..., true) would
// print them (weir keeps no node trees; pg_get_expr returns them as
// they are), NULL when the index has none.
func pgIndexRow(p Provider, idx, on *catalog.Relation) types.Row {
	cols := indexAttnums(idx, on)
	exprs, pred := null, null
	if !idx.PlainIndex() {
		x := p.IndexTexts(idx, on, true)
		var ks []string
		for _, k := range x.Keys {
			if k != "" {
				ks = append(ks, k)
			}
		}
		if len(ks) > 0 {
			exprs = vStr(strings.Join(ks, ", "))
		}
		if x.Pred != "" {
			pred = vStr(x.Pred)
		}
	}
	return types.Row{vOid(idx.OID), vOid(on.OID), vInt(len(cols)), vInt(idx.IndexKeys()), vBool(isUnique(idx)), vBool(false), vBool(false), vBool(true), vBool(false), vBool(true), vBool(false), vBool(true), vBool(true), vBool(false), vBool(idx.With[catalog.IndexNullsNotDistinctOption] == "true"), vStr(strings.Join(cols, " ")), exprs, pred}
}

// indexDefOf is IndexDef of idx on on, its expressions printed by p.
func indexDefOf(p Provider, idx, on *catalog.Relation, pretty bool) string {
	var x IndexTexts
	if !idx.PlainIndex() {
		x = p.IndexTexts(idx, on, pretty)
	}
	return IndexDef(idx, on, x)
}

// isUnique reports whether idx is a unique index.
func isUnique(idx *catalog.Relation) bool { return idx.With[catalog.IndexUniqueOption] == "true" }

// isUniqueConstraint reports whether idx is the index of a UNIQUE
// constraint, which pg_constraint lists (contype 'u', its OID the
// index's plus 2*indexOIDBase).
func isUniqueConstraint(idx *catalog.Relation) bool {
	return isUnique(idx) && idx.With[catalog.IndexConstraintOption] == "true"
}

// uniqueConstraintRow is the pg_constraint row of a UNIQUE constraint's
// index idx on relation on.
func uniqueConstraintRow(p Provider, idx, on *catalog.Relation) types.Row {
	keys, _ := onColumns(idx, on)
	var nums []string
	for _, name := range keys {
		for i, c := range on.Cols {
			if c.Name == name {
				nums = append(nums, strconv.Itoa(attnum(on, i)))
			}
		}
	}
	return types.Row{vOid(idx.OID + 2*indexOIDBase), vStr(idx.Name), vOid(nspOID(on.Schema, p.Catalog())), vStr("u"), vBool(false), vBool(false), vBool(true), vOid(on.OID), vOid(0), vOid(idx.OID), vOid(0), vOid(0), vStr(" "), vStr(" "), vStr(" "), vBool(true), vInt(0), vBool(true), vStr("{" + strings.Join(nums, ",") + "}"), null, null}
}

// uniqueConstraintDef is pg_get_constraintdef of a UNIQUE constraint.
func uniqueConstraintDef(idx, on *catalog.Relation) string {
	keys, _ := onColumns(idx, on)
	for i := range keys {
		keys[i] = sql.QuoteIdent(keys[i])
	}
	if idx.With[catalog.IndexNullsNotDistinctOption] == "true" {
		return "UNIQUE NULLS NOT DISTINCT (" + strings.Join(keys, ", ") + ")"
	}
	return "UNIQUE (" + strings.Join(keys, ", ") + ")"
}
