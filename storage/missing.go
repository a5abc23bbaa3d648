package storage

import (
	"sync"

	"github.com/weirdb/weir/types"
)

// Tables whose columns changed (ALTER TABLE ... ADD COLUMN) keep the rows
// written before the change as they were: a row is not rewritten, and
// decoding gives the columns it lacks the value the catalog recorded for
// them (PostgreSQL's attmissingval). SetMissing registers those values
// for a table; rows of a registered table are decoded with
// types.DecodeRowFill, which also ignores columns a reader planned
// before the change does not know. Rows of other tables and of state
// tables are decoded strictly.

// missingSet holds the registered tables' missing values.
type missingSet struct {
	mu sync.RWMutex
	m  map[uint32]types.Row
}

// SetMissing registers the values that rows of table tableID written
// before its columns were added take for them: missing[i] for column i
// (NULL where missing is NULL or shorter). A registered table's rows may
// also have more columns than a reader's types; those are ignored. A nil
// missing still registers the table (its added columns have no value).
func (db *DB) SetMissing(tableID uint32, missing types.Row) {
	db.missing.mu.Lock()
	defer db.missing.mu.Unlock()
	if db.missing.m == nil {
		db.missing.m = map[uint32]types.Row{}
	}
	if missing == nil {
		missing = types.Row{}
	}
	db.missing.m[tableID] = missing
}

// decoder returns the function decoding the rows of tableID with types ts.
func (db *DB) decoder(tableID uint32, ts []types.T) func([]byte) (types.Row, error) {
	if db != nil {
		db.missing.mu.RLock()
		m, ok := db.missing.m[tableID]
		db.missing.mu.RUnlock()
		if ok {
			return func(v []byte) (types.Row, error) { return types.DecodeRowFill(v, ts, m) }
		}
	}
	return func(v []byte) (types.Row, error) { return types.DecodeRow(v, ts) }
}
