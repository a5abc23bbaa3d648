package syscat

import (
	"strconv"

	"github.com/weirdb/weir/sql/catalog"
)

// relationSize answers the database object size functions (docs §9.27.7)
// for the relation with the given OID, and false when there is none (the
// function returns NULL, as PostgreSQL's does for an OID no relation has).
// A relation's main data is the table keyed by its id: a table's rows, a
// materialized view's result, an index's entries; its other storage,
// which PostgreSQL would count as the TOAST and free-space forks of
// pg_table_size, is its state tables (a view's operators' state, a
// sink's log store) and a unique index's key store. Views, sources
// without rows, sequences and the system catalogs have none and read 0.
func relationSize(p Provider, fn string, oid uint32) (string, bool) {
	cat := p.Catalog()
	r, ok := cat.ByOID(oid)
	if !ok {
		if oid >= indexOIDBase && oid < 2*indexOIDBase {
			// A primary key's index is the table itself, keyed by it.
			if _, ok := cat.ByOID(oid - indexOIDBase); ok {
				return "0", true
			}
		}
		return "", false
	}
	var n int64
	switch fn {
	case "pg_relation_size":
		n = mainSize(p, r)
	case "pg_table_size":
		n = tableSize(p, r)
	case "pg_indexes_size":
		for _, idx := range indexesOn(cat, r) {
			n += tableSize(p, idx)
		}
	case "pg_total_relation_size":
		n = tableSize(p, r)
		for _, idx := range indexesOn(cat, r) {
			n += tableSize(p, idx)
		}
	default:
		return "", false
	}
	return strconv.FormatInt(n, 10), true
}

// mainSize is the size of r's own table (pg_relation_size's main fork).
func mainSize(p Provider, r *catalog.Relation) int64 {
	switch r.Kind {
	case catalog.KindTable, catalog.KindMView, catalog.KindIndex, catalog.KindSource:
		return p.TableBytes(r.ID)
	}
	return 0
}

// tableSize is mainSize plus r's state tables and unique key store.
func tableSize(p Provider, r *catalog.Relation) int64 {
	n := mainSize(p, r)
	for _, id := range r.StateTables {
		n += p.TableBytes(id)
	}
	if id := r.UniqueStore(); id != 0 {
		n += p.TableBytes(id)
	}
	return n
}
