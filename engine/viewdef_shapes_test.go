package engine

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/wire"
)

// viewdefRenameCase is a view (or materialized view) whose definition
// names a column that a rename changes afterwards: pg_get_viewdef must
// print the definition with the column's new name, as PostgreSQL's
// does (its views follow their columns by number).
type viewdefRenameCase struct {
	name   string
	create string
	rename string
	// want is pg_get_viewdef(view, true) after the rename, and plain
	// pg_get_viewdef(view), which pg_views and pg_matviews show, when it
	// differs.
	want, plain string
}

// viewdefRenameCases are the shapes the deparser prints since it no
// longer shows them as written: their stored text names the column by
// its old name.
var viewdefRenameCases = []viewdefRenameCase{
	{
		name:   "table column alias list",
		create: "CREATE VIEW v AS SELECT x.p, x.q FROM t AS x(p, q)",
		rename: "ALTER TABLE t RENAME COLUMN c TO d",
		want:   " SELECT x.p,\n    x.q\n   FROM t x(p, q, d);",
	},
	{
		name:   "subquery column alias list",
		create: "CREATE VIEW v AS SELECT * FROM (SELECT a, b FROM t) AS s(p, q)",
		rename: "ALTER TABLE t RENAME COLUMN a TO aa",
		want:   " SELECT s.p,\n    s.q\n   FROM ( SELECT t.aa AS a,\n            t.b\n           FROM t) s(p, q);",
	},
	{
		name:   "materialized view with a column alias list",
		create: "CREATE MATERIALIZED VIEW v AS SELECT * FROM t AS x(p)",
		rename: "ALTER TABLE t RENAME COLUMN b TO bb",
		want:   " SELECT x.p,\n    x.bb AS b,\n    x.c\n   FROM t x(p, bb, c);",
	},
	{
		name:   "named windows",
		create: "CREATE VIEW v AS SELECT a, sum(b) OVER w, rank() OVER (w ORDER BY b) FROM t WINDOW w AS (PARTITION BY c)",
		rename: "ALTER TABLE t RENAME COLUMN c TO d",
		want:   " SELECT t.a,\n    sum(t.b) OVER w AS sum,\n    rank() OVER (w ORDER BY t.b) AS rank\n   FROM t\n  WINDOW w AS (PARTITION BY t.d);",
	},
	{
		name:   "materialized view with a named window",
		create: "CREATE MATERIALIZED VIEW v AS SELECT a, sum(b) OVER w AS s FROM t WINDOW w AS (PARTITION BY c ORDER BY a)",
		rename: "ALTER TABLE t RENAME COLUMN a TO aa",
		want:   " SELECT t.aa AS a,\n    sum(t.b) OVER w AS s\n   FROM t\n  WINDOW w AS (PARTITION BY t.c ORDER BY t.aa);",
	},
	{
		name:   "cross join",
		create: "CREATE VIEW v AS SELECT t.a, x.b FROM t CROSS JOIN t x",
		rename: "ALTER TABLE t RENAME COLUMN a TO aa",
		want:   " SELECT t.aa AS a,\n    x.b\n   FROM t\n     CROSS JOIN t x;",
		plain:  " SELECT t.aa AS a,\n    x.b\n   FROM (t\n     CROSS JOIN t x);",
	},
	{
		name:   "materialized view with a cross join",
		create: "CREATE MATERIALIZED VIEW v AS SELECT t.a, x.b FROM t, t x CROSS JOIN t y WHERE y.c = x.c",
		rename: "ALTER TABLE t RENAME COLUMN c TO d",
		want:   " SELECT t.a,\n    x.b\n   FROM t,\n    t x\n     CROSS JOIN t y\n  WHERE y.d = x.d;",
		plain:  " SELECT t.a,\n    x.b\n   FROM t,\n    (t x\n     CROSS JOIN t y)\n  WHERE (y.d = x.d);",
	},
	{
		name:   "grouping sets",
		create: "CREATE VIEW v AS SELECT a, c, sum(b), grouping(a, c) FROM t GROUP BY GROUPING SETS ((a, c), ROLLUP (a), ())",
		rename: "ALTER TABLE t RENAME COLUMN a TO aa",
		want:   " SELECT t.aa AS a,\n    t.c,\n    sum(t.b) AS sum,\n    GROUPING(t.aa, t.c) AS \"grouping\"\n   FROM t\n  GROUP BY GROUPING SETS ((t.aa, t.c), ROLLUP(t.aa), ());",
	},
	{
		name:   "materialized view with a cube",
		create: "CREATE MATERIALIZED VIEW v AS SELECT a, c, count(*) AS n FROM t GROUP BY CUBE (a, c)",
		rename: "ALTER TABLE t RENAME COLUMN c TO d",
		want:   " SELECT t.a,\n    t.d AS c,\n    count(*) AS n\n   FROM t\n  GROUP BY CUBE(t.a, t.d);",
	},
	{
		name:   "values in FROM",
		create: "CREATE VIEW v AS SELECT t.a, x.s FROM t JOIN (VALUES (1, 'one'), (2, 'two')) x(n, s) ON x.n = t.a",
		rename: "ALTER TABLE t RENAME COLUMN a TO aa",
		want:   " SELECT t.aa AS a,\n    x.s\n   FROM t\n     JOIN ( VALUES (1,'one'::text), (2,'two'::text)) x(n, s) ON x.n = t.aa;",
		plain:  " SELECT t.aa AS a,\n    x.s\n   FROM (t\n     JOIN ( VALUES (1,'one'::text), (2,'two'::text)) x(n, s) ON ((x.n = t.aa)));",
	},
	{
		name:   "materialized view with values",
		create: "CREATE MATERIALIZED VIEW v AS SELECT t.b, x.k FROM t, (VALUES (1), (2)) x(k) WHERE t.b > x.k",
		rename: "ALTER TABLE t RENAME COLUMN b TO bb",
		want:   " SELECT t.bb AS b,\n    x.k\n   FROM t,\n    ( VALUES (1), (2)) x(k)\n  WHERE t.bb > x.k;",
		plain:  " SELECT t.bb AS b,\n    x.k\n   FROM t,\n    ( VALUES (1), (2)) x(k)\n  WHERE (t.bb > x.k);",
	},
	{
		name:   "rows from",
		create: "CREATE VIEW v AS SELECT t.a, r.x, r.y FROM t, ROWS FROM (generate_series(1, t.a), generate_series(t.b, 3)) AS r(x, y)",
		rename: "ALTER TABLE t RENAME COLUMN b TO bb",
		want:   " SELECT t.a,\n    r.x,\n    r.y\n   FROM t,\n    LATERAL ROWS FROM(generate_series(1, t.a), generate_series(t.bb, 3)) r(x, y);",
	},
	{
		name:   "materialized view with rows from",
		create: "CREATE MATERIALIZED VIEW v AS SELECT t.a, r.x FROM t, ROWS FROM (generate_series(1, 2), unnest(ARRAY['p'])) AS r(x, y) WHERE t.a > r.x",
		rename: "ALTER TABLE t RENAME COLUMN a TO aa",
		want:   " SELECT t.aa AS a,\n    r.x\n   FROM t,\n    ROWS FROM(generate_series(1, 2), unnest(ARRAY['p'::text])) r(x, y)\n  WHERE t.aa > r.x;",
		plain:  " SELECT t.aa AS a,\n    r.x\n   FROM t,\n    ROWS FROM(generate_series(1, 2), unnest(ARRAY['p'::text])) r(x, y)\n  WHERE (t.aa > r.x);",
	},
	{
		name:   "ordered aggregate",
		create: "CREATE VIEW v AS SELECT a, string_agg(c, ',' ORDER BY b DESC) AS s FROM t GROUP BY a",
		rename: "ALTER TABLE t RENAME COLUMN b TO bb",
		want:   " SELECT t.a,\n    string_agg(t.c, ','::text ORDER BY t.bb DESC) AS s\n   FROM t\n  GROUP BY t.a;",
	},
	{
		name:   "materialized view with an ordered aggregate",
		create: "CREATE MATERIALIZED VIEW v AS SELECT a, array_agg(b ORDER BY c) AS s FROM t GROUP BY a",
		rename: "ALTER TABLE t RENAME COLUMN c TO d",
		want:   " SELECT t.a,\n    array_agg(t.b ORDER BY t.d) AS s\n   FROM t\n  GROUP BY t.a;",
	},
	{
		name:   "lateral function",
		create: "CREATE VIEW v AS SELECT t.a, g.x FROM t, LATERAL generate_series(1, 3) g(x)",
		rename: "ALTER TABLE t RENAME COLUMN a TO aa",
		want:   " SELECT t.aa AS a,\n    g.x\n   FROM t,\n    LATERAL generate_series(1, 3) g(x);",
	},
	{
		name:   "named arguments",
		create: "CREATE VIEW v AS SELECT make_interval(1, days => b, hours => a) AS s FROM t",
		rename: "ALTER TABLE t RENAME COLUMN b TO bb",
		want:   " SELECT make_interval(1, days => t.bb, hours => t.a) AS s\n   FROM t;",
	},
	{
		name:   "full join using",
		create: "CREATE VIEW v AS SELECT a, t.b, x.c FROM t FULL JOIN t x USING (a)",
		rename: "ALTER TABLE t RENAME COLUMN c TO d",
		want:   " SELECT a,\n    t.b,\n    x.d AS c\n   FROM t\n     FULL JOIN t x USING (a);",
		plain:  " SELECT a,\n    t.b,\n    x.d AS c\n   FROM (t\n     FULL JOIN t x USING (a));",
	},
	{
		name:   "with over a set operation",
		create: "CREATE VIEW v AS WITH w AS (SELECT a FROM t) SELECT a FROM w UNION SELECT b FROM t",
		rename: "ALTER TABLE t RENAME COLUMN a TO aa",
		want:   " WITH w AS (\n         SELECT t.aa AS a\n           FROM t\n        )\n SELECT w.a\n   FROM w\nUNION\n SELECT t.b AS a\n   FROM t;",
	},
	{
		name:   "array subquery",
		create: "CREATE VIEW v AS SELECT ARRAY(SELECT c FROM t ORDER BY a) AS x",
		rename: "ALTER TABLE t RENAME COLUMN c TO d",
		want:   " SELECT ARRAY( SELECT t.d AS c\n           FROM t\n          ORDER BY t.a) AS x;",
	},
	{
		name:   "not like, nullif and greatest",
		create: "CREATE VIEW v AS SELECT NULLIF(a, 1) AS x, GREATEST(a, b) AS y FROM t WHERE c NOT LIKE 'a%'",
		rename: "ALTER TABLE t RENAME COLUMN c TO d",
		want:   " SELECT NULLIF(t.a, 1) AS x,\n    GREATEST(t.a, t.b) AS y\n   FROM t\n  WHERE t.d !~~ 'a%'::text;",
		plain:  " SELECT NULLIF(t.a, 1) AS x,\n    GREATEST(t.a, t.b) AS y\n   FROM t\n  WHERE (t.d !~~ 'a%'::text);",
	},
	{
		name:   "jsonb operators",
		create: "CREATE VIEW v AS SELECT (c::jsonb ->> 'n')::int + 1 AS n FROM t WHERE c::jsonb ? 'n'",
		rename: "ALTER TABLE t RENAME COLUMN c TO d",
		want:   " SELECT ((t.d::jsonb ->> 'n'::text)::integer) + 1 AS n\n   FROM t\n  WHERE t.d::jsonb ? 'n'::text;",
		plain:  " SELECT ((((t.d)::jsonb ->> 'n'::text))::integer + 1) AS n\n   FROM t\n  WHERE ((t.d)::jsonb ? 'n'::text);",
	},
	{
		name:   "subscripts and any",
		create: "CREATE VIEW v AS SELECT (ARRAY[a, b])[1] AS x FROM t WHERE a = ANY (ARRAY[b, 2])",
		rename: "ALTER TABLE t RENAME COLUMN b TO bb",
		want:   " SELECT (ARRAY[t.a, t.bb])[1] AS x\n   FROM t\n  WHERE t.a = ANY (ARRAY[t.bb, 2]);",
		plain:  " SELECT (ARRAY[t.a, t.bb])[1] AS x\n   FROM t\n  WHERE (t.a = ANY (ARRAY[t.bb, 2]));",
	},
	{
		name:   "extract",
		create: "CREATE VIEW v AS SELECT extract(year FROM c::date) AS y FROM t",
		rename: "ALTER TABLE t RENAME COLUMN c TO d",
		want:   " SELECT EXTRACT(year FROM t.d::date) AS y\n   FROM t;",
		plain:  " SELECT EXTRACT(year FROM (t.d)::date) AS y\n   FROM t;",
	},
}

// TestViewdefFollowsColumnRenames: for each shape of viewdefRenameCases
// the definition printed by pg_get_viewdef, by pg_views or pg_matviews
// follows a rename of a column it reads, after a restart too.
func TestViewdefFollowsColumnRenames(t *testing.T) {
	for _, c := range viewdefRenameCases {
		t.Run(c.name, func(t *testing.T) {
			fs := vfs.NewMem()
			e := openTest(t, fs)
			s := session(t, e)
			mustRun(t, s, "CREATE TABLE t (a int, b int, c text)")
			mustRun(t, s, c.create)
			mustRun(t, s, c.rename)
			checkAcrossRestart(t, fs, e, s, func(s wire.Session) {
				t.Helper()
				plain := c.plain
				if plain == "" {
					plain = c.want
				}
				wantRows(t, s, "SELECT pg_get_viewdef('v'::regclass, true)", c.want)
				wantRows(t, s, "SELECT pg_get_viewdef('v'::regclass)", plain)
				wantRows(t, s, "SELECT definition FROM pg_views WHERE viewname = 'v' UNION ALL SELECT definition FROM pg_matviews WHERE matviewname = 'v'", plain)
			})
		})
	}
}

// TestViewdefUsingColumnRenamed: a USING join whose column a table
// renamed prints the column under its old name in a column alias list,
// as PostgreSQL's set_using_names does, also once a rename of the table
// has stored the definition deparsed, after a restart too; the view
// keeps reading the same rows.
func TestViewdefUsingColumnRenamed(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (a int, b int, c text)")
	mustRun(t, s, "INSERT INTO t VALUES (1, 2, 'x'), (3, 4, 'y')")
	mustRun(t, s, "CREATE VIEW v AS SELECT t.b, x.c FROM t JOIN (SELECT a, c FROM t) x USING (a)")
	mustRun(t, s, "ALTER TABLE t RENAME COLUMN a TO aa")
	wantRows(t, s, "SELECT pg_get_viewdef('v'::regclass, true)",
		" SELECT t.b,\n    x.c\n   FROM t t(a, b, c)\n     JOIN ( SELECT t_1.aa AS a,\n            t_1.c\n           FROM t t_1) x USING (a);")
	mustRun(t, s, "ALTER TABLE t RENAME TO tt")
	checkAcrossRestart(t, fs, e, s, func(s wire.Session) {
		t.Helper()
		wantRows(t, s, "SELECT pg_get_viewdef('v'::regclass, true)",
			" SELECT tt.b,\n    x.c\n   FROM tt tt(a, b, c)\n     JOIN ( SELECT tt_1.aa AS a,\n            tt_1.c\n           FROM tt tt_1) x USING (a);")
		wantRows(t, s, "SELECT * FROM v ORDER BY b", "2 x", "4 y")
	})
}
