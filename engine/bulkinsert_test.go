package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/wire"
)

// valuesRows joins row(1), ..., row(n) with commas.
func valuesRows(n int, row func(i int) string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteString(", ")
		}
		b.WriteString(row(i))
	}
	return b.String()
}

// outcome is what a statement did, as text: its rows, or its error with
// every field a client sees.
func outcome(t *testing.T, s wire.Session, text string) string {
	t.Helper()
	rows, err := run(t, s, text)
	if err != nil {
		var pe *pgerr.Error
		if !errors.As(err, &pe) {
			return "error " + err.Error()
		}
		return fmt.Sprintf("error %s %q at %d detail %q hint %q", pe.Code, pe.Message, pe.Position, pe.Detail, pe.Hint)
	}
	return strings.Join(rows, "\n")
}

// A multi-row INSERT ... VALUES of literals runs a piece of rows at a
// time (bulkinsert.go); the same statements run whole must do exactly
// the same: the same rows returned, the same errors with the same
// positions, the same table and view afterwards, nothing written by a
// statement that fails in a later piece.
func TestBulkInsertSameAsWhole(t *testing.T) {
	const n = 4000 // about three pieces of rows
	bools := []string{"TRUE", "FALSE", "NULL", "true"}
	full := func(i int) string {
		b := fmt.Sprintf("E'e\\t%d'", i)
		switch i % 5 {
		case 1:
			b = "DEFAULT"
		case 2:
			b = fmt.Sprintf("$$dollar '%d'$$", i)
		case 3:
			b = fmt.Sprintf("'plain ''%d'''::text", i)
		}
		return fmt.Sprintf("(%d, %s, %d.5, '2020-01-%02d'::date, %s, -%d)", i, b, i, i%28+1, bools[i%4], i)
	}
	late := func(at int, bad string) func(int) string {
		return func(i int) string {
			if i == at {
				return bad
			}
			return fmt.Sprintf("(%d, 'r%d', %d, NULL, TRUE, %d)", n+i, i, i, n+i)
		}
	}
	type stmt struct {
		text string
		// bulk: the statement is one ScanBulkInsert takes.
		bulk bool
		// fails on a late row, after its first pieces went through.
		fails bool
	}
	stmts := []stmt{
		{"INSERT INTO t VALUES " + valuesRows(n, full) + " RETURNING a, b, c, d, e, f", true, false},
		{"INSERT INTO t (f, a) VALUES " + valuesRows(n, func(i int) string { return fmt.Sprintf("(+%d, %d)", 10*n+i, 10*n+i) }), true, false},
		{"INSERT INTO t AS x VALUES " + valuesRows(n, full) + " ON CONFLICT (a) DO UPDATE SET c = excluded.c + x.c RETURNING *", true, false},
		{"INSERT INTO t VALUES " + valuesRows(n, full) + " ON CONFLICT DO NOTHING RETURNING a", true, false},
		{"INSERT INTO t VALUES " + valuesRows(n, late(3900, "('x', 'b', 1, NULL, NULL, 1)")), true, true},
		{"INSERT INTO t VALUES " + valuesRows(n, late(3900, "(1, NULL, 1, NULL, NULL, 1)")), true, true},
		{"INSERT INTO t VALUES " + valuesRows(n, late(3900, "(99999999999, 'b', 1, NULL, NULL, 1)")), true, true},
		{"INSERT INTO t VALUES " + valuesRows(n, late(3900, "(1, 'b', 1, NULL, NULL, '1'::nosuchtype)")), true, true},
		{"INSERT INTO t VALUES " + valuesRows(n, late(3900, "(-7, 'b', 1, NULL, 'maybe', 1)")), true, true},
		{"INSERT INTO t VALUES " + valuesRows(n, late(3900, "(-7, 'b', 1, NULL, NULL, -5)")), true, true},
		{"INSERT INTO t VALUES " + valuesRows(n, late(3900, "(-7, 'b', 1, NULL, NULL)")), false, true},
		{"INSERT INTO t VALUES " + valuesRows(n, late(3900, "(-7, 'b', 1 + 1, NULL, NULL, 99999)")), false, false},
		{"INSERT INTO t VALUES " + valuesRows(n, late(3900, "(-7, 'b', 1, NULL, NULL, -7)")) + " ON CONFLICT (a) DO UPDATE SET b = 'u' RETURNING a,, b", true, true},
		{"INSERT INTO t VALUES " + valuesRows(n, late(3900, "(-7, 'b', 1, NULL, NULL, -7)")) + " ON CONFLICT (a) DO UPDATE SET b = excluded.b RETURNING nosuch", true, true},
		{"INSERT INTO t VALUES " + valuesRows(n, late(3900, fmt.Sprintf("(%d, 'again', 1, NULL, NULL, -8)", n+1))) + " ON CONFLICT (a) DO UPDATE SET b = excluded.b", true, true},
	}

	open := func(whole bool) wire.Session {
		e := openTest(t, vfs.NewMem())
		t.Cleanup(func() { e.Close() })
		if whole {
			e.bulkInsertMin = math.MaxInt
		}
		s := session(t, e)
		mustRun(t, s, "CREATE TABLE t (a int PRIMARY KEY, b text NOT NULL DEFAULT 'dflt', c numeric, d date, e boolean, f bigint UNIQUE)")
		mustRun(t, s, "CREATE MATERIALIZED VIEW v AS SELECT e, count(*) AS n, sum(c) AS s, max(d) AS d FROM t GROUP BY e")
		return s
	}
	pieces, whole := open(false), open(true)
	eng := pieces.(*Session).eng
	for k, st := range stmts {
		if got := eng.scanBulkInsert(st.text) != nil; got != st.bulk {
			t.Fatalf("statement %d: taken as a bulk INSERT %v, want %v", k, got, st.bulk)
		}
		before := mustRun(t, whole, "SELECT count(*) FROM t")
		a, b := outcome(t, pieces, st.text), outcome(t, whole, st.text)
		if a != b {
			t.Fatalf("statement %d:\nin pieces %.600s\nwhole     %.600s", k, a, b)
		}
		if st.fails {
			if !strings.HasPrefix(a, "error") {
				t.Fatalf("statement %d did not fail: %.200s", k, a)
			}
			if after := mustRun(t, whole, "SELECT count(*) FROM t"); after[0] != before[0] {
				t.Fatalf("statement %d failed and left rows: %s, then %s", k, before, after)
			}
		}
		for _, q := range []string{"SELECT * FROM t ORDER BY a", "SELECT * FROM v ORDER BY e"} {
			if a, b := outcome(t, pieces, q), outcome(t, whole, q); a != b {
				t.Fatalf("after statement %d, %s:\nin pieces %.600s\nwhole     %.600s", k, q, a, b)
			}
		}
	}
	t.Logf("%s rows", mustRun(t, whole, "SELECT count(*) FROM t")[0])
}

// A bulk INSERT in a transaction block goes with the block, and one that
// fails in a later piece fails the block; in a query string of several
// statements, a syntax error after it stops it from running.
func TestBulkInsertInBlocks(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (a int PRIMARY KEY, b text)")
	ok := "INSERT INTO t VALUES " + valuesRows(5000, func(i int) string { return fmt.Sprintf("(%d, 'r%d')", i, i) })
	bad := "INSERT INTO t VALUES " + valuesRows(5000, func(i int) string {
		if i == 4999 {
			return "(1, 'dup')"
		}
		return fmt.Sprintf("(%d, 'r%d')", 10000+i, i)
	})
	if e.scanBulkInsert(ok) == nil || e.scanBulkInsert(bad) == nil {
		t.Fatal("not taken as bulk INSERTs")
	}
	mustRun(t, s, "BEGIN")
	mustRun(t, s, ok)
	wantRows(t, s, "SELECT count(*) FROM t", "5000")
	mustRun(t, s, "ROLLBACK")
	wantRows(t, s, "SELECT count(*) FROM t", "0")
	mustRun(t, s, "BEGIN")
	mustRun(t, s, ok)
	if _, err := run(t, s, bad); pgerr.CodeOf(err) != pgerr.UniqueViolation {
		t.Fatalf("duplicate in a later piece: %v", err)
	}
	if _, err := run(t, s, "SELECT 1"); pgerr.CodeOf(err) != pgerr.InFailedSQLTransaction {
		t.Fatalf("after the failed bulk INSERT: %v", err)
	}
	mustRun(t, s, "ROLLBACK")
	wantRows(t, s, "SELECT count(*) FROM t", "0")

	// Split checks every statement's syntax before any runs.
	_, err := s.Split(context.Background(), ok+"; SELEC 1")
	var pe *pgerr.Error
	if !errors.As(err, &pe) || pe.Code != pgerr.SyntaxError || pe.Position != len(ok)+3 {
		t.Fatalf("syntax error after a bulk INSERT: %v", err)
	}
	_, err = s.Split(context.Background(), ok+" RETURNING a,, b; SELECT 1")
	if !errors.As(err, &pe) || pe.Code != pgerr.SyntaxError || pe.Position != len(ok)+len(" RETURNING a,")+1 {
		t.Fatalf("syntax error in a bulk INSERT's RETURNING: %v", err)
	}
	ps, err := s.Split(context.Background(), ok+"; "+ok)
	if err != nil || len(ps) != 2 {
		t.Fatalf("two bulk INSERTs: %v, %d pieces", err, len(ps))
	}
	wantRows(t, s, "SELECT count(*) FROM t", "0")
}

// Every row of a bulk INSERT is bound before anything runs and before
// its ON CONFLICT and RETURNING, as PostgreSQL analyses every row of a
// VALUES list first: a bad value in a late row is the statement's error
// even when its tail or the execution of its earlier rows would fail
// too, no sequence moves for a statement that fails so, and through the
// extended protocol the error comes at Parse.
func TestBulkInsertChecksRowsFirst(t *testing.T) {
	const n = 8000 // several pieces of rows
	rows := func(last string, row func(i int) string) string {
		return valuesRows(n, func(i int) string {
			if i == n {
				return last
			}
			return row(i)
		})
	}
	good := func(i int) string { return fmt.Sprintf("(%d, 'r%d')", i, i) }
	long := func(i int) string { return fmt.Sprintf("(%d, 'too long %d')", i, i) }
	stmts := []string{
		"INSERT INTO o (id, v) VALUES " + rows("('x', 'y')", good),
		"INSERT INTO o (id, v) VALUES (-1, 'one') RETURNING s",
		"INSERT INTO o (id, v) VALUES " + rows("('x', 'y')", good) + " RETURNING nosuch",
		"INSERT INTO o (id, v) VALUES " + rows("('x', 'y')", good) + " ON CONFLICT (nosuch) DO NOTHING",
		"INSERT INTO o (id, v) VALUES " + rows("('x', 'y')", good) + " ON CONFLICT (id) DO UPDATE SET nosuch = 1",
		"INSERT INTO o (id, v) VALUES " + rows("(1, 'b'::int4range)", long),
		"INSERT INTO o (id, v) VALUES " + rows("('1.5', 'b')", long) + " RETURNING *",
		"INSERT INTO o (id, v) VALUES " + rows("(1, 'y', 3)", good) + " RETURNING nosuch",
		"INSERT INTO o (id, v) VALUES " + rows("(-3, 'far too long')", good) + " RETURNING s",
		"INSERT INTO o (id, v) VALUES (-2, 'two') RETURNING s",
		"INSERT INTO o (id, nosuch) VALUES " + rows("('x', 'y')", good),
		"INSERT INTO o (id, v) VALUES ('x', 'y'), " + rows("(1, 'y', 3)", good),
	}
	// What each gives, as PostgreSQL does: its SQLSTATE or its rows.
	want := []string{"22P02", "1", "22P02", "22P02", "22P02", "42704", "22P02", "42601", "22001", "2", "42703", "22P02"}
	open := func(whole bool) wire.Session {
		e := openTest(t, vfs.NewMem())
		t.Cleanup(func() { e.Close() })
		if whole {
			e.bulkInsertMin = math.MaxInt
		}
		s := session(t, e)
		mustRun(t, s, "CREATE TABLE o (id int PRIMARY KEY, v varchar(6), s serial)")
		return s
	}
	pieces, whole := open(false), open(true)
	eng := pieces.(*Session).eng
	for k, text := range stmts {
		// Rows of different lengths are parsed whole.
		bulk := len(text) > 1000 && !strings.Contains(text, "'y', 3)")
		if got := eng.scanBulkInsert(text) != nil; got != bulk {
			t.Fatalf("statement %d: taken as a bulk INSERT %v, want %v", k, got, bulk)
		}
		a, b := outcome(t, pieces, text), outcome(t, whole, text)
		if a != b {
			t.Fatalf("statement %d:\nin pieces %.600s\nwhole     %.600s", k, a, b)
		}
		if a != want[k] && !strings.HasPrefix(a, "error "+want[k]+" ") {
			t.Fatalf("statement %d: %.300s, want %s", k, a, want[k])
		}
	}
	wantRows(t, pieces, "SELECT id, v, s FROM o ORDER BY id", "-2 two 2", "-1 one 1")

	// The extended protocol: Parse fails, nothing has to run.
	ctx := context.Background()
	for _, text := range []string{stmts[0], stmts[2], stmts[6]} {
		_, errP := pieces.Prepare(ctx, text, nil)
		_, errW := whole.Prepare(ctx, text, nil)
		if errP == nil || fmt.Sprint(errP) != fmt.Sprint(errW) {
			t.Fatalf("Parse of %.60s...: in pieces %v, whole %v", text, errP, errW)
		}
		var pe *pgerr.Error
		if !errors.As(errP, &pe) || pe.Code != pgerr.InvalidTextRepresentation {
			t.Fatalf("Parse of %.60s...: %v", text, errP)
		}
	}
}
