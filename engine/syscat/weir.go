package syscat

import (
	"slices"
	"strings"

	"github.com/weirdb/weir/types"
)

// This file makes the weir schema a schema like any other for psql and
// tools: it is listed by \dn and information_schema.schemata, its views
// are relations of pg_class (listed by \dt weir.*, described by \d+ with
// a comment on every column) and of information_schema.tables and
// columns. The views themselves are in views.go.

// OIDs of the weir schema and its relations: below FirstNormalObjectId
// (16384), where Postgres keeps its own catalogs, so they never meet a
// user relation's.
const (
	oidWeirSchema = 13900
	oidWeirBase   = 13901
)

// weirView defines view name of the weir schema with its description
// and its columns', given as "column: text" pairs.
func weirView(name, spec, desc string, rows func(p Provider) []types.Row, colDescs ...string) *table {
	t := def(Weir, name, spec, rows)
	t.desc, t.colDescs = desc, map[string]string{}
	for _, c := range colDescs {
		n, text, _ := strings.Cut(c, ": ")
		t.colDescs[n] = text
	}
	return t
}

// weirRelation is one view of the weir schema with its OID.
type weirRelation struct {
	oid uint32
	t   *table
}

// weirRelations lists the weir schema's views by name, numbered from
// oidWeirBase.
func weirRelations() []weirRelation {
	var names []string
	for _, t := range tables {
		if t.schema == Weir {
			names = append(names, t.name)
		}
	}
	slices.Sort(names)
	out := make([]weirRelation, len(names))
	for i, n := range names {
		out[i] = weirRelation{oid: uint32(oidWeirBase + i), t: tables[Weir+"."+n]}
	}
	return out
}

// weirRelationByOID finds a weir view by OID.
func weirRelationByOID(oid uint32) (weirRelation, bool) {
	rs := weirRelations()
	if oid < oidWeirBase || int(oid-oidWeirBase) >= len(rs) {
		return weirRelation{}, false
	}
	return rs[oid-oidWeirBase], true
}

// ColumnDescription is the description of column col of system table
// schema.name ("" when it has none).
func ColumnDescription(schema, name, col string) string {
	if t, ok := tables[schema+"."+name]; ok {
		return t.colDescs[col]
	}
	return ""
}

// weirNamespaceRow is weir's row of pg_namespace.
func weirNamespaceRow() types.Row {
	return types.Row{vOid(oidWeirSchema), vStr(Weir), vOid(oidRoot), null}
}

// weirClassRows are the weir views' rows of pg_class. They are tables
// (relkind r), as pg_catalog's are, so that \dt weir.* lists them.
func weirClassRows() []types.Row {
	var rows []types.Row
	for _, r := range weirRelations() {
		rows = append(rows, types.Row{vOid(r.oid), vStr(r.t.name), vOid(oidWeirSchema), vOid(0), vOid(0), vOid(oidRoot), vOid(oidHeapAM), vOid(0), vOid(0),
			vInt(0), vFloat(-1), vInt(0), vOid(0), vBool(false), vBool(false), vStr("p"), vStr("r"), vInt(len(r.t.cols)), vInt(0),
			vBool(false), vBool(false), vBool(false), vBool(false), vBool(false), vBool(true), vStr("n"), vBool(false), vOid(0), null, null, null})
	}
	return rows
}

// weirAttributeRows are the weir views' columns in pg_attribute.
func weirAttributeRows() []types.Row {
	var rows []types.Row
	for _, r := range weirRelations() {
		for i, c := range r.t.cols {
			coll := uint32(0)
			if c.T.IsString() && c.T.ID != types.Char && c.T.ID != types.Name {
				coll = 100
			}
			rows = append(rows, types.Row{vOid(r.oid), vStr(c.Name), vOid(c.T.OID()), vInt(-1), vInt(int(c.T.Size())), vInt(i + 1), vInt(0), vInt(-1), vInt(-1),
				vBool(c.T.Size() > 0 && c.T.Size() <= 8), vStr("i"), vStr(typStorage(c.T)), vStr(""), vBool(false), vBool(false), vBool(false), vStr(""), vStr(""), vBool(false), vBool(true), vInt(0), vOid(coll), null, null, null})
		}
	}
	return rows
}

// weirDescriptionRows are the weir views' rows of pg_description.
func weirDescriptionRows() []types.Row {
	var rows []types.Row
	for _, r := range weirRelations() {
		if r.t.desc != "" {
			rows = append(rows, types.Row{vOid(r.oid), vOid(oidPgClassRel), vInt(0), vStr(r.t.desc)})
		}
		for i, c := range r.t.cols {
			if text := r.t.colDescs[c.Name]; text != "" {
				rows = append(rows, types.Row{vOid(r.oid), vOid(oidPgClassRel), vInt(i + 1), vStr(text)})
			}
		}
	}
	return rows
}

// weirTablesRows are the weir views' rows of information_schema.tables.
func weirTablesRows(database string) []types.Row {
	var rows []types.Row
	for _, r := range weirRelations() {
		rows = append(rows, types.Row{vStr(database), vStr(Weir), vStr(r.t.name), vStr("BASE TABLE"), vStr("NO")})
	}
	return rows
}

// weirColumnsRows are the weir views' rows of information_schema.columns.
func weirColumnsRows(database string) []types.Row {
	var rows []types.Row
	for _, r := range weirRelations() {
		for i, c := range r.t.cols {
			rows = append(rows, types.Row{vStr(database), vStr(Weir), vStr(r.t.name), vStr(c.Name), vInt(i + 1), null, vStr("YES"),
				vStr(types.T{ID: c.T.ID, Mod: -1}.String()), null, null, null, null, null, null, null, vStr(udtName(c.T)),
				vStr("NO"), null, null, null, null, null, vStr("NO")})
		}
	}
	return rows
}

// describeWeir answers obj_description, col_description and
// pg_table_is_visible for the weir views (Describe).
func describeWeir(p Provider, fn string, oid uint32, col int) (string, bool) {
	r, ok := weirRelationByOID(oid)
	if !ok {
		return "", false
	}
	switch fn {
	case "obj_description":
		d := r.t.desc
		return d, d != ""
	case "col_description":
		if col < 1 || col > len(r.t.cols) {
			return "", false
		}
		d := r.t.colDescs[r.t.cols[col-1].Name]
		return d, d != ""
	case "pg_table_is_visible":
		// Visible when weir is on the search path, as for any schema.
		for _, s := range strings.Split(p.Setting("search_path"), ",") {
			if strings.Trim(strings.TrimSpace(s), `"`) == Weir {
				return "t", true
			}
		}
		return "f", true
	}
	return "", false
}
