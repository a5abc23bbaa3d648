package dialect

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// pgErr runs text and returns the error it fails with (nil if it runs).
func pgErr(ctx context.Context, c *pgx.Conn, text string) *pgconn.PgError {
	_, err := c.PgConn().Exec(ctx, text).ReadAll()
	if err == nil {
		return nil
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return &pgconn.PgError{Code: "conn", Message: err.Error()}
	}
	return pe
}

// TestErrorFields checks that integrity errors carry the fields
// PostgreSQL fills (schema, table, column, constraint, detail), which
// clients read to tell which key or column a write broke.
func TestErrorFields(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := setup(t, ctx)
	for _, st := range []string{
		"CREATE TABLE ef (id int PRIMARY KEY, v int NOT NULL, w text)",
		"CREATE TABLE ef2 (a int, b text, PRIMARY KEY (b, a))",
		"INSERT INTO ef VALUES (1, 1, 'x'), (2, 2, 'y')",
		"INSERT INTO ef2 VALUES (1, 'k')",
	} {
		for _, c := range []*pgx.Conn{s.weir, s.pg} {
			if pe := pgErr(ctx, c, st); pe != nil {
				t.Fatalf("%s: %v", st, pe)
			}
		}
	}
	for _, st := range []string{
		"INSERT INTO ef VALUES (1, 5, 'z')",
		"INSERT INTO ef VALUES (3, NULL, 'z')",
		"UPDATE ef SET v = NULL WHERE id = 2",
		"UPDATE ef SET id = 1 WHERE id = 2",
		"INSERT INTO ef2 VALUES (1, 'k')",
		"INSERT INTO ef2 VALUES (NULL, 'k')",
	} {
		w, p := pgErr(ctx, s.weir, st), pgErr(ctx, s.pg, st)
		if p == nil {
			t.Fatalf("%s: PostgreSQL accepted it", st)
		}
		if w == nil {
			t.Errorf("%s: weir accepted it, PostgreSQL failed with %s %s", st, p.Code, p.Message)
			continue
		}
		type fields struct{ Code, Message, Detail, Schema, Table, Column, Constraint string }
		wf := fields{w.Code, w.Message, w.Detail, w.SchemaName, w.TableName, w.ColumnName, w.ConstraintName}
		pf := fields{p.Code, p.Message, p.Detail, p.SchemaName, p.TableName, p.ColumnName, p.ConstraintName}
		if wf != pf {
			t.Errorf("%s:\n weir     %+v\n postgres %+v", st, wf, pf)
		}
	}
}
