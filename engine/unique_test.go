package engine

import (
	"errors"
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

// wantDuplicate runs q, which must fail with 23505 and DETAIL detail.
func wantDuplicate(t *testing.T, s wire.Session, q, detail string) {
	t.Helper()
	_, err := run(t, s, q)
	var pe *pgerr.Error
	if !errors.As(err, &pe) || pe.Code != pgerr.UniqueViolation || pe.Detail != detail {
		t.Fatalf("%s: got %v, want 23505 with DETAIL %q", q, err, detail)
	}
}

// TestUniqueKeysInPieces runs statements whose unique key changes
// outgrow a 1 MiB budget's share, so that they leave memory in pieces,
// into spill areas of the key store, with the rows. Duplicates must
// still be found, within the statement and against the stored keys,
// with PostgreSQL's DETAIL; a failed statement must leave its keys
// free; rows swapping values fail as PostgreSQL's ordinary (not
// deferrable) unique constraints do; and a crash after the commit must
// keep every key.
func TestUniqueKeysInPieces(t *testing.T) {
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
	mustRun(t, s, "CREATE TABLE k (id int PRIMARY KEY, u text UNIQUE, v int)")
	mustRun(t, s, "INSERT INTO k SELECT g, 'a' || g, g FROM generate_series(20000, 1, -1) g")
	mustRun(t, s, "UPDATE k SET u = 'b' || id, v = v + 1")
	wantRows(t, s, "SELECT count(*), count(DISTINCT u), sum(v), count(*) FILTER (WHERE u = 'b' || id) FROM k", "20000 20000 200030000 20000")

	// The last row (in key order) takes the value the first one took,
	// long after the first pieces left memory.
	wantDuplicate(t, s, "UPDATE k SET u = CASE WHEN id = 20000 THEN 'c1' ELSE 'c' || id END", "Key (u)=(c1) already exists.")
	wantRows(t, s, "SELECT count(*) FILTER (WHERE u = 'b' || id) FROM k", "20000")
	// Against the stored keys, after pieces of new ones.
	wantDuplicate(t, s, "INSERT INTO k SELECT g, 'x' || g, 0 FROM generate_series(20001, 40000) g UNION ALL SELECT 50000, 'b7', 0", "Key (u)=(b7) already exists.")
	// The failed statements' keys are free, and the old ones given up
	// by the UPDATE too.
	mustRun(t, s, "INSERT INTO k VALUES (30000, 'c5', 0), (30001, 'x20001', 0), (30002, 'a9', 0)")
	wantDuplicate(t, s, "INSERT INTO k VALUES (30003, 'a9', 0)", "Key (u)=(a9) already exists.")
	mustRun(t, s, "DELETE FROM k WHERE id >= 30000")

	// Swapping two values fails at the first row, which takes a value
	// the second still holds, as in PostgreSQL (an ordinary unique
	// constraint is checked row by row); moving every value to the next
	// row's in key order passes, each value freed before it is taken.
	wantDuplicate(t, s, "UPDATE k SET u = CASE id WHEN 1 THEN 'b2' ELSE 'b1' END WHERE id IN (1, 2)", "Key (u)=(b2) already exists.")
	mustRun(t, s, "UPDATE k SET u = 'b' || (id - 1)")
	wantRows(t, s, "SELECT count(*), count(DISTINCT u), min(u), count(*) FILTER (WHERE u = 'b' || (id - 1)) FROM k", "20000 20000 b0 20000")
	// A key moved by a primary key change.
	mustRun(t, s, "UPDATE k SET id = id + 100000, u = 'd' || id")
	wantDuplicate(t, s, "INSERT INTO k VALUES (1, 'd20000', 0)", "Key (u)=(d20000) already exists.")

	crashed := fs.CrashClone(vfs.CrashCloneCfg{})
	e.Close()
	e = open(crashed)
	defer e.Close()
	s = session(t, e)
	wantDuplicate(t, s, "INSERT INTO k VALUES (1, 'd7', 0)", "Key (u)=(d7) already exists.")
	mustRun(t, s, "INSERT INTO k VALUES (1, 'b7', 0), (2, 'a7', 0)")
	wantRows(t, s, "SELECT count(*), count(DISTINCT u) FROM k", "20002 20002")
}
