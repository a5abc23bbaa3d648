package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

func sessionAs(t *testing.T, e *Engine, user string) wire.Session {
	t.Helper()
	s, err := e.NewSession(context.Background(), wire.StartupParams{User: user, Database: DatabaseName})
	if err != nil {
		t.Fatalf("session as %s: %v", user, err)
	}
	return s
}

func wantCode(t *testing.T, s wire.Session, q string, code pgerr.Code, msg string) {
	t.Helper()
	_, err := run(t, s, q)
	if pgerr.CodeOf(err) != code || !strings.Contains(err.Error(), msg) {
		t.Errorf("%s: got %v, want %s %q", q, err, code, msg)
	}
}

// Who may manage roles, as Postgres has it: CREATEROLE manages roles
// that are not superusers, a role changes its own password, and neither
// the session's role nor the bootstrap superuser can be dropped.
func TestRoleAdministration(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	root := session(t, e)
	mustRun(t, root, "CREATE ROLE admin LOGIN CREATEROLE")
	mustRun(t, root, "CREATE USER plain PASSWORD 'a'")
	admin := sessionAs(t, e, "admin")
	plain := sessionAs(t, e, "plain")
	mustRun(t, admin, "CREATE ROLE helper LOGIN")
	wantCode(t, admin, "CREATE ROLE boss SUPERUSER", pgerr.InsufficientPrivilege, "permission denied to create role")
	wantCode(t, admin, "ALTER ROLE root PASSWORD 'x'", pgerr.InsufficientPrivilege, "permission denied to alter role")
	wantCode(t, plain, "CREATE ROLE x", pgerr.InsufficientPrivilege, "permission denied to create role")
	wantCode(t, plain, "ALTER ROLE plain CREATEDB", pgerr.InsufficientPrivilege, "permission denied to alter role")
	before, _ := e.cat.RoleByName("plain")
	mustRun(t, plain, "ALTER ROLE plain PASSWORD 'b'")
	after, _ := e.cat.RoleByName("plain")
	if after.Password == before.Password || !strings.HasPrefix(after.Password, "SCRAM-SHA-256$4096:") || strings.Contains(after.Password, "'b'") {
		t.Fatalf("password not replaced by a new verifier: %q -> %q", before.Password, after.Password)
	}
	wantCode(t, root, "DROP ROLE root", pgerr.ObjectInUse, "current user cannot be dropped")
	// The bootstrap superuser is a superuser first (which CREATEROLE
	// does not manage), then required by the system, as PostgreSQL
	// checks them.
	wantCode(t, admin, "DROP ROLE root", pgerr.InsufficientPrivilege, "permission denied to drop role")
	mustRun(t, root, "CREATE ROLE boss SUPERUSER LOGIN")
	wantCode(t, sessionAs(t, e, "boss"), "DROP ROLE root", pgerr.DependentObjectsStillExist, "cannot drop role root because it is required by the database system")
	wantCode(t, root, "ALTER ROLE root NOSUPERUSER", pgerr.InsufficientPrivilege, "permission denied to alter role")
	mustRun(t, root, "CREATE TABLE owned (a int)")
	mustRun(t, root, "GRANT CREATE ON SCHEMA public TO helper")
	helper := sessionAs(t, e, "helper")
	mustRun(t, helper, "CREATE TABLE mine (a int)")
	wantCode(t, admin, "DROP ROLE helper", "2BP01", `role "helper" cannot be dropped because some objects depend on it`)
	mustRun(t, helper, "DROP TABLE mine")
	// Its privilege on the schema keeps it too, until revoked.
	wantCode(t, admin, "DROP ROLE helper", "2BP01", `role "helper" cannot be dropped because some objects depend on it`)
	mustRun(t, root, "REVOKE CREATE ON SCHEMA public FROM helper")
	mustRun(t, admin, "DROP ROLE helper")
	if _, err := e.NewSession(context.Background(), wire.StartupParams{User: "helper", Database: DatabaseName}); pgerr.CodeOf(err) != "28000" {
		t.Fatalf("session of a dropped role: %v", err)
	}
	if _, err := e.NewSession(context.Background(), wire.StartupParams{User: "root", Database: "other"}); pgerr.CodeOf(err) != "3D000" {
		t.Fatalf("another database: %v", err)
	}
}

// The initial password is the bootstrap superuser's first password: set
// on first start, or later while it has none, and never replaced.
func TestInitialPassword(t *testing.T) {
	fs := vfs.NewMem()
	open := func(pw string) *Engine {
		e, err := Open(Config{DataDir: "data", Storage: storage.Options{FS: fs}, InitPassword: pw})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	e := open("")
	if r, _ := e.LookupRole("root"); r.Verifier != "" || !r.Superuser || !r.CanLogin {
		t.Fatalf("root after a first start without a password: %+v", r)
	}
	e.Close()
	e = open("first")
	r1, _ := e.LookupRole("root")
	if !strings.HasPrefix(r1.Verifier, "SCRAM-SHA-256$4096:") {
		t.Fatalf("root's verifier %q", r1.Verifier)
	}
	e.Close()
	e = open("second")
	defer e.Close()
	if r2, _ := e.LookupRole("root"); r2.Verifier != r1.Verifier {
		t.Fatal("a later initial password replaced root's password")
	}
}

// INSERT ... ON CONFLICT DO UPDATE updates the table, so it needs the
// UPDATE privilege besides INSERT; a conflict target reads the table to
// find the conflicting row, so it needs SELECT, as in PostgreSQL; a
// bare DO NOTHING needs INSERT alone.
func TestOnConflictPrivileges(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	root := session(t, e)
	mustRun(t, root, "CREATE USER clerk")
	mustRun(t, root, "CREATE TABLE kv (k int PRIMARY KEY, v int)")
	mustRun(t, root, "INSERT INTO kv VALUES (1, 1)")
	mustRun(t, root, "GRANT INSERT ON kv TO clerk")
	clerk := sessionAs(t, e, "clerk")
	mustRun(t, clerk, "INSERT INTO kv VALUES (1, 2) ON CONFLICT DO NOTHING")
	wantCode(t, clerk, "INSERT INTO kv VALUES (1, 2) ON CONFLICT (k) DO NOTHING", pgerr.InsufficientPrivilege, "permission denied")
	wantCode(t, clerk, "INSERT INTO kv VALUES (1, 2) ON CONFLICT (k) DO UPDATE SET v = excluded.v", pgerr.InsufficientPrivilege, "permission denied")
	mustRun(t, root, "GRANT UPDATE ON kv TO clerk")
	wantCode(t, clerk, "INSERT INTO kv VALUES (1, 2) ON CONFLICT (k) DO UPDATE SET v = excluded.v", pgerr.InsufficientPrivilege, "permission denied")
	mustRun(t, root, "GRANT SELECT ON kv TO clerk")
	mustRun(t, clerk, "INSERT INTO kv VALUES (1, 2) ON CONFLICT (k) DO UPDATE SET v = excluded.v")
	if rows := mustRun(t, root, "SELECT v FROM kv"); fmt.Sprint(rows) != "[2]" {
		t.Fatalf("kv after the upsert: %v", rows)
	}
}

// SET ROLE changes current_user, and with it every privilege check and
// the owner of what is created, but not session_user; only a member of
// the role (or a superuser) may take it, and ROLLBACK undoes it as any
// setting.
func TestSetRole(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	root := session(t, e)
	for _, q := range []string{"CREATE ROLE reader", "CREATE ROLE member LOGIN", "CREATE ROLE other",
		"GRANT reader TO member", "CREATE TABLE secret (x int)", "INSERT INTO secret VALUES (1)",
		"GRANT SELECT ON secret TO reader", "GRANT CREATE ON SCHEMA public TO other"} {
		mustRun(t, root, q)
	}
	member := sessionAs(t, e, "member")
	wantCode(t, member, "SET ROLE other", pgerr.InsufficientPrivilege, `permission denied to set role "other"`)
	wantCode(t, member, "SET ROLE nosuch", pgerr.InvalidParameterValue, `role "nosuch" does not exist`)
	mustRun(t, member, "SET ROLE reader")
	wantRows(t, member, "SELECT current_user, session_user, current_role", "reader member reader")
	wantRows(t, member, "SELECT x FROM secret", "1")
	mustRun(t, member, "RESET ROLE")
	wantRows(t, member, "SELECT current_user", "member")

	mustRun(t, root, "SET ROLE other")
	wantCode(t, root, "SELECT x FROM secret", pgerr.InsufficientPrivilege, "permission denied for table secret")
	mustRun(t, root, "CREATE TABLE made (a int)")
	wantCode(t, root, "DROP ROLE other", pgerr.InsufficientPrivilege, "permission denied to drop role")
	mustRun(t, root, "SET ROLE NONE")
	wantRows(t, root, "SELECT tableowner FROM pg_tables WHERE tablename = 'made'", "other")
	wantCode(t, root, "DROP ROLE root", pgerr.ObjectInUse, "current user cannot be dropped")

	mustRun(t, root, "BEGIN")
	mustRun(t, root, "SET ROLE other")
	mustRun(t, root, "ROLLBACK")
	wantRows(t, root, "SELECT current_user", "root")
	mustRun(t, root, "SET ROLE other")
	mustRun(t, root, "RESET ALL")
	wantRows(t, root, "SHOW role", "other")
}

// The session user that DROP ROLE and ALTER ROLE ... RENAME refuse to
// touch is the one SET SESSION AUTHORIZATION chose, not the role the
// session logged in as.
func TestSessionAuthorizationSessionUser(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	root := session(t, e)
	mustRun(t, root, "CREATE ROLE cr CREATEROLE")
	mustRun(t, root, "CREATE ROLE plain")
	mustRun(t, root, "SET SESSION AUTHORIZATION cr")
	wantRows(t, root, "SELECT session_user || ' ' || current_user", "cr cr")
	wantCode(t, root, "DROP ROLE root", pgerr.InsufficientPrivilege, "permission denied to drop role")
	wantCode(t, root, "ALTER ROLE cr RENAME TO cr2", pgerr.FeatureNotSupported, "session user cannot be renamed")
	wantCode(t, root, "DROP ROLE cr", pgerr.ObjectInUse, "current user cannot be dropped")
	mustRun(t, root, "ALTER ROLE plain RENAME TO plain2")
	mustRun(t, root, "RESET SESSION AUTHORIZATION")
	mustRun(t, root, "DROP ROLE plain2, cr")
}

// Functions, enums and domains belong to the role the session acts as
// (SET ROLE), and only that role, a member of it or a superuser may
// replace, alter or drop them: a superuser that took another role has
// that role's rights, not its own.
func TestSetRoleOwnsFunctionsAndTypes(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	root := session(t, e)
	for _, q := range []string{"CREATE ROLE alice", "CREATE ROLE bob", "GRANT CREATE ON SCHEMA public TO alice, bob",
		"SET ROLE bob",
		"CREATE FUNCTION bobf(a int) RETURNS int LANGUAGE sql AS $$ SELECT a + 1 $$",
		"CREATE TYPE bobmood AS ENUM ('sad', 'ok')",
		"CREATE DOMAIN bobdom AS int CHECK (VALUE > 0)",
		"CREATE TABLE t (k int PRIMARY KEY, m bobmood)",
		"CREATE VIEW v AS SELECT bobf(k) FROM t",
		"SET ROLE alice",
		"CREATE FUNCTION alicef() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$",
		"CREATE TYPE alicemood AS ENUM ('x')",
		"CREATE DOMAIN alicedom AS text"} {
		mustRun(t, root, q)
	}
	wantRows(t, root, "SELECT proname || ' ' || pg_get_userbyid(proowner) FROM pg_proc WHERE proname IN ('alicef', 'bobf') ORDER BY 1",
		"alicef alice", "bobf bob")
	wantRows(t, root, "SELECT typname || ' ' || pg_get_userbyid(typowner) FROM pg_type WHERE typname IN ('alicemood', 'alicedom', 'bobmood', 'bobdom') ORDER BY 1",
		"alicedom alice", "alicemood alice", "bobdom bob", "bobmood bob")
	for _, q := range []string{
		"DROP FUNCTION bobf(int)",
		"DROP FUNCTION bobf",
		// Refused before the view that calls it is looked at.
		"DROP FUNCTION bobf(int) CASCADE",
		"DROP FUNCTION alicef(), bobf(int) CASCADE",
		"CREATE OR REPLACE FUNCTION bobf(a int) RETURNS int LANGUAGE sql AS $$ SELECT a + 2 $$",
	} {
		wantCode(t, root, q, pgerr.InsufficientPrivilege, "must be owner of function bobf")
	}
	for _, q := range []string{
		"DROP TYPE bobmood", "DROP TYPE bobmood CASCADE", "ALTER TYPE bobmood ADD VALUE 'happy'",
		"ALTER TYPE bobmood RENAME VALUE 'ok' TO 'fine'", "ALTER TYPE bobmood RENAME TO mine",
	} {
		wantCode(t, root, q, pgerr.InsufficientPrivilege, "must be owner of type bobmood")
	}
	for _, q := range []string{"DROP DOMAIN bobdom", "ALTER DOMAIN bobdom SET DEFAULT 1", "ALTER DOMAIN bobdom DROP CONSTRAINT bobdom_check"} {
		wantCode(t, root, q, pgerr.InsufficientPrivilege, "must be owner of type bobdom")
	}
	wantRows(t, root, "SELECT bobf(1)", "2")
	// What alice owns she alters and drops.
	mustRun(t, root, "ALTER TYPE alicemood ADD VALUE 'y'")
	mustRun(t, root, "ALTER DOMAIN alicedom SET NOT NULL")
	mustRun(t, root, "CREATE OR REPLACE FUNCTION alicef() RETURNS int LANGUAGE sql AS $$ SELECT 3 $$")
	wantRows(t, root, "SELECT alicef()", "3")

	// Creating needs CREATE on the schema.
	mustRun(t, root, "RESET ROLE")
	mustRun(t, root, "REVOKE CREATE ON SCHEMA public FROM alice")
	mustRun(t, root, "SET ROLE alice")
	for _, q := range []string{"CREATE FUNCTION g() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$",
		"CREATE TYPE m2 AS ENUM ('a')", "CREATE DOMAIN d2 AS int"} {
		wantCode(t, root, q, pgerr.InsufficientPrivilege, "permission denied for schema public")
	}

	// A member of bob has bob's rights.
	mustRun(t, root, "RESET ROLE")
	mustRun(t, root, "GRANT bob TO alice")
	mustRun(t, root, "SET ROLE alice")
	mustRun(t, root, "ALTER TYPE bobmood ADD VALUE 'happy'")
	mustRun(t, root, "CREATE OR REPLACE FUNCTION bobf(a int) RETURNS int LANGUAGE sql AS $$ SELECT a + 2 $$")
	wantRows(t, root, "SELECT pg_get_userbyid(proowner) FROM pg_proc WHERE proname = 'bobf'", "bob")
	mustRun(t, root, "RESET ROLE")
	mustRun(t, root, "REVOKE bob FROM alice")

	// DROP ROLE names the functions and types a role owns or holds
	// privileges on, in the order they were made.
	mustRun(t, root, "REVOKE EXECUTE ON FUNCTION bobf(int) FROM PUBLIC")
	mustRun(t, root, "GRANT EXECUTE ON FUNCTION bobf(int) TO alice")
	_, err := run(t, root, "DROP ROLE alice")
	pe, _ := err.(*pgerr.Error)
	if pe == nil || pe.Code != pgerr.DependentObjectsStillExist || pe.Detail != "privileges for function bobf(integer)\nowner of function alicef()\nowner of type alicemood\nowner of type alicedom" {
		t.Errorf("DROP ROLE alice: got %#v", err)
	}
}

// has_function_privilege answers as PostgreSQL: EXECUTE is PUBLIC's
// until revoked, always the owner's (and a superuser's), else granted;
// the grant option is the owner's.
func TestHasFunctionPrivilege(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	root := session(t, e)
	for _, q := range []string{"CREATE ROLE alice", "CREATE ROLE bob", "GRANT CREATE ON SCHEMA public TO bob",
		"SET ROLE bob", "CREATE FUNCTION f(a int) RETURNS int LANGUAGE sql AS $$ SELECT a $$", "RESET ROLE"} {
		mustRun(t, root, q)
	}
	wantRows(t, root, "SELECT has_function_privilege('f(int)', 'execute'), has_function_privilege('alice', 'f(integer)', 'EXECUTE'), has_function_privilege('public', 'f(int)', 'EXECUTE')",
		"t t t")
	wantRows(t, root, "SELECT has_function_privilege('alice', 'f(int)', 'EXECUTE WITH GRANT OPTION'), has_function_privilege('bob', 'f(int)', 'execute with grant option')",
		"f t")
	mustRun(t, root, "REVOKE EXECUTE ON FUNCTION f(int) FROM PUBLIC")
	wantRows(t, root, "SELECT has_function_privilege('alice', 'f(int)', 'EXECUTE'), has_function_privilege('bob', 'f(int)', 'EXECUTE'), has_function_privilege('public', 'f(int)', 'EXECUTE'), has_function_privilege('root', 'f(int)', 'EXECUTE')",
		"f t f t")
	mustRun(t, root, "GRANT EXECUTE ON FUNCTION f(int) TO alice")
	mustRun(t, root, "SET ROLE alice")
	wantRows(t, root, "SELECT has_function_privilege('f(int)', 'EXECUTE'), has_function_privilege('lower(text)', 'EXECUTE'), has_function_privilege('lower(text)', 'EXECUTE WITH GRANT OPTION')",
		"t t f")
	mustRun(t, root, "RESET ROLE")
	wantRows(t, root, "SELECT has_function_privilege('alice', (SELECT oid FROM pg_proc WHERE proname = 'f'), 'EXECUTE'), has_function_privilege('alice', 4000000000::oid, 'EXECUTE') IS NULL",
		"t t")
	wantCode(t, root, "SELECT has_function_privilege('alice', 'nosuch(int)', 'EXECUTE')", pgerr.UndefinedFunction, `function "nosuch(int)" does not exist`)
	wantCode(t, root, "SELECT has_function_privilege('nobody', 'f(int)', 'EXECUTE')", "42704", `role "nobody" does not exist`)
	wantCode(t, root, "SELECT has_function_privilege('alice', 'f(int)', 'USAGE')", pgerr.InvalidParameterValue, `unrecognized privilege type: "USAGE"`)
}

// The last errors of weir.jobs, weir.sinks and the records of
// weir.source_errors hold values of the rows that caused them: a role
// reads them for the jobs it owns, <insufficient privilege> for the
// others it may see, as pg_stat_activity hides others' queries.
func TestJobErrorsHiddenFromOthers(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	root := session(t, e)
	for _, q := range []string{
		"CREATE TABLE a (x int)", "CREATE MATERIALIZED VIEW av AS SELECT x FROM a",
		"CREATE ROLE mallory LOGIN", "GRANT CREATE ON SCHEMA public TO mallory",
		// SELECT shows mallory the job, not its errors.
		"GRANT SELECT ON av TO mallory",
	} {
		mustRun(t, root, q)
	}
	mallory := sessionAs(t, e, "mallory")
	mustRun(t, mallory, "CREATE TABLE b (x int)")
	mustRun(t, mallory, "CREATE MATERIALIZED VIEW bv AS SELECT x FROM b")
	for _, name := range []string{"av", "bv"} {
		rel, ok := e.cat.Lookup("public", name)
		if !ok {
			t.Fatalf("no %s", name)
		}
		e.obs.jobFailed(types.JobID(rel.ID), fmt.Errorf("%s failed on SECRET_%s", name, name), time.Now())
	}
	q := "SELECT name || ': ' || last_error FROM weir.jobs ORDER BY name"
	if got := strings.Join(mustRun(t, root, q), "|"); got != "av: av failed on SECRET_av|bv: bv failed on SECRET_bv" {
		t.Errorf("root reads %q", got)
	}
	if got := strings.Join(mustRun(t, mallory, q), "|"); got != "av: <insufficient privilege>|bv: bv failed on SECRET_bv" {
		t.Errorf("mallory reads %q", got)
	}
}

// A superuser passes PostgreSQL's ownership checks: it may REFRESH
// another role's materialized view and ALTER SEQUENCE another role's
// sequence, a table's serial sequence included, which their owner may
// too and other roles may not.
func TestSuperuserRefreshesAndAltersOthersSequences(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	root := session(t, e)
	for _, q := range []string{"CREATE ROLE alice LOGIN", "CREATE ROLE bob LOGIN", "GRANT CREATE ON SCHEMA public TO alice"} {
		mustRun(t, root, q)
	}
	alice := sessionAs(t, e, "alice")
	for _, q := range []string{"CREATE TABLE at (id serial, x int)", "CREATE SEQUENCE aseq",
		"CREATE MATERIALIZED VIEW amv AS SELECT count(*) AS n FROM at", "GRANT ALL ON at, aseq, amv TO bob"} {
		mustRun(t, alice, q)
	}
	bob := sessionAs(t, e, "bob")
	wantCode(t, bob, "REFRESH MATERIALIZED VIEW amv", pgerr.InsufficientPrivilege, "must be owner of materialized view amv")
	wantCode(t, bob, "ALTER SEQUENCE aseq RESTART WITH 5", pgerr.InsufficientPrivilege, "must be owner of sequence aseq")
	wantCode(t, bob, "ALTER SEQUENCE at_id_seq RESTART WITH 7", pgerr.InsufficientPrivilege, "must be owner of sequence at_id_seq")
	mustRun(t, alice, "INSERT INTO at (x) VALUES (1)")
	mustRun(t, root, "REFRESH MATERIALIZED VIEW amv")
	wantRows(t, root, "SELECT n FROM amv", "1")
	mustRun(t, root, "ALTER SEQUENCE aseq RESTART WITH 5")
	mustRun(t, root, "ALTER SEQUENCE at_id_seq RESTART WITH 7")
	wantRows(t, alice, "SELECT nextval('aseq'), nextval('at_id_seq')", "5 7")
}

// A GRANT naming sequences changes none of them when it fails on one
// (the role owns the first, not the second), as PostgreSQL's
// transaction does, nor when it fails on a table named with them.
func TestGrantOnSequencesFailsWhole(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	root := session(t, e)
	for _, q := range []string{"CREATE ROLE alice LOGIN", "CREATE ROLE bob", "GRANT CREATE ON SCHEMA public TO alice", "CREATE SEQUENCE rootseq", "CREATE TABLE roott (a int)"} {
		mustRun(t, root, q)
	}
	alice := sessionAs(t, e, "alice")
	mustRun(t, alice, "CREATE SEQUENCE aliceseq")
	mustRun(t, alice, "CREATE TABLE alicet (id serial)")
	wantCode(t, alice, "GRANT USAGE ON SEQUENCE aliceseq, rootseq TO bob", pgerr.InsufficientPrivilege, "permission denied for sequence rootseq")
	wantCode(t, alice, "GRANT SELECT ON aliceseq, alicet_id_seq, roott TO bob", pgerr.InsufficientPrivilege, "permission denied for table roott")
	wantRows(t, root, "SELECT has_sequence_privilege('bob', 'aliceseq', 'USAGE, SELECT'), has_sequence_privilege('bob', 'alicet_id_seq', 'SELECT')", "f f")
	mustRun(t, alice, "GRANT SELECT ON aliceseq, alicet_id_seq TO bob")
	wantRows(t, root, "SELECT has_sequence_privilege('bob', 'aliceseq', 'SELECT'), has_sequence_privilege('bob', 'alicet_id_seq', 'SELECT')", "t t")
}
