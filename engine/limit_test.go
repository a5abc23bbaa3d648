package engine

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/pgerr"
)

// TestLimitRefusesColumns: a LIMIT, OFFSET or FETCH FIRST count naming a
// column of its query is PostgreSQL's 42P10 at the column, while a name
// no scope has stays 42703 and an outer query's column is allowed.
func TestLimitRefusesColumns(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE lt (a int, b int)")
	mustRun(t, s, "INSERT INTO lt VALUES (1, 2), (2, 2)")
	for _, c := range []struct {
		q    string
		code pgerr.Code
		msg  string
		pos  int
	}{
		{"SELECT a FROM lt LIMIT a", pgerr.InvalidColumnReference, "argument of LIMIT must not contain variables", 24},
		{"SELECT a FROM lt OFFSET b", pgerr.InvalidColumnReference, "argument of OFFSET must not contain variables", 25},
		{"SELECT a FROM lt FETCH FIRST a ROWS ONLY", pgerr.InvalidColumnReference, "argument of LIMIT must not contain variables", 30},
		{"SELECT a FROM lt x LIMIT x.a", pgerr.InvalidColumnReference, "argument of LIMIT must not contain variables", 26},
		{"SELECT a FROM lt GROUP BY a LIMIT a", pgerr.InvalidColumnReference, "argument of LIMIT must not contain variables", 35},
		{"SELECT a FROM lt LIMIT (SELECT a)", pgerr.InvalidColumnReference, "argument of LIMIT must not contain variables", 0},
		{"SELECT 1 FETCH FIRST x ROWS ONLY", pgerr.UndefinedColumn, `column "x" does not exist`, 22},
		{"SELECT a FROM lt LIMIT nosuch", pgerr.UndefinedColumn, `column "nosuch" does not exist`, 24},
	} {
		_, err := run(t, s, c.q)
		if err == nil {
			t.Errorf("%s: no error, want %s %q", c.q, c.code, c.msg)
			continue
		}
		if pe := pgerr.As(err); pe.Code != c.code || pe.Message != c.msg || c.pos > 0 && pe.Position != c.pos {
			t.Errorf("%s: got %v (position %d), want %s %q at %d", c.q, err, pe.Position, c.code, c.msg, c.pos)
		}
	}
	wantRows(t, s, "SELECT (SELECT x.a FROM lt LIMIT x.a - 1) FROM lt x ORDER BY 1", "2", "NULL")
}
