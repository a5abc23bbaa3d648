package syscat

import (
	"strconv"
	"strings"

	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// fkOIDBase is where the OIDs of FOREIGN KEY constraints start:
// constraint k of the relation of id ID has fkOIDBase + ID<<8 + k (above
// the CHECK constraints' range).
const fkOIDBase = 3 << 30

// ForeignKeyByOID finds the FOREIGN KEY constraint of OID oid: the table
// holding it and its index in ForeignKeys.
func ForeignKeyByOID(cat Catalog, oid uint32) (*catalog.Relation, int, bool) {
	if oid < fkOIDBase {
		return nil, 0, false
	}
	r, ok := cat.ByID((oid - fkOIDBase) >> 8)
	k := int(oid & 0xff)
	if !ok || k >= len(r.ForeignKeys) {
		return nil, 0, false
	}
	return r, k, true
}

// referencedTables returns the IDs of the tables a foreign key
// references.
func referencedTables(cat Catalog) map[uint32]bool {
	out := map[uint32]bool{}
	for _, r := range cat.All() {
		for _, f := range r.ForeignKeys {
			out[f.RefID] = true
		}
	}
	return out
}

// attnumList is an int2vector column's text of the columns cols of r.
func attnumList(r *catalog.Relation, cols []int) string {
	nums := make([]string, len(cols))
	for i, c := range cols {
		nums[i] = strconv.Itoa(attnum(r, c))
	}
	return "{" + strings.Join(nums, ",") + "}"
}

// fkIndexOID is the OID of the unique index on parent that foreign key
// f references through (pg_constraint.conindid).
func fkIndexOID(cat Catalog, parent *catalog.Relation, f *catalog.ForeignKey) uint32 {
	if hasRealPK(parent) && sameCols(parent.PK, f.RefCols) {
		return parent.OID + indexOIDBase
	}
	for _, idx := range indexesOn(cat, parent) {
		if isUnique(idx) && sameCols(indexKeyCols(idx, parent), f.RefCols) {
			return idx.OID
		}
	}
	return 0
}

// sameCols reports whether a and b hold the same columns in any order.
func sameCols(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		found := false
		for _, y := range b {
			found = found || x == y
		}
		if !found {
			return false
		}
	}
	return true
}

// foreignKeyRow is the pg_constraint row of FOREIGN KEY constraint k of
// r (contype 'f').
func foreignKeyRow(p Provider, r *catalog.Relation, k int) types.Row {
	f := &r.ForeignKeys[k]
	cat := p.Catalog()
	parent, ok := cat.ByID(f.RefID)
	confrelid, conindid, confkey := uint32(0), uint32(0), types.NullDatum
	if ok {
		confrelid, conindid, confkey = parent.OID, fkIndexOID(cat, parent, f), vStr(attnumList(parent, f.RefCols))
	}
	return types.Row{vOid(fkOIDBase + r.ID<<8 + uint32(k)), vStr(f.Name), vOid(nspOID(r.Schema, cat)), vStr("f"), vBool(f.Deferrable), vBool(f.Deferred), vBool(!f.NotValid),
		vOid(r.OID), vOid(0), vOid(conindid), vOid(0), vOid(confrelid), vStr(string(f.OnUpdate)), vStr(string(f.OnDelete)), vStr(string(f.Match)),
		vBool(true), vInt(0), vBool(true), vStr(attnumList(r, f.Cols)), confkey, types.NullDatum}
}

// fkActionWords are the referential actions as pg_get_constraintdef
// prints them ("" for NO ACTION, which it leaves out).
var fkActionWords = map[byte]string{
	catalog.FKRestrict: "RESTRICT", catalog.FKCascade: "CASCADE", catalog.FKSetNull: "SET NULL", catalog.FKSetDefault: "SET DEFAULT",
}

// foreignKeyDef is pg_get_constraintdef of FOREIGN KEY constraint k of r,
// as PostgreSQL 15's ruleutils prints it.
func foreignKeyDef(cat Catalog, r *catalog.Relation, k int) string {
	f := &r.ForeignKeys[k]
	names := func(rel *catalog.Relation, cols []int) string {
		out := make([]string, len(cols))
		for i, c := range cols {
			out[i] = sql.QuoteIdent(rel.Cols[c].Name)
		}
		return strings.Join(out, ", ")
	}
	var b strings.Builder
	b.WriteString("FOREIGN KEY (" + names(r, f.Cols) + ") REFERENCES ")
	if parent, ok := cat.ByID(f.RefID); ok {
		if parent.Schema != catalog.PublicSchema && !strings.HasPrefix(parent.Schema, catalog.TempSchemaPrefix) {
			b.WriteString(sql.QuoteIdent(parent.Schema) + ".")
		}
		b.WriteString(sql.QuoteIdent(parent.Name) + "(" + names(parent, f.RefCols) + ")")
	}
	if f.Match == catalog.FKMatchFull {
		b.WriteString(" MATCH FULL")
	}
	if w := fkActionWords[f.OnUpdate]; w != "" {
		b.WriteString(" ON UPDATE " + w)
	}
	if w := fkActionWords[f.OnDelete]; w != "" {
		b.WriteString(" ON DELETE " + w)
	}
	if f.DeleteSetCols != nil {
		b.WriteString(" (" + names(r, f.DeleteSetCols) + ")")
	}
	if f.Deferrable {
		b.WriteString(" DEFERRABLE")
	}
	if f.Deferred {
		b.WriteString(" INITIALLY DEFERRED")
	}
	if f.NotValid {
		b.WriteString(" NOT VALID")
	}
	return b.String()
}

// fkUniqueKey returns the unique key of parent that foreign key f
// references: its name when it is a constraint (the primary key or a
// UNIQUE constraint; "" for a unique index of no constraint) and its
// columns in the key's order.
func fkUniqueKey(cat Catalog, parent *catalog.Relation, f *catalog.ForeignKey) (string, []int) {
	if hasRealPK(parent) && sameCols(parent.PK, f.RefCols) {
		return parent.Name + "_pkey", parent.PK
	}
	for _, idx := range indexesOn(cat, parent) {
		if key := indexKeyCols(idx, parent); isUnique(idx) && sameCols(key, f.RefCols) {
			if isUniqueConstraint(idx) {
				return idx.Name, key
			}
			return "", key
		}
	}
	return "", nil
}

// fkRuleWords are the referential actions as information_schema names
// them.
var fkRuleWords = map[byte]string{
	catalog.FKNoAction: "NO ACTION", catalog.FKRestrict: "RESTRICT", catalog.FKCascade: "CASCADE", catalog.FKSetNull: "SET NULL", catalog.FKSetDefault: "SET DEFAULT",
}

// referentialConstraintRows are information_schema.referential_constraints:
// one row per foreign key (every one, whatever the role's privileges, as
// weir's pg_class lists every relation).
func referentialConstraintRows(p Provider) []types.Row {
	var rows []types.Row
	cat := p.Catalog()
	for _, r := range seenRelations(p) {
		// PostgreSQL 15 lists the constraints of tables the role owns
		// or may change (any privilege but SELECT).
		if !p.HoldsAny(r, -1, catalog.PrivTableAll&^catalog.PrivSelect) {
			continue
		}
		for k := range r.ForeignKeys {
			f := &r.ForeignKeys[k]
			ucat, uschema, uname := types.NullDatum, types.NullDatum, types.NullDatum
			if parent, ok := cat.ByID(f.RefID); ok {
				if name, _ := fkUniqueKey(cat, parent, f); name != "" {
					ucat, uschema, uname = vStr(p.Database()), vStr(parent.Schema), vStr(name)
				}
			}
			match := "NONE"
			if f.Match == catalog.FKMatchFull {
				match = "FULL"
			}
			rows = append(rows, types.Row{vStr(p.Database()), vStr(r.Schema), vStr(f.Name), ucat, uschema, uname,
				vStr(match), vStr(fkRuleWords[f.OnUpdate]), vStr(fkRuleWords[f.OnDelete])})
		}
	}
	return rows
}

// keyColumnUsageRows are information_schema.key_column_usage: the
// columns of every primary key, UNIQUE and FOREIGN KEY constraint, a
// foreign key's with the position of the column it references in the
// referenced key.
func keyColumnUsageRows(p Provider) []types.Row {
	var rows []types.Row
	cat := p.Catalog()
	db := vStr(p.Database())
	add := func(r *catalog.Relation, con string, cols []int, refPos []int) {
		for i, c := range cols {
			pos := types.NullDatum
			if refPos != nil {
				pos = vInt(refPos[i])
			}
			rows = append(rows, types.Row{db, vStr(r.Schema), vStr(con), db, vStr(r.Schema), vStr(r.Name), vStr(r.Cols[c].Name), vInt(i + 1), pos})
		}
	}
	// PostgreSQL 15 lists the columns of the tables the role owns or
	// holds a column privilege on (a table's privileges stand for its
	// columns'): a unique constraint's by its table, not its index.
	shows := func(r *catalog.Relation) bool { return p.HoldsAny(r, -1, privShowsColumns) }
	for _, r := range seenRelations(p) {
		switch r.Kind {
		case catalog.KindTable:
			if !shows(r) {
				continue
			}
			if hasRealPK(r) {
				add(r, r.Name+"_pkey", r.PK, nil)
			}
			for k := range r.ForeignKeys {
				f := &r.ForeignKeys[k]
				parent, ok := cat.ByID(f.RefID)
				if !ok {
					continue
				}
				_, key := fkUniqueKey(cat, parent, f)
				refPos := make([]int, len(f.RefCols))
				for i, c := range f.RefCols {
					for j, kc := range key {
						if kc == c {
							refPos[i] = j + 1
						}
					}
				}
				add(r, f.Name, f.Cols, refPos)
			}
		case catalog.KindIndex:
			if on, ok := indexedRel(cat, r); ok && isUniqueConstraint(r) && shows(on) {
				add(on, r.Name, indexKeyCols(r, on), nil)
			}
		}
	}
	return rows
}

// indexKeyCols returns the positions in on.Cols of index idx's key
// columns, in the key's order.
func indexKeyCols(idx, on *catalog.Relation) []int {
	keys, _ := onColumns(idx, on)
	out := make([]int, 0, len(keys))
	for _, name := range keys {
		for i, c := range on.Cols {
			if c.Name == name && !c.Dropped {
				out = append(out, i)
				break
			}
		}
	}
	return out
}
