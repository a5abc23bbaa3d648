package security

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// A constraint violation's detail shows a role that may not read the
// table only the columns its statement gave or set, by name, and a
// unique violation's no key, as PostgreSQL 15 does; a role that may
// read it sees the whole row.
func TestViolationDetailHidesUnreadable(t *testing.T) {
	s := startWeir(t, nil, "user=root sslmode=disable")
	ctx := context.Background()
	root, err := s.connect("user=root sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close(ctx)
	execAll(t, root,
		"CREATE TABLE nn (id int PRIMARY KEY, secret text NOT NULL, pub text)",
		"INSERT INTO nn VALUES (1, 's', 'a'), (2, 't', 'b')",
		"CREATE ROLE dave LOGIN",
		"GRANT UPDATE, INSERT ON nn TO dave",
	)
	dave, err := s.connect("user=dave sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	defer dave.Close(ctx)
	for _, c := range []struct{ q, code, detail string }{
		{"UPDATE nn SET secret = NULL", "23502", "Failing row contains (secret) = (null)."},
		{"UPDATE nn SET id = 2", "23505", ""},
		{"INSERT INTO nn VALUES (1, 'q', 'r')", "23505", ""},
		{"INSERT INTO nn VALUES (3, NULL, 'r')", "23502", "Failing row contains (id, secret, pub) = (3, null, r)."},
		{"INSERT INTO nn (id, pub) VALUES (3, 'r')", "23502", "Failing row contains (id, pub) = (3, r)."},
		{"INSERT INTO nn VALUES (3)", "23502", "Failing row contains (id) = (3)."},
	} {
		_, err := dave.Exec(ctx, c.q)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != c.code || pe.Detail != c.detail {
			t.Errorf("%s: got %v (detail %q), want %s with detail %q", c.q, err, detailOf(err), c.code, c.detail)
		}
	}
	execAll(t, root, "GRANT SELECT ON nn TO dave")
	for _, c := range []struct{ q, detail string }{
		{"UPDATE nn SET secret = NULL WHERE id = 1", "Failing row contains (1, null, a)."},
		{"INSERT INTO nn VALUES (2, 'q', 'r')", "Key (id)=(2) already exists."},
	} {
		if _, err := dave.Exec(ctx, c.q); detailOf(err) != c.detail {
			t.Errorf("%s with SELECT: detail %q (%v), want %q", c.q, detailOf(err), err, c.detail)
		}
	}
}

func detailOf(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Detail
	}
	return ""
}
