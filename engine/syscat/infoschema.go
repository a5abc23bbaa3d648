package syscat

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// This file emulates the parts of information_schema that tools read
// (see the PostgreSQL 15 docs, chapter 37 "The Information Schema").
//
// As in PostgreSQL, each view lists only what the session's role may
// know of: a relation it owns (has the owner's privileges of) or holds
// some privilege on, the columns of those it owns or may SELECT, INSERT,
// UPDATE or REFERENCE, and the sequences it owns or may use; a view's
// definition only to its owner. The weir schema's views are anyone's to
// read, and so is every schema (weir checks no USAGE on schemas).

// Privileges of a relation that show it in information_schema.tables
// and views (has_table_privilege's list there) and that show its columns
// in information_schema.columns (has_column_privilege's: weir has no
// column privileges, so a table's stand for its columns').
const (
	privShowsTable   = catalog.PrivTableAll
	privShowsColumns = catalog.PrivSelect | catalog.PrivInsert | catalog.PrivUpdate | catalog.PrivReferences
)

func infoSchemaTables() []*table {
	return []*table{
		def("information_schema", "schemata", "catalog_name:name schema_name:name schema_owner:name", func(p Provider) []types.Row {
			// PostgreSQL 15 lists the schemas the role owns or may use
			// (USAGE or CREATE): weir checks no USAGE on schemas, so
			// every role may use every schema.
			rows := []types.Row{{vStr(p.Database()), vStr("information_schema"), vStr("root")}, {vStr(p.Database()), vStr("pg_catalog"), vStr("root")}, {vStr(p.Database()), vStr(Weir), vStr("root")}}
			for _, sc := range p.Catalog().Schemas() {
				rows = append(rows, types.Row{vStr(p.Database()), vStr(sc), vStr("root")})
			}
			return rows
		}),
		def("information_schema", "referential_constraints", "constraint_catalog:name constraint_schema:name constraint_name:name unique_constraint_catalog:name unique_constraint_schema:name unique_constraint_name:name match_option:text update_rule:text delete_rule:text", referentialConstraintRows),
		def("information_schema", "table_constraints", "constraint_catalog:name constraint_schema:name constraint_name:name table_catalog:name table_schema:name table_name:name constraint_type:text is_deferrable:text initially_deferred:text enforced:text nulls_distinct:text", tableConstraintRows),
		def("information_schema", "check_constraints", "constraint_catalog:name constraint_schema:name constraint_name:name check_clause:text", checkConstraintRows),
		def("information_schema", "key_column_usage", "constraint_catalog:name constraint_schema:name constraint_name:name table_catalog:name table_schema:name table_name:name column_name:name ordinal_position:int4 position_in_unique_constraint:int4", keyColumnUsageRows),
		def("information_schema", "tables", "table_catalog:name table_schema:name table_name:name table_type:text is_insertable_into:text", func(p Provider) []types.Row {
			var rows []types.Row
			for _, r := range seenRelations(p) {
				if r.Kind == catalog.KindSequence || r.Kind == catalog.KindIndex || !p.HoldsAny(r, -1, privShowsTable) {
					continue
				}
				tt, ins := "BASE TABLE", "YES"
				if r.Kind != catalog.KindTable {
					tt, ins = "VIEW", "NO"
				}
				if r.Temp {
					tt = "LOCAL TEMPORARY"
				}
				rows = append(rows, types.Row{vStr(p.Database()), vStr(r.Schema), vStr(r.Name), vStr(tt), vStr(ins)})
			}
			return append(rows, weirTablesRows(p.Database())...)
		}),
		def("information_schema", "sequences", "sequence_catalog:name sequence_schema:name sequence_name:name data_type:text numeric_precision:int4 numeric_precision_radix:int4 numeric_scale:int4 start_value:text minimum_value:text maximum_value:text increment:text cycle_option:text", func(p Provider) []types.Row {
			// CREATE SEQUENCE's sequences and the columns', those the
			// role owns or holds a privilege on.
			var rows []types.Row
			add := func(schema, name string, t types.T, start int64) {
				typ, bits := "bigint", 64
				switch t.ID {
				case types.Int2:
					typ, bits = "smallint", 16
				case types.Int4:
					typ, bits = "integer", 32
				}
				rows = append(rows, types.Row{vStr(p.Database()), vStr(schema), vStr(name), vStr(typ), vInt(bits), vInt(2), vInt(0),
					vStr(strconv.FormatInt(start, 10)), vStr("1"), vStr(strconv.FormatInt(int64(1)<<(bits-1)-1, 10)), vStr("1"), vStr("NO")})
			}
			for _, r := range seenRelations(p) {
				switch r.Kind {
				case catalog.KindSequence:
					if !p.HoldsAny(r, -1, catalog.PrivSequenceAll) {
						continue
					}
					t := types.T{ID: types.Int8, Mod: -1}
					switch r.With["as"] {
					case "smallint":
						t.ID = types.Int2
					case "integer":
						t.ID = types.Int4
					}
					start, err := strconv.ParseInt(r.With["start"], 10, 64)
					if err != nil || start == 0 {
						start = 1
					}
					add(r.Schema, r.Name, t, start)
				case catalog.KindTable:
					for _, o := range ownedSeqs(r) {
						// An identity column's sequence is internal to it
						// and left out, as in PostgreSQL.
						if r.Cols[o].Identity == "" && p.HoldsAny(r, o, catalog.PrivSequenceAll) {
							add(r.Schema, r.Cols[o].Seq, r.Cols[o].T, 1)
						}
					}
				}
			}
			return rows
		}),
		def("information_schema", "views", "table_catalog:name table_schema:name table_name:name view_definition:text", func(p Provider) []types.Row {
			var rows []types.Row
			for _, r := range seenRelations(p) {
				// Materialized views are not views here, as in PostgreSQL.
				if r.Kind != catalog.KindView || !p.HoldsAny(r, -1, privShowsTable) {
					continue
				}
				def := null
				if p.HasPrivsOfRole(r.Owner) {
					def = vStr(p.ViewText(r, false))
				}
				rows = append(rows, types.Row{vStr(p.Database()), vStr(r.Schema), vStr(r.Name), def})
			}
			return rows
		}),
		def("information_schema", "columns", "table_catalog:name table_schema:name table_name:name column_name:name ordinal_position:int4 column_default:text is_nullable:text data_type:text character_maximum_length:int4 numeric_precision:int4 numeric_scale:int4 datetime_precision:int4 collation_catalog:name collation_schema:name collation_name:name udt_name:name is_identity:text identity_generation:text identity_start:text identity_increment:text identity_maximum:text identity_minimum:text identity_cycle:text", func(p Provider) []types.Row {
			var rows []types.Row
			for _, r := range seenRelations(p) {
				// PostgreSQL lists the columns of tables and views, not
				// of materialized views.
				if r.Kind == catalog.KindSequence || r.Kind == catalog.KindIndex || r.Kind == catalog.KindMView || !p.HoldsAny(r, -1, privShowsColumns) {
					continue
				}
				for i, c := range r.Cols {
					if c.Hidden {
						continue
					}
					nullable := "YES"
					if c.NotNull {
						nullable = "NO"
					}
					def := null
					if c.Default != "" {
						def = vStr(p.DefaultText(r, i))
					}
					charLen, prec, scale, dtp := null, null, null, null
					dataType := types.T{ID: c.T.ID, Mod: -1}.String()
					if c.T.IsArray() {
						dataType = "ARRAY" // the element type is udt_name's
					}
					switch c.T.ID {
					case types.Bpchar:
						dataType = "character"
						if c.T.Mod >= 4 {
							charLen = vInt(int(c.T.Mod - 4))
						}
					case types.Varchar:
						if c.T.Mod >= 4 {
							charLen = vInt(int(c.T.Mod - 4))
						}
					case types.Int2:
						prec, scale = vInt(16), vInt(0)
					case types.Int4:
						prec, scale = vInt(32), vInt(0)
					case types.Int8:
						prec, scale = vInt(64), vInt(0)
					case types.Float4:
						prec = vInt(24)
					case types.Float8:
						prec = vInt(53)
					case types.Numeric:
						if c.T.Mod >= 4 {
							prec, scale = vInt(int((c.T.Mod-4)>>16)), vInt(int((c.T.Mod-4)&0xffff))
						}
					case types.Date:
						dtp = vInt(0)
					case types.Time, types.Timestamp, types.Timestamptz, types.Interval:
						dtp = vInt(6)
						if c.T.Mod >= 0 {
							dtp = vInt(int(c.T.Mod))
						}
					}
					// An identity column's sequence is shown by the
					// identity_* columns, not as a default.
					isIdent, gen, start, incr, max, min := vStr("NO"), null, null, null, null, null
					if c.Identity != "" {
						def, isIdent, start, incr, min = null, vStr("YES"), vStr(strconv.FormatInt(c.SeqFirst(), 10)), vStr("1"), vStr("1")
						gen = vStr("BY DEFAULT")
						if c.Identity == "always" {
							gen = vStr("ALWAYS")
						}
						max = vStr(strconv.FormatInt(identityMax(c.T), 10))
					}
					// A column of the default collation shows none, as in
					// PostgreSQL; the others are pg_catalog's.
					collCatalog, collSchema, collName := null, null, null
					if c.Collation != "" {
						collCatalog, collSchema, collName = vStr(p.Database()), vStr("pg_catalog"), vStr(c.Collation)
					}
					rows = append(rows, types.Row{vStr(p.Database()), vStr(r.Schema), vStr(r.Name), vStr(c.Name), vInt(attnum(r, i)), def, vStr(nullable),
						vStr(dataType), charLen, prec, scale, dtp, collCatalog, collSchema, collName, vStr(udtName(c.T)),
						isIdent, gen, start, incr, max, min, vStr("NO")})
				}
			}
			return append(rows, weirColumnsRows(p.Database())...)
		}),
	}
}

// identityMax is the largest value of an identity column of type t.
func identityMax(t types.T) int64 {
	switch t.ID {
	case types.Int2:
		return math.MaxInt16
	case types.Int4:
		return math.MaxInt32
	}
	return math.MaxInt64
}

// udtName is information_schema's udt_name of a type: its pg_type name.
func udtName(t types.T) string {
	for _, tr := range pgTypes {
		if tr.t.ID == t.ID {
			return tr.name
		}
	}
	return ""
}

// notNullName is the name information_schema gives the NOT NULL
// constraint of column i of table r: <schema oid>_<table oid>_<attnum>
// _not_null, as PostgreSQL 15 makes it up.
func notNullName(p Provider, r *catalog.Relation, i int) string {
	return strconv.FormatUint(uint64(nspOID(r.Schema, p.Catalog())), 10) + "_" + strconv.FormatUint(uint64(r.OID), 10) + "_" + strconv.Itoa(attnum(r, i)) + "_not_null"
}

// notNullColumns are the columns of table r that are NOT NULL and that
// pg_attribute lists (a primary key's are).
func notNullColumns(r *catalog.Relation) []int {
	var out []int
	for i, c := range r.Cols {
		if (c.NotNull || slices.Contains(r.PK, i) && hasRealPK(r)) && !c.Hidden && !c.Dropped {
			out = append(out, i)
		}
	}
	return out
}

// tableConstraintRows are information_schema.table_constraints: the
// PRIMARY KEY, UNIQUE, CHECK and FOREIGN KEY constraints of the tables
// the role owns or may change (any privilege but SELECT), and a CHECK
// for each NOT NULL column, as PostgreSQL 15 lists them.
func tableConstraintRows(p Provider) []types.Row {
	var rows []types.Row
	cat := p.Catalog()
	db := vStr(p.Database())
	add := func(r *catalog.Relation, name, kind string, nullsDistinct types.Datum) {
		rows = append(rows, types.Row{db, vStr(r.Schema), vStr(name), db, vStr(r.Schema), vStr(r.Name), vStr(kind), vStr("NO"), vStr("NO"), vStr("YES"), nullsDistinct})
	}
	yesNo := func(b bool) types.Datum {
		if b {
			return vStr("YES")
		}
		return vStr("NO")
	}
	for _, r := range seenRelations(p) {
		if r.Kind != catalog.KindTable || !p.HoldsAny(r, -1, catalog.PrivTableAll&^catalog.PrivSelect) {
			continue
		}
		if hasRealPK(r) {
			add(r, r.Name+"_pkey", "PRIMARY KEY", types.NullDatum)
		}
		for _, idx := range userRelations(cat) {
			if on, ok := indexedRel(cat, idx); ok && idx.Kind == catalog.KindIndex && on.ID == r.ID && isUniqueConstraint(idx) {
				distinct := "YES"
				if idx.With[catalog.IndexNullsNotDistinctOption] == "true" {
					distinct = "NO"
				}
				add(r, idx.Name, "UNIQUE", vStr(distinct))
			}
		}
		for _, c := range r.Checks {
			add(r, c.Name, "CHECK", types.NullDatum)
		}
		for _, f := range r.ForeignKeys {
			add(r, f.Name, "FOREIGN KEY", types.NullDatum)
			rows[len(rows)-1][7], rows[len(rows)-1][8] = yesNo(f.Deferrable), yesNo(f.Deferred)
		}
		for _, i := range notNullColumns(r) {
			add(r, notNullName(p, r, i), "CHECK", types.NullDatum)
		}
	}
	return rows
}

// checkConstraintRows are information_schema.check_constraints: the
// CHECK constraints of the tables and domains the role owns (has the
// privileges of the owner of), their clause as pg_get_constraintdef
// prints it without CHECK, and one for each NOT NULL column of those
// tables, as PostgreSQL 15 lists them.
func checkConstraintRows(p Provider) []types.Row {
	var rows []types.Row
	cat := p.Catalog()
	db := vStr(p.Database())
	seen := map[string]bool{} // PostgreSQL's view is a UNION
	add := func(schema, name, clause string) {
		if k := schema + "\x00" + name + "\x00" + clause; !seen[k] {
			seen[k] = true
			rows = append(rows, types.Row{db, vStr(schema), vStr(name), vStr(clause)})
		}
	}
	for _, r := range seenRelations(p) {
		if r.Kind != catalog.KindTable || !p.HasPrivsOfRole(r.Owner) {
			continue
		}
		for k, c := range r.Checks {
			add(r.Schema, c.Name, strings.TrimPrefix(p.ConstraintDef(checkOIDBase+r.ID<<8+uint32(k)), "CHECK "))
		}
		for _, i := range notNullColumns(r) {
			add(r.Schema, notNullName(p, r, i), r.Cols[i].Name+" IS NOT NULL")
		}
	}
	for _, u := range cat.Types() {
		if !p.HasPrivsOfRole(u.Owner) {
			continue
		}
		for _, c := range u.Checks {
			add(u.Schema, c.Name, strings.TrimPrefix(p.ConstraintDef(c.OID), "CHECK "))
		}
	}
	return rows
}
