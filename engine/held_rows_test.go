package engine

import (
	"context"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/pgerr"
)

// TestHeldRowsTapesRemoved: at a 64kB work_mem, the rows of an
// uncorrelated subquery, kept for the statement, and a DML statement's
// RETURNING rows, kept until it commits, go to tapes, which are there
// while the result is open and gone once it is closed, whether the
// statement succeeded or failed.
func TestHeldRowsTapesRemoved(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	defer e.Close()
	tapes := func() int {
		names, err := fs.List(fs.PathJoin("data", "logs"))
		if err != nil {
			t.Fatal(err)
		}
		return len(names)
	}
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE h (id int PRIMARY KEY, p text)")
	mustRun(t, s, "INSERT INTO h SELECT g, repeat(md5(g::text), 2) FROM generate_series(1, 3000) g")
	mustRun(t, s, "SET work_mem = '64kB'")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// open executes text and reads its first row, with the result left
	// open; it returns the files in logs then, and the result.
	open := func(text string) (int, func()) {
		t.Helper()
		p, err := s.Prepare(ctx, text, nil)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		r, err := p.Execute(ctx, nil, &testIO{})
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		row, err := r.Next(ctx)
		if err != nil || row == nil {
			t.Fatalf("%s: first row %v, %v", text, row, err)
		}
		return tapes(), r.Close
	}
	for _, q := range []string{
		// Hashed, and read again for every row.
		"SELECT id FROM h WHERE id % 500 = 0 AND p IN (SELECT p FROM h WHERE id % 2 = 0)",
		"SELECT id FROM h WHERE id <= ALL (SELECT id + 1 FROM h WHERE id % 2 = 0)",
		"INSERT INTO h SELECT g, 'new' || g FROM generate_series(3001, 5000) g RETURNING id, p",
	} {
		n, closeRes := open(q)
		if n == 0 {
			t.Errorf("%s: no tape while its result is open", q)
		}
		closeRes()
		if n := tapes(); n != 0 {
			t.Errorf("%s: %d files in logs after its result closed, want none", q, n)
		}
	}
	wantRows(t, s, "SELECT count(*) FROM h WHERE id % 500 = 0 AND p IN (SELECT p FROM h WHERE id % 2 = 0 AND id <= 3000)", "6")
	wantRows(t, s, "SELECT count(*) FROM h WHERE p NOT IN (SELECT p FROM h WHERE id > 10)", "10")
	wantRows(t, s, "SELECT id FROM h WHERE id <= ALL (SELECT id + 1 FROM h WHERE id % 2 = 0)", "1", "2", "3")

	// Failures: a subquery's rows kept when a later row fails, and
	// RETURNING rows collected before a duplicate key.
	if _, err := run(t, s, "SELECT 1 / (id - 4000) FROM h WHERE p IN (SELECT p FROM h)"); pgerr.CodeOf(err) != pgerr.DivisionByZero {
		t.Fatalf("division by zero: got %v", err)
	}
	if _, err := run(t, s, "INSERT INTO h SELECT g, 'x' FROM generate_series(5001, 7000) g UNION ALL SELECT 1, 'dup' RETURNING *"); pgerr.CodeOf(err) != pgerr.UniqueViolation {
		t.Fatalf("duplicate key: got %v", err)
	}
	if n := tapes(); n != 0 {
		t.Errorf("%d files in logs after the failed statements, want none", n)
	}
	wantRows(t, s, "SELECT count(*), max(id) FROM h", "5000 5000")
}
