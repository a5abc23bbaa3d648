package planner

import (
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// Catalog is what the binder needs to resolve names. engine implements it
// over sql/catalog.
type Catalog interface {
	// Relation finds a user relation by schema ("" = search path: public)
	// and name, both already case-folded.
	Relation(schema, name string) (*catalog.Relation, bool)
	// SystemTable returns the columns of a virtual system table such as
	// pg_catalog.pg_class or information_schema.tables ("" schema searches
	// pg_catalog, then information_schema).
	SystemTable(schema, name string) (schemaName string, cols types.Schema, ok bool)
}

// Bound is a bound statement.
type Bound struct {
	Plan Plan
	// Params are the inferred types of $1..$n.
	Params []types.T
	// Tag is the command tag verb: "SELECT", "INSERT", "UPDATE", "DELETE".
	Tag string
	// Deps are the IDs of the user relations the statement reads (views
	// expanded), for CREATE VIEW's dependency tracking.
	Deps []uint32
}

// Bind binds a parsed query against cat. paramHints are the client's
// parameter types (may be shorter than the number of parameters, or
// TUnknown entries: infer). Errors carry SQLSTATEs: 42P01 unknown table,
// 42703 unknown column, 42702 ambiguous column, 42883 unknown function or
// operator, 42804 type mismatch, 42803 grouping error, 42601 syntax.
func Bind(q *sql.Query, cat Catalog, paramHints []types.T) (*Bound, error) {
	return nil, pgerr.New(pgerr.FeatureNotSupported, "planner.Bind: not implemented")
}
