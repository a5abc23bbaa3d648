package security

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// wantAllDenied runs each statement on c and expects 42501.
func wantAllDenied(t *testing.T, who string, c *pgx.Conn, qs ...string) {
	t.Helper()
	for _, q := range qs {
		if _, err := c.Exec(context.Background(), q); code(err) != "42501" {
			t.Errorf("%s: %s: got %v, want 42501", who, q, err)
		}
	}
}

// Privileges are checked on the relations the binder resolves, whatever
// spelling reaches them: a quoted mixed-case name (the relation's own,
// or its schema's), a CTE whose name differs from a table's only in
// case, a relation given an alias inside TUMBLE or HOP, and every
// statement that reads or writes through such a name.
func TestPrivilegesOnWhatTheBinderResolves(t *testing.T) {
	s := startWeir(t, nil, "user=root sslmode=disable")
	ctx := context.Background()
	root := s.login(t, "root")
	execAll(t, root,
		`CREATE TABLE "MixedSecret" (id int PRIMARY KEY, val text)`,
		`INSERT INTO "MixedSecret" VALUES (1, 'hidden')`,
		`CREATE TABLE secret (id int, s text)`,
		`INSERT INTO secret VALUES (1, 'hidden')`,
		`CREATE TABLE events (id int, ts timestamp, v text)`,
		`INSERT INTO events VALUES (1, '2024-01-01 10:00', 'hidden')`,
		`CREATE TABLE "MixedPub" (id int PRIMARY KEY, val text)`,
		`INSERT INTO "MixedPub" VALUES (1, 'open')`,
		`CREATE VIEW "MixedView" AS SELECT * FROM secret`,
		`CREATE MATERIALIZED VIEW "MixedMV" AS SELECT id, val FROM "MixedSecret"`,
		`CREATE SCHEMA "Caps"`,
		`CREATE TABLE "Caps".t (a int)`,
		`CREATE TABLE "Caps"."T2" (a int)`,
		`INSERT INTO "Caps".t VALUES (1)`,
		`CREATE ROLE mallory LOGIN`,
		`CREATE ROLE eve LOGIN`,
		`GRANT CREATE ON SCHEMA public TO mallory`,
		`GRANT SELECT, INSERT, UPDATE, DELETE ON "MixedPub" TO mallory`,
	)
	mallory := s.login(t, "mallory")
	eve := s.login(t, "eve")

	denied := []string{
		// Quoted mixed-case names: relations, views, materialized views,
		// schemas.
		`SELECT * FROM "MixedSecret"`,
		`INSERT INTO "MixedSecret" VALUES (2, 'mallory')`,
		`UPDATE "MixedSecret" SET val = 'mallory'`,
		`UPDATE "MixedSecret" SET val = 'mallory' WHERE id = 1`,
		`DELETE FROM "MixedSecret"`,
		`DELETE FROM "MixedSecret" WHERE id = 1`,
		`SELECT * FROM "MixedView"`,
		`SELECT * FROM "MixedMV"`,
		`SELECT * FROM "Caps".t`,
		`SELECT * FROM "Caps"."T2"`,
		`INSERT INTO "Caps".t VALUES (2)`,
		// A CTE named like the table but for case does not hide it.
		`WITH "SECRET" AS (SELECT 1) SELECT * FROM secret`,
		`WITH "PG_AUTHID" AS (SELECT 1) SELECT rolname, rolpassword FROM pg_authid`,
		`WITH "SECRET" AS (SELECT 1) INSERT INTO secret SELECT 2, 'x'`,
		// TUMBLE and HOP over an aliased relation.
		`SELECT * FROM tumble(events AS e, ts, INTERVAL '1 hour')`,
		`SELECT * FROM hop(events AS x, ts, INTERVAL '1 hour', INTERVAL '2 hours')`,
		`SELECT * FROM tumble(events e, ts, INTERVAL '1 hour')`,
		`SELECT rolname, rolpassword FROM tumble(pg_authid AS a, rolvaliduntil, INTERVAL '1 hour')`,
		`SELECT * FROM tumble((SELECT * FROM events), ts, INTERVAL '1 hour')`,
		// Every other way to read or write through such a name.
		`SELECT (SELECT val FROM "MixedSecret" LIMIT 1)`,
		`SELECT * FROM "MixedPub" WHERE EXISTS (SELECT 1 FROM "MixedSecret")`,
		`SELECT * FROM "MixedPub" p, LATERAL (SELECT val FROM "MixedSecret" s WHERE s.id = p.id) x`,
		`SELECT * FROM generate_series(1, (SELECT count(*)::int FROM "MixedSecret"))`,
		`SELECT * FROM (SELECT * FROM "MixedSecret") q`,
		`INSERT INTO "MixedPub" SELECT id + 10, val FROM "MixedSecret"`,
		`INSERT INTO "MixedPub" VALUES (5, 'x') RETURNING (SELECT val FROM "MixedSecret" LIMIT 1)`,
		`INSERT INTO "MixedPub" VALUES (1, 'x') ON CONFLICT (id) DO UPDATE SET val = (SELECT val FROM "MixedSecret" LIMIT 1)`,
		`INSERT INTO "MixedPub" VALUES (1, 'x') ON CONFLICT (id) DO UPDATE SET val = 'y' WHERE EXISTS (SELECT 1 FROM "MixedSecret")`,
		`UPDATE "MixedPub" SET val = 'x' RETURNING (SELECT val FROM "MixedSecret" LIMIT 1)`,
		`DELETE FROM "MixedPub" WHERE id IN (SELECT id FROM "MixedSecret")`,
		`UPDATE "MixedPub" SET val = s.val FROM "MixedSecret" s WHERE s.id = "MixedPub".id`,
		`DELETE FROM "MixedPub" USING "MixedSecret" s WHERE s.id = "MixedPub".id`,
		`EXPLAIN SELECT * FROM "MixedSecret"`,
		`EXPLAIN ANALYZE SELECT * FROM "MixedSecret"`,
		`CREATE TABLE stolen AS SELECT * FROM "MixedSecret"`,
		`CREATE VIEW v1 AS SELECT * FROM "MixedSecret"`,
		`CREATE VIEW v2 AS WITH "SECRET" AS (SELECT 1) SELECT * FROM secret`,
		`CREATE VIEW v3 AS SELECT * FROM tumble(events AS e, ts, INTERVAL '1 hour')`,
		`CREATE MATERIALIZED VIEW m1 AS SELECT * FROM tumble(events AS e, ts, INTERVAL '1 hour')`,
		`CREATE MATERIALIZED VIEW m2 AS SELECT id, val FROM "MixedSecret"`,
		`CREATE TABLE stolen2 AS SELECT * FROM tumble(events AS e, ts, INTERVAL '1 hour')`,
		`COPY (SELECT * FROM "MixedSecret") TO STDOUT`,
	}
	wantAllDenied(t, "mallory", mallory, denied...)

	if _, err := mallory.PgConn().CopyTo(ctx, io.Discard, `COPY "MixedSecret" TO STDOUT`); code(err) != "42501" {
		t.Errorf(`COPY "MixedSecret" TO STDOUT: got %v, want 42501`, err)
	}
	if _, err := mallory.PgConn().CopyFrom(ctx, strings.NewReader("7\tcopied\n"), `COPY "MixedSecret" FROM STDIN`); code(err) != "42501" {
		t.Errorf(`COPY "MixedSecret" FROM STDIN: got %v, want 42501`, err)
	}
	// Refused when prepared or, at the latest, when run.
	if _, err := mallory.Exec(ctx, `PREPARE p1 AS SELECT * FROM "MixedSecret"`); err == nil {
		wantAllDenied(t, "mallory", mallory, `EXECUTE p1`)
	} else if code(err) != "42501" {
		t.Errorf("PREPARE: got %v, want 42501", err)
	}
	tx, err := mallory.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `DECLARE c CURSOR FOR SELECT * FROM "MixedSecret"`); code(err) != "42501" {
		t.Errorf("DECLARE CURSOR: got %v, want 42501", err)
	}
	tx.Rollback(ctx)

	// A view over the catalog of verifiers, made however it can be,
	// leaks nothing to PUBLIC.
	for _, q := range []string{
		`CREATE VIEW authv AS SELECT rolname, rolpassword FROM tumble(pg_authid AS a, rolvaliduntil, INTERVAL '1 hour')`,
		`CREATE VIEW authw AS WITH "PG_AUTHID" AS (SELECT 1) SELECT rolname, rolpassword FROM pg_authid`,
	} {
		_, err := mallory.Exec(ctx, q)
		if code(err) != "42501" {
			t.Errorf("%s: got %v, want 42501", q, err)
		}
		if err != nil {
			continue
		}
		name := strings.Fields(q)[2]
		execAll(t, mallory, "GRANT SELECT ON "+name+" TO PUBLIC")
		wantAllDenied(t, "eve", eve, "SELECT * FROM "+name)
	}

	// Nothing was written.
	var n int
	if err := root.QueryRow(ctx, `SELECT count(*) FROM "MixedSecret" WHERE val = 'hidden'`).Scan(&n); err != nil || n != 1 {
		t.Errorf(`"MixedSecret" holds %d of its row (%v), want 1`, n, err)
	}
	if err := root.QueryRow(ctx, `SELECT count(*) FROM "MixedPub"`).Scan(&n); err != nil || n != 1 {
		t.Errorf(`"MixedPub" holds %d rows (%v), want 1`, n, err)
	}

	// What the roles may do, they still do: a superuser reads anything,
	// mallory what she was granted, and her view reads with her
	// privileges for whom she grants it to, until she loses them.
	for _, q := range []string{
		`SELECT * FROM "MixedSecret"`,
		`SELECT * FROM "Caps"."T2"`,
		`WITH "SECRET" AS (SELECT 1) SELECT * FROM secret`,
		`SELECT * FROM tumble(events AS e, ts, INTERVAL '1 hour')`,
		`SELECT rolname, rolpassword FROM tumble(pg_authid AS a, rolvaliduntil, INTERVAL '1 hour')`,
	} {
		if _, err := root.Exec(ctx, q); err != nil {
			t.Errorf("root: %s: %v", q, err)
		}
	}
	execAll(t, mallory,
		`SELECT * FROM "MixedPub"`,
		`INSERT INTO "MixedPub" VALUES (2, 'mallory')`,
		`SELECT * FROM tumble((SELECT id, now()::timestamp AS ts FROM "MixedPub") AS p, ts, INTERVAL '1 hour')`,
		`CREATE VIEW "MalloryView" AS SELECT * FROM "MixedPub"`,
		`GRANT SELECT ON "MalloryView" TO eve`,
	)
	wantAllDenied(t, "eve", eve, `SELECT * FROM "MixedPub"`)
	if err := eve.QueryRow(ctx, `SELECT count(*) FROM "MalloryView"`).Scan(&n); err != nil || n != 2 {
		t.Errorf(`eve reads mallory's view: %d rows, %v; want 2`, n, err)
	}
	execAll(t, root, `REVOKE SELECT ON "MixedPub" FROM mallory`)
	wantAllDenied(t, "eve", eve, `SELECT * FROM "MalloryView"`)
	// A superuser reads a view with its owner's privileges too, as in
	// PostgreSQL.
	wantAllDenied(t, "root", root, `SELECT * FROM "MalloryView"`)
}

// SET ROLE follows the role, not its name: a role renamed and another
// made under the old name change nothing for a session that set it, nor
// for what that session prepared.
func TestSetRoleFollowsTheRole(t *testing.T) {
	s := startWeir(t, nil, "user=root sslmode=disable")
	ctx := context.Background()
	root := s.login(t, "root")
	execAll(t, root,
		`CREATE TABLE secret (id int, s text)`,
		`INSERT INTO secret VALUES (1, 'hidden')`,
		`CREATE TABLE shared (id int)`,
		`CREATE ROLE analysts`,
		`CREATE ROLE alice LOGIN`,
		`GRANT analysts TO alice`,
		`GRANT SELECT ON shared TO analysts`,
	)
	alice := s.login(t, "alice")
	execAll(t, alice, `SET ROLE analysts`, `PREPARE ps AS SELECT * FROM shared`, `EXECUTE ps`)
	execAll(t, root,
		`ALTER ROLE analysts RENAME TO analysts_old`,
		`CREATE ROLE analysts SUPERUSER`,
	)
	wantAllDenied(t, "alice", alice,
		`SELECT * FROM secret`,
		`INSERT INTO secret VALUES (2, 'alice')`,
		`SELECT rolpassword FROM pg_authid`,
		`CREATE ROLE alice_admin SUPERUSER`,
	)
	var su, who string
	if err := alice.QueryRow(ctx, `SELECT current_setting('is_superuser'), current_user`).Scan(&su, &who); err != nil || su != "off" || who != "analysts_old" {
		t.Errorf("after the rename: is_superuser %q, current_user %q (%v); want off, analysts_old", su, who, err)
	}
	if _, err := alice.Exec(ctx, `EXECUTE ps`); err != nil {
		t.Errorf("the renamed role keeps its grant: %v", err)
	}

	// A statement prepared under a role that could read runs again under
	// a new role of the same name that cannot.
	execAll(t, root,
		`DROP ROLE analysts`,
		`CREATE ROLE analysts`,
		`GRANT analysts TO alice`,
	)
	execAll(t, alice, `SET ROLE analysts`)
	wantAllDenied(t, "alice", alice, `EXECUTE ps`, `SELECT * FROM shared`)
	// Nor does a cached statement survive the role's loss of the grant.
	execAll(t, alice, `SET ROLE analysts_old`, `EXECUTE ps`)
	execAll(t, root, `REVOKE SELECT ON shared FROM analysts_old`)
	wantAllDenied(t, "alice", alice, `EXECUTE ps`)
}

// weir.stream_errors holds the values of the rows that caused each error:
// a role sees the errors of its own jobs only, a superuser all of them.
func TestStreamErrorsShownToTheirOwner(t *testing.T) {
	s := startWeir(t, nil, "user=root sslmode=disable")
	ctx := context.Background()
	root := s.login(t, "root")
	execAll(t, root,
		`CREATE TABLE src (t text)`,
		`CREATE MATERIALIZED VIEW parsed AS SELECT t::int AS n FROM src`,
		`INSERT INTO src VALUES ('ROOTSECRET')`,
		`CREATE ROLE mallory LOGIN`,
		`CREATE ROLE friend LOGIN`,
		`GRANT mallory TO friend`,
		`GRANT CREATE ON SCHEMA public TO mallory`,
		`FLUSH`,
	)
	mallory := s.login(t, "mallory")
	execAll(t, mallory,
		`CREATE TABLE mine (t text)`,
		`CREATE MATERIALIZED VIEW minev AS SELECT t::int AS n FROM mine`,
		`INSERT INTO mine VALUES ('MALLORYS')`,
	)
	execAll(t, root, `FLUSH`)
	friend := s.login(t, "friend")
	errorsSeen := func(c *pgx.Conn) string {
		t.Helper()
		rows, err := c.Query(ctx, `SELECT view || ': ' || last_error FROM weir.stream_errors ORDER BY 1`)
		if err != nil {
			t.Fatal(err)
		}
		vs, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(vs, "\n")
	}
	all := errorsSeen(root)
	if !strings.Contains(all, "ROOTSECRET") || !strings.Contains(all, "MALLORYS") {
		t.Fatalf("root sees:\n%s\nwant both jobs' errors", all)
	}
	for who, c := range map[string]*pgx.Conn{"mallory": mallory, "friend": friend} {
		got := errorsSeen(c)
		if strings.Contains(got, "ROOTSECRET") || !strings.Contains(got, "MALLORYS") {
			t.Errorf("%s sees:\n%s\nwant the error of minev only", who, got)
		}
	}
}

// A statement parsed by a role that may call a function, then bound and
// run after SET ROLE to one that may not, is refused EXECUTE: the
// extended protocol's Parse checks nothing the run does not check again.
func TestFunctionExecuteCheckedWhenRun(t *testing.T) {
	s := startWeir(t, nil, "user=root sslmode=disable")
	ctx := context.Background()
	root := s.login(t, "root")
	execAll(t, root,
		`CREATE FUNCTION qf(x int) RETURNS int LANGUAGE sql RETURN x`,
		`REVOKE EXECUTE ON FUNCTION qf(int) FROM PUBLIC`,
		`CREATE ROLE q1`,
		`CREATE ROLE q2`,
		`GRANT EXECUTE ON FUNCTION qf(int) TO q1`,
	)
	execAll(t, root, `SET ROLE q1`)
	if _, err := root.Prepare(ctx, "pf", `SELECT qf(7)`); err != nil {
		t.Fatalf("Parse as q1: %v", err)
	}
	var v int
	if err := root.QueryRow(ctx, "pf").Scan(&v); err != nil || v != 7 {
		t.Fatalf("as q1: %d, %v; want 7", v, err)
	}
	execAll(t, root, `RESET ROLE`, `SET ROLE q2`)
	wantAllDenied(t, "q2", root, "pf", `SELECT qf(7)`)
	// SQL PREPARE by the role that may not call it is accepted; EXECUTE
	// is not.
	execAll(t, root, `PREPARE pq AS SELECT qf(8)`)
	wantAllDenied(t, "q2", root, `EXECUTE pq`)
	execAll(t, root, `RESET ROLE`, `GRANT EXECUTE ON FUNCTION qf(int) TO q2`, `SET ROLE q2`)
	if err := root.QueryRow(ctx, "pf").Scan(&v); err != nil || v != 7 {
		t.Errorf("as q2 once granted: %d, %v; want 7", v, err)
	}
}
