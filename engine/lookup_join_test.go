package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/pgerr"
)

// TestLookupJoin: a view joining an append-only table with another
// FOR SYSTEM_TIME AS OF PROCTIME() joins each row with the other table
// as committed when the row arrives. Changes of that table between rows
// show in the later rows only: no earlier output is retracted or
// updated. A restart keeps the output and the next rows look up the
// table as it is then.
func TestLookupJoin(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "SET streaming_parallelism = 2")
	mustRun(t, s, "CREATE TABLE dim (k bigint PRIMARY KEY, v text)")
	mustRun(t, s, "CREATE TABLE ev (id int, k bigint) APPEND ONLY")
	mustRun(t, s, "INSERT INTO dim VALUES (1, 'a')")
	mustRun(t, s, `CREATE MATERIALIZED VIEW m AS
		SELECT e.id, d.v FROM ev e JOIN dim FOR SYSTEM_TIME AS OF PROCTIME() AS d ON e.k = d.k`)
	// A column alias list, a condition on the table's columns (which
	// pads the row in a left join) and a key computed from the row.
	mustRun(t, s, `CREATE MATERIALIZED VIEW lm AS
		SELECT e.id, d.val FROM ev e LEFT JOIN dim FOR SYSTEM_TIME AS OF PROCTIME() d(key, val) ON e.k + 0 = d.key AND d.val <> 'hidden'`)
	mustRun(t, s, "INSERT INTO ev VALUES (1, 1), (2, 2), (0, NULL)")
	wantRows(t, s, "SELECT * FROM m ORDER BY id", "1 a")
	wantRows(t, s, "SELECT * FROM lm ORDER BY id", "0 NULL", "1 a", "2 NULL")

	mustRun(t, s, "UPDATE dim SET v = 'b' WHERE k = 1")
	mustRun(t, s, "INSERT INTO dim VALUES (2, 'c')")
	mustRun(t, s, "INSERT INTO ev VALUES (3, 1), (4, 2)")
	// Rows 1 and 2 keep what they were joined with.
	wantRows(t, s, "SELECT * FROM m ORDER BY id", "1 a", "3 b", "4 c")
	wantRows(t, s, "SELECT * FROM lm ORDER BY id", "0 NULL", "1 a", "2 NULL", "3 b", "4 c")

	mustRun(t, s, "DELETE FROM dim WHERE k = 1")
	mustRun(t, s, "UPDATE dim SET v = 'hidden' WHERE k = 2")
	mustRun(t, s, "INSERT INTO ev VALUES (5, 1), (6, 2)")
	wantRows(t, s, "SELECT * FROM m ORDER BY id", "1 a", "3 b", "4 c", "6 hidden")
	wantRows(t, s, "SELECT * FROM lm ORDER BY id", "0 NULL", "1 a", "2 NULL", "3 b", "4 c", "5 NULL", "6 NULL")

	// A batch query reads the table as it is now.
	wantRows(t, s, "SELECT e.id, d.v FROM ev e JOIN dim FOR SYSTEM_TIME AS OF PROCTIME() d ON e.k = d.k ORDER BY e.id",
		"2 hidden", "4 hidden", "6 hidden")
	wantCode(t, s, "DROP TABLE dim", pgerr.DependentObjectsStillExist, "")
	// The views read dim with the columns they were planned with.
	mustRun(t, s, "ALTER TABLE dim ADD COLUMN extra int DEFAULT 5")
	mustRun(t, s, "ALTER TABLE dim RENAME COLUMN v TO label")
	mustRun(t, s, "INSERT INTO dim VALUES (3, 'e', 6)")
	mustRun(t, s, "INSERT INTO ev VALUES (9, 3)")
	wantRows(t, s, "SELECT * FROM m WHERE id = 9", "9 e")

	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openTest(t, fs)
	defer e.Close()
	s = session(t, e)
	mustRun(t, s, "INSERT INTO dim VALUES (1, 'd')")
	mustRun(t, s, "INSERT INTO ev VALUES (7, 1), (8, 3)")
	wantRows(t, s, "SELECT * FROM m ORDER BY id", "1 a", "3 b", "4 c", "6 hidden", "7 d", "8 e", "9 e")
	wantRows(t, s, "SELECT * FROM lm ORDER BY id", "0 NULL", "1 a", "2 NULL", "3 b", "4 c", "5 NULL", "6 NULL", "7 d", "8 e", "9 e")
}

// TestLookupJoinRefused: FOR SYSTEM_TIME AS OF PROCTIME() needs the
// right side of a JOIN or LEFT JOIN, a table or materialized view whose
// whole primary key the join's equalities give, and an append-only left
// side in a view; anything else is 0A000, at planning.
func TestLookupJoinRefused(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE dim (k bigint PRIMARY KEY, v text)")
	mustRun(t, s, "CREATE TABLE dim2 (a int, b int, v text, PRIMARY KEY (a, b))")
	mustRun(t, s, "CREATE TABLE ev (id int, k bigint) APPEND ONLY")
	mustRun(t, s, "CREATE TABLE upd (id int PRIMARY KEY, k bigint)")
	mv := "CREATE MATERIALIZED VIEW x AS "
	for _, c := range []struct{ q, msg string }{
		{"SELECT * FROM ev e JOIN dim FOR SYSTEM_TIME AS OF now() d ON e.k = d.k", "supports only PROCTIME()"},
		{"SELECT * FROM dim FOR SYSTEM_TIME AS OF PROCTIME() d JOIN ev e ON e.k = d.k", "only on the right side"},
		{"SELECT * FROM dim FOR SYSTEM_TIME AS OF PROCTIME()", "only on the right side"},
		{"SELECT * FROM ev e RIGHT JOIN dim FOR SYSTEM_TIME AS OF PROCTIME() d ON e.k = d.k", "only on the right side"},
		{mv + "SELECT * FROM ev e JOIN dim FOR SYSTEM_TIME AS OF PROCTIME() d ON e.id = d.v::int", "primary key column"},
		{mv + "SELECT * FROM ev e JOIN dim2 FOR SYSTEM_TIME AS OF PROCTIME() d ON e.id = d.a", "every primary key column"},
		{mv + "SELECT * FROM upd u JOIN dim FOR SYSTEM_TIME AS OF PROCTIME() d ON u.k = d.k", "must be append-only"},
	} {
		wantCode(t, s, c.q, pgerr.FeatureNotSupported, c.msg)
	}
	// Both key columns given: accepted, and EXPLAIN names the operator.
	plan := strings.Join(mustRun(t, s, "EXPLAIN CREATE MATERIALIZED VIEW y AS SELECT e.id, d.v FROM ev e JOIN dim2 FOR SYSTEM_TIME AS OF PROCTIME() d ON e.id = d.a AND e.id = d.b"), "\n")
	if !strings.Contains(plan, "StreamLookupJoin") || !strings.Contains(plan, "table: dim2 (as of proctime)") {
		t.Errorf("plan:\n%s", plan)
	}
}

// TestLookupJoinWiderKey: a join key of a wider integer type than the
// table's primary key (a bigint against an int key) probes the key with
// its value: a value beyond the key's range finds no row (the inner
// join drops it, the left join pads it), never one its low bits name,
// and no error.
func TestLookupJoinWiderKey(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE side (key int PRIMARY KEY, v text)")
	mustRun(t, s, "CREATE TABLE small (key smallint PRIMARY KEY, v text)")
	mustRun(t, s, "CREATE TABLE o (n int, id bigint) APPEND ONLY")
	mustRun(t, s, "INSERT INTO side VALUES (1, 'one'), (-1, 'minus one'), (7, 'seven')")
	mustRun(t, s, "INSERT INTO small VALUES (1, 's1'), (7, 's7')")
	mustRun(t, s, `CREATE MATERIALIZED VIEW inner_j AS
		SELECT o.n, s.v FROM o JOIN side FOR SYSTEM_TIME AS OF PROCTIME() s ON o.id = s.key`)
	mustRun(t, s, `CREATE MATERIALIZED VIEW left_j AS
		SELECT o.n, s.key, s.v FROM o LEFT JOIN side FOR SYSTEM_TIME AS OF PROCTIME() s ON s.key = o.id`)
	mustRun(t, s, `CREATE MATERIALIZED VIEW small_j AS
		SELECT o.n, s.v FROM o LEFT JOIN small FOR SYSTEM_TIME AS OF PROCTIME() s ON o.id = s.key`)
	mustRun(t, s, `CREATE MATERIALIZED VIEW cast_j AS
		SELECT o.n, s.v FROM o JOIN side FOR SYSTEM_TIME AS OF PROCTIME() s ON o.id = s.key::bigint`)
	// 4294967297 and 4294967303 are 1 and 7 in their low 32 bits, 65537 is
	// 1 in its low 16.
	mustRun(t, s, "INSERT INTO o VALUES (1, 1), (2, 4294967297), (3, -1), (4, -4294967297), (5, 7), (6, 4294967303), (7, NULL), (8, 9223372036854775807), (9, 65537)")
	wantRows(t, s, "SELECT * FROM inner_j ORDER BY n", "1 one", "3 minus one", "5 seven")
	wantRows(t, s, "SELECT * FROM left_j ORDER BY n", "1 1 one", "2 NULL NULL", "3 -1 minus one", "4 NULL NULL",
		"5 7 seven", "6 NULL NULL", "7 NULL NULL", "8 NULL NULL", "9 NULL NULL")
	wantRows(t, s, "SELECT * FROM small_j ORDER BY n", "1 s1", "2 NULL", "3 NULL", "4 NULL", "5 s7", "6 NULL", "7 NULL", "8 NULL", "9 NULL")
	wantRows(t, s, "SELECT * FROM cast_j ORDER BY n", "1 one", "3 minus one", "5 seven")
	// A batch query gives the same rows.
	wantRows(t, s, "SELECT o.n, s.v FROM o JOIN side FOR SYSTEM_TIME AS OF PROCTIME() s ON o.id = s.key ORDER BY o.n",
		"1 one", "3 minus one", "5 seven")
}

// TestLookupJoinRecovers crashes the database while a paced source is
// joined with a table by lookups: after recovery the view holds every
// bid exactly once, each with its key's value (the rows of the epochs
// after the last checkpoint are read again and looked up again).
func TestLookupJoinRecovers(t *testing.T) {
	fs := vfs.NewCrashableMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "ALTER SYSTEM SET barrier_interval_ms = 50")
	mustRun(t, s, "CREATE TABLE side_input (key bigint PRIMARY KEY, value varchar)")
	mustRun(t, s, "INSERT INTO side_input SELECT v, 'v' || v FROM generate_series(0, 999) AS t(v)")
	// 20,000 events at one per 20 µs: about 0.4 s of generation.
	mustRun(t, s, bidSource("bid", 20000, 20000, ""))
	mustRun(t, s, `CREATE MATERIALIZED VIEW j AS SELECT b.auction, b.bidder, b.date_time, s.value
		FROM bid b JOIN side_input FOR SYSTEM_TIME AS OF PROCTIME() s ON b.auction % 1000 = s.key`)
	mustRun(t, s, "FLUSH")
	mid := mustRun(t, s, "SELECT count(*) FROM j")
	crashed := fs.CrashClone(vfs.CrashCloneCfg{})
	e.Close()

	e = openTest(t, crashed)
	defer e.Close()
	s = session(t, e)
	n, _ := bidTotals(20000)
	waitRows(t, s, "SELECT count(*), count(*) FILTER (WHERE value <> 'v' || (auction % 1000)) FROM j", fmt.Sprintf("%d 0", n))
	t.Logf("crashed with %v rows", mid)
}

// TestLookupJoinRefusesAlterType: the lookup join decodes the table's
// stored rows, so a TYPE rewrite of any of its columns is refused while
// the join runs, and the view keeps working.
func TestLookupJoinRefusesAlterType(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE lk (k int PRIMARY KEY, name text, other int)")
	mustRun(t, s, "CREATE TABLE lev (id int, k int) APPEND ONLY")
	mustRun(t, s, "CREATE MATERIALIZED VIEW lmv AS SELECT e.id, d.name FROM lev e LEFT JOIN lk FOR SYSTEM_TIME AS OF PROCTIME() d ON e.k = d.k")
	mustRun(t, s, "INSERT INTO lk VALUES (1, 'n1', 5)")
	mustRun(t, s, "INSERT INTO lev VALUES (1, 1)")
	wantCode(t, s, "ALTER TABLE lk ALTER COLUMN other TYPE text", pgerr.FeatureNotSupported, "a lookup join reads")
	mustRun(t, s, "INSERT INTO lev VALUES (2, 1)")
	wantRows(t, s, "SELECT * FROM lmv ORDER BY id", "1 n1", "2 n1")
	mustRun(t, s, "DROP MATERIALIZED VIEW lmv")
	mustRun(t, s, "ALTER TABLE lk ALTER COLUMN other TYPE text")
	wantRows(t, s, "SELECT other FROM lk", "5")
}
