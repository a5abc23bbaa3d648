package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/internal/pgerr"
)

// A view whose owner lost SELECT on its input stays FAILED across a
// restart, still serving the rows it had computed, and RESUME is
// refused until the privilege is granted again.
func TestJobFailedForPrivilegeAcrossRestart(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	root := session(t, e)
	mustRun(t, root, "CREATE TABLE team (id int PRIMARY KEY, name text)")
	mustRun(t, root, "INSERT INTO team VALUES (1, 'before')")
	mustRun(t, root, "CREATE ROLE bob LOGIN")
	mustRun(t, root, "GRANT CREATE ON SCHEMA public TO bob")
	mustRun(t, root, "GRANT SELECT ON team TO bob")
	bob := sessionAs(t, e, "bob")
	mustRun(t, bob, "CREATE MATERIALIZED VIEW bob_team AS SELECT * FROM team")
	mustRun(t, root, "REVOKE SELECT ON team FROM bob")
	mustRun(t, root, "INSERT INTO team VALUES (2, 'after')")
	wantRows(t, bob, "SELECT name FROM bob_team ORDER BY id", "before")
	e.Close()

	e = openTest(t, fs)
	defer e.Close()
	root, bob = session(t, e), sessionAs(t, e, "bob")
	rows := mustRun(t, root, "SELECT status, last_error FROM weir.jobs WHERE name = 'bob_team'")
	if len(rows) != 1 || !strings.HasPrefix(rows[0], "failed ") || !strings.Contains(rows[0], "permission denied for table team") {
		t.Fatalf("weir.jobs after the restart: %q", rows)
	}
	wantRows(t, bob, "SELECT name FROM bob_team ORDER BY id", "before")
	wantCode(t, bob, "ALTER MATERIALIZED VIEW bob_team RESUME", pgerr.InsufficientPrivilege, "permission denied for table team")
	mustRun(t, root, "GRANT SELECT ON team TO bob")
	mustRun(t, bob, "ALTER MATERIALIZED VIEW bob_team RESUME")
	wantRows(t, bob, "SELECT name FROM bob_team ORDER BY id", "before", "after")
}

// COMMIT's unique violation leaves the key out for a role that may not
// read the table, as the statement's own violations do.
func TestCommitViolationHidesKey(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	root := session(t, e)
	mustRun(t, root, "CREATE TABLE kv (k int PRIMARY KEY, u int)")
	mustRun(t, root, "CREATE UNIQUE INDEX kv_u ON kv (u)")
	mustRun(t, root, "CREATE ROLE dave LOGIN")
	mustRun(t, root, "GRANT INSERT ON kv TO dave")
	dave := sessionAs(t, e, "dave")
	mustRun(t, dave, "BEGIN")
	mustRun(t, dave, "INSERT INTO kv VALUES (1, 7)")
	mustRun(t, root, "INSERT INTO kv VALUES (2, 7)")
	_, err := run(t, dave, "COMMIT")
	if pe := pgerr.As(err); pgerr.CodeOf(err) != pgerr.UniqueViolation || pe.Detail != "" {
		t.Fatalf("COMMIT: %v (detail %q), want 23505 without the key", err, pe.Detail)
	}
}

// A view read by another view fails with its region: neither gets the
// rows its owner may no longer read.
func TestJobFailedForPrivilegeWithItsReaders(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	root := session(t, e)
	mustRun(t, root, "CREATE TABLE team (id int PRIMARY KEY, name text)")
	mustRun(t, root, "INSERT INTO team VALUES (1, 'before')")
	mustRun(t, root, "CREATE ROLE bob LOGIN")
	mustRun(t, root, "GRANT CREATE ON SCHEMA public TO bob")
	mustRun(t, root, "GRANT SELECT ON team TO bob")
	bob := sessionAs(t, e, "bob")
	mustRun(t, bob, "CREATE MATERIALIZED VIEW bob_team AS SELECT * FROM team")
	mustRun(t, bob, "CREATE MATERIALIZED VIEW bob_count AS SELECT count(*) AS n FROM bob_team")
	mustRun(t, root, "REVOKE SELECT ON team FROM bob")
	mustRun(t, root, "INSERT INTO team VALUES (2, 'after')")
	for _, q := range []string{"SELECT name FROM bob_team ORDER BY id", "SELECT n FROM bob_count"} {
		rows, err := run(t, bob, q)
		if err == nil && (len(rows) != 1 || rows[0] != "before" && rows[0] != "1") {
			t.Errorf("%s after the REVOKE: %q, want only what was computed before it", q, rows)
		}
	}
	rows := mustRun(t, root, "SELECT name, status FROM weir.jobs WHERE name LIKE 'bob%' ORDER BY name")
	if fmt.Sprint(rows) != "[bob_count failed bob_team failed]" {
		t.Errorf("weir.jobs: %q, want both failed", rows)
	}
}

// A new job over a failed view (an index on it, a view or a sink over
// it, directly or through a plain view) is refused at once with 55000:
// the failed job sends no barriers, so the new job's first checkpoint,
// and every session's writes with it, would wait until the checkpoint
// timed out.
func TestNoJobOverFailedView(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	root := session(t, e)
	mustRun(t, root, "CREATE TABLE team (id int PRIMARY KEY, name text)")
	mustRun(t, root, "CREATE TABLE other (a int)")
	mustRun(t, root, "INSERT INTO team VALUES (1, 'before')")
	mustRun(t, root, "CREATE ROLE bob LOGIN")
	mustRun(t, root, "GRANT CREATE ON SCHEMA public TO bob")
	mustRun(t, root, "GRANT SELECT ON team TO bob")
	bob := sessionAs(t, e, "bob")
	mustRun(t, bob, "CREATE MATERIALIZED VIEW bob_team AS SELECT * FROM team")
	mustRun(t, bob, "CREATE VIEW bob_plain AS SELECT * FROM bob_team")
	mustRun(t, root, "REVOKE SELECT ON team FROM bob")
	for _, q := range []string{
		"CREATE INDEX ON bob_team (id)",
		"CREATE MATERIALIZED VIEW bob_more AS SELECT * FROM bob_team",
		"CREATE MATERIALIZED VIEW bob_through AS SELECT count(*) FROM bob_plain",
	} {
		wantCode(t, bob, q, pgerr.ObjectNotInPrerequisiteState, `materialized view "bob_team" is failed`)
	}
	mustRun(t, root, "INSERT INTO other VALUES (5)")
	wantRows(t, root, "SELECT a FROM other", "5")
	mustRun(t, root, "GRANT SELECT ON team TO bob")
	mustRun(t, bob, "ALTER MATERIALIZED VIEW bob_team RESUME")
	mustRun(t, bob, "CREATE MATERIALIZED VIEW bob_more AS SELECT * FROM bob_team")
	wantRows(t, bob, "SELECT name FROM bob_more", "before")
}
