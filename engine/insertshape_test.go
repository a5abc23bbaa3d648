package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestScanInsertShape checks which statements have a shape and the
// template and integers each gives.
func TestScanInsertShape(t *testing.T) {
	for _, c := range []struct {
		text, template string
		lits           []string
	}{
		{"INSERT INTO t VALUES (1, 22)", "INSERT INTO t VALUES ( $1 , $2 )", []string{"1", "22"}},
		{"  insert into s.t (b, a) values (007, 'x');", "insert into s . t ( b , a ) values ( $1 , 'x' )", []string{"007"}},
		{`INSERT INTO "T" VALUES (1.5, 2, NULL) -- c`, `INSERT INTO "T" VALUES ( 1.5 , $1 , NULL )`, []string{"2"}},
		{"INSERT INTO t VALUES (-1)", "", nil},
		{"INSERT INTO t VALUES (1 + 1)", "", nil},
		{"INSERT INTO t VALUES (1), (2)", "", nil},
		{"INSERT INTO t VALUES ('a')", "", nil},
		{"INSERT INTO t VALUES (1) RETURNING id", "", nil},
		{"INSERT INTO t VALUES (1) ON CONFLICT DO NOTHING", "", nil},
		{"INSERT INTO t VALUES (1); INSERT INTO t VALUES (2)", "", nil},
		{"INSERT INTO t SELECT 1", "", nil},
		{"UPDATE t SET a = 1", "", nil},
		{"INSERT INTO t VALUES ($1)", "", nil},
		{"INSERT INTO t VALUES (1", "", nil},
	} {
		sh, ok := scanInsertShape(c.text)
		if ok != (c.template != "") || sh.template != c.template || fmt.Sprint(sh.lits) != fmt.Sprint(c.lits) {
			t.Errorf("%s: shape %q %q (%v), want %q %q", c.text, sh.template, sh.lits, ok, c.template, c.lits)
		}
	}
}

// TestInsertShapesSameAsOrdinary runs the same simple-query statements
// on an engine that runs single-row INSERTs through their shapes'
// templates (insertshape.go) and on one that parses and binds every
// statement, around changes of the catalog, search_path and role, and
// requires the same outcome of each (rows, or the error with its code,
// message, position and detail) and the same tables and view after it.
// A template kept past a change that should have rebound it writes the
// wrong table or the wrong value, or reports another error.
func TestInsertShapesSameAsOrdinary(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	shaped, plain := openTest(t, vfs.NewMem()), openTest(t, vfs.NewMem())
	defer shaped.Close()
	defer plain.Close()
	plain.noInsertShapes = true
	conns := []*pgx.Conn{servePgx(t, shaped), servePgx(t, plain)}

	outcome := func(c *pgx.Conn, q string) string {
		rows, err := c.Query(ctx, q, pgx.QueryExecModeSimpleProtocol)
		if err != nil {
			return "error " + err.Error()
		}
		var out []string
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				return "error " + err.Error()
			}
			out = append(out, fmt.Sprint(vals...))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			var pe *pgconn.PgError
			if errors.As(err, &pe) {
				return fmt.Sprintf("error %s %q at %d detail %q", pe.Code, pe.Message, pe.Position, pe.Detail)
			}
			return "error " + err.Error()
		}
		return fmt.Sprintf("%s %s", rows.CommandTag(), strings.Join(out, "; "))
	}
	same := func(q string) string {
		t.Helper()
		a, b := outcome(conns[0], q), outcome(conns[1], q)
		if a != b {
			t.Fatalf("%s:\nthrough shapes %s\nordinary       %s", q, a, b)
		}
		return a
	}
	must := func(q string) {
		t.Helper()
		if r := same(q); strings.HasPrefix(r, "error") {
			t.Fatalf("%s: %s", q, r)
		}
	}
	check := func(tables ...string) {
		t.Helper()
		for _, tb := range tables {
			same("SELECT * FROM " + tb + " ORDER BY 1")
		}
	}

	must("CREATE TABLE t (id bigint PRIMARY KEY, v int, s smallint, b boolean, x text)")
	must("CREATE MATERIALIZED VIEW vt AS SELECT count(*) AS n, sum(v) AS sv, max(id) AS m FROM t")
	for _, q := range []string{
		"INSERT INTO t VALUES (1, 2, 3)",
		"INSERT INTO t VALUES (2, 3, 4)",
		"INSERT INTO t VALUES (3, 4, 32767, true, 'a')",
		"INSERT INTO t VALUES (4, 4, 32768, true, 'a')",
		"INSERT INTO t VALUES (5, 2147483647, 1)",
		"INSERT INTO t VALUES (6, 2147483648, 1)",
		"INSERT INTO t VALUES (9223372036854775807, 1, 1)",
		"INSERT INTO t VALUES (9223372036854775808, 1, 1)",
		"INSERT INTO t VALUES (1, 2, 3)",
		"INSERT INTO t VALUES (7, 2, 3, 4, 'a')",
		"INSERT INTO t VALUES (7, 2, 3, true, 5)",
		"INSERT INTO t VALUES (8, 2, 3, true, 'a', 9)",
		"INSERT INTO t VALUES (9, -2, 3)",
		"insert into t (v, id) values (0010, 10);",
		"INSERT INTO public.t (id) VALUES (11)",
		"INSERT INTO t (id, nosuch) VALUES (12, 1)",
		"INSERT INTO nosuch VALUES (12, 1)",
	} {
		same(q)
		check("t", "vt")
	}

	// The table's columns change under the shapes bound before.
	must("ALTER TABLE t DROP COLUMN x")
	same("INSERT INTO t VALUES (20, 2, 3, true, 'a')")
	same("INSERT INTO t VALUES (21, 2, 3, true)")
	must("ALTER TABLE t DROP COLUMN s")
	same("INSERT INTO t VALUES (22, 2, 3)")
	same("INSERT INTO t VALUES (23, 2, true)")
	check("t", "vt")

	// The table is dropped and created again with other types: the
	// same texts now write the new table, or fail as the text would.
	must("DROP MATERIALIZED VIEW vt")
	must("DROP TABLE t")
	same("INSERT INTO t VALUES (1, 2, 3)")
	must("CREATE TABLE t (id int PRIMARY KEY, v boolean, s text)")
	same("INSERT INTO t VALUES (1, 2, 3)")
	same("INSERT INTO t VALUES (2, true, 3)")
	same("INSERT INTO t VALUES (2147483648, true, 3)")
	check("t")

	// search_path moves the shapes to another schema's table, and a
	// temporary table hides the permanent one.
	must("CREATE SCHEMA o")
	must("CREATE TABLE o.t (id bigint, v bigint, s bigint)")
	same("INSERT INTO t VALUES (3, true, 3)")
	must("SET search_path = o, public")
	same("INSERT INTO t VALUES (3, 4, 5)")
	same("INSERT INTO t VALUES (4, true, 5)")
	must("SET search_path = public")
	same("INSERT INTO t VALUES (5, true, 5)")
	must("CREATE TEMP TABLE t (id smallint, v smallint, s smallint)")
	same("INSERT INTO t VALUES (6, 7, 8)")
	same("INSERT INTO t VALUES (6, 70000, 8)")
	check("t", "o.t", "public.t")
	must("DROP TABLE t")
	same("INSERT INTO t VALUES (7, true, 8)")
	check("t", "o.t")

	// A role without the privilege is refused, with a shape bound by
	// one that had it.
	must("CREATE ROLE r")
	must("GRANT USAGE ON SCHEMA o TO r")
	must("SET ROLE r")
	same("INSERT INTO t VALUES (8, true, 9)")
	same("INSERT INTO o.t VALUES (8, 9, 10)")
	must("RESET ROLE")
	must("GRANT INSERT ON o.t TO r")
	must("SET ROLE r")
	same("INSERT INTO o.t VALUES (9, 9, 10)")
	must("RESET ROLE")

	// A domain's CHECK, an array column and a serial column.
	must("CREATE DOMAIN pos AS int CHECK (VALUE > 0)")
	must("CREATE TABLE d (a pos, b int[], c serial)")
	same("INSERT INTO d VALUES (1, NULL)")
	same("INSERT INTO d VALUES (0, NULL)")
	same("INSERT INTO d VALUES (2, 3)")
	same("INSERT INTO d VALUES (3, NULL, 7)")
	same("INSERT INTO d (c, a) VALUES (8, 4)")
	check("d")

	// In a transaction block, and in a failed one.
	must("BEGIN")
	same("INSERT INTO o.t VALUES (10, 1, 1)")
	same("INSERT INTO t VALUES (1, true, 'dup')")
	same("INSERT INTO o.t VALUES (11, 1, 1)")
	must("ROLLBACK")
	check("t", "o.t")

	if n := shaped.shapeRuns.Load(); n < 10 {
		t.Fatalf("%d statements ran through a shape's template, want the INSERTs that qualify", n)
	}
	if n := plain.shapeRuns.Load(); n != 0 {
		t.Fatalf("%d statements ran through a template with the shapes turned off", n)
	}
}
