package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
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

// TestPrimaryKeyLookup checks that filters fixing a prefix of a table's
// or view's primary key (equality, an IN list, a range) read only the
// rows in those key ranges, in queries and in UPDATE and DELETE, inside
// a transaction block too, with the answers a full scan gives.
func TestPrimaryKeyLookup(t *testing.T) {
	fs := vfs.NewCrashableMem()
	e := openTest(t, fs)
	s := session(t, e)
	const n = 100000
	mustRun(t, s, "CREATE TABLE big (id int PRIMARY KEY, k int, v text)")
	mustRun(t, s, fmt.Sprintf("INSERT INTO big SELECT g, g %% 10, 'v' || g FROM generate_series(1, %d) g", n))
	mustRun(t, s, "CREATE TABLE pair (a int, b text, v int, PRIMARY KEY (a, b))")
	mustRun(t, s, "INSERT INTO pair SELECT g / 100, 'b' || (g % 100), g FROM generate_series(0, 9999) g")
	mustRun(t, s, "CREATE MATERIALIZED VIEW byk AS SELECT k, count(*) AS c FROM big GROUP BY k")

	reads := func(query string) ([]string, int64) {
		t.Helper()
		before := e.rowsRead.Load()
		rows := mustRun(t, s, query)
		return rows, e.rowsRead.Load() - before
	}
	for _, c := range []struct {
		query, scan string // scan: the same without a key the planner can use
		plan        string
		maxRead     int64
	}{
		{"SELECT v FROM big WHERE id = 77", "SELECT v FROM big WHERE id + 0 = 77", "IndexScan big_pkey on big [id, k, v] (id = 77)", 1},
		{"SELECT id FROM big WHERE id IN (5, 7, 5, NULL, 200000) ORDER BY id", "SELECT id FROM big WHERE id + 0 IN (5, 7, 5, NULL, 200000) ORDER BY id", "(id IN (5, 7, 5, NULL::integer, 200000))", 2},
		{"SELECT count(*) FROM big WHERE id BETWEEN 10 AND 19", "SELECT count(*) FROM big WHERE id + 0 BETWEEN 10 AND 19", "(id >= 10 AND id <= 19)", 10},
		{"SELECT count(*) FROM big WHERE id > 99990", "SELECT count(*) FROM big WHERE id + 0 > 99990", "(id > 99990)", 10},
		{"SELECT v FROM pair WHERE a = 3 AND b IN ('b7', 'b5', 'nope') ORDER BY v", "SELECT v FROM pair WHERE a + 0 = 3 AND b || '' IN ('b7', 'b5', 'nope') ORDER BY v", "(a = 3 AND b IN ('b7', 'b5', 'nope'))", 2},
		{"SELECT count(*) FROM pair WHERE a IN (4, 2)", "SELECT count(*) FROM pair WHERE a + 0 IN (4, 2)", "(a IN (4, 2))", 200},
		{"SELECT c FROM byk WHERE k = 3", "SELECT c FROM byk WHERE k + 0 = 3", "IndexScan byk_pkey on byk", 1},
	} {
		plan := strings.Join(mustRun(t, s, "EXPLAIN "+c.query), "\n")
		if !strings.Contains(plan, c.plan) {
			t.Fatalf("%s: the plan does not read the key (want %q):\n%s", c.query, c.plan, plan)
		}
		rows, read := reads(c.query)
		want, all := reads(c.scan)
		if fmt.Sprint(rows) != fmt.Sprint(want) || len(rows) == 0 {
			t.Fatalf("%s: got %q, a full scan gives %q", c.query, rows, want)
		}
		if read > c.maxRead || all <= c.maxRead {
			t.Fatalf("%s: read %d rows (a full scan %d), want at most %d", c.query, read, all, c.maxRead)
		}
	}

	// UPDATE and DELETE find their rows by key too.
	if _, read := reads("UPDATE big SET v = 'seven' WHERE id = 7"); read > 1 {
		t.Fatalf("UPDATE by key read %d rows", read)
	}
	if _, read := reads("DELETE FROM big WHERE id IN (8, 9, 1000000)"); read > 2 {
		t.Fatalf("DELETE by key read %d rows", read)
	}
	wantRows(t, s, "SELECT id, v FROM big WHERE id BETWEEN 6 AND 10 ORDER BY id", "6 v6", "7 seven", "10 v10")
	wantRows(t, s, "SELECT c FROM byk WHERE k IN (8, 9) ORDER BY k", fmt.Sprint(n/10-1), fmt.Sprint(n/10-1))

	// A transaction block reads its own writes through the key.
	mustRun(t, s, "BEGIN")
	mustRun(t, s, "INSERT INTO big VALUES (0, 0, 'zero')")
	mustRun(t, s, "UPDATE big SET v = 'one' WHERE id = 1")
	wantRows(t, s, "SELECT id, v FROM big WHERE id IN (0, 1, 2) ORDER BY id", "0 zero", "1 one", "2 v2")
	mustRun(t, s, "DELETE FROM big WHERE id = 2")
	wantRows(t, s, "SELECT id, v FROM big WHERE id <= 3 ORDER BY id", "0 zero", "1 one", "3 v3")
	mustRun(t, s, "ROLLBACK")
	wantRows(t, s, "SELECT id, v FROM big WHERE id <= 3 ORDER BY id", "1 v1", "2 v2", "3 v3")

	// After a crash the keys serve again.
	crashed := fs.CrashClone(vfs.CrashCloneCfg{})
	e.Close()
	e = openTest(t, crashed)
	defer e.Close()
	s = session(t, e)
	if rows, read := reads("SELECT v FROM big WHERE id = 7"); fmt.Sprint(rows) != "[seven]" || read > 1 {
		t.Fatalf("after a restart: got %q reading %d rows", rows, read)
	}
}

// TestIndexOnStringCasts checks that an index or primary key on a
// varchar or character(n) column serves comparisons the binder casts to
// text (b = 'v5' over a varchar is b::text = 'v5'), with the rows a
// scan gives, and that a character(n) key, stored without trailing
// spaces, serves only equalities: its text never ends in a space.
func TestIndexOnStringCasts(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE vc (a int PRIMARY KEY, b varchar(10), t text, c int, ch char(4))")
	mustRun(t, s, "INSERT INTO vc SELECT g, 'v' || g, 't' || g, g * 10, 'c' || g FROM generate_series(1, 30) g")
	mustRun(t, s, "CREATE INDEX ON vc (b) INCLUDE (c)")
	mustRun(t, s, "CREATE INDEX ON vc (ch)")
	mustRun(t, s, "CREATE TABLE vk (k varchar(8) PRIMARY KEY, v int)")
	mustRun(t, s, "INSERT INTO vk SELECT 'k' || g, g FROM generate_series(1, 30) g")
	for _, c := range []struct{ query, plan, scan string }{
		{"SELECT b, c FROM vc WHERE b = 'v5'", "Scan vc_b_c_idx on vc", "SELECT b, c FROM vc WHERE b || '' = 'v5'"},
		{"SELECT b, c FROM vc WHERE b = 'v5'::varchar", "Scan vc_b_c_idx on vc", "SELECT b, c FROM vc WHERE b || '' = 'v5'"},
		{"SELECT b, c FROM vc WHERE 'v5' = b", "Scan vc_b_c_idx on vc", "SELECT b, c FROM vc WHERE b || '' = 'v5'"},
		{"SELECT a, b, c FROM vc WHERE b IN ('v5', 'v7', 'nope') ORDER BY a", "Scan vc_b_c_idx on vc", "SELECT a, b, c FROM vc WHERE b || '' IN ('v5', 'v7', 'nope') ORDER BY a"},
		{"SELECT a FROM vc WHERE b > 'v27' ORDER BY a", "Scan vc_b_c_idx on vc", "SELECT a FROM vc WHERE b || '' > 'v27' ORDER BY a"},
		{"SELECT a FROM vc WHERE b <= 'v11' AND b >= 'v1' ORDER BY a", "Scan vc_b_c_idx on vc", "SELECT a FROM vc WHERE b || '' <= 'v11' AND b || '' >= 'v1' ORDER BY a"},
		{"SELECT v FROM vk WHERE k = 'k12'", "IndexScan vk_pkey on vk", "SELECT v FROM vk WHERE k || '' = 'k12'"},
		{"SELECT v FROM vk WHERE k IN ('k3', 'k30') ORDER BY v", "IndexScan vk_pkey on vk", "SELECT v FROM vk WHERE k || '' IN ('k3', 'k30') ORDER BY v"},
		{"SELECT a FROM vc WHERE ch = 'c5'", "Scan vc_ch_idx on vc", "SELECT a FROM vc WHERE ch || '' = 'c5'"},
		{"SELECT a FROM vc WHERE ch = 'c5  '", "Scan vc_ch_idx on vc", "SELECT a FROM vc WHERE ch || '' = 'c5'"},
		{"SELECT a FROM vc WHERE ch = 'c5'::text", "Scan vc_ch_idx on vc", "SELECT a FROM vc WHERE ch || '' = 'c5'"},
		{"SELECT a FROM vc WHERE ch = 'c5 '::text", "Scan vc_ch_idx on vc", "SELECT a FROM vc WHERE ch || '' = 'c5 '"},
		{"SELECT a FROM vc WHERE ch::text IN ('c5', 'c6 ') ORDER BY a", "Scan vc_ch_idx on vc", "SELECT a FROM vc WHERE ch || '' IN ('c5', 'c6 ') ORDER BY a"},
		{"SELECT a FROM vc WHERE ch < 'c11'::text ORDER BY a", "Scan vc", "SELECT a FROM vc WHERE ch || '' < 'c11' ORDER BY a"},
	} {
		plan := strings.Join(mustRun(t, s, "EXPLAIN "+c.query), "\n")
		if !strings.Contains(plan, c.plan) || (c.plan == "Scan vc" && strings.Contains(plan, "Index")) {
			t.Errorf("%s: want %s, got plan\n%s", c.query, c.plan, plan)
		}
		got, want := fmt.Sprint(mustRun(t, s, c.query)), fmt.Sprint(mustRun(t, s, c.scan))
		if got != want || want == "[]" && !strings.Contains(c.query, "'c5 '") {
			t.Errorf("%s: got %s, a scan gives %s", c.query, got, want)
		}
	}
}

// TestEnumIndexLookup checks that comparisons of an enum column with a
// label (=, <, >=, a label on the left, a parameter) read the column's
// index, which is ordered as the labels are, a label added between two
// others included, and give the rows a scan of the same table without
// the index gives.
func TestEnumIndexLookup(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	s := session(t, e)
	mustRun(t, s, "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')")
	mustRun(t, s, "ALTER TYPE mood ADD VALUE 'meh' BEFORE 'ok'")
	for _, name := range []string{"ix", "plain"} {
		mustRun(t, s, "CREATE TABLE "+name+" (id int PRIMARY KEY, m mood)")
		mustRun(t, s, "INSERT INTO "+name+" SELECT g, (ARRAY['sad', 'meh', 'ok', 'happy'])[1 + g % 4]::mood FROM generate_series(1, 2000) g")
		mustRun(t, s, "INSERT INTO "+name+" VALUES (0, NULL)")
	}
	mustRun(t, s, "CREATE INDEX ix_m ON ix (m)")
	reads := func(query string) ([]string, int64) {
		t.Helper()
		before := e.rowsRead.Load()
		rows := mustRun(t, s, query)
		return rows, e.rowsRead.Load() - before
	}
	for _, c := range []struct {
		where string
		n     int64 // rows the index range holds (each read as an index entry and a row)
	}{
		{"m = 'ok'", 500},
		{"m = 'meh'::mood", 500},
		{"m < 'meh'", 500},
		{"m <= 'meh'", 1000},
		{"'ok' < m", 500},
		{"m >= 'ok' AND m < 'happy'", 500},
	} {
		q := "SELECT count(*), sum(id) FROM %s WHERE " + c.where
		plan := strings.Join(mustRun(t, s, "EXPLAIN "+fmt.Sprintf(q, "ix")), "\n")
		if !strings.Contains(plan, "Scan ix_m on ix") {
			t.Fatalf("%s: the plan does not read the index:\n%s", c.where, plan)
		}
		rows, read := reads(fmt.Sprintf(q, "ix"))
		want, all := reads(fmt.Sprintf(q, "plain"))
		if fmt.Sprint(rows) != fmt.Sprint(want) {
			t.Fatalf("%s: got %q through the index, a scan gives %q", c.where, rows, want)
		}
		if read > 2*c.n || all <= 2*c.n {
			t.Fatalf("%s: read %d rows (a scan %d), want at most %d", c.where, read, all, 2*c.n)
		}
	}
	mustRun(t, s, "PREPARE p(mood) AS SELECT count(*) FROM ix WHERE m = $1")
	wantRows(t, s, "EXECUTE p('happy')", "500")
}

// TestIndexDefNullsOrder: an index's definition keeps the direction and
// the NULLS placement of each key as PostgreSQL prints them (the
// default placement of the direction is left out), across a restart and
// across ALTER COLUMN TYPE, which rebuilds the index.
func TestIndexDefNullsOrder(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE no (a int, b text, c int)")
	mustRun(t, s, "CREATE INDEX no_1 ON no (a DESC NULLS LAST, b NULLS FIRST)")
	mustRun(t, s, "CREATE INDEX no_2 ON no (a ASC NULLS FIRST, b DESC)")
	mustRun(t, s, "CREATE INDEX no_3 ON no (a DESC NULLS FIRST, b ASC NULLS LAST, (c + 1) NULLS FIRST)")
	mustRun(t, s, "CREATE UNIQUE INDEX no_4 ON no ((a) DESC NULLS LAST) INCLUDE (b)")
	check := func(s wire.Session) {
		t.Helper()
		wantRows(t, s, "SELECT indexdef FROM pg_indexes WHERE tablename = 'no' ORDER BY indexname",
			"CREATE INDEX no_1 ON public.no USING btree (a DESC NULLS LAST, b NULLS FIRST)",
			"CREATE INDEX no_2 ON public.no USING btree (a NULLS FIRST, b DESC)",
			"CREATE INDEX no_3 ON public.no USING btree (a DESC, b, ((c + 1)) NULLS FIRST)",
			"CREATE UNIQUE INDEX no_4 ON public.no USING btree (a DESC NULLS LAST) INCLUDE (b)")
	}
	check(s)
	mustRun(t, s, "ALTER TABLE no ALTER COLUMN a TYPE bigint")
	checkAcrossRestart(t, fs, e, s, check)
}
