package engine

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/wire"
)

// setMeta writes one meta entry of a closed data directory.
func setMeta(t *testing.T, fs vfs.FS, name, value string) {
	t.Helper()
	db, err := storage.Open("data", storage.Options{FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	b := db.NewBatch()
	if value == "" {
		err = b.DeleteKey(storage.MetaKey(name))
	} else {
		err = b.SetMeta(name, []byte(value))
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
}

// TestFormatVersion checks that a new directory records the current
// format, that a directory of a newer format is refused with 55000, and
// that one without a version (version 1) is upgraded: its views get
// their state layouts recorded and go on answering.
func TestFormatVersion(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (k int PRIMARY KEY, g int)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW c AS SELECT g, count(*) AS n FROM t GROUP BY g")
	mustRun(t, s, "INSERT INTO t VALUES (1, 1), (2, 1)")
	if v, ok, _ := e.db.Meta(metaFormatVersion); !ok || string(v) != strconv.Itoa(FormatVersion) {
		t.Fatalf("format version of a new directory: %q", v)
	}
	rel, _ := e.cat.Lookup("", "c")
	if len(rel.StateLayout) != len(rel.StateTables) || len(rel.StateLayout) == 0 {
		t.Fatalf("state layout %q for state tables %v", rel.StateLayout, rel.StateTables)
	}
	layout := rel.StateLayout
	e.Close()

	setMeta(t, fs, metaFormatVersion, "99")
	_, err := Open(Config{DataDir: "data", Storage: storage.Options{FS: fs}})
	wantErrCode(t, err, pgerr.ObjectNotInPrerequisiteState, "newer format")
	if !strings.Contains(err.Error(), "incompatible") {
		t.Fatalf("error: %v", err)
	}
	pe := err.(*pgerr.Error)
	if !strings.Contains(pe.Detail, "format version 99") {
		t.Fatalf("detail: %q", pe.Detail)
	}

	// A version 1 directory: no version entry, no layouts.
	setMeta(t, fs, metaFormatVersion, "")
	db, err := storage.Open("data", storage.Options{FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	old, _ := cat.Lookup("", "c")
	old = old.Clone()
	old.StateLayout = nil
	if err := cat.Replace(old); err != nil {
		t.Fatal(err)
	}
	db.Close()
	e = openTest(t, fs)
	s = session(t, e)
	if v, _, _ := e.db.Meta(metaFormatVersion); string(v) != strconv.Itoa(FormatVersion) {
		t.Fatalf("format version after the upgrade: %q", v)
	}
	rel, _ = e.cat.Lookup("", "c")
	if strings.Join(rel.StateLayout, ";") != strings.Join(layout, ";") {
		t.Fatalf("upgraded layout %q, created with %q", rel.StateLayout, layout)
	}
	mustRun(t, s, "INSERT INTO t VALUES (3, 2)")
	wantRows(t, s, "SELECT g, n FROM c ORDER BY g", "1 2", "2 1")
	e.Close()
}

// TestFormatV3JSONBKeys checks the upgrade from format 3, whose jsonb and
// array keys were their text: a directory whose keys hold neither is
// upgraded, and one with such a key column (a view grouping by jsonb or
// by an array, one joining on jsonb) is refused with 55000 naming the
// relation, unchanged.
func TestFormatV3JSONBKeys(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (k int PRIMARY KEY, j jsonb)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW c AS SELECT k, j FROM t")
	mustRun(t, s, "INSERT INTO t VALUES (1, '1'), (2, '1.0')")
	e.Close()
	setMeta(t, fs, metaFormatVersion, "3")
	e = openTest(t, fs)
	if v, _, _ := e.db.Meta(metaFormatVersion); string(v) != strconv.Itoa(FormatVersion) {
		t.Fatalf("format version after the upgrade: %q", v)
	}
	s = session(t, e)
	wantRows(t, s, "SELECT k, j FROM c ORDER BY k", "1 1", "2 1.0")
	mustRun(t, s, "CREATE MATERIALIZED VIEW g AS SELECT j, count(*) AS n FROM t GROUP BY j")
	e.Close()

	for _, c := range []struct{ drop, create, name, typ string }{
		{"", "", `"g"`, "jsonb"},
		{"DROP MATERIALIZED VIEW g", "CREATE MATERIALIZED VIEW jj AS SELECT count(*) AS n FROM t a JOIN t b ON a.j = b.j", `"jj"`, "jsonb"},
		{"DROP MATERIALIZED VIEW jj", "CREATE MATERIALIZED VIEW ja AS SELECT ARRAY[k] AS a, count(*) AS n FROM t GROUP BY ARRAY[k]", `"ja"`, "integer[]"},
	} {
		if c.drop != "" {
			setMeta(t, fs, metaFormatVersion, strconv.Itoa(FormatVersion))
			e = openTest(t, fs)
			s = session(t, e)
			mustRun(t, s, c.drop)
			mustRun(t, s, c.create)
			e.Close()
		}
		setMeta(t, fs, metaFormatVersion, "3")
		_, err := Open(Config{DataDir: "data", Storage: storage.Options{FS: fs}})
		wantErrCode(t, err, pgerr.ObjectNotInPrerequisiteState, "text-encoded key in format 3")
		if !strings.Contains(err.Error(), c.name) || !strings.Contains(err.Error(), c.typ) {
			t.Fatalf("error: %v", err)
		}
		db, err := storage.Open("data", storage.Options{FS: fs})
		if err != nil {
			t.Fatal(err)
		}
		v, _, _ := db.Meta(metaFormatVersion)
		db.Close()
		if string(v) != "3" {
			t.Fatalf("format version after a refused upgrade: %q", v)
		}
	}
}

// TestStateLayoutMismatch checks that a view whose recorded state layout
// differs from what this weir plans is not run over its state: its job
// is not started and the error names the view and the state table.
func TestStateLayoutMismatch(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (k int PRIMARY KEY, g int)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW c AS SELECT g, count(*) AS n FROM t GROUP BY g")
	rel, _ := e.cat.Lookup("", "c")
	changed := rel.Clone()
	changed.StateLayout[0] = "agg_state(text) key [0]"
	if err := e.cat.Replace(changed); err != nil {
		t.Fatal(err)
	}
	e.Close()
	e = openTest(t, fs)
	defer e.Close()
	s = session(t, e)
	rows := mustRun(t, s, "SELECT view, sqlstate, last_error FROM weir.stream_errors")
	if len(rows) != 1 || !strings.HasPrefix(rows[0], "c 55000 ") || !strings.Contains(rows[0], "state table 1 was written as agg_state(text) key [0]") {
		t.Fatalf("stream errors: %q", rows)
	}
}

// copyDir copies the directory tree src into dst on the real file system.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestOpenFormatV1Fixture opens a copy of a data directory written by
// weir 0.1 (testdata/format-v1, see its README): it is upgraded to the
// current format, its views answer as they did, and they keep streaming
// new writes, each equal to its query.
func TestOpenFormatV1Fixture(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	copyDir(t, "testdata/format-v1", dir)
	e, err := Open(Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	s := session(t, e)
	if v, _, _ := e.db.Meta(metaFormatVersion); string(v) != strconv.Itoa(FormatVersion) {
		t.Fatalf("format version after opening the fixture: %q", v)
	}
	for _, name := range []string{"big_orders", "revenue", "top3"} {
		rel, _ := e.cat.Lookup("", name)
		if len(rel.StateLayout) != len(rel.StateTables) {
			t.Fatalf("%s: layout %q for state tables %v", name, rel.StateLayout, rel.StateTables)
		}
	}
	// What weir 0.1 answered before it stopped.
	wantRows(t, s, "SELECT * FROM revenue ORDER BY customer", "ann 2 370.5 120 250.5", "bob 1 150 150 150", "cid 1 99.99 99.99 99.99")
	wantRows(t, s, "SELECT * FROM top3 ORDER BY amount DESC", "3 250.5", "2 150", "1 120")
	wantRows(t, s, "SELECT * FROM big_orders ORDER BY id", "1 ann 120", "2 bob 150", "3 ann 250.5")
	wantRows(t, s, "SELECT * FROM recent ORDER BY id", "3 ann", "4 cid")
	wantRows(t, s, "SELECT body FROM notes ORDER BY body", "first", "second")

	mustRun(t, s, "INSERT INTO orders VALUES (6, 'dee', 500, '2024-01-04'), (7, 'ann', 1, '2024-01-04')")
	mustRun(t, s, "DELETE FROM orders WHERE id = 3")
	mustRun(t, s, "UPDATE orders SET amount = 300 WHERE id = 4")
	mustRun(t, s, "INSERT INTO notes VALUES ('third')")
	same := func(view, query string) {
		t.Helper()
		want := mustRun(t, s, query)
		wantRows(t, s, view, want...)
	}
	// The sums are compared as float8: an incrementally maintained numeric
	// sum keeps the display scale of values since retracted (121.0 where
	// PostgreSQL prints 121), a difference of weir's aggregation, not of
	// the upgrade.
	same("SELECT customer, n, total::float8, smallest, largest FROM revenue ORDER BY customer",
		"SELECT customer, count(*), sum(amount)::float8, min(amount), max(amount) FROM orders GROUP BY customer ORDER BY customer")
	same("SELECT * FROM top3 ORDER BY amount DESC", "SELECT id, amount FROM orders ORDER BY amount DESC LIMIT 3")
	same("SELECT * FROM big_orders ORDER BY id", "SELECT id, customer, amount FROM orders WHERE amount >= 100 ORDER BY id")
	wantRows(t, s, "SELECT customer, n, smallest, largest FROM revenue ORDER BY customer", "ann 2 1 120", "bob 1 150 150", "cid 1 300 300", "dee 1 500 500")
	wantRows(t, s, "SELECT count(*) FROM notes", "3")
}

// TestOpenFormatV1FullJoinFixture opens a copy of a data directory whose
// view is a FULL JOIN written by weir 0.1 (testdata/format-v1-fulljoin):
// the upgrade keeps the join planned without side marks, as its state
// was written, and the view answers and streams as its query.
func TestOpenFormatV1FullJoinFixture(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	copyDir(t, "testdata/format-v1-fulljoin", dir)
	e, err := Open(Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	s := session(t, e)
	rel, _ := e.cat.Lookup("", "lr")
	if rel.With[planner.WithFullJoinMarks] != "false" {
		t.Fatalf("the upgraded full join's options: %v", rel.With)
	}
	// What weir 0.1 answered before it stopped.
	wantRows(t, s, "SELECT * FROM lr ORDER BY lid, rid", "1 10 l1 r10", "3 NULL l3 NULL", "NULL 11 NULL r11", "NULL 12 NULL r12")
	mustRun(t, s, "INSERT INTO l VALUES (4, 3, 'l4'), (5, NULL, 'l5')")
	mustRun(t, s, "INSERT INTO r VALUES (13, NULL, 'r13'), (14, 1, 'r14')")
	mustRun(t, s, "DELETE FROM r WHERE id = 12")
	mustRun(t, s, "UPDATE l SET k = 2 WHERE id = 1")
	want := mustRun(t, s, "SELECT l.id AS lid, r.id AS rid, l.a, r.b FROM l FULL JOIN r ON l.k = r.k ORDER BY lid, rid")
	wantRows(t, s, "SELECT * FROM lr ORDER BY lid, rid", want...)
	// A view created now gets the marks.
	mustRun(t, s, "CREATE MATERIALIZED VIEW lr2 AS SELECT l.id AS lid, r.id AS rid FROM l FULL JOIN r ON l.k = r.k")
	if rel, _ := e.cat.Lookup("", "lr2"); rel.With[planner.WithFullJoinMarks] == "false" {
		t.Fatalf("a new full join planned without marks: %v", rel.With)
	}
}

// TestUpgradeFormat4KeepsItsPlans opens a directory of format 4 whose
// views were planned as format 4 did: a join without column pruning
// (its state holds every column) and DISTINCT aggregates over the same
// column with a table each. The upgrade marks the views to be planned
// so again, and they keep streaming, equal to their queries, across
// restarts. Views created afterwards get the new plans.
func TestUpgradeFormat4KeepsItsPlans(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (k int PRIMARY KEY, g int, pad text)")
	mustRun(t, s, "CREATE TABLE u (k int PRIMARY KEY, v int, pad text)")
	views := map[string]string{
		"j": "SELECT t.g, u.v, u.k FROM t JOIN u ON t.k = u.k",
		"d": "SELECT g, count(DISTINCT pad) AS a, count(DISTINCT pad) FILTER (WHERE k > 1) AS b FROM t GROUP BY g",
	}
	for name, q := range views {
		mustRun(t, s, "CREATE MATERIALIZED VIEW "+name+" AS "+q)
		// Record the layout a format-4 weir planned.
		rel, _ := e.cat.Lookup("", name)
		// Format 3 may have needed more state tables: give it new ids.
		old := rel.Clone()
		old.With[planner.WithPlanFormat] = "4"
		var root planner.StreamNode
		for {
			var err error
			if root, err = e.planRel(old); err == nil {
				break
			}
			if !strings.Contains(err.Error(), "state tables, the catalog records") || len(old.StateTables) > 10 {
				t.Fatal(err)
			}
			id, err := e.cat.NextStateTableID()
			if err != nil {
				t.Fatal(err)
			}
			old.StateTables = append(old.StateTables, id)
		}
		layout := stateLayout(root, old.StateTables)
		if strings.Join(layout, ";") == strings.Join(rel.StateLayout, ";") {
			t.Fatalf("%s: format 5 does not change the layout %q: the test shows nothing", name, layout)
		}
		delete(old.With, planner.WithPlanFormat)
		old.StateLayout = layout
		if err := e.cat.Replace(old); err != nil {
			t.Fatal(err)
		}
	}
	e.Close()
	setMeta(t, fs, metaFormatVersion, "4")

	check := func(s wire.Session) {
		t.Helper()
		for name, q := range views {
			wantRows(t, s, "SELECT * FROM "+name+" ORDER BY 1, 2, 3", mustRun(t, s, q+" ORDER BY 1, 2, 3")...)
		}
	}
	for round := range 2 {
		e = openTest(t, fs)
		s = session(t, e)
		if v, _, _ := e.db.Meta(metaFormatVersion); string(v) != strconv.Itoa(FormatVersion) {
			t.Fatalf("format version after the upgrade: %q", v)
		}
		for name := range views {
			rel, _ := e.cat.Lookup("", name)
			if rel.With[planner.WithPlanFormat] != "4" {
				t.Fatalf("the upgraded view %s's options: %v", name, rel.With)
			}
		}
		if rows := mustRun(t, s, "SELECT view, last_error FROM weir.stream_errors"); len(rows) != 0 {
			t.Fatalf("stream errors: %q", rows)
		}
		base := round * 10
		mustRun(t, s, fmt.Sprintf("INSERT INTO t VALUES (%d, 1, 'a'), (%d, 2, 'b'), (%d, 1, 'b')", base+1, base+2, base+3))
		mustRun(t, s, fmt.Sprintf("INSERT INTO u VALUES (%d, 10, 'c'), (%d, 20, 'd')", base+1, base+2))
		if round == 1 {
			mustRun(t, s, "DELETE FROM u WHERE k = 1")
			mustRun(t, s, "DELETE FROM t WHERE k = 3")
			mustRun(t, s, "UPDATE t SET g = 5 WHERE k = 2")
		}
		check(s)
		e.Close()
	}
	e = openTest(t, fs)
	defer e.Close()
	s = session(t, e)
	for name, q := range views {
		mustRun(t, s, "CREATE MATERIALIZED VIEW "+name+"2 AS "+q)
		if rel, _ := e.cat.Lookup("", name+"2"); rel.With[planner.WithPlanFormat] != "" {
			t.Fatalf("a new view planned as format 4: %v", rel.With)
		}
		wantRows(t, s, "SELECT * FROM "+name+"2 ORDER BY 1, 2, 3", mustRun(t, s, q+" ORDER BY 1, 2, 3")...)
	}
	check(s)
}

// TestUpgradeFormat5KeepsItsPlans opens a directory of format 5 whose
// view reads the same aggregation twice, planned as format 5 did: one
// copy of the aggregation per side of the join, each with its state
// table. The upgrade marks the view to be planned so again (format 6
// would share the aggregation, leaving one table unused, a layout the
// catalog does not record), and it keeps streaming, equal to its query,
// across restarts. A view created afterwards shares it.
func TestUpgradeFormat5KeepsItsPlans(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (k int PRIMARY KEY, g int)")
	const q = "SELECT a.g, a.n, b.g AS h FROM (SELECT g, count(*) AS n FROM t GROUP BY g) a JOIN (SELECT g, count(*) AS n FROM t GROUP BY g) b ON a.g = b.n"
	mustRun(t, s, "CREATE MATERIALIZED VIEW v AS "+q)
	rel, _ := e.cat.Lookup("", "v")
	old := rel.Clone()
	old.With[planner.WithPlanFormat] = "5"
	// Format 5 reads the table twice, each scan with a backfill table:
	// give it a new id.
	var root planner.StreamNode
	for {
		var err error
		if root, err = e.planRel(old); err == nil {
			break
		}
		if !strings.Contains(err.Error(), "state tables, the catalog records") || len(old.StateTables) > 10 {
			t.Fatal(err)
		}
		id, err := e.cat.NextStateTableID()
		if err != nil {
			t.Fatal(err)
		}
		old.StateTables = append(old.StateTables, id)
	}
	layout := stateLayout(root, old.StateTables)
	if strings.Join(layout, ";") == strings.Join(rel.StateLayout, ";") {
		t.Fatalf("format 6 does not change the layout %q: the test shows nothing", layout)
	}
	delete(old.With, planner.WithPlanFormat)
	old.StateLayout = layout
	if err := e.cat.Replace(old); err != nil {
		t.Fatal(err)
	}
	e.Close()
	setMeta(t, fs, metaFormatVersion, "5")

	for round := range 2 {
		e = openTest(t, fs)
		s = session(t, e)
		if v, _, _ := e.db.Meta(metaFormatVersion); string(v) != strconv.Itoa(FormatVersion) {
			t.Fatalf("format version after the upgrade: %q", v)
		}
		if rel, _ := e.cat.Lookup("", "v"); rel.With[planner.WithPlanFormat] != "5" {
			t.Fatalf("the upgraded view's options: %v", rel.With)
		}
		if rows := mustRun(t, s, "SELECT view, last_error FROM weir.stream_errors"); len(rows) != 0 {
			t.Fatalf("stream errors: %q", rows)
		}
		base := round * 10
		mustRun(t, s, fmt.Sprintf("INSERT INTO t VALUES (%d, 1), (%d, 2), (%d, 1), (%d, 3)", base+1, base+2, base+3, base+4))
		if round == 1 {
			mustRun(t, s, "DELETE FROM t WHERE k = 2")
			mustRun(t, s, "UPDATE t SET g = 2 WHERE k = 4")
		}
		wantRows(t, s, "SELECT * FROM v ORDER BY 1, 2, 3", mustRun(t, s, q+" ORDER BY 1, 2, 3")...)
		e.Close()
	}
	e = openTest(t, fs)
	defer e.Close()
	s = session(t, e)
	mustRun(t, s, "CREATE MATERIALIZED VIEW v2 AS "+q)
	if rel, _ := e.cat.Lookup("", "v2"); rel.With[planner.WithPlanFormat] != "" || !slices.Contains(rel.StateLayout, "unused") {
		t.Fatalf("a new view planned as format 5: %v, layout %q", rel.With, rel.StateLayout)
	}
	wantRows(t, s, "SELECT * FROM v2 ORDER BY 1, 2, 3", mustRun(t, s, q+" ORDER BY 1, 2, 3")...)
	wantRows(t, s, "SELECT * FROM v ORDER BY 1, 2, 3", mustRun(t, s, q+" ORDER BY 1, 2, 3")...)
}

// TestUpgradeProjectSetState opens a data directory, and a savepoint of
// it, written by a weir whose ProjectSets had no state table (format 6
// before the table of expansions pending at a barrier): its views
// recorded one state table fewer per ProjectSet. The upgrade gives each
// ProjectSet a new, empty table (no expansion was ever pending at an old
// weir's barrier) and records the layout; the views keep their rows and
// stream every write, across restarts. A view whose layout differs in
// more than the missing tables is still refused, naming it.
func TestUpgradeProjectSetState(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (k int PRIMARY KEY, n int)")
	views := map[string]string{
		"ser": "SELECT k, generate_series(1, n) AS g FROM t",
		// The ProjectSet's table comes between the scan's and the
		// aggregation's; two ProjectSets, one over the other.
		"agg": "SELECT g, count(*) AS c FROM (SELECT k, generate_series(1, generate_series(1, n)) AS g FROM t) s GROUP BY g",
		"bad": "SELECT g, count(*) AS c FROM (SELECT unnest(array[k, n]) AS g FROM t) s GROUP BY g",
	}
	mustRun(t, s, "INSERT INTO t VALUES (1, 2), (2, 3), (3, 1)")
	for name, q := range views {
		mustRun(t, s, "CREATE MATERIALIZED VIEW "+name+" AS "+q)
	}
	mustRun(t, s, "UPDATE t SET n = 4 WHERE k = 3")
	before := map[string][]string{}
	for name, q := range views {
		before[name] = mustRun(t, s, q+" ORDER BY 1, 2")
		wantRows(t, s, "SELECT * FROM "+name+" ORDER BY 1, 2", before[name]...)
	}
	// Record each view as the weir before the ProjectSet's table did:
	// the same plan, allocating no id for its ProjectSets.
	for name := range views {
		rel, _ := e.cat.Lookup("", name)
		old := rel.Clone()
		old.StateTables, old.StateLayout = nil, nil
		dropped := 0
		for i, l := range rel.StateLayout {
			if strings.HasPrefix(l, "project_set(") {
				dropped++
				continue
			}
			old.StateTables = append(old.StateTables, rel.StateTables[i])
			old.StateLayout = append(old.StateLayout, l)
		}
		if want := strings.Count(views[name], "generate_series") + strings.Count(views[name], "unnest"); dropped != want {
			t.Fatalf("%s: %d ProjectSet tables in layout %q, want %d", name, dropped, rel.StateLayout, want)
		}
		if name == "bad" {
			// A layout changed in more than its ProjectSet: unmappable.
			old.StateLayout[len(old.StateLayout)-1] = "agg_state(text) key [0]"
		}
		if err := e.cat.Replace(old); err != nil {
			t.Fatal(err)
		}
	}
	e.Close()
	setMeta(t, fs, metaFormatVersion, "6")
	// A savepoint taken of the old directory.
	if _, err := BackupOffline("data", "/copy", false, storage.Options{FS: fs}); err != nil {
		t.Fatal(err)
	}

	for _, dir := range []string{"data", "/copy"} {
		for round := range 2 {
			e, err := Open(Config{DataDir: dir, Storage: storage.Options{FS: fs}})
			if err != nil {
				t.Fatalf("%s: %v", dir, err)
			}
			s := session(t, e)
			if v, _, _ := e.db.Meta(metaFormatVersion); string(v) != strconv.Itoa(FormatVersion) {
				t.Fatalf("%s: format version after the upgrade: %q", dir, v)
			}
			rows := mustRun(t, s, "SELECT view, sqlstate, last_error FROM weir.stream_errors")
			if len(rows) != 1 || !strings.HasPrefix(rows[0], "bad 55000 ") || !strings.Contains(rows[0], "cannot run on this weir") {
				t.Fatalf("%s: stream errors: %q", dir, rows)
			}
			for _, name := range []string{"ser", "agg"} {
				rel, _ := e.cat.Lookup("", name)
				if len(rel.StateLayout) != len(rel.StateTables) || !slices.ContainsFunc(rel.StateLayout, func(l string) bool { return strings.HasPrefix(l, "project_set(") }) {
					t.Fatalf("%s: %s: layout %q for state tables %v", dir, name, rel.StateLayout, rel.StateTables)
				}
				if round == 0 {
					// What the old weir answered.
					wantRows(t, s, "SELECT * FROM "+name+" ORDER BY 1, 2", before[name]...)
				}
			}
			base := 10 * (round + 1)
			mustRun(t, s, fmt.Sprintf("INSERT INTO t VALUES (%d, 3), (%d, 0)", base+1, base+2))
			mustRun(t, s, fmt.Sprintf("UPDATE t SET n = %d WHERE k = 2", round+5))
			mustRun(t, s, fmt.Sprintf("DELETE FROM t WHERE k = %d", round+1))
			for _, name := range []string{"ser", "agg"} {
				wantRows(t, s, "SELECT * FROM "+name+" ORDER BY 1, 2", mustRun(t, s, views[name]+" ORDER BY 1, 2")...)
			}
			e.Close()
		}
	}
}

// TestUpgradeFormat1ProjectSetState opens a directory without a format
// version (format 1, no state layouts recorded) whose view has a
// ProjectSet recorded without its state table: the upgrade gives the
// ProjectSet a new table before it records the view's layout, and the
// view keeps its rows and streams.
func TestUpgradeFormat1ProjectSetState(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (k int PRIMARY KEY, n int)")
	const q = "SELECT k, generate_series(1, n) AS g, unnest(array[n, k]) AS u FROM t"
	mustRun(t, s, "INSERT INTO t VALUES (1, 2), (2, 3)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW v AS "+q)
	rel, _ := e.cat.Lookup("", "v")
	old := rel.Clone()
	old.StateTables, old.StateLayout = nil, nil
	for i, l := range rel.StateLayout {
		if !strings.HasPrefix(l, "project_set(") {
			old.StateTables = append(old.StateTables, rel.StateTables[i])
		}
	}
	if len(old.StateTables) != len(rel.StateTables)-1 {
		t.Fatalf("layout %q: want one ProjectSet table", rel.StateLayout)
	}
	if err := e.cat.Replace(old); err != nil {
		t.Fatal(err)
	}
	want := mustRun(t, s, q+" ORDER BY 1, 2, 3")
	e.Close()
	setMeta(t, fs, metaFormatVersion, "")

	e = openTest(t, fs)
	defer e.Close()
	s = session(t, e)
	if rows := mustRun(t, s, "SELECT view, last_error FROM weir.stream_errors"); len(rows) != 0 {
		t.Fatalf("stream errors: %q", rows)
	}
	rel, _ = e.cat.Lookup("", "v")
	if len(rel.StateTables) != len(old.StateTables)+1 || len(rel.StateLayout) != len(rel.StateTables) {
		t.Fatalf("upgraded: layout %q for state tables %v", rel.StateLayout, rel.StateTables)
	}
	wantRows(t, s, "SELECT * FROM v ORDER BY 1, 2, 3", want...)
	mustRun(t, s, "INSERT INTO t VALUES (3, 4)")
	mustRun(t, s, "UPDATE t SET n = 1 WHERE k = 2")
	mustRun(t, s, "DELETE FROM t WHERE k = 1")
	wantRows(t, s, "SELECT * FROM v ORDER BY 1, 2, 3", mustRun(t, s, q+" ORDER BY 1, 2, 3")...)
}

// TestOpenFormat6ProjectSetFixture opens a copy of a data directory
// written by the weir before ProjectSets had a state table
// (testdata/format-6-projectset, see its README), and a savepoint of it:
// the views over set-returning functions load with their rows, stream
// every write, and keep doing so after a restart.
func TestOpenFormat6ProjectSetFixture(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "data")
	copyDir(t, "testdata/format-6-projectset", dir)
	copyDir(t, "testdata/format-6-projectset", filepath.Join(root, "saved"))
	restored := filepath.Join(root, "copy")
	if _, err := BackupOffline(filepath.Join(root, "saved"), restored, false, storage.Options{}); err != nil {
		t.Fatal(err)
	}
	const (
		ser = "SELECT k, generate_series(1, n) AS g FROM t"
		agg = "SELECT g, count(*) AS c FROM (SELECT k, generate_series(1, generate_series(1, n)) AS g FROM t) s GROUP BY g"
	)
	for _, d := range []string{dir, restored} {
		for round := range 2 {
			e, err := Open(Config{DataDir: d})
			if err != nil {
				t.Fatal(err)
			}
			s := session(t, e)
			if v, _, _ := e.db.Meta(metaFormatVersion); string(v) != strconv.Itoa(FormatVersion) {
				t.Fatalf("format version after opening the fixture: %q", v)
			}
			if rows := mustRun(t, s, "SELECT view, last_error FROM weir.stream_errors"); len(rows) != 0 {
				t.Fatalf("stream errors: %q", rows)
			}
			if round == 0 {
				// What the old weir answered before it stopped.
				wantRows(t, s, "SELECT * FROM ser ORDER BY 1, 2", "2 1", "2 2", "2 3", "3 1", "3 2", "3 3", "3 4", "4 1", "4 2")
				wantRows(t, s, "SELECT * FROM agg ORDER BY 1, 2", "1 9", "2 6", "3 3", "4 1")
			}
			base := 10 * (round + 1)
			mustRun(t, s, fmt.Sprintf("INSERT INTO t VALUES (%d, 3), (%d, 0)", base+1, base+2))
			mustRun(t, s, fmt.Sprintf("UPDATE t SET n = %d WHERE k = 3", round+5))
			mustRun(t, s, fmt.Sprintf("DELETE FROM t WHERE k = %d", round*2+2))
			wantRows(t, s, "SELECT * FROM ser ORDER BY 1, 2", mustRun(t, s, ser+" ORDER BY 1, 2")...)
			wantRows(t, s, "SELECT * FROM agg ORDER BY 1, 2", mustRun(t, s, agg+" ORDER BY 1, 2")...)
			e.Close()
		}
	}
}

// TestUpgradeFormat7KeepsItsPlans opens a directory of format 7 whose
// view takes the max of counts that only grow, planned as format 7 did:
// with a table of the max's values. The upgrade marks the view to be
// planned so again (format 8 keeps no such table), and it keeps
// streaming, equal to its query, across restarts. A view created
// afterwards keeps no table of values.
func TestUpgradeFormat7KeepsItsPlans(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (g int, k int) APPEND ONLY")
	const q = "SELECT g, max(c) AS m FROM (SELECT g, k, count(*) AS c FROM t GROUP BY g, k) s GROUP BY g"
	mustRun(t, s, "CREATE MATERIALIZED VIEW v AS "+q)
	rel, _ := e.cat.Lookup("", "v")
	old := rel.Clone()
	old.With[planner.WithPlanFormat] = "7"
	var root planner.StreamNode
	for {
		var err error
		if root, err = e.planRel(old); err == nil {
			break
		}
		if !strings.Contains(err.Error(), "state tables, the catalog records") || len(old.StateTables) > 10 {
			t.Fatal(err)
		}
		id, err := e.cat.NextStateTableID()
		if err != nil {
			t.Fatal(err)
		}
		old.StateTables = append(old.StateTables, id)
	}
	layout := stateLayout(root, old.StateTables)
	if !slices.ContainsFunc(layout, func(l string) bool { return strings.HasPrefix(l, "agg_minmax(") }) ||
		slices.ContainsFunc(rel.StateLayout, func(l string) bool { return strings.HasPrefix(l, "agg_minmax(") }) {
		t.Fatalf("format 7 layout %q, format 8 layout %q: the test shows nothing", layout, rel.StateLayout)
	}
	delete(old.With, planner.WithPlanFormat)
	old.StateLayout = layout
	if err := e.cat.Replace(old); err != nil {
		t.Fatal(err)
	}
	e.Close()
	setMeta(t, fs, metaFormatVersion, "7")

	for round := range 2 {
		e = openTest(t, fs)
		s = session(t, e)
		if v, _, _ := e.db.Meta(metaFormatVersion); string(v) != strconv.Itoa(FormatVersion) {
			t.Fatalf("format version after the upgrade: %q", v)
		}
		if rel, _ := e.cat.Lookup("", "v"); rel.With[planner.WithPlanFormat] != "7" {
			t.Fatalf("the upgraded view's options: %v", rel.With)
		}
		if rows := mustRun(t, s, "SELECT view, last_error FROM weir.stream_errors"); len(rows) != 0 {
			t.Fatalf("stream errors: %q", rows)
		}
		mustRun(t, s, fmt.Sprintf("INSERT INTO t VALUES (1, 1), (1, %d), (2, 5), (2, 5), (3, %d)", round+2, round))
		mustRun(t, s, "INSERT INTO t VALUES (1, 1), (3, 0)")
		wantRows(t, s, "SELECT * FROM v ORDER BY 1", mustRun(t, s, q+" ORDER BY 1")...)
		e.Close()
	}
	e = openTest(t, fs)
	defer e.Close()
	s = session(t, e)
	mustRun(t, s, "CREATE MATERIALIZED VIEW v2 AS "+q)
	if rel, _ := e.cat.Lookup("", "v2"); rel.With[planner.WithPlanFormat] != "" || slices.ContainsFunc(rel.StateLayout, func(l string) bool { return strings.HasPrefix(l, "agg_minmax(") }) {
		t.Fatalf("a new view planned as format 7: %v, layout %q", rel.With, rel.StateLayout)
	}
	wantRows(t, s, "SELECT * FROM v2 ORDER BY 1", mustRun(t, s, q+" ORDER BY 1")...)
	wantRows(t, s, "SELECT * FROM v ORDER BY 1", mustRun(t, s, q+" ORDER BY 1")...)
}
