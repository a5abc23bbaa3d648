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
	root, err := s.connect("user=root sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close(ctx)
	execAll(t, root,
		"CREATE TABLE team (id int PRIMARY KEY, name text)",
		"INSERT INTO team VALUES (1, 'before')",
		"CREATE ROLE bob LOGIN",
		"GRANT CREATE ON SCHEMA public TO bob",
		"GRANT SELECT ON team TO bob",
	)
	bob, err := s.connect("user=bob sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	defer bob.Close(ctx)
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
