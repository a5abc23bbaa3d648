package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/types"
)

// TestIndexPointLookup checks that a point lookup on a 200,000-row table
// reads, through an index, the one index entry and the one row it
// needs, where the same question asked without the index reads every
// row; that the index follows updates, survives a crash and goes with
// DROP INDEX.
func TestIndexPointLookup(t *testing.T) {
	fs := vfs.NewCrashableMem()
	e := openTest(t, fs)
	s := session(t, e)
	const n = 200000
	mustRun(t, s, "CREATE TABLE big (id int PRIMARY KEY, k int, v text)")
	mustRun(t, s, fmt.Sprintf("INSERT INTO big SELECT g, g + 1000000, 'v' || g FROM generate_series(1, %d) g", n))
	mustRun(t, s, "CREATE INDEX big_k ON big (k)")

	// reads returns the rows of query and how many stored rows it read.
	reads := func(query string) ([]string, int64) {
		t.Helper()
		before := e.rowsRead.Load()
		rows := mustRun(t, s, query)
		return rows, e.rowsRead.Load() - before
	}
	plan := strings.Join(mustRun(t, s, "EXPLAIN SELECT id, v FROM big WHERE k = 1123456"), "\n")
	if !strings.Contains(plan, "IndexScan big_k on big") {
		t.Fatalf("the lookup does not use the index:\n%s", plan)
	}
	rows, read := reads("SELECT id, v FROM big WHERE k = 1123456")
	if fmt.Sprint(rows) != "[123456 v123456]" {
		t.Fatalf("lookup through the index: got %q", rows)
	}
	if read > 2 {
		t.Fatalf("lookup through the index read %d rows, want at most 2 (one index entry, one row)", read)
	}
	// The index holds k and id: it answers for them alone.
	plan = strings.Join(mustRun(t, s, "EXPLAIN SELECT id FROM big WHERE k = 1123456"), "\n")
	if !strings.Contains(plan, "IndexOnlyScan big_k on big") {
		t.Fatalf("the lookup of indexed columns does not read the index alone:\n%s", plan)
	}
	if rows, read := reads("SELECT id, k FROM big WHERE k = 1123456"); fmt.Sprint(rows) != "[123456 1123456]" || read > 1 {
		t.Fatalf("index-only lookup: got %q reading %d rows, want one row reading at most 1", rows, read)
	}
	scanned, readAll := reads("SELECT id, v FROM big WHERE k + 0 = 1123456")
	if fmt.Sprint(scanned) != fmt.Sprint(rows) {
		t.Fatalf("full scan: got %q, through the index %q", scanned, rows)
	}
	if readAll < n {
		t.Fatalf("the full scan read %d rows, want all %d", readAll, n)
	}
	rows, read = reads("SELECT count(*) FROM big WHERE k >= 1199990")
	if fmt.Sprint(rows) != "[11]" || read > 22 {
		t.Fatalf("range through the index: got %q reading %d rows, want [11] reading at most 22", rows, read)
	}

	// A parameter is a value the index serves too.
	ctx := context.Background()
	p, err := s.Prepare(ctx, "SELECT v FROM big WHERE k = $1", nil)
	if err != nil {
		t.Fatal(err)
	}
	before := e.rowsRead.Load()
	r, err := p.Execute(ctx, []types.Datum{types.DInt(1000005)}, &testIO{})
	if err != nil {
		t.Fatal(err)
	}
	row, err := r.Next(ctx)
	if err != nil || row == nil || types.FormatText(row[0], types.TText, nil) != "v5" {
		t.Fatalf("lookup by parameter: got %v, %v", row, err)
	}
	if row, err := r.Next(ctx); row != nil || err != nil {
		t.Fatalf("lookup by parameter: a second row %v, %v", row, err)
	}
	r.Close()
	if read := e.rowsRead.Load() - before; read > 2 {
		t.Fatalf("lookup by parameter read %d rows, want at most 2", read)
	}

	// The index follows the table's changes.
	mustRun(t, s, "UPDATE big SET k = 7 WHERE id = 123456")
	wantRows(t, s, "SELECT id FROM big WHERE k = 1123456")
	wantRows(t, s, "SELECT id, v FROM big WHERE k = 7", "123456 v123456")
	mustRun(t, s, "DELETE FROM big WHERE id = 123456")
	wantRows(t, s, "SELECT id FROM big WHERE k = 7")

	// After a crash the index comes back with the table, is read again
	// (once its job is running) and follows the changes after it.
	crashed := fs.CrashClone(vfs.CrashCloneCfg{})
	e.Close()
	e = openTest(t, crashed)
	defer e.Close()
	s = session(t, e)
	rows, read = reads("SELECT id, v FROM big WHERE k = 1123457")
	if fmt.Sprint(rows) != "[123457 v123457]" || read > 2 {
		t.Fatalf("lookup after a restart: got %q reading %d rows", rows, read)
	}
	mustRun(t, s, "UPDATE big SET k = 8 WHERE id = 123457")
	mustRun(t, s, "INSERT INTO big VALUES (0, 8, 'zero')")
	wantRows(t, s, "SELECT id, v FROM big WHERE k = 8 ORDER BY id", "0 zero", "123457 v123457")
	wantRows(t, s, "SELECT id, v FROM big WHERE k + 0 = 8 ORDER BY id", "0 zero", "123457 v123457")
	wantRows(t, s, "SELECT id FROM big WHERE k = 1123457")

	mustRun(t, s, "DROP INDEX big_k")
	plan = strings.Join(mustRun(t, s, "EXPLAIN SELECT id, v FROM big WHERE k = 1000001"), "\n")
	if strings.Contains(plan, "IndexScan") {
		t.Fatalf("a dropped index is still planned:\n%s", plan)
	}
	if rows, read = reads("SELECT id, v FROM big WHERE k = 1000001"); fmt.Sprint(rows) != "[1 v1]" || read < n-1 {
		t.Fatalf("without the index: got %q reading %d rows", rows, read)
	}
}
