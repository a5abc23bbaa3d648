package security

import (
	"context"
	"strings"
	"testing"
)

// A materialized view's job reads with its owner's privileges: when the
// owner loses SELECT on an input, the job is FAILED with the 42501 in
// weir.jobs, the view keeps what it had computed and gets no new rows,
// and RESUME is refused until the privilege is back.
func TestMaterializedViewOwnerLosesSelect(t *testing.T) {
	s := startWeir(t, nil, "user=root sslmode=disable")
	ctx := context.Background()
	root := s.login(t, "root")
	execAll(t, root,
		"CREATE TABLE team (id int PRIMARY KEY, name text)",
		"INSERT INTO team VALUES (1, 'before')",
		"CREATE ROLE bob LOGIN",
		"GRANT CREATE ON SCHEMA public TO bob",
		"GRANT SELECT ON team TO bob",
	)
	bob := s.login(t, "bob")
	execAll(t, bob, "CREATE MATERIALIZED VIEW bob_team AS SELECT * FROM team")
	execAll(t, root, "REVOKE SELECT ON team FROM bob", "INSERT INTO team VALUES (2, 'after')", "FLUSH")
	var names []string
	rows, err := bob.Query(ctx, "SELECT name FROM bob_team ORDER BY id")
	if err == nil {
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				t.Fatal(err)
			}
			names = append(names, n)
		}
		err = rows.Err()
	}
	if err != nil || strings.Join(names, ",") != "before" {
		t.Errorf("bob_team after the REVOKE: %v (%v), want only the row computed before it", names, err)
	}
	var status, lastErr string
	if err := root.QueryRow(ctx, "SELECT status, last_error FROM weir.jobs WHERE name = 'bob_team'").Scan(&status, &lastErr); err != nil ||
		status != "failed" || !strings.Contains(lastErr, "permission denied for table team") {
		t.Errorf("weir.jobs for bob_team: %q %q (%v), want failed with the 42501", status, lastErr, err)
	}
	wantDenied(t, bob, "ALTER MATERIALIZED VIEW bob_team RESUME", "permission denied for table team")
	// As in PostgreSQL, a REFRESH runs with the owner's privileges.
	wantDenied(t, bob, "REFRESH MATERIALIZED VIEW bob_team", "permission denied for table team")
	execAll(t, root, "GRANT SELECT ON team TO bob")
	execAll(t, bob, "ALTER MATERIALIZED VIEW bob_team RESUME")
	var n int
	if err := bob.QueryRow(ctx, "SELECT count(*) FROM bob_team").Scan(&n); err != nil || n != 2 {
		t.Errorf("bob_team after RESUME: %d rows (%v), want 2", n, err)
	}

	// A privilege that came through a role goes with the membership.
	execAll(t, root, "CREATE ROLE team_readers", "GRANT SELECT ON team TO team_readers", "GRANT team_readers TO bob",
		"REVOKE SELECT ON team FROM bob")
	execAll(t, bob, "CREATE MATERIALIZED VIEW bob_team2 AS SELECT * FROM team")
	execAll(t, root, "REVOKE team_readers FROM bob", "INSERT INTO team VALUES (3, 'later')", "FLUSH")
	if err := root.QueryRow(ctx, "SELECT status, last_error FROM weir.jobs WHERE name = 'bob_team2'").Scan(&status, &lastErr); err != nil ||
		status != "failed" || !strings.Contains(lastErr, "permission denied for table team") {
		t.Errorf("weir.jobs for bob_team2: %q %q (%v), want failed with the 42501", status, lastErr, err)
	}
	if err := bob.QueryRow(ctx, "SELECT count(*) FROM bob_team2").Scan(&n); err != nil || n != 2 {
		t.Errorf("bob_team2 after the REVOKE: %d rows (%v), want the 2 computed before it", n, err)
	}
}

// TestMaterializedViewOverAnotherOwnersView checks that a materialized
// view reading a view of another owner needs SELECT on the view alone,
// the view's owner on what the view reads, as PostgreSQL checks a
// view's relations against its owner: a REVOKE elsewhere must not fail
// it, and its job fails when the view's owner, or it on the view, loses
// SELECT.
func TestMaterializedViewOverAnotherOwnersView(t *testing.T) {
	s := startWeir(t, nil, "user=root sslmode=disable")
	ctx := context.Background()
	root := s.login(t, "root")
	execAll(t, root,
		"CREATE TABLE base (id int PRIMARY KEY, name text)",
		"CREATE TABLE other (id int PRIMARY KEY)",
		"INSERT INTO base VALUES (1, 'one')",
		"CREATE ROLE vd LOGIN", "CREATE ROLE vc LOGIN", "CREATE ROLE dummy",
		"GRANT CREATE ON SCHEMA public TO vd, vc",
		"GRANT SELECT ON base TO vd",
		"GRANT SELECT ON other TO dummy",
	)
	execAll(t, s.login(t, "vd"), "CREATE VIEW dv AS SELECT id, name FROM base", "GRANT SELECT ON dv TO vc")
	vc := s.login(t, "vc")
	execAll(t, vc, "CREATE MATERIALIZED VIEW mv AS SELECT id, name FROM dv")
	status := func() (string, string) {
		t.Helper()
		var st, lastErr string
		if err := root.QueryRow(ctx, "SELECT status, coalesce(last_error, '') FROM weir.jobs WHERE name = 'mv'").Scan(&st, &lastErr); err != nil {
			t.Fatal(err)
		}
		return st, lastErr
	}
	// An unrelated REVOKE checks every job's privileges again.
	execAll(t, root, "REVOKE SELECT ON other FROM dummy", "INSERT INTO base VALUES (2, 'two')", "FLUSH")
	if st, lastErr := status(); st == "failed" {
		t.Fatalf("mv failed after an unrelated REVOKE: %s", lastErr)
	}
	var n int
	if err := vc.QueryRow(ctx, "SELECT count(*) FROM mv").Scan(&n); err != nil || n != 2 {
		t.Fatalf("mv: %d rows (%v), want 2", n, err)
	}
	// The view's owner losing SELECT on the table fails the job.
	execAll(t, root, "REVOKE SELECT ON base FROM vd")
	if st, lastErr := status(); st != "failed" || !strings.Contains(lastErr, "permission denied for table base") {
		t.Fatalf("mv after its view's owner lost SELECT on base: %q %q, want failed with the 42501", st, lastErr)
	}
	execAll(t, root, "GRANT SELECT ON base TO vd")
	execAll(t, vc, "ALTER MATERIALIZED VIEW mv RESUME")
	// And so does its owner losing SELECT on the view.
	execAll(t, s.login(t, "vd"), "REVOKE SELECT ON dv FROM vc")
	if st, lastErr := status(); st != "failed" || !strings.Contains(lastErr, "permission denied for view dv") {
		t.Fatalf("mv after its owner lost SELECT on dv: %q %q, want failed with the 42501", st, lastErr)
	}
}
