package engine

// Unqualified relation names, as PostgreSQL 15's namespace.c finds them.
//
// An unqualified name of a table, view, materialized view, source, sink,
// index or sequence is looked up through the session's effective search
// path (relationSearch): its temporary schema first unless search_path
// places pg_temp, pg_catalog first unless search_path places it, then
// the schemas search_path lists, in order, $user meaning the session
// role's name; a schema that does not exist is skipped. A new relation
// whose name is unqualified goes to the first existing schema listed
// (creationSchema), and there being none is 3F000.
//
// A view, materialized view or sink stores its definition as SQL text,
// bound again at every restart and every query that reads a view. Its
// catalog entry keeps the search path it was created under
// (catalog.Relation.SearchPath: the schemas that existed then, $user
// resolved), and binding the definition again uses that path, never the
// binding session's: a later SET search_path does not change what an
// existing view reads.

import (
	"slices"
	"strings"

	"github.com/weirdb/weir/engine/syscat"
	"github.com/weirdb/weir/sql/catalog"
)

// onPathExists reports whether name is a schema an unqualified name may
// be looked up in or created in.
func (s *Session) onPathExists(name string) bool {
	switch {
	case name == "":
		return false
	case name == catalog.PublicSchema || slices.Contains(catalog.SystemSchemas, name):
		return true
	case name == s.tempSchema:
		return true
	}
	return slices.Contains(s.eng.cat.Schemas(), name)
}

// explicitPath returns the existing schemas a search_path value lists,
// in order and once each: $user resolved to the session role's name,
// pg_temp to the session's temporary schema (left out when the session
// has none, or when permanent), pg_catalog kept where it is listed.
func (s *Session) explicitPath(value string, permanent bool) (path []string, tempListed bool) {
	for _, n := range syscat.SplitSearchPath(value) {
		switch n {
		case "$user":
			n = s.role().Name
		case catalog.TempSchemaAlias:
			tempListed = true
			if permanent {
				continue
			}
			n = s.tempSchema
		}
		if !s.onPathExists(n) || slices.Contains(path, n) {
			continue
		}
		path = append(path, n)
	}
	return path, tempListed
}

// relationSearch returns the schemas an unqualified relation name is
// looked up in under the search_path value, in order, as PostgreSQL's
// recomputeNamespacePath builds its active path: the listed schemas
// (explicitPath), pg_catalog before them unless listed, the session's
// temporary schema before all unless listed (or when permanent, for a
// permanent view's definition: none). first, when not "", is the schema
// of a CREATE SCHEMA element, placed after the implicit schemas as
// PostgreSQL's override search path places it.
func (s *Session) relationSearch(value string, permanent bool, first string) []string {
	path, tempListed := s.explicitPath(value, permanent)
	var head []string
	if !tempListed && !permanent && s.tempSchema != "" {
		head = append(head, s.tempSchema)
	}
	if !slices.Contains(path, syscat.PgCatalog) {
		head = append(head, syscat.PgCatalog)
	}
	if first != "" {
		head = append(head, first)
	}
	out := head
	for _, n := range path {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// sessionSearch is relationSearch under the session's search_path.
func (s *Session) sessionSearch() []string {
	return s.relationSearch(s.searchPath(), false, s.schemaFirst)
}

// creationTarget returns the schema a new relation with an unqualified
// name goes to: the CREATE SCHEMA element's schema, else the first
// existing schema search_path lists (PostgreSQL's
// activeCreationNamespace). "" means none: 3F000 for the caller.
func (s *Session) creationTarget() string {
	if s.schemaFirst != "" {
		return s.schemaFirst
	}
	for _, n := range syscat.SplitSearchPath(s.searchPath()) {
		switch n {
		case "$user":
			n = s.role().Name
		case catalog.TempSchemaAlias:
			return catalog.TempSchemaAlias
		}
		if s.onPathExists(n) {
			return n
		}
	}
	return ""
}

// storedSearchPath is the search path a view, materialized view or sink
// created now keeps (catalog.Relation.SearchPath): the existing schemas
// search_path lists, $user resolved, pg_temp left out (a permanent
// definition never reads temporary relations, and a temporary one finds
// them first anyway). "" when that is public alone.
func (s *Session) storedSearchPath() string {
	path, _ := s.explicitPath(s.searchPath(), true)
	if len(path) == 1 && path[0] == catalog.PublicSchema {
		return ""
	}
	q := make([]string, len(path))
	for i, n := range path {
		q[i] = `"` + strings.ReplaceAll(n, `"`, `""`) + `"`
	}
	if len(q) == 0 {
		// No schema at all: a value that names none.
		return `""`
	}
	return strings.Join(q, ", ")
}

// definitionPath returns the search_path value a stored definition
// (catalog.Relation.SearchPath) is bound under.
func definitionPath(stored string) string {
	if stored == "" {
		return catalog.PublicSchema
	}
	return stored
}

// relVisible reports whether the unqualified name finds the relation
// of that name in schema under the session's search path (PostgreSQL's
// RelationIsVisible): PostgreSQL's messages and definitions qualify the
// names of relations that are not.
func (s *Session) relVisible(schema, name string) bool {
	for _, sc := range s.sessionSearch() {
		if sc == schema {
			return true
		}
		if sc == syscat.PgCatalog {
			if _, _, ok := syscat.Lookup(syscat.PgCatalog, name); ok {
				return false
			}
			continue
		}
		if _, ok := s.eng.cat.Lookup(sc, name); ok {
			return false
		}
	}
	return false
}
