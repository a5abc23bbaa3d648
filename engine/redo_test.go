package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// redoRecords counts the records in the redo log.
func redoRecords(t *testing.T, e *Engine) int {
	t.Helper()
	n := 0
	if err := e.db.EachRedo(func(uint64, []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// committedCount returns the rows of relation name in the committed
// state, without waiting for anything.
func committedCount(t *testing.T, e *Engine, name string) int {
	t.Helper()
	rel, ok := e.cat.Lookup("public", name)
	if !ok {
		t.Fatalf("no relation %s", name)
	}
	snap := e.db.NewSnapshot()
	defer snap.Close()
	it := snap.Scan(rel.ID, relTypes(rel))
	defer it.Close()
	n := 0
	for {
		row, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if row == nil {
			return n
		}
		n++
	}
}

// wantPending fails unless the redo log holds records statements and no
// row of table t is committed yet: the statements were acknowledged
// before any checkpoint holding them.
func wantPending(t *testing.T, e *Engine, records int) {
	t.Helper()
	if n := redoRecords(t, e); n != records {
		t.Fatalf("%d records in the redo log, want %d", n, records)
	}
	if n := committedCount(t, e, "t"); n != 0 {
		t.Fatalf("%d rows of t committed, want 0 before a checkpoint", n)
	}
}

// TestRedoAcknowledgesBeforeCheckpoint: with the checkpoints' commits
// held, small statements still complete (their redo record is their
// commit point), and a query started meanwhile waits for their
// checkpoint and then sees them, as it would have had they waited.
func TestRedoAcknowledgesBeforeCheckpoint(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (id int PRIMARY KEY, v int)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW m AS SELECT count(*) AS n, sum(v) AS s FROM t")
	release := holdCommits(e)
	released := false
	defer func() {
		if !released {
			release()
		}
	}()
	mustRun(t, s, "INSERT INTO t VALUES (1, 10), (2, 20)")
	mustRun(t, s, "UPDATE t SET v = v + 1 WHERE id = 2")
	mustRun(t, s, "DELETE FROM t WHERE id = 1")
	wantPending(t, e, 3)
	// A key check reads the pending writes.
	wantCode(t, s, "INSERT INTO t VALUES (2, 0)", "23505", "")
	type result struct {
		rows []string
		err  error
	}
	done := make(chan result, 1)
	s2 := session(t, e)
	go func() {
		rows, err := run(t, s2, "SELECT n, s FROM m")
		done <- result{rows, err}
	}()
	release()
	released = true
	r := <-done
	if r.err != nil || fmt.Sprint(r.rows) != "[1 21]" {
		t.Fatalf("SELECT n, s FROM m: %v, %v; want [1 21]", r.rows, r.err)
	}
	if n := redoRecords(t, e); n != 0 {
		t.Fatalf("%d records left in the redo log once their checkpoint committed, want 0", n)
	}
	wantRows(t, s, "SELECT * FROM t", "2 21")
}

// TestRedoReplayedAfterCrash: statements acknowledged through the redo
// log and not yet in a checkpoint come back after a crash, in the tables
// and in the views, once each; a table whose columns changed since is
// not confused by them (the ALTER waits for their checkpoint).
func TestRedoReplayedAfterCrash(t *testing.T) {
	fs := vfs.NewCrashableMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (id int PRIMARY KEY, v int, w text UNIQUE)")
	mustRun(t, s, "CREATE TABLE u (id int PRIMARY KEY, v int)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW m AS SELECT v % 3 AS g, count(*) AS n, sum(v) AS s FROM t GROUP BY v % 3")
	mustRun(t, s, "INSERT INTO u VALUES (1, 1)")
	// No periodic checkpoint from here on.
	mustRun(t, s, "ALTER SYSTEM SET barrier_interval_ms = 3600000")
	mustRun(t, s, "ALTER TABLE u ADD COLUMN x int DEFAULT 7")
	// A block's statements read the committed state, so they wait for
	// the statements before; its COMMIT is one record.
	mustRun(t, s, "BEGIN")
	mustRun(t, s, "INSERT INTO t VALUES (100, 100, 'w100')")
	mustRun(t, s, "INSERT INTO u VALUES (2, 2)")
	mustRun(t, s, "COMMIT")
	for i := 1; i <= 30; i++ {
		mustRun(t, s, fmt.Sprintf("INSERT INTO t VALUES (%d, %d, 'w%d')", i, i, i))
	}
	mustRun(t, s, "UPDATE t SET v = v * 10 WHERE id <= 5")
	mustRun(t, s, "DELETE FROM t WHERE id > 25 AND id < 100")
	wantPending(t, e, 33)
	crashed := fs.CrashClone(vfs.CrashCloneCfg{})
	e.Close()

	e = openTest(t, crashed)
	s = session(t, e)
	const total = "SELECT count(*), sum(v) FROM t"
	// 1..25 with 1..5 times ten, and 100.
	want := fmt.Sprint(26, " ", (1+2+3+4+5)*10+(6+25)*20/2+100)
	wantRows(t, s, total, want)
	wantRows(t, s, "SELECT sum(n), sum(s) FROM m", want)
	wantRows(t, s, "SELECT * FROM u ORDER BY id", "1 1 7", "2 2 7")
	// The unique index's keys came back with the rows.
	wantCode(t, s, "INSERT INTO t VALUES (200, 1, 'w100')", "23505", "")
	mustRun(t, s, "INSERT INTO t VALUES (26, 26, 'w26')")
	crashed = crashed.CrashClone(vfs.CrashCloneCfg{})
	e.Close()

	// Once more: the records applied again at the first start are not
	// applied a second time.
	e = openTest(t, crashed)
	defer e.Close()
	s = session(t, e)
	wantRows(t, s, total, fmt.Sprint(27, " ", (1+2+3+4+5)*10+(6+25)*20/2+100+26))
	wantRows(t, s, "SELECT sum(n), sum(s) FROM m", fmt.Sprint(27, " ", (1+2+3+4+5)*10+(6+25)*20/2+100+26))
	mustRun(t, s, "FLUSH")
	if n := redoRecords(t, e); n != 0 {
		t.Fatalf("%d records left after FLUSH, want 0", n)
	}
}

// TestRedoReplayedAfterFailedCheckpoint: a checkpoint that fails makes
// the database recover in the process, discarding the epochs that did
// not commit; the statements of those epochs acknowledged through the
// redo log are applied again, once.
func TestRedoReplayedAfterFailedCheckpoint(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (id int PRIMARY KEY, v int)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW m AS SELECT count(*) AS n, sum(v) AS s FROM t")
	mustRun(t, s, "INSERT INTO t VALUES (1, 1)")
	mustRun(t, s, "FLUSH")
	fail := make(chan struct{}, 1)
	fail <- struct{}{}
	prev := beforeCheckpointCommit
	beforeCheckpointCommit = func() error {
		select {
		case <-fail:
			return errors.New("injected checkpoint failure")
		default:
			return nil
		}
	}
	defer func() { beforeCheckpointCommit = prev }()
	for i := 2; i <= 10; i++ {
		mustRun(t, s, fmt.Sprintf("INSERT INTO t VALUES (%d, %d)", i, i))
	}
	// The SELECT asks for the checkpoint, which fails; the recovery
	// applies the nine statements again and the next one commits them.
	wantRows(t, s, "SELECT count(*), sum(v) FROM t", "10 55")
	wantRows(t, s, "SELECT n, s FROM m", "10 55")
	if len(fail) != 0 {
		t.Fatal("no checkpoint failed: the test did not recover")
	}
}

// TestRedoNotAfterUnlogged: once a statement committed into the open
// epoch without a record (through its checkpoint), the statements after
// it in that epoch do too: applied again without it, they could be wrong.
func TestRedoNotAfterUnlogged(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (id int PRIMARY KEY, v int)")
	rel, _ := e.cat.Lookup("public", "t")
	row := func(id int64) types.Row { return types.Row{types.DInt(id), types.DInt(id)} }
	e.writeMu.Lock()
	e.noRedo.Store(true)
	w := e.newStmtWriter()
	err := w.Insert(rel.ID, row(1))
	var pe *pendingEpoch
	if err == nil {
		pe, err = applyWait(w)
	}
	e.noRedo.Store(false)
	var logged bool
	if err == nil {
		w = e.newStmtWriter()
		if err = w.Insert(rel.ID, row(2)); err == nil {
			var wait *storage.RedoWait
			pe, wait, err = w.apply()
			if wait != nil {
				logged = true
				err = errors.Join(err, wait.Wait())
			}
		}
	}
	e.writeMu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if logged {
		t.Fatal("a statement after an unlogged one in the same epoch went through the redo log")
	}
	if err := e.waitCommitted(context.Background(), pe); err != nil {
		t.Fatal(err)
	}
	// The next epoch takes records again.
	mustRun(t, s, "INSERT INTO t VALUES (3, 3)")
	if n := redoRecords(t, e); n != 1 {
		t.Fatalf("%d records after a fresh epoch's INSERT, want 1", n)
	}
	wantRows(t, s, "SELECT count(*) FROM t", "3")
}

// TestBlockInsertKeyTakenSince: a block inserts a key that another
// session's statement takes (and is acknowledged) before the block
// commits: COMMIT fails with 23505, as PostgreSQL's second inserter
// does, and the other session's row stays.
func TestBlockInsertKeyTakenSince(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	a, b := session(t, e), session(t, e)
	mustRun(t, a, "CREATE TABLE t (id int PRIMARY KEY, v text)")
	mustRun(t, a, "BEGIN")
	mustRun(t, a, "INSERT INTO t VALUES (5, 'block')")
	mustRun(t, b, "INSERT INTO t VALUES (5, 'other')")
	wantCode(t, a, "COMMIT", "23505", "")
	wantRows(t, b, "SELECT * FROM t", "5 other")
}

// noRedoSegmentsFS fails the creation of redo log segments while fail is
// set (a full or read-only file system under the redo directory).
type noRedoSegmentsFS struct {
	vfs.FS
	fail atomic.Bool
}

func (f *noRedoSegmentsFS) Create(name string, c vfs.DiskWriteCategory) (vfs.File, error) {
	if f.fail.Load() && strings.HasSuffix(name, ".redo") {
		return nil, syscall.ENOSPC
	}
	return f.FS.Create(name, c)
}

// TestRedoAppendFails: a statement whose redo record cannot be written
// has its writes applied already; it commits through its checkpoint, as
// a statement without a record does, rather than failing with its writes
// committed anyway and never sent to the views.
func TestRedoAppendFails(t *testing.T) {
	fs := &noRedoSegmentsFS{FS: vfs.NewMem()}
	e := openTest(t, fs)
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (id int PRIMARY KEY, v int)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW m AS SELECT count(*) AS n, sum(v) AS s FROM t")
	fs.fail.Store(true)
	mustRun(t, s, "INSERT INTO t VALUES (1, 10)")
	mustRun(t, s, "INSERT INTO t VALUES (2, 20)")
	wantRows(t, s, "SELECT n, s FROM m", "2 30")
	fs.fail.Store(false)
	mustRun(t, s, "INSERT INTO t VALUES (3, 30)")
	wantRows(t, s, "SELECT n, s FROM m", "3 60")
	wantRows(t, s, "SELECT count(*), sum(v) FROM t", "3 60")
}

// TestRedoRecordWithBadWrites: a record whose checksum holds but whose
// writes are not a batch a statement writes (edited by hand, with the
// checksum made to match) is skipped, and said so, as a record naming a
// relation that is gone is: the database starts, with the other records
// applied again. Applied as it was, it panicked the recovery (a kind no
// batch may hold) or left the batches it was appended to unreadable, and
// the database never started.
func TestRedoRecordWithBadWrites(t *testing.T) {
	fs := vfs.NewCrashableMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (id int PRIMARY KEY, v int)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW m AS SELECT count(*) AS n, sum(v) AS s FROM t")
	mustRun(t, s, "ALTER SYSTEM SET barrier_interval_ms = 3600000")
	mustRun(t, s, "INSERT INTO t VALUES (1, 10)")
	mustRun(t, s, "INSERT INTO t VALUES (2, 20)")
	if n := redoRecords(t, e); n != 2 {
		t.Fatalf("%d records in the redo log, want 2", n)
	}
	crashed := fs.CrashClone(vfs.CrashCloneCfg{})
	e.Close()

	names, err := crashed.List("data/redo")
	if err != nil || len(names) != 1 {
		t.Fatalf("redo segments %v, %v; want one", names, err)
	}
	name := crashed.PathJoin("data/redo", names[0])
	f, err := crashed.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	// The first record: frame header, then its writes' length and the
	// batch, whose first entry's kind follows the 12-byte batch header.
	// 22 is pebble's InternalKeyKindIngestSST.
	n := binary.BigEndian.Uint32(data)
	_, k := binary.Uvarint(data[16:])
	data[16+k+12] = 22
	binary.BigEndian.PutUint32(data[4:], crc32.Checksum(data[8:16+n], crc32.MakeTable(crc32.Castagnoli)))
	w, err := crashed.OpenReadWrite(name, vfs.WriteCategoryUnspecified)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteAt(data[:16+n], 0); err != nil {
		t.Fatal(err)
	}
	w.Close()

	e = openTest(t, crashed)
	defer e.Close()
	s = session(t, e)
	wantRows(t, s, "SELECT * FROM t", "2 20")
	wantRows(t, s, "SELECT n, s FROM m", "1 20")
}

// failRedoSyncFS fails the fsync of redo log segments while fail is set
// (an I/O error under the redo directory).
type failRedoSyncFS struct {
	vfs.FS
	fail atomic.Bool
}

func (f *failRedoSyncFS) Create(name string, c vfs.DiskWriteCategory) (vfs.File, error) {
	file, err := f.FS.Create(name, c)
	if err == nil && strings.HasSuffix(name, ".redo") {
		file = &failSyncFile{File: file, fail: &f.fail}
	}
	return file, err
}

type failSyncFile struct {
	vfs.File
	fail *atomic.Bool
}

func (f *failSyncFile) SyncData() error {
	if f.fail.Load() {
		return syscall.EIO
	}
	return f.File.SyncData()
}

// TestRedoSyncFails: a statement whose redo record's fsync fails has its
// writes applied already; it commits through its checkpoint instead of
// failing with its writes committed anyway. The log then takes no more
// records, even once fsyncs work again (the failed one may have dropped
// records a later one would not write), until a restart; no statement is
// lost.
func TestRedoSyncFails(t *testing.T) {
	fs := &failRedoSyncFS{FS: vfs.NewMem()}
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (id int PRIMARY KEY, v int)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW m AS SELECT count(*) AS n, sum(v) AS s FROM t")
	mustRun(t, s, "FLUSH") // the next write is in an epoch of its own
	mustRun(t, s, "INSERT INTO t VALUES (1, 10)")
	commits := func(e *Engine, path string) float64 {
		return testutil.ToFloat64(e.obs.dmlCommits.WithLabelValues(path))
	}
	logged, checkpointed := commits(e, "redo_log"), commits(e, "checkpoint")
	if logged != 1 {
		t.Fatalf("%v statements committed through the redo log, want 1", logged)
	}
	fs.fail.Store(true)
	mustRun(t, s, "INSERT INTO t VALUES (2, 20)")
	mustRun(t, s, "INSERT INTO t VALUES (3, 30)")
	fs.fail.Store(false)
	mustRun(t, s, "INSERT INTO t VALUES (4, 40)")
	wantRows(t, s, "SELECT n, s FROM m", "4 100")
	if l, c := commits(e, "redo_log")-logged, commits(e, "checkpoint")-checkpointed; l != 0 || c != 3 {
		t.Errorf("after a failed fsync, %v statements committed through the redo log and %v through their checkpoint, want 0 and 3", l, c)
	}
	e.Close()

	e = openTest(t, fs)
	defer e.Close()
	s = session(t, e)
	mustRun(t, s, "FLUSH") // the recovery's Initial barrier is past
	wantRows(t, s, "SELECT n, s FROM m", "4 100")
	wantRows(t, s, "SELECT count(*), sum(v) FROM t", "4 100")
	mustRun(t, s, "INSERT INTO t VALUES (5, 50)")
	if l := commits(e, "redo_log"); l != 1 {
		t.Errorf("after the restart, %v statements committed through the redo log, want 1", l)
	}
	wantRows(t, s, "SELECT n, s FROM m", "5 150")
}

// TestRedoShutByLookupJoin: writes to a table a job looks up (FOR
// SYSTEM_TIME AS OF PROCTIME()) commit through their checkpoint, the
// table it streams from through the redo log; once the job is dropped,
// the looked-up table's writes take the redo log again (the set of such
// tables follows the jobs).
func TestRedoShutByLookupJoin(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE ev (id int, k int) APPEND ONLY")
	mustRun(t, s, "CREATE TABLE dim (k int PRIMARY KEY, v text)")
	// Until the start's recovery injected its Initial barrier, and in
	// the epoch of a catalog change, writes commit through their
	// checkpoint: FLUSH waits for both to pass.
	mustRun(t, s, "FLUSH")
	commits := func() (float64, float64) {
		return testutil.ToFloat64(e.obs.dmlCommits.WithLabelValues("redo_log")),
			testutil.ToFloat64(e.obs.dmlCommits.WithLabelValues("checkpoint"))
	}
	step := func(stmt string, wantLogged, wantCheckpointed float64) {
		t.Helper()
		l0, c0 := commits()
		mustRun(t, s, stmt)
		if l, c := commits(); l-l0 != wantLogged || c-c0 != wantCheckpointed {
			t.Errorf("%s: %v through the redo log, %v through a checkpoint; want %v and %v", stmt, l-l0, c-c0, wantLogged, wantCheckpointed)
		}
	}
	step("INSERT INTO dim VALUES (1, 'one')", 1, 0)
	mustRun(t, s, `CREATE MATERIALIZED VIEW m AS
		SELECT e.id, d.v FROM ev e JOIN dim FOR SYSTEM_TIME AS OF PROCTIME() AS d ON e.k = d.k`)
	step("INSERT INTO dim VALUES (2, 'two')", 0, 1)
	step("INSERT INTO ev VALUES (10, 2)", 1, 0)
	wantRows(t, s, "SELECT id, v FROM m", "10 two")
	mustRun(t, s, "DROP MATERIALIZED VIEW m")
	mustRun(t, s, "FLUSH") // the next write is in an epoch of its own
	step("INSERT INTO dim VALUES (3, 'three')", 1, 0)
}
