package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// TestBoundedEpochs runs bulk statements under a 1 MiB memory budget, so
// that a statement's changes flow to the jobs in pieces, a hash
// aggregation emits its groups early and every state table flushes its
// dirty entries early into spill areas. The views must still equal
// their queries, a statement that fails after flushing pieces must leave
// nothing behind, and a crash after the commit must keep it all.
func TestBoundedEpochs(t *testing.T) {
	fs := vfs.NewCrashableMem()
	open := func(fs vfs.FS) *Engine {
		e, err := Open(Config{DataDir: "data", Storage: storage.Options{FS: fs}, MemoryBudgetBytes: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	e := open(fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (id bigint PRIMARY KEY, g bigint, v bigint)")
	mustRun(t, s, "CREATE TABLE u (id bigint PRIMARY KEY, k bigint)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW agg AS SELECT g, count(*) AS c, sum(v) AS s FROM t GROUP BY g")
	mustRun(t, s, "CREATE MATERIALIZED VIEW j AS SELECT t.id, u.id AS uid FROM t JOIN u ON t.g = u.k")
	mustRun(t, s, "INSERT INTO t SELECT i, i % 20000, i FROM generate_series(1, 60000) AS s(i)")
	mustRun(t, s, "INSERT INTO u SELECT i, i FROM generate_series(1, 30000) AS s(i)")
	check := func() {
		t.Helper()
		wantRows(t, s, "SELECT count(*), sum(c), sum(s) FROM agg", "20000 60000 1800030000")
		wantRows(t, s, "SELECT count(*) FROM (SELECT g, count(*) AS c, sum(v) AS s FROM t GROUP BY g EXCEPT SELECT * FROM agg) x", "0")
		wantRows(t, s, "SELECT count(*) FROM j", "59997")
	}
	check()
	// Fails on its last row, long after its first pieces were flushed.
	_, err := run(t, s, "INSERT INTO t SELECT i, 1, 1 FROM generate_series(60001, 120001) AS s(i) UNION ALL SELECT 1, 1, 1")
	if pgerr.CodeOf(err) != pgerr.UniqueViolation {
		t.Fatalf("duplicate key after the pieces: %v", err)
	}
	check()
	wantRows(t, s, "SELECT count(*) FROM t", "60000")
	mustRun(t, s, "UPDATE t SET v = v + 1 WHERE id <= 40000")
	mustRun(t, s, "DELETE FROM t WHERE id > 50000")
	wantRows(t, s, "SELECT count(*), sum(c), sum(s) FROM agg", "20000 50000 1250065000")
	wantRows(t, s, "SELECT count(*) FROM (SELECT g, count(*) AS c, sum(v) AS s FROM t GROUP BY g EXCEPT SELECT * FROM agg) x", "0")
	var spills int64
	e.st.cache.RangeStats(func(_ uint32, st *storage.TableCacheStats) { spills += st.Spills.Load() })
	if spills == 0 {
		t.Fatal("no state table flushed early under a 1 MiB budget")
	}

	crashed := fs.CrashClone(vfs.CrashCloneCfg{})
	e.Close()
	e = open(crashed)
	defer e.Close()
	s = session(t, e)
	wantRows(t, s, "SELECT count(*), sum(c), sum(s) FROM agg", "20000 50000 1250065000")
	wantRows(t, s, "SELECT count(*) FROM (SELECT g, count(*) AS c, sum(v) AS s FROM t GROUP BY g EXCEPT SELECT * FROM agg) x", "0")
	wantRows(t, s, "SELECT count(*) FROM (SELECT t.id, u.id FROM t JOIN u ON t.g = u.k EXCEPT SELECT * FROM j) x", "0")
}

// TestPendingAreasShadowLaterWrites: a statement whose writes went into
// a spill area is followed, in the same open epoch, by small ones on
// the same table. Their writes must win over the area's, in the view
// DML reads, in the table once the epoch commits (which moves the area
// after writing the epoch's batch) and in the view over the table.
func TestPendingAreasShadowLaterWrites(t *testing.T) {
	e, err := Open(Config{DataDir: "data", Storage: storage.Options{FS: vfs.NewMem()}, MemoryBudgetBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (id bigint PRIMARY KEY, v bigint)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW agg AS SELECT count(*) AS c, sum(v) AS s FROM t")
	rel, ok := e.cat.Lookup("public", "t")
	if !ok {
		t.Fatal("no table t")
	}
	row := func(id, v int64) types.Row { return types.Row{types.DInt(id), types.DInt(v)} }
	const n = 20_000
	e.writeMu.Lock()
	w := e.newStmtWriter()
	for i := int64(1); i <= n; i++ {
		if err := w.Insert(rel.ID, row(i, 1)); err != nil {
			e.writeMu.Unlock()
			t.Fatal(err)
		}
	}
	if _, err := applyWait(w); err != nil {
		e.writeMu.Unlock()
		t.Fatal(err)
	}
	if len(e.st.cur.batch.Areas()) == 0 {
		e.writeMu.Unlock()
		t.Fatalf("%d rows under a 1 MiB budget went into no spill area", n)
	}
	w = e.newStmtWriter()
	err = w.Update(rel.ID, row(5, 1), row(5, 2))
	if err == nil {
		err = w.Delete(rel.ID, row(6, 1))
	}
	var pe *pendingEpoch
	if err == nil {
		pe, err = applyWait(w)
	}
	if err == nil {
		var r types.Row
		var found bool
		if r, found, err = e.st.view.Get(rel.ID, pkKey(rel, row(5, 0)), relTypes(rel)); err == nil && (!found || r[1].I != 2) {
			err = fmt.Errorf("the view reads row 5 as %v (found %v), want v = 2", r, found)
		}
	}
	e.writeMu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if err := e.waitCommitted(context.Background(), pe); err != nil {
		t.Fatal(err)
	}
	wantRows(t, s, "SELECT count(*), sum(v) FROM t", fmt.Sprintf("%d %d", n-1, n))
	wantRows(t, s, "SELECT v FROM t WHERE id IN (5, 6)", "2")
	wantRows(t, s, "SELECT c, s FROM agg", fmt.Sprintf("%d %d", n-1, n))
	mustRun(t, s, "UPDATE t SET v = v + 1 WHERE id <= 10")
	wantRows(t, s, "SELECT count(*), sum(v) FROM t", fmt.Sprintf("%d %d", n-1, n+9))
	wantRows(t, s, "SELECT c, s FROM agg", fmt.Sprintf("%d %d", n-1, n+9))
}

// TestHeldChangesBounded writes while the jobs wait for a recovery's
// Initial barrier (initialized false): a small statement's changes are
// held in memory, a big one's beyond heldLimit go into a log on disk,
// an update after them follows them there, and once the barrier passes
// (replayHeld, as Inject does) the view gets them all, in order.
func TestHeldChangesBounded(t *testing.T) {
	e, err := Open(Config{DataDir: "data", Storage: storage.Options{FS: vfs.NewMem()}, MemoryBudgetBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (id bigint PRIMARY KEY, v bigint)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW agg AS SELECT count(*) AS c, sum(v) AS s FROM t")
	rel, ok := e.cat.Lookup("public", "t")
	if !ok {
		t.Fatal("no table t")
	}
	row := func(id, v int64) types.Row { return types.Row{types.DInt(id), types.DInt(v)} }
	const n = 20_000
	var pe *pendingEpoch
	stmt := func(f func(w *stmtWriter) error) error {
		w := e.newStmtWriter()
		if err := f(w); err != nil {
			return err
		}
		var err error
		pe, err = applyWait(w)
		return err
	}
	e.writeMu.Lock()
	e.st.initialized = false
	err = stmt(func(w *stmtWriter) error { return w.Insert(rel.ID, row(1, 1)) })
	if err == nil && (e.st.held.log != nil || len(e.st.held.mem) != 1) {
		err = fmt.Errorf("a one-row statement: log %v, %d held in memory", e.st.held.log != nil, len(e.st.held.mem))
	}
	if err == nil {
		err = stmt(func(w *stmtWriter) error {
			for i := int64(2); i <= n; i++ {
				if err := w.Insert(rel.ID, row(i, 1)); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err == nil {
		err = stmt(func(w *stmtWriter) error { return w.Update(rel.ID, row(5, 1), row(5, 7)) })
	}
	if err == nil {
		h := e.st.held
		switch {
		case h.log == nil:
			err = fmt.Errorf("%d held changes under a 1 MiB budget, none in a log", n)
		case h.bytes > e.heldLimit():
			err = fmt.Errorf("%d bytes of held changes in memory, over %d", h.bytes, e.heldLimit())
		case h.log.Len() < n/2:
			err = fmt.Errorf("%d of %d held changes in the log", h.log.Len(), n+1)
		}
	}
	e.st.initialized = true
	e.replayHeld()
	e.writeMu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if err := e.waitCommitted(context.Background(), pe); err != nil {
		t.Fatal(err)
	}
	wantRows(t, s, "SELECT count(*), sum(v) FROM t", fmt.Sprintf("%d %d", n, n+6))
	wantRows(t, s, "SELECT c, s FROM agg", fmt.Sprintf("%d %d", n, n+6))
}

// TestDropGivesStateMemoryBack drops a view whose state holds a large
// part of the memory budget: the cache must stop counting the stopped
// actors' state, or every other table goes on evicting as if it were
// there.
func TestDropGivesStateMemoryBack(t *testing.T) {
	e, err := Open(Config{DataDir: "data", Storage: storage.Options{FS: vfs.NewMem()}, MemoryBudgetBytes: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (id bigint PRIMARY KEY, g bigint)")
	base := e.st.cache.Used()
	mustRun(t, s, "CREATE MATERIALIZED VIEW a AS SELECT g, count(*) AS c FROM t GROUP BY g")
	mustRun(t, s, "INSERT INTO t SELECT i, i FROM generate_series(1, 50000) AS s(i)")
	mustRun(t, s, "FLUSH")
	held := e.st.cache.Used()
	if held-base < 1<<20 {
		t.Fatalf("the view's state holds %d bytes of the cache: the test drops nothing", held-base)
	}
	mustRun(t, s, "DROP MATERIALIZED VIEW a")
	mustRun(t, s, "FLUSH")
	if left := e.st.cache.Used(); left-base > (held-base)/100 {
		t.Errorf("the cache counts %d bytes before the view, %d with it, %d after dropping it", base, held, left)
	}
}

// applyWait applies w as a statement's commit does, waiting for its redo
// record's fsync when it took that path.
func applyWait(w *stmtWriter) (*pendingEpoch, error) {
	pe, wait, err := w.apply()
	if wait != nil {
		if werr := wait.Wait(); err == nil {
			err = werr
		}
	}
	return pe, err
}
