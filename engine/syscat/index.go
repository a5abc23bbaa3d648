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
// definition reads the table as pinned (catalog.Relation.DepCols).
func onColumns(idx, on *catalog.Relation) (keys, include []string) {
	keys, include = IndexColumns(idx)
	pin, ok := idx.DepCols[on.ID]
	if !ok {
		return keys, include
	}
	now := func(names []string) {
		for i, n := range names {
			if p := slices.Index(pin, n); p >= 0 && p < len(on.Cols) {
				names[i] = on.Cols[p].Name
			}
		}
	}
	now(keys)
	now(include)
	return keys, include
}

// IndexDef is pg_get_indexdef (and pg_indexes.indexdef) of an index:
// CREATE INDEX name ON schema.rel USING btree (cols) [INCLUDE (cols)],
// as PostgreSQL prints it; on is the indexed relation.
func IndexDef(idx, on *catalog.Relation) string {
	keys, include := onColumns(idx, on)
	desc := strings.Split(idx.With[catalog.IndexDescOption], ",")
	for i := range keys {
		keys[i] = sql.QuoteIdent(keys[i])
		if slices.Contains(desc, strconv.Itoa(i)) {
			keys[i] += " DESC"
		}
	}
	def := "CREATE INDEX " + sql.QuoteIdent(idx.Name) + " ON " + on.Schema + "." + sql.QuoteIdent(on.Name) + " USING btree (" + strings.Join(keys, ", ") + ")"
	if len(include) > 0 {
		for i := range include {
			include[i] = sql.QuoteIdent(include[i])
		}
		def += " INCLUDE (" + strings.Join(include, ", ") + ")"
	}
	return def
}

// indexAttnums are the attribute numbers, in the indexed relation, of an
// index's key and INCLUDE columns.
func indexAttnums(idx, on *catalog.Relation) []string {
	keys, include := onColumns(idx, on)
	var out []string
	for _, name := range append(keys, include...) {
		for i, c := range on.Cols {
			if c.Name == name {
				out = append(out, strconv.Itoa(attnum(on, i)))
			}
		}
	}
	return out
}

// pgIndexRow is an index's pg_index row.
func pgIndexRow(idx, on *catalog.Relation) types.Row {
	cols := indexAttnums(idx, on)
	return types.Row{vOid(idx.OID), vOid(on.OID), vInt(len(cols)), vInt(idx.IndexKeys()), vBool(false), vBool(false), vBool(false), vBool(true), vBool(false), vBool(true), vBool(false), vBool(true), vBool(true), vBool(false), vBool(false), vStr(strings.Join(cols, " ")), null, null}
}
