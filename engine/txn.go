package engine

import (
	"bytes"
	"encoding/binary"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// txnState is an explicit transaction block's pending writes (BEGIN ...
// COMMIT). Writes go into one storage batch that statements in the block
// read through (they see their own writes; other sessions do not), and
// COMMIT applies it atomically and durably; ROLLBACK, or a failed block,
// discards it.
//
// Concurrency control is optimistic, at the level of single rows: the
// first time the block touches a key it remembers that row as committed
// at that moment, and COMMIT, holding the engine's write lock, checks that
// every remembered row is still the same. If another session changed one
// in between, COMMIT fails with 40001 (serialization_failure) and nothing
// is applied. Reads are READ COMMITTED, Postgres's default level.
type txnState struct {
	batch *storage.Batch
	// prior maps table id + key to the encoded committed row (nil when the
	// key did not exist) as first seen by the block.
	prior map[string][]byte
	rels  map[string]*catalog.Relation
}

func newTxnState(db *storage.DB) *txnState {
	return &txnState{batch: db.NewBatch(), prior: map[string][]byte{}, rels: map[string]*catalog.Relation{}}
}

func priorKey(relID uint32, key []byte) string {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], relID)
	return string(b[:]) + string(key)
}

// remember records the committed state of a key the first time the block
// touches it.
func (t *txnState) remember(e *Engine, rel *catalog.Relation, key []byte) error {
	pk := priorKey(rel.ID, key)
	if _, ok := t.prior[pk]; ok {
		return nil
	}
	enc, err := committedRow(e, rel, key)
	if err != nil {
		return err
	}
	t.prior[pk] = enc
	t.rels[pk] = rel
	return nil
}

// committedRow returns the encoded committed row for key (nil if absent).
func committedRow(e *Engine, rel *catalog.Relation, key []byte) ([]byte, error) {
	snap := e.db.NewSnapshot()
	defer snap.Close()
	ts := relTypes(rel)
	row, found, err := snap.Get(rel.ID, key, ts)
	if err != nil || !found {
		return nil, err
	}
	return types.AppendRow([]byte{1}, row, ts), nil
}

// validate checks, under the engine's write lock, that no row the block
// touched was changed by another session since.
func (t *txnState) validate(e *Engine) error {
	for pk, want := range t.prior {
		rel := t.rels[pk]
		if _, ok := e.cat.ByID(rel.ID); !ok {
			return pgerr.New(pgerr.SerializationFailure, "could not serialize access: relation \"%s\" was dropped", rel.Name)
		}
		got, err := committedRow(e, rel, []byte(pk[4:]))
		if err != nil {
			return err
		}
		if !bytes.Equal(got, want) {
			return pgerr.New(pgerr.SerializationFailure, "could not serialize access due to concurrent update").
				WithHint("The transaction might succeed if retried.")
		}
	}
	return nil
}

// beginWrite returns the writer a DML statement uses and a function that
// ends the statement. Outside a transaction block the statement holds the
// engine's write lock and finish(true) commits its own durable batch;
// inside one, the statement adds to the block's batch and finish keeps it
// for COMMIT. finish(false) abandons the statement's work (inside a block
// the block is failed anyway, so its batch is discarded at its end).
func (s *Session) beginWrite() (*batchWriter, func(commit bool) error) {
	e := s.eng
	if s.txn == 'T' {
		if s.tx == nil {
			s.tx = newTxnState(e.db)
		}
		return &batchWriter{eng: e, batch: s.tx.batch, tx: s.tx}, func(bool) error { return nil }
	}
	e.writeMu.Lock()
	batch := e.db.NewBatch()
	return &batchWriter{eng: e, batch: batch}, func(commit bool) error {
		defer e.writeMu.Unlock()
		defer batch.Close()
		if !commit {
			return nil
		}
		if err := batch.Commit(); err != nil {
			return pgerr.Wrap(pgerr.IOError, err, "could not commit")
		}
		return nil
	}
}

// endTxn finishes a transaction block: commit applies its writes after
// validating them; otherwise they are discarded.
func (s *Session) endTxn(commit bool) error {
	t := s.tx
	s.tx = nil
	if t == nil {
		return nil
	}
	defer t.batch.Close()
	if !commit || t.batch.Len() == 0 {
		return nil
	}
	e := s.eng
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	if err := t.validate(e); err != nil {
		return err
	}
	if err := t.batch.Commit(); err != nil {
		return pgerr.Wrap(pgerr.IOError, err, "could not commit")
	}
	return nil
}

// BeginImplicit implements wire.ImplicitTransaction: the statements of a
// multi-statement Query share one transaction unless an explicit block is
// open already.
func (s *Session) BeginImplicit() {
	if s.txn == 'I' {
		s.implicit = true
		s.txn = 'T'
	}
}

// EndImplicit implements wire.ImplicitTransaction: it commits the implicit
// transaction's writes when every statement succeeded and discards them
// otherwise.
func (s *Session) EndImplicit(ok bool) error {
	if !s.implicit {
		return nil
	}
	s.implicit = false
	s.txn = 'I'
	return s.endTxn(ok)
}

// noDDLInBlock refuses catalog changes inside a transaction block: weir's
// DDL commits on its own and cannot be rolled back with the block. In an
// implicit transaction (a multi-statement Query) the writes so far are
// committed first and the DDL runs on its own, so scripts that create
// tables and fill them in one string keep working.
func (s *Session) noDDLInBlock(what string) error {
	if s.implicit {
		return s.endTxn(true)
	}
	if s.txn == 'T' || s.txn == 'E' {
		return pgerr.New(pgerr.ActiveSQLTransaction, "%s cannot run inside a transaction block", what)
	}
	return nil
}
