package security

import (
	"context"
	"testing"
)

// A role with UPDATE but not SELECT cannot read the table through an
// UPDATE's SET expressions or an INSERT ... ON CONFLICT: PostgreSQL
// requires SELECT for the columns those read (42501), so neither is a
// yes/no oracle for the values.
func TestWritesThatReadNeedSelect(t *testing.T) {
	s := startWeir(t, nil, "user=root sslmode=disable")
	ctx := context.Background()
	root, err := s.connect("user=root sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close(ctx)
	execAll(t, root,
		"CREATE TABLE upd_only (id int PRIMARY KEY, val text)",
		"INSERT INTO upd_only VALUES (1, 'abcdef')",
		"CREATE TABLE ins_only (id int PRIMARY KEY, val text)",
		"INSERT INTO ins_only VALUES (1, 'secret')",
		"CREATE ROLE carol LOGIN",
		"GRANT UPDATE ON upd_only TO carol",
		"GRANT INSERT, UPDATE ON ins_only TO carol",
	)
	carol, err := s.connect("user=carol sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	defer carol.Close(ctx)
	for _, q := range []string{
		"UPDATE upd_only SET id = 1/(CASE WHEN val LIKE 'abc%' THEN 0 ELSE 1 END)",
		"UPDATE upd_only SET val = val",
		"UPDATE upd_only SET val = upd_only.val || 'x'",
		"UPDATE upd_only SET val = (SELECT upd_only.val)",
		"UPDATE upd_only SET id = (SELECT 1 WHERE EXISTS (SELECT 1 WHERE upd_only.val = 'abcdef'))",
		"EXPLAIN UPDATE upd_only SET val = val",
		"WITH c AS (SELECT 1 AS one) UPDATE upd_only SET val = val",
		"INSERT INTO ins_only VALUES (1, 'x') ON CONFLICT (id) DO UPDATE SET val = ins_only.val || 'x'",
		"INSERT INTO ins_only VALUES (1, 'x') ON CONFLICT (id) DO UPDATE SET val = excluded.val",
		"INSERT INTO ins_only VALUES (1, 'x') ON CONFLICT (id) DO NOTHING",
		"INSERT INTO ins_only VALUES (1, 'x') ON CONFLICT ON CONSTRAINT ins_only_pkey DO UPDATE SET val = 'q'",
	} {
		wantDenied(t, carol, q, "permission denied for table")
	}
	// Writes that read nothing of the table still work.
	execAll(t, carol,
		"UPDATE upd_only SET val = 'x'",
		"UPDATE upd_only SET val = DEFAULT",
		"INSERT INTO ins_only VALUES (2, 'x') ON CONFLICT DO NOTHING",
		"INSERT INTO ins_only VALUES (1, 'x') ON CONFLICT DO NOTHING",
	)
	var v string
	if err := root.QueryRow(ctx, "SELECT val FROM ins_only WHERE id = 1").Scan(&v); err != nil || v != "secret" {
		t.Errorf("ins_only row 1: %q (%v), want it unchanged", v, err)
	}
	execAll(t, root, "GRANT SELECT ON upd_only, ins_only TO carol")
	execAll(t, carol,
		"UPDATE upd_only SET val = val || 'y'",
		"INSERT INTO ins_only VALUES (1, 'x') ON CONFLICT (id) DO UPDATE SET val = ins_only.val || 'x'",
	)
}
