package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"time"

	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
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
	// order lists the keys of prior in the order the block first touched
	// them, so that ROLLBACK TO forgets the ones touched after its
	// savepoint.
	order []string
	// savepoints is the stack of open savepoints, oldest first.
	savepoints []savepoint
}

// savepoint is a SAVEPOINT inside a transaction block: the point its
// writes had reached.
type savepoint struct {
	name  string
	mark  storage.BatchMark
	known int // len(order) at the savepoint
	// settings are the session's settings at the savepoint.
	settings settingsMark
	// temps is how many temporary tables the block had created
	// (Session.blockTemps) at the savepoint.
	temps int
	// fkModes is what SET CONSTRAINTS had said at the savepoint, and
	// fkPending the deferred checks then waiting.
	fkModes   fkModes
	fkPending fkPending
}

// findSavepoint returns the index of the newest savepoint named name, or
// 3B001 when there is none.
func (t *txnState) findSavepoint(name string) (int, error) {
	for i := len(t.savepoints) - 1; i >= 0; i-- {
		if t.savepoints[i].name == name {
			return i, nil
		}
	}
	return 0, pgerr.New(pgerr.InvalidSavepointSpec, "savepoint \"%s\" does not exist", name)
}

// rollbackTo undoes the block's writes made since savepoint i (which
// stays open, and the newer ones are released): the batch is cut back to
// its mark and the rows first touched since are forgotten, so COMMIT
// neither validates nor emits them.
func (t *txnState) rollbackTo(i int) error {
	sp := t.savepoints[i]
	if err := t.batch.RollbackTo(sp.mark); err != nil {
		return err
	}
	for _, pk := range t.order[sp.known:] {
		delete(t.prior, pk)
		delete(t.rels, pk)
	}
	t.order = t.order[:sp.known]
	t.savepoints = t.savepoints[:i+1]
	return nil
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
	t.order = append(t.order, pk)
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

// currentRow returns the encoded row for key as DML sees it: committed
// plus the changes not yet committed (nil if absent). Called under
// writeMu.
func currentRow(e *Engine, rel *catalog.Relation, key []byte) ([]byte, error) {
	ts := relTypes(rel)
	row, found, err := e.st.view.Get(rel.ID, key, ts)
	if err != nil || !found {
		return nil, err
	}
	return types.AppendRow([]byte{1}, row, ts), nil
}

// validate checks, under the engine's write lock, that no row the block
// touched was changed by another session since (including changes whose
// checkpoint has not committed yet).
func (t *txnState) validate(e *Engine) error {
	for pk, want := range t.prior {
		rel := t.rels[pk]
		cur, ok := e.cat.ByID(rel.ID)
		if !ok {
			return pgerr.New(pgerr.SerializationFailure, "could not serialize access: relation \"%s\" was dropped", rel.Name)
		}
		if !sameColumns(cur, rel) {
			// ALTER TABLE ran while the block was open: its rows were
			// written, and checked, for the columns as they were then
			// (PostgreSQL's ALTER would have waited for the block).
			return pgerr.New(pgerr.SerializationFailure, "could not serialize access: relation \"%s\" was altered", rel.Name).
				WithHint("The transaction might succeed if retried.")
		}
		got, err := currentRow(e, rel, []byte(pk[4:]))
		if err != nil {
			return err
		}
		if want == nil && got != nil {
			// A key the block inserted was taken since it first looked
			// (by a statement committed, or acknowledged through the
			// redo log, before): PostgreSQL's second inserter gets 23505.
			row, found, err := t.batch.Get(rel.ID, []byte(pk[4:]), relTypes(rel))
			if err != nil {
				return err
			}
			if found {
				return duplicateKey(rel, row)
			}
		}
		if !bytes.Equal(got, want) {
			return pgerr.New(pgerr.SerializationFailure, "could not serialize access due to concurrent update").
				WithHint("The transaction might succeed if retried.")
		}
	}
	return nil
}

// sameColumns reports whether a and b, two versions of one relation,
// have the same columns with the same types and constraints.
func sameColumns(a, b *catalog.Relation) bool {
	if len(a.Cols) != len(b.Cols) {
		return false
	}
	for i, c := range a.Cols {
		d := b.Cols[i]
		if c.Name != d.Name || c.T != d.T || c.NotNull != d.NotNull || c.Dropped != d.Dropped || c.Default != d.Default {
			return false
		}
	}
	return true
}

// changes turns the block's writes into a statement's changelog: for
// every key it touched, its row before the block (validated to be the
// current one) against its row in the block's batch. Called under
// writeMu.
//
// It also checks the block's rows against the unique indexes' key stores
// as they are now, with every other session's writes: first the keys the
// block's rows gave up, then those they took, so that rows swapping
// values pass. A key another session took since the block's statement
// checked it fails COMMIT with 23505. PostgreSQL would have made the
// second inserter wait at its INSERT for the first to end and then
// raised 23505 there (or let it go on, had the first rolled back); weir
// does not lock rows, so the block that commits second is the one that
// fails, with the error PostgreSQL gives the loser, not 40001: retrying
// it would fail again.
func (t *txnState) changes(w *stmtWriter) error {
	pks := make([]string, 0, len(t.prior))
	for pk := range t.prior {
		pks = append(pks, pk)
	}
	slices.Sort(pks)
	type change struct {
		tc            *tableChanges
		key           []byte
		before, after types.Row
	}
	var all []change
	for _, pk := range pks {
		rel := t.rels[pk]
		key := []byte(pk[4:])
		tc, err := w.table(rel.ID)
		if err != nil {
			return err
		}
		var before types.Row
		if enc := t.prior[pk]; enc != nil {
			// Encoded when the block touched the key: a column added
			// since takes its missing value.
			missing, _ := tc.rel.MissingRow()
			if before, err = types.DecodeRowFill(enc[1:], tc.ts, missing); err != nil {
				return err
			}
		}
		after, found, err := t.batch.Get(rel.ID, key, tc.ts)
		if err != nil {
			return err
		}
		if !found {
			after = nil
		}
		if before != nil && after != nil && bytes.Equal(t.prior[pk][1:], types.AppendRow(nil, after, tc.ts)) {
			continue
		}
		if before == nil && after == nil {
			continue
		}
		all = append(all, change{tc, key, before, after})
	}
	for _, c := range all {
		if c.before == nil {
			continue
		}
		if err := uniqueRemove(&w.keys, w.eng.uniqueOf(&w.uniq, c.tc.rel), c.tc.rel, c.before, c.key); err != nil {
			return err
		}
	}
	for _, c := range all {
		if c.after == nil {
			continue
		}
		if err := uniqueAdd(&w.keys, w.eng.uniqueOf(&w.uniq, c.tc.rel), c.tc.rel, c.after, c.key); err != nil {
			return err
		}
	}
	for _, c := range all {
		switch {
		case c.before == nil:
			w.add(c.tc, types.OpInsert, c.key, c.after)
		case c.after == nil:
			w.add(c.tc, types.OpDelete, c.key, c.before)
		default:
			w.add(c.tc, types.OpUpdateDelete, c.key, c.before)
			w.add(c.tc, types.OpUpdateInsert, c.key, c.after)
		}
	}
	return nil
}

// writeScope is where a DML statement writes: its writer, the source its
// scans read, and finish, which ends the statement: finish(ctx, true)
// commits it (outside a block: through the dataflow, returning once the
// checkpoint holding it committed; inside one: it stays in the block's
// batch for COMMIT), finish(ctx, false) abandons it (inside a block the
// block is failed anyway, so its batch is discarded at its end).
type writeScope struct {
	w      executor.Writer
	src    executor.Source
	finish func(ctx context.Context, commit bool) error
	// fk collects what the foreign keys act on at the statement's end.
	fk *fkState
}

// beginWrite starts a DML statement. Outside a transaction block the
// statement holds the engine's write lock until finish; inside one, the
// block's cursors that read its writes are materialised first.
func (s *Session) beginWrite(ctx context.Context) (writeScope, error) {
	e := s.eng
	if s.txn == 'T' {
		if s.tx == nil {
			s.tx = newTxnState(e.db)
		}
		if err := s.freezeCursors(ctx); err != nil {
			return writeScope{}, err
		}
		snap := e.db.NewSnapshot()
		src := &snapshotSource{eng: e, snap: snap, s: s, batch: s.tx.batch, ctx: ctx}
		w := &batchWriter{eng: e, batch: s.tx.batch, tx: s.tx, fk: newFKState(s)}
		w.fk.skip, w.fk.pending = s.fkDeferredNow(), &s.fkPending
		return writeScope{
			w:   w,
			src: src,
			fk:  w.fk,
			finish: func(ctx context.Context, commit bool) error {
				defer snap.Close()
				if commit {
					// The foreign keys act at the statement's end, in
					// the block's batch with its other writes.
					return w.fk.end(ctx, w)
				}
				return nil
			},
		}, nil
	}
	return s.directWrite(ctx)
}

// directWrite starts a statement's writes outside any transaction block:
// it holds the engine's write lock until finish, which applies them. A
// cancel or statement_timeout ends the wait for the lock (57014, or
// lock_timeout's 55P03).
func (s *Session) directWrite(ctx context.Context) (writeScope, error) {
	e := s.eng
	if err := e.writeMu.lockContext(ctx); err != nil {
		return writeScope{}, err
	}
	w := e.newStmtWriter()
	w.fk = newFKState(s)
	locked := true
	return writeScope{
		w:   w,
		src: &viewSource{eng: e, view: e.st.view, s: s},
		fk:  w.fk,
		finish: func(ctx context.Context, commit bool) error {
			if !locked {
				return nil
			}
			locked = false
			if commit {
				// The foreign keys act at the statement's end; their
				// cascaded writes join the statement's own.
				if err := w.fk.end(ctx, w); err != nil {
					w.discard()
					e.writeMu.Unlock()
					return err
				}
			}
			if !commit {
				w.discard()
				e.writeMu.Unlock()
				return nil
			}
			if ctx.Err() != nil {
				// Cancelled before its commit point: nothing is stored.
				w.discard()
				e.writeMu.Unlock()
				return ctxError(ctx)
			}
			pe, wait, err := w.apply()
			e.writeMu.Unlock()
			if err != nil {
				return err
			}
			return s.awaitCommit(ctx, pe, wait)
		},
	}, nil
}

// endTxn finishes a transaction block: commit validates its writes and
// sends them through the dataflow as one statement, returning once they
// are committed; otherwise they are discarded.
func (s *Session) endTxn(ctx context.Context, commit bool) (err error) {
	// The block's table locks are held until it has ended (locks.go);
	// the statement running (a DDL ending an implicit transaction)
	// keeps its own.
	defer s.releaseBlockLocks()
	// The block's settings and temporary tables: kept by a commit that
	// succeeds, undone otherwise.
	defer func() { s.endSettings(commit && err == nil) }()
	// SET CONSTRAINTS holds for the block only.
	defer func() { s.fkModes, s.fkPending = fkModes{}, nil }()
	defer func() {
		if terr := s.endBlockTemps(ctx, commit && err == nil); terr != nil && err == nil {
			err = terr
		}
		if commit && err == nil {
			err = s.deleteRowsAtCommit(ctx)
		}
	}()
	if commit {
		// A WITH HOLD cursor is materialised before the block commits;
		// its query's error fails the commit, as in PostgreSQL.
		held, herr := s.holdCursors(ctx)
		if herr != nil {
			_ = s.endTxn(ctx, false)
			return herr
		}
		// A commit that fails takes the block's held cursors with it.
		defer func() {
			if err != nil {
				for _, name := range held {
					if c := s.cursors[name]; c != nil {
						c.close()
						delete(s.cursors, name)
					}
				}
			}
		}()
	}
	s.closeCursors(false)
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
	if err := e.checkDiskSpace(); err != nil {
		return err
	}
	// The block's writes reach their tables now: they wait here for
	// the sessions whose LOCK keeps writers out (locks.go).
	lctx, cancel := s.withTimeout(ctx)
	err = s.lockCommit(lctx, t.rels)
	cancel()
	if err != nil {
		return err
	}
	if err := e.writeMu.lockContext(ctx); err != nil {
		return err
	}
	if err := t.validate(e); err != nil {
		e.writeMu.Unlock()
		return err
	}
	w := e.newStmtWriter()
	if err := t.changes(w); err != nil {
		w.discard()
		e.writeMu.Unlock()
		return s.hideUnreadableKey(err)
	}
	if err := s.fkVerify(ctx, w); err != nil {
		w.discard()
		e.writeMu.Unlock()
		return err
	}
	if ctx.Err() != nil {
		// Cancelled before its commit point: nothing is stored.
		w.discard()
		e.writeMu.Unlock()
		return ctxError(ctx)
	}
	pe, wait, err := w.apply()
	e.writeMu.Unlock()
	if err != nil {
		return err
	}
	return s.awaitCommit(ctx, pe, wait)
}

// waitApplied waits until the epoch pe, which holds the writes the
// statement (or COMMIT) has just applied, is committed. Applying them
// is the statement's commit point: from then on they commit with the
// epoch whatever the statement does, so the end of ctx does not fail
// the statement. Nor does a cancel or statement_timeout end the wait:
// the writes are not durable before the checkpoint commits, and the
// reply says they are, so the statement waits on, as PostgreSQL's commit
// waits for its WAL flush whatever the cancel. (PostgreSQL's commit
// waiting for synchronous replication may stop at a cancel because its
// commit is durable locally already; these writes are not.) A terminate,
// shutdown or the client's going stops the wait with a WARNING 57P01
// and closes the connection without a command completion
// (wire.ErrCloseConnection). Only the epoch's own failure (a recovery
// discarding it) is an error.
func (s *Session) waitApplied(ctx context.Context, pe *pendingEpoch) error {
	defer s.ReportWait("IPC", "CheckpointDone")()
	err := s.eng.waitCommitted(ctx, pe)
	if err == nil || ctx.Err() == nil {
		return err
	}
	if pgerr.As(ctxError(ctx)).Code == pgerr.QueryCanceled {
		// A cancel or statement_timeout came after the commit point:
		// the writes commit with the checkpoint whatever the client is
		// told, and a reply now would acknowledge writes a crash could
		// still lose. The statement waits on, as PostgreSQL's commit
		// waits for its WAL flush; only the connection's end (a
		// terminate, shutdown, the client gone) stops the wait.
		s.eng.log.Info("a cancel came after the statement's commit point: it waits for its checkpoint", "pid", s.pid, "epoch", pe.epoch.Load())
		ctx = s.conn
		if ctx == nil {
			ctx = context.Background()
		}
		err = s.eng.waitCommitted(ctx, pe)
		if err == nil || ctx.Err() == nil {
			return err
		}
	}
	if res, ok := pe.result(); ok {
		// The epoch's outcome came with the cancel: report it.
		if res != nil {
			return errNotCommitted(res)
		}
		return nil
	}
	at := "the next checkpoint commits"
	if n := pe.epoch.Load(); n != 0 {
		at = fmt.Sprintf("the checkpoint of epoch %d commits", n)
	}
	detail := "The writes are applied: they become durable and visible when " + at +
		", and are lost if that checkpoint fails or the server stops before then."
	// Terminated, the server shutting down or the client gone: no
	// command completion, as in PostgreSQL.
	cause := pgerr.As(ctxError(ctx))
	s.notices = append(s.notices, notice{severity: "WARNING", code: string(pgerr.AdminShutdown),
		message: "canceling the wait for checkpoint and terminating connection due to administrator command", detail: detail})
	return fmt.Errorf("%w: %w", wire.ErrCloseConnection, cause)
}

// BeginImplicit implements wire.ImplicitTransaction: the statements of a
// multi-statement Query share one transaction unless an explicit block is
// open already.
func (s *Session) BeginImplicit() {
	if s.txn == 'I' && !s.implicit {
		s.implicit = true
		s.txn = 'T'
		s.txnStart = time.Now().UnixMicro()
	}
}

// BeginPipeline implements wire.ImplicitTransaction: the statements of
// an extended-protocol batch share one transaction up to Sync unless an
// explicit block is open already. Their writes go to the transaction's
// batch as a block's do, and commit (durably) at Sync, or are undone
// when anything in the batch failed.
func (s *Session) BeginPipeline() {
	if s.txn == 'I' && !s.implicit {
		s.BeginImplicit()
		s.pipeline, s.pipelined = true, false
	}
}

// transactionStart returns the start time of the open transaction (now()
// and 'now' inside BEGIN ... COMMIT), or stmt, the statement's own start,
// outside one.
func (s *Session) transactionStart(stmt int64) int64 {
	if s.txn != 'I' && s.txnStart != 0 {
		return s.txnStart
	}
	return stmt
}

// EndImplicit implements wire.ImplicitTransaction: it commits the implicit
// transaction's writes when every statement succeeded and discards them
// otherwise. Without one, it ends what the single statement's own
// transaction did to the settings locally (SET LOCAL, set_config(...,
// true)).
func (s *Session) EndImplicit(ctx context.Context, ok bool) error {
	if !s.implicit {
		if s.txn == 'I' && s.settingsTx != nil {
			s.endSettings(ok)
		}
		return nil
	}
	s.implicit, s.pipeline, s.pipelined = false, false, false
	s.txn = 'I'
	if !ok {
		// Undoing it must not stop halfway because the client went.
		ctx = context.WithoutCancel(ctx)
	}
	return s.endTxn(ctx, ok)
}

// notInBlock refuses, as PostgreSQL's PreventInTransactionBlock does with
// 25001, a statement (what) that cannot run inside a transaction block:
// an explicit one, the implicit one of a multi-statement Query, or an
// extended-protocol batch once a statement of it ran before this one.
func (s *Session) notInBlock(what string) error {
	if s.pipeline {
		if s.pipelined {
			return pgerr.New(pgerr.ActiveSQLTransaction, "%s cannot be executed within a pipeline", what)
		}
		return nil
	}
	if s.implicit || s.txn != 'I' {
		return pgerr.New(pgerr.ActiveSQLTransaction, "%s cannot run inside a transaction block", what)
	}
	return nil
}

// txnBlock reports whether PostgreSQL would count the open transaction
// as a transaction block (IsTransactionBlock): an explicit one or the
// implicit one of a multi-statement Query, not an extended-protocol
// batch's.
func (s *Session) txnBlock() bool { return s.txn != 'I' && !s.pipeline }

// inBlock reports whether an explicit transaction block is open (not
// the implicit one of a multi-statement Query).
func (s *Session) inBlock() bool { return (s.txn == 'T' || s.txn == 'E') && !s.implicit }

// noDDLInBlock refuses catalog changes inside a transaction block: weir's
// DDL commits on its own and cannot be rolled back with the block.
// PostgreSQL runs DDL in blocks, so this is a feature weir lacks
// (0A000), not a statement that cannot run in a block by its nature
// (25001, as ALTER SYSTEM or DISCARD ALL). In an
// implicit transaction (a multi-statement Query) the writes so far are
// committed first and the DDL runs on its own, so scripts that create
// tables and fill them in one string keep working.
func (s *Session) noDDLInBlock(what string) error {
	if s.implicit {
		return s.endTxn(context.Background(), true)
	}
	if s.txn == 'T' || s.txn == 'E' {
		return pgerr.New(pgerr.FeatureNotSupported, "%s cannot run inside a transaction block", what).
			WithHint("weir's DDL commits on its own: run it outside BEGIN ... COMMIT (only temporary tables and views are created inside blocks).")
	}
	return nil
}
