package engine

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestCreateAsTags: CREATE MATERIALIZED VIEW and CREATE TABLE AS answer
// SELECT n, n the rows they were populated with, as PostgreSQL does; IF
// NOT EXISTS that creates nothing answers the statement's own tag.
func TestCreateAsTags(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE src (a int PRIMARY KEY, b text)")
	mustRun(t, s, "INSERT INTO src SELECT g, 'x' || (g % 2) FROM generate_series(1, 5) g")
	for _, c := range []struct{ stmt, tag string }{
		{"CREATE MATERIALIZED VIEW mv1 AS SELECT a, b FROM src WHERE a > 1", "SELECT 4"},
		{"CREATE MATERIALIZED VIEW mv2 AS SELECT b, count(*) FROM src GROUP BY b", "SELECT 2"},
		{"CREATE MATERIALIZED VIEW mv3 AS SELECT a FROM src WHERE false", "SELECT 0"},
		{"CREATE MATERIALIZED VIEW IF NOT EXISTS mv1 AS SELECT 1", "CREATE MATERIALIZED VIEW"},
		{"CREATE TABLE ctas AS SELECT * FROM src", "SELECT 5"},
		{"CREATE TABLE IF NOT EXISTS ctas AS SELECT * FROM src", "CREATE TABLE AS"},
		{"CREATE TABLE IF NOT EXISTS ctas (x int)", "CREATE TABLE"},
	} {
		if got := runTag(t, s, c.stmt); got != c.tag {
			t.Errorf("%s: tag %q, want %q", c.stmt, got, c.tag)
		}
	}
}

// TestCreateTableAsNoData: CREATE TABLE AS ... WITH NO DATA creates the
// table with the query's columns and no rows, with PostgreSQL's tag.
func TestCreateTableAsNoData(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE src (a int PRIMARY KEY)")
	mustRun(t, s, "INSERT INTO src VALUES (1), (2)")
	if got := runTag(t, s, "CREATE TABLE nd AS SELECT a, a * 2 AS b FROM src WITH NO DATA"); got != "CREATE TABLE AS" {
		t.Fatalf("tag %q, want CREATE TABLE AS", got)
	}
	rows, err := run(t, s, "SELECT count(*), count(b) FROM nd")
	if err != nil || len(rows) != 1 || rows[0] != "0 0" {
		t.Fatalf("rows %v, %v; want [0 0]", rows, err)
	}
}
