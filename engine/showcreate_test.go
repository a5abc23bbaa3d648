package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/wire"
)

// showCreate returns the statement SHOW CREATE <kind> name prints.
func showCreate(t *testing.T, s wire.Session, kind, name string) string {
	t.Helper()
	rows := mustRun(t, s, "SHOW CREATE "+kind+" "+name)
	if len(rows) != 1 {
		t.Fatalf("SHOW CREATE %s %s: %q", kind, name, rows)
	}
	_, def, _ := strings.Cut(rows[0], " ")
	return def
}

// TestShowCreateAfterColumnRenames: after columns of a table and of a
// materialized view are renamed, SHOW CREATE prints for the table, the
// views, the materialized views and the sinks reading them statements
// naming the columns as they are now (a foreign key's referenced ones
// too), a sink keeping the output names
// (and so the primary_key) it writes; run on a fresh database, in order,
// they create relations with the same columns, and the index's
// definition too, before and after a restart.
func TestShowCreateAfterColumnRenames(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (id int PRIMARY KEY, customer text, a int CHECK (a > 0), b int, g int GENERATED ALWAYS AS (t.a + b) STORED, UNIQUE (customer, a))")
	mustRun(t, s, "CREATE TABLE r (id int PRIMARY KEY, tid int REFERENCES t (id), customer text, a int, FOREIGN KEY (customer, a) REFERENCES t (customer, a))")
	mustRun(t, s, "CREATE INDEX ti ON t (a, (b + 1)) WHERE a > 0")
	mustRun(t, s, "CREATE VIEW v AS SELECT a, sum(b) AS total FROM t GROUP BY a")
	mustRun(t, s, "CREATE VIEW vl (x, y) AS SELECT a, b FROM t")
	mustRun(t, s, "CREATE MATERIALIZED VIEW mv AS SELECT a, sum(b) AS total FROM t GROUP BY a")
	mustRun(t, s, "CREATE MATERIALIZED VIEW mc AS SELECT customer, count(*) AS n FROM t GROUP BY customer")
	mustRun(t, s, "CREATE MATERIALIZED VIEW mm AS SELECT * FROM mv WHERE total > 0")
	mustRun(t, s, "CREATE MATERIALIZED VIEW mj AS SELECT t.id, r.a, t.a AS ta FROM t JOIN r ON t.id = r.tid WHERE t.a IN (SELECT a FROM t WHERE b > 0)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW mx AS SELECT t.a, r.id AS rid, 'a' AS lit FROM t CROSS JOIN r WHERE t.a > 0")
	mustRun(t, s, "CREATE VIEW vo AS SELECT a, b AS s FROM t UNION ALL VALUES (1, 2)")
	mustRun(t, s, "CREATE SINK s AS SELECT id, customer FROM t WITH (connector = 'blackhole', format = 'upsert', primary_key = 'customer')")
	mustRun(t, s, "CREATE SINK s2 FROM mc WITH (connector = 'blackhole', format = 'upsert', primary_key = 'customer')")
	mustRun(t, s, "ALTER TABLE t RENAME COLUMN a TO a1")
	mustRun(t, s, "ALTER TABLE t RENAME COLUMN customer TO cust")
	mustRun(t, s, "ALTER MATERIALIZED VIEW mv RENAME COLUMN total TO tot")
	mustRun(t, s, "ALTER VIEW vl RENAME COLUMN y TO z")
	mustRun(t, s, "ALTER MATERIALIZED VIEW mc RENAME COLUMN customer TO c2")
	want := []struct{ kind, name, def string }{
		{"TABLE", "t", "CREATE TABLE t (id int PRIMARY KEY, cust text, a1 int CHECK (a1 > 0), b int, g int GENERATED ALWAYS AS (t.a1 + b) STORED, UNIQUE (cust, a1))"},
		{"TABLE", "r", "CREATE TABLE r (id int PRIMARY KEY, tid int REFERENCES t (id), customer text, a int, FOREIGN KEY (customer, a) REFERENCES t (cust, a1))"},
		{"VIEW", "v", "CREATE VIEW v AS SELECT t.a1 AS a, sum(t.b) AS total FROM t GROUP BY t.a1"},
		{"VIEW", "vl", "CREATE VIEW vl AS SELECT t.a1 AS x, t.b AS z FROM t"},
		{"MATERIALIZED VIEW", "mv", "CREATE MATERIALIZED VIEW mv WITH (streaming_parallelism = '2', timezone = 'UTC') AS SELECT t.a1 AS a, sum(t.b) AS tot FROM t GROUP BY t.a1"},
		{"MATERIALIZED VIEW", "mc", "CREATE MATERIALIZED VIEW mc WITH (streaming_parallelism = '2', timezone = 'UTC') AS SELECT t.cust AS c2, count(*) AS n FROM t GROUP BY t.cust"},
		{"MATERIALIZED VIEW", "mm", "CREATE MATERIALIZED VIEW mm WITH (streaming_parallelism = '2', timezone = 'UTC') AS SELECT mv.a, mv.tot AS total FROM mv WHERE (mv.tot > 0)"},
		{"MATERIALIZED VIEW", "mj", "CREATE MATERIALIZED VIEW mj WITH (streaming_parallelism = '2', timezone = 'UTC') AS SELECT t.id, r.a, t.a1 AS ta FROM (t JOIN r ON ((t.id = r.tid))) WHERE (t.a1 IN ( SELECT t_1.a1 AS a FROM t t_1 WHERE (t_1.b > 0)))"},
		{"MATERIALIZED VIEW", "mx", "CREATE MATERIALIZED VIEW mx WITH (streaming_parallelism = '2', timezone = 'UTC') AS SELECT t.a1 AS a, r.id AS rid, 'a'::text AS lit FROM (t CROSS JOIN r) WHERE (t.a1 > 0)"},
		// VALUES as a set operation's query, which the deparser does
		// not print: the text rewritten, its columns named as they were.
		{"VIEW", "vo", "CREATE VIEW vo AS SELECT * FROM (SELECT a1, b AS s FROM t UNION ALL VALUES (1, 2)) AS vo (a, s)"},
		{"SINK", "s", "CREATE SINK s AS SELECT t.id, t.cust AS customer FROM t WITH (connector = 'blackhole', primary_key = 'customer', streaming_parallelism = '2', timezone = 'UTC') FORMAT UPSERT"},
		{"SINK", "s2", "CREATE SINK s2 AS SELECT mc.c2 AS customer, mc.n FROM mc WITH (connector = 'blackhole', primary_key = 'customer', streaming_parallelism = '2', timezone = 'UTC') FORMAT UPSERT"},
	}
	check := func(s wire.Session) {
		t.Helper()
		fresh := openTest(t, vfs.NewMem())
		defer fresh.Close()
		f := session(t, fresh)
		for _, w := range want {
			def := showCreate(t, s, w.kind, w.name)
			if def != w.def {
				t.Fatalf("SHOW CREATE %s %s:\ngot  %s\nwant %s", w.kind, w.name, def, w.def)
			}
			mustRun(t, f, def)
			if got := showCreate(t, f, w.kind, w.name); got != def {
				t.Errorf("SHOW CREATE %s %s on a fresh database:\ngot  %s\nwant %s", w.kind, w.name, got, def)
			}
			if w.name == "t" {
				// The index, as pg_get_indexdef prints it.
				idx := mustRun(t, s, "SELECT pg_get_indexdef('ti'::regclass)")
				if fmt.Sprint(idx) != "[CREATE INDEX ti ON public.t USING btree (a1, ((b + 1))) WHERE (a1 > 0)]" {
					t.Fatalf("pg_get_indexdef: %q", idx)
				}
				mustRun(t, f, idx[0])
				wantRows(t, f, "SELECT pg_get_indexdef('ti'::regclass)", idx...)
			}
			cols := mustRun(t, s, "SHOW COLUMNS FROM "+w.name)
			wantRows(t, f, "SHOW COLUMNS FROM "+w.name, cols...)
		}
	}
	checkAcrossRestart(t, fs, e, s, check)
}

// TestRenameColumnInCreate: a table's CREATE statement takes a renamed
// column's new name where it names the column, and nowhere else.
func TestRenameColumnInCreate(t *testing.T) {
	for _, c := range []struct{ table, in, want string }{
		{"a", "CREATE TABLE a (a int CONSTRAINT a CHECK (a(a) > 0), b int REFERENCES o (a), c a)",
			"CREATE TABLE a (z int CONSTRAINT a CHECK (a(z) > 0), b int REFERENCES o (a), c a)"},
		{"t", "CREATE TABLE t (a int, b int, CHECK (a::a > o.a AND t.a > public.t.a), FOREIGN KEY (b) REFERENCES t (a), UNIQUE (a))",
			"CREATE TABLE t (z int, b int, CHECK (z::a > o.a AND t.z > public.t.z), FOREIGN KEY (b) REFERENCES t (z), UNIQUE (z))"},
		{"t", "CREATE TABLE t (a int) WITH (a = 'a')", "CREATE TABLE t (z int) WITH (a = 'a')"},
		// Not a statement it can rewrite: kept.
		{"t", "CREATE TABLE t AS SELECT 1 AS a", "CREATE TABLE t AS SELECT 1 AS a"},
	} {
		if got := renameColumnInCreate(c.in, c.table, "a", "z"); got != c.want {
			t.Errorf("%s:\ngot  %s\nwant %s", c.in, got, c.want)
		}
	}
}
