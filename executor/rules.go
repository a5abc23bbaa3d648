package executor

import (
	"strings"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// RowRules applies a table's row rules (planner.RowRules) to rows about
// to be written: it computes the stored generated columns, then checks
// NOT NULL and the CHECK constraints, in PostgreSQL's order (generated
// columns first, ExecConstraints after: all NOT NULL before any CHECK,
// the CHECKs in the order planner.RowRules lists them, by name).
type RowRules struct {
	rel       *catalog.Relation
	generated []Evaluator // by column; nil entries are not generated
	checks    []Evaluator
	names     []string
	ts        []types.T
	// buf is the one-row chunk the evaluators read, reused row to row.
	buf *types.Chunk
	// domains checks the values of columns of a domain type.
	domains *DomainChecks
	// indexes compute the keys of the table's expression and partial
	// indexes (planner.RowRules.Indexes).
	indexes []indexRule
}

// indexRule is a compiled planner.IndexRule.
type indexRule struct {
	pred Evaluator
	keys []Evaluator
}

// NewRowRules compiles r for rows of rel.
func NewRowRules(rel *catalog.Relation, r planner.RowRules) (*RowRules, error) {
	rr := &RowRules{rel: rel}
	for i, c := range rel.Cols {
		rr.ts = append(rr.ts, c.T)
		if i < len(r.Generated) && r.Generated[i] != nil {
			if rr.generated == nil {
				rr.generated = make([]Evaluator, len(rel.Cols))
			}
			ev, err := Compile(r.Generated[i])
			if err != nil {
				return nil, err
			}
			rr.generated[i] = ev
		}
	}
	for _, c := range r.Checks {
		ev, err := Compile(c.Expr)
		if err != nil {
			return nil, err
		}
		rr.checks = append(rr.checks, ev)
		rr.names = append(rr.names, c.Name)
	}
	d, err := NewDomainChecks(r.Domains, rr.ts)
	if err != nil {
		return nil, err
	}
	rr.domains = d
	for _, ix := range r.Indexes {
		var c indexRule
		if ix.Pred != nil {
			if c.pred, err = Compile(ix.Pred); err != nil {
				return nil, err
			}
		}
		for _, k := range ix.Keys {
			if k == nil {
				continue
			}
			ev, err := Compile(k)
			if err != nil {
				return nil, err
			}
			c.keys = append(c.keys, ev)
		}
		rr.indexes = append(rr.indexes, c)
	}
	return rr, nil
}

// Domains checks the values row holds in columns of a domain type
// against the domain's constraints, before Apply: the columns domains
// marks (those an UPDATE sets), all when it is nil (an INSERT's row, in
// which a column the statement leaves out holds its default or NULL,
// coerced to the domain as PostgreSQL does).
func (rr *RowRules) Domains(row types.Row, ec *EvalCtx, domains []bool) error {
	return rr.domains.Check(row, ec, domains)
}

// Domain checks v, a value for column i, against the column's domain
// (nil when it has none).
func (rr *RowRules) Domain(i int, v types.Datum, ec *EvalCtx) error {
	if rr.domains == nil || rr.domains.cols[i] == nil {
		return nil
	}
	return rr.domains.cols[i].datum(ec, v, rr.ts[i])
}

// Apply computes row's generated columns in place and checks it: 23502
// for a NULL in a NOT NULL column, 23514 for a CHECK it makes false,
// each with PostgreSQL's message and "Failing row contains (...)"
// detail; modified marks the columns the statement gave or set, all the
// detail shows a role that may not read the table (ExecCtx.MaySelect).
func (rr *RowRules) Apply(row types.Row, ec *EvalCtx, modified []bool) error {
	if rr.generated != nil {
		c := rr.chunk(row)
		for i, ev := range rr.generated {
			if ev == nil {
				continue
			}
			v, err := ev.Eval(ec, c)
			if err != nil {
				return err
			}
			row[i] = copyDatum(v.Get(0))
		}
	}
	if err := notNull(rr.rel, row, ec, modified); err != nil {
		return err
	}
	if len(rr.checks) == 0 && len(rr.indexes) == 0 {
		return nil
	}
	c := rr.chunk(row)
	for k, ev := range rr.checks {
		v, err := ev.Eval(ec, c)
		if err != nil {
			return err
		}
		if d := v.Get(0); !d.Null && d.I == 0 {
			return withFailingRow(pgerr.New(pgerr.CheckViolation, "new row for relation \"%s\" violates check constraint \"%s\"", rr.rel.Name, rr.names[k]).
				WithTable(rr.rel.Schema, rr.rel.Name).WithConstraint(rr.names[k]), rr.rel, row, ec, modified)
		}
	}
	// The index keys, after the constraints, as PostgreSQL inserts
	// index entries after ExecConstraints: only their errors matter here.
	for _, ix := range rr.indexes {
		if ix.pred != nil {
			v, err := ix.pred.Eval(ec, c)
			if err != nil {
				return IndexKeyError{err}
			}
			if d := v.Get(0); d.Null || d.I == 0 {
				continue
			}
		}
		for _, k := range ix.keys {
			if _, err := k.Eval(ec, c); err != nil {
				return IndexKeyError{err}
			}
		}
	}
	return nil
}

// IndexKeyError is an error computing a row's key in an expression or
// partial index (RowRules.Apply): a writer that reports where a row
// came from (COPY's line) tells it from the row's own errors, as
// PostgreSQL computes index keys later, when it inserts the entries.
type IndexKeyError struct{ Err error }

func (e IndexKeyError) Error() string { return e.Err.Error() }

// Unwrap returns the error computing the key.
func (e IndexKeyError) Unwrap() error { return e.Err }

// chunk is row as a chunk of one row, for the evaluators; it is valid
// until the next call.
func (rr *RowRules) chunk(row types.Row) *types.Chunk {
	if rr.buf == nil {
		rr.buf = types.NewChunk(rr.ts, 1)
	} else {
		rr.buf.Reset()
	}
	rr.buf.AppendRow(types.OpInsert, row)
	return rr.buf
}

// failingRow is the list of an error's "Failing row contains" detail:
// row's visible columns as text, null for NULL.
func failingRow(rel *catalog.Relation, row types.Row, ec *EvalCtx) string {
	vals := make([]string, 0, len(row))
	for k, col := range rel.Cols {
		switch {
		case col.Hidden:
		case row[k].Null:
			vals = append(vals, "null")
		default:
			vals = append(vals, formatText(row[k], col.T, ec.Location))
		}
	}
	return strings.Join(vals, ", ")
}
