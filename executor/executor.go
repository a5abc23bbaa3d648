package executor

import (
	"context"
	"errors"
	"math/rand/v2"

	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// Operator is a batch (pull) operator. Next returns the next chunk, or nil
// at the end; after the end or an error it keeps returning the same. Close
// releases resources and is safe to call more than once, also before the
// end.
type Operator interface {
	Next(ctx context.Context) (*types.Chunk, error)
	Close()
}

// Evaluator is a compiled expression. Eval computes the expression for
// every row of in (rows that are not visible may hold any value) and
// returns a vector of in.Len() rows; the vector may be reused by the next
// call.
type Evaluator interface {
	Eval(ctx *EvalCtx, in *types.Chunk) (*types.Vec, error)
}

// EvalCtx is what expressions may read besides their input row.
type EvalCtx struct {
	// Context is what functions read: the transaction's start time, the
	// session's TimeZone and settings, the statement's cancellation.
	functions.Context
	// Params are the statement's $1..$n values.
	Params []types.Datum
	// Outer is the stack of enclosing rows for correlated subqueries;
	// Outer[len(Outer)-d] is the row at depth d.
	Outer []types.Row
	// Exec runs subquery plans; nil where subqueries cannot occur.
	Exec *ExecCtx
}

// SessionInfo is the part of a session that functions can read.
type SessionInfo = functions.SessionInfo

// CatalogDescriber describes catalog objects by OID for the functions
// that print them (functions.CatalogDescriber).
type CatalogDescriber = functions.CatalogDescriber

// PrivilegeChecker answers has_table_privilege (functions.PrivilegeChecker).
type PrivilegeChecker = functions.PrivilegeChecker

// Source gives batch operators the rows of relations at one snapshot.
type Source interface {
	// ScanRelation returns the full rows (in Relation.Cols order) of a
	// table or materialized view with the given ID.
	ScanRelation(ctx context.Context, relID uint32, colTypes []types.T) (RowIter, error)
	// ScanSystem returns the rows of a virtual system table.
	ScanSystem(ctx context.Context, schema, name string) ([]types.Row, error)
}

// IndexSource is a Source that also serves indexes (planner.IndexScan):
// key ranges of a relation's storage and rows by key, at the same
// snapshot as its scans.
type IndexSource interface {
	Source
	// IndexUsable reports whether index idx is consistent with its
	// relation at the source's snapshot as the statement sees it; when
	// it is not (the index is still backfilling, or the statement reads
	// its transaction block's own writes), readers scan the relation.
	IndexUsable(idx uint32) bool
	// ScanRange returns the full rows of relation relID whose storage
	// key lies in [lo, hi) (nil: unbounded), in key order.
	ScanRange(ctx context.Context, relID uint32, lo, hi []byte, colTypes []types.T) (RowIter, error)
	// Get returns the full row of relation relID stored under key.
	Get(ctx context.Context, relID uint32, key []byte, colTypes []types.T) (types.Row, bool, error)
}

// RowIter iterates over rows; Next returns nil at the end.
type RowIter interface {
	Next() (types.Row, error)
	Close()
}

// Writer applies DML to tables. Keys are full rows' primary key columns;
// Insert fails with 23505 when the key exists (in storage or earlier in
// the same statement).
type Writer interface {
	// Insert adds row to the table. It returns ErrRowDropped for a row
	// the table drops on arrival instead of storing it.
	Insert(relID uint32, row types.Row) error
	// Update replaces the row whose key is the key of old by new. When the
	// key changes, it fails with 23505 if new's key exists.
	Update(relID uint32, old, new types.Row) error
	Delete(relID uint32, old types.Row) error
	// NextRowID returns a fresh hidden row id for a table without a
	// primary key.
	NextRowID(relID uint32) (int64, error)
	// Get returns the stored row (as the statement sees it, its own
	// writes included) whose primary key is row's, and false if there is
	// none (INSERT ... ON CONFLICT).
	Get(relID uint32, row types.Row) (types.Row, bool, error)
	// Conflicting returns the stored row (as the statement sees it)
	// holding row's key in the unique index index, and false if there
	// is none (INSERT ... ON CONFLICT with a unique index as arbiter).
	Conflicting(relID uint32, row types.Row, index uint32) (types.Row, bool, error)
}

// ErrRowDropped is what Writer.Insert returns for a row the table drops
// as it arrives (a row behind the watermark of an APPEND ONLY table with
// WATERMARK FOR): the statement goes on, and the row is neither counted
// in its tag nor returned by RETURNING.
var ErrRowDropped = errors.New("row dropped on arrival")

// ExecCtx is the context of one statement execution.
type ExecCtx struct {
	Eval   EvalCtx
	Source Source
	Writer Writer // nil for read-only statements
	// MaySelect, when set, reports whether the statement's role may read
	// the rows of a relation it writes. When it may not, a constraint
	// violation's detail shows only the columns the statement gave or
	// set, by name ("Failing row contains (b) = (null)."), or nothing
	// when there are none, and a unique violation's leaves the key out,
	// as PostgreSQL's ExecBuildSlotValueDescription and
	// BuildIndexValueDescription do. Nil: the role reads everything.
	MaySelect func(rel *catalog.Relation) bool
	// Analyze, when set, collects each plan node's actual rows and time
	// for EXPLAIN ANALYZE; nil (every other statement) costs nothing.
	Analyze *Analyze
	// WorkMem is how many bytes of rows each sort, hash aggregation,
	// hash join or other row-holding operator of the statement may keep
	// in memory (PostgreSQL's work_mem); beyond it the operator spills to
	// tapes from Temp. Zero means no limit.
	WorkMem int64
	// Temp makes the temporary files operators spill to; nil when the
	// statement may not spill (then WorkMem is not enforced).
	Temp TempSpace
	// ChunkRows, when set, is asked for the most rows the next chunk a
	// scan, set-returning function or buffer of the statement makes may
	// hold (types.ChunkCap when unset or not positive): a cursor answers
	// the rows its FETCH still needs, so that expressions over them are
	// computed as rows are fetched, as PostgreSQL computes a portal's.
	ChunkRows func() int
	// Rand is the statement's source of random numbers: the seed of a
	// TABLESAMPLE without REPEATABLE is drawn from it at each execution.
	// Nil draws from the runtime's random source.
	Rand *rand.Rand
	// workTables holds the working tables of the running WITH RECURSIVE
	// evaluations, by planner.RecursiveUnion.WorkTable id.
	workTables map[int]*rowSpool
	// temps holds the rows the statement keeps beyond any operator's
	// life (an uncorrelated subquery's), for Release to remove; the
	// copies of the ExecCtx a subquery runs in share it (shareTemps).
	temps *[]discarder
}

// discarder is what ExecCtx.Release removes: a rowSpool, a seenSet.
type discarder interface{ discard() }

// shareTemps makes sure ec has its list of kept rows before a copy of
// ec is made, so that the copy adds to the same list.
func (ec *ExecCtx) shareTemps() {
	if ec.temps == nil {
		ec.temps = new([]discarder)
	}
}

// keep adds s to the rows Release removes.
func (ec *ExecCtx) keep(s discarder) {
	ec.shareTemps()
	*ec.temps = append(*ec.temps, s)
}

// Release removes what the statement kept for its whole run (the rows
// of its uncorrelated subqueries, and their tapes); whoever built the
// statement's operators calls it once they are closed. It may be called
// more than once.
func (ec *ExecCtx) Release() {
	if ec == nil || ec.temps == nil {
		return
	}
	for _, s := range *ec.temps {
		s.discard()
	}
	*ec.temps = nil
}

// chunkRows is the most rows the next chunk a leaf operator or a buffer
// makes may hold: ChunkRows's answer, at most types.ChunkCap.
func (ec *ExecCtx) chunkRows() int {
	if ec != nil && ec.ChunkRows != nil {
		if n := ec.ChunkRows(); n > 0 && n < types.ChunkCap {
			return n
		}
	}
	return types.ChunkCap
}

// TempSpace makes the temporary files a statement's operators spill to:
// storage.DB, whose tapes live in the logs directory that Open empties,
// so a crash leaves none behind.
type TempSpace interface {
	// NewTape returns a new, empty tape; the caller discards it.
	NewTape() (*storage.Tape, error)
}

// spillable reports whether an operator holding held bytes of rows
// should move them to disk: a WorkMem is set, a TempSpace is there to
// spill to, and held is beyond it.
func (ec *ExecCtx) spillable(held int64) bool {
	return ec != nil && ec.Temp != nil && ec.WorkMem > 0 && held > ec.WorkMem
}

var _ = planner.Plan(nil)
