package engine

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/wire"
)

// TestUniqueIndexRestart checks that a unique index keeps refusing
// duplicates after a crash, that values freed before it are free after
// it, and that a key store lost with the epoch that would have committed
// it is rebuilt from the table's rows when the engine opens.
func TestUniqueIndexRestart(t *testing.T) {
	fs := vfs.NewCrashableMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE u (id int PRIMARY KEY, b int, c text UNIQUE)")
	mustRun(t, s, "INSERT INTO u SELECT g, g * 10, 'c' || g FROM generate_series(1, 1000) g")
	mustRun(t, s, "CREATE UNIQUE INDEX u_b ON u (b)")
	mustRun(t, s, "DELETE FROM u WHERE id = 7")
	mustRun(t, s, "UPDATE u SET b = 5 WHERE id = 8")
	wantCode(t, s, "INSERT INTO u VALUES (2000, 10, 'new')", pgerr.UniqueViolation, "duplicate key value violates unique constraint")

	crashed := fs.CrashClone(vfs.CrashCloneCfg{})
	e.Close()
	e = openTest(t, crashed)
	s = session(t, e)
	wantCode(t, s, "INSERT INTO u VALUES (2000, 10, 'new')", pgerr.UniqueViolation, "duplicate key value violates unique constraint")
	wantCode(t, s, "INSERT INTO u VALUES (2000, 5, 'new')", pgerr.UniqueViolation, "duplicate key value violates unique constraint")
	wantCode(t, s, "INSERT INTO u VALUES (2000, 1, 'c1')", pgerr.UniqueViolation, "duplicate key value violates unique constraint")
	mustRun(t, s, "INSERT INTO u VALUES (2000, 70, 'c7'), (2001, 80, 'c8x')")
	wantRows(t, s, "SELECT id FROM u WHERE b IN (5, 70, 80) ORDER BY id", "8", "2000", "2001")

	// Lose every key store, as a crash between CREATE UNIQUE INDEX and
	// the commit of its epoch would: opening rebuilds them.
	for _, r := range e.cat.All() {
		if st := r.UniqueStore(); st != 0 {
			b := e.db.NewWriteBatch()
			if err := b.DeleteRange(st); err != nil {
				t.Fatal(err)
			}
			if err := b.Commit(); err != nil {
				t.Fatal(err)
			}
		}
	}
	e.Close()
	e = openTest(t, crashed)
	defer e.Close()
	s = session(t, e)
	wantCode(t, s, "INSERT INTO u VALUES (3000, 70, 'x')", pgerr.UniqueViolation, "duplicate key value violates unique constraint")
	wantCode(t, s, "INSERT INTO u VALUES (3000, 1, 'c8x')", pgerr.UniqueViolation, "duplicate key value violates unique constraint")
	mustRun(t, s, "INSERT INTO u VALUES (3000, 1, 'x')")
	n := 0
	for _, r := range e.cat.All() {
		if r.Kind == catalog.KindIndex && r.UniqueStore() != 0 {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("%d unique indexes after the restarts, want 2", n)
	}
}

// TestUniqueRace checks that sessions inserting one value at once
// cannot both commit: autocommit statements, where exactly one of many
// succeeds, and transaction blocks, where the block committing second
// fails at COMMIT with 23505. Rows swapping their values in one block
// commit.
func TestUniqueRace(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE r (id int PRIMARY KEY, b int UNIQUE)")

	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	sessions := make([]wire.Session, n)
	for i := range sessions {
		sessions[i] = session(t, e)
	}
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, errs[i] = run(t, sessions[i], fmt.Sprintf("INSERT INTO r VALUES (%d, 42)", i))
		}(i)
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case pgerr.CodeOf(err) != pgerr.UniqueViolation:
			t.Fatalf("racing insert: %v", err)
		}
	}
	if ok != 1 {
		t.Fatalf("%d racing inserts of one value committed, want 1", ok)
	}
	wantRows(t, s, "SELECT count(*) FROM r WHERE b = 42", "1")

	a, b := session(t, e), session(t, e)
	mustRun(t, a, "BEGIN")
	mustRun(t, b, "BEGIN")
	mustRun(t, a, "INSERT INTO r VALUES (100, 7)")
	mustRun(t, b, "INSERT INTO r VALUES (101, 7)")
	mustRun(t, a, "COMMIT")
	wantCode(t, b, "COMMIT", pgerr.UniqueViolation, "duplicate key value violates unique constraint")
	wantRows(t, s, "SELECT id FROM r WHERE b = 7", "100")

	// An autocommit insert after a block checked the value.
	mustRun(t, a, "BEGIN")
	mustRun(t, a, "INSERT INTO r VALUES (102, 8)")
	mustRun(t, b, "INSERT INTO r VALUES (103, 8)")
	wantCode(t, a, "COMMIT", pgerr.UniqueViolation, "duplicate key value violates unique constraint")
	wantRows(t, s, "SELECT id FROM r WHERE b = 8", "103")

	// Two rows exchanging their values.
	mustRun(t, a, "BEGIN")
	mustRun(t, a, "UPDATE r SET b = 0 WHERE id = 100")
	mustRun(t, a, "UPDATE r SET b = 7 WHERE id = 103")
	mustRun(t, a, "UPDATE r SET b = 8 WHERE id = 100")
	mustRun(t, a, "COMMIT")
	wantRows(t, s, "SELECT id, b FROM r WHERE id IN (100, 103) ORDER BY id", "100 8", "103 7")
	wantCode(t, s, "INSERT INTO r VALUES (104, 8)", pgerr.UniqueViolation, "duplicate key value violates unique constraint")
	mustRun(t, s, "INSERT INTO r VALUES (104, 0)")
}

// TestDMLThroughIndex checks that UPDATE and DELETE whose filter fixes an
// index's key read the index's range, as SELECT does, not every row;
// that they scan the table instead while a change to it is still to
// commit (the index lags it), with the same answers; and that EXPLAIN
// shows the index.
func TestDMLThroughIndex(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	const n = 50000
	mustRun(t, s, "CREATE TABLE d (id int PRIMARY KEY, k int, v text)")
	mustRun(t, s, fmt.Sprintf("INSERT INTO d SELECT g, g + 1000000, 'v' || g FROM generate_series(1, %d) g", n))
	mustRun(t, s, "CREATE INDEX d_k ON d (k)")
	mustRun(t, s, "CREATE UNIQUE INDEX d_v ON d (v)")

	for _, q := range []string{"UPDATE d SET v = 'x' WHERE k = 1000005", "DELETE FROM d WHERE k = 1000005", "DELETE FROM d WHERE v = 'v5'"} {
		plan := strings.Join(mustRun(t, s, "EXPLAIN "+q), "\n")
		if !strings.Contains(plan, "IndexScan") {
			t.Fatalf("%s does not use an index:\n%s", q, plan)
		}
	}
	reads := func(q string) int64 {
		t.Helper()
		before := e.rowsRead.Load()
		mustRun(t, s, q)
		return e.rowsRead.Load() - before
	}
	if r := reads("UPDATE d SET v = 'upd' WHERE k = 1000005"); r > 2 {
		t.Fatalf("UPDATE through the index read %d rows, want at most 2", r)
	}
	if r := reads("DELETE FROM d WHERE v = 'v6'"); r > 2 {
		t.Fatalf("DELETE through the index read %d rows, want at most 2", r)
	}
	if r := reads("UPDATE d SET k = 7 WHERE k IN (1000008, 1000009)"); r > 4 {
		t.Fatalf("UPDATE of an IN list through the index read %d rows, want at most 4", r)
	}
	wantRows(t, s, "SELECT id, k, v FROM d WHERE id BETWEEN 5 AND 9 ORDER BY id", "5 1000005 upd", "7 1000007 v7", "8 7 v8", "9 7 v9")
	wantRows(t, s, "SELECT id FROM d WHERE k = 7 ORDER BY id", "8", "9")
	wantRows(t, s, "SELECT id FROM d WHERE v = 'upd'", "5")

	// In a transaction block that wrote, the block's reads see its own
	// changes: the table is read instead of the index.
	mustRun(t, s, "BEGIN")
	mustRun(t, s, "UPDATE d SET k = 11 WHERE id = 10")
	mustRun(t, s, "UPDATE d SET v = 'ten' WHERE k = 11")
	mustRun(t, s, "COMMIT")
	wantRows(t, s, "SELECT id, k, v FROM d WHERE id = 10", "10 11 ten")
	if r := reads("DELETE FROM d WHERE k = 11"); r > 2 {
		t.Fatalf("DELETE after the block committed read %d rows, want at most 2", r)
	}
	wantRows(t, s, "SELECT count(*) FROM d", fmt.Sprint(n-2))
}

// TestUniqueInPieces checks unique indexes under a 1 MiB memory budget,
// where a statement's changes move out of memory in pieces: a duplicate
// found long after the first pieces fails the statement and leaves
// neither rows nor keys behind, and the keys of a statement that
// succeeds are all enforced afterwards.
func TestUniqueInPieces(t *testing.T) {
	e, err := Open(Config{DataDir: "data", Storage: storage.Options{FS: vfs.NewMem()}, MemoryBudgetBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE p (id bigint PRIMARY KEY, k bigint UNIQUE)")
	mustRun(t, s, "INSERT INTO p SELECT i, i FROM generate_series(1, 40000) AS s(i)")
	wantCode(t, s, "INSERT INTO p SELECT i, i FROM generate_series(40001, 100000) AS s(i) UNION ALL SELECT 100001, 7", pgerr.UniqueViolation, `unique constraint "p_k_key"`)
	wantRows(t, s, "SELECT count(*) FROM p", "40000")
	// The failed statement's keys are free.
	mustRun(t, s, "INSERT INTO p VALUES (100001, 99999)")
	mustRun(t, s, "UPDATE p SET k = k + 1000000 WHERE id <= 40000")
	wantCode(t, s, "INSERT INTO p VALUES (0, 1000001)", pgerr.UniqueViolation, `unique constraint "p_k_key"`)
	mustRun(t, s, "INSERT INTO p VALUES (0, 1)")
	wantRows(t, s, "SELECT count(*) FROM p WHERE k >= 1000000", "40000")
}

// TestAddUniqueWithOtherActions: ADD UNIQUE among other actions of one
// ALTER TABLE is refused whole, with a message naming it, and changes
// nothing.
func TestAddUniqueWithOtherActions(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE a7 (id int PRIMARY KEY, w int, z int)")
	wantCode(t, s, "ALTER TABLE a7 ADD CONSTRAINT a7_w_key UNIQUE (w), ADD COLUMN q int", pgerr.FeatureNotSupported, "ADD UNIQUE together with other actions")
	wantCode(t, s, "ALTER TABLE a7 ADD UNIQUE (z), ALTER COLUMN z TYPE bigint", pgerr.FeatureNotSupported, "ADD UNIQUE together with other actions")
	wantRows(t, s, "SELECT count(*) FROM pg_indexes WHERE tablename = 'a7'", "1")
	wantRows(t, s, "SELECT count(*) FROM information_schema.columns WHERE table_name = 'a7'", "3")
}

// TestDropUniqueConstraint: ALTER TABLE ... DROP CONSTRAINT drops a
// UNIQUE constraint with its index, which DROP INDEX refuses to drop
// alone; a primary key stays (0A000), an unknown name is 42704.
func TestDropUniqueConstraint(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE dc (id int PRIMARY KEY, a int, CONSTRAINT dc_a UNIQUE (a))")
	mustRun(t, s, "CREATE UNIQUE INDEX dc_ux ON dc (id, a)")
	mustRun(t, s, "INSERT INTO dc VALUES (1, 1)")
	_, err := run(t, s, "DROP INDEX dc_a")
	if pe := pgerr.As(err); pe == nil || pe.Code != pgerr.DependentObjectsStillExist ||
		pe.Message != "cannot drop index dc_a because constraint dc_a on table dc requires it" || pe.Hint != "You can drop constraint dc_a on table dc instead." {
		t.Fatalf("DROP INDEX of a constraint's index: %v", err)
	}
	wantCode(t, s, "ALTER TABLE dc DROP CONSTRAINT dc_ux", pgerr.UndefinedObject, `constraint "dc_ux" of relation "dc" does not exist`)
	wantCode(t, s, "ALTER TABLE dc DROP CONSTRAINT dc_pkey", pgerr.FeatureNotSupported, "primary key")
	wantCode(t, s, "ALTER TABLE dc DROP CONSTRAINT dc_a, ADD COLUMN b int", pgerr.FeatureNotSupported, "DROP CONSTRAINT together with other actions")
	mustRun(t, s, "ALTER TABLE dc DROP CONSTRAINT IF EXISTS dc_none")
	wantCode(t, s, "INSERT INTO dc VALUES (2, 1)", pgerr.UniqueViolation, `"dc_a"`)
	mustRun(t, s, "ALTER TABLE dc DROP CONSTRAINT dc_a CASCADE")
	if _, ok := e.cat.Lookup("", "dc_a"); ok {
		t.Fatal("dc_a still there")
	}
	mustRun(t, s, "INSERT INTO dc VALUES (2, 1)")
	wantRows(t, s, "SELECT conname FROM pg_constraint WHERE conrelid = 'dc'::regclass", "dc_pkey")
	mustRun(t, s, "DROP INDEX dc_ux")
}
