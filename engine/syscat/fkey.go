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
		if !isUnique(idx) {
			continue
		}
		pos, _ := catalog.IndexPositions(idx)
		if k := idx.IndexKeys(); len(pos) >= k && sameCols(pos[:k], f.RefCols) {
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
	return types.Row{vOid(fkOIDBase + r.ID<<8 + uint32(k)), vStr(f.Name), vOid(nspOID(r.Schema, cat)), vStr("f"), vBool(false), vBool(false), vBool(!f.NotValid),
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
	if f.NotValid {
		b.WriteString(" NOT VALID")
	}
	return b.String()
}
