package engine

import (
	"errors"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/pgerr"
)

// TestCommitAfterConcurrentAlter: a transaction block whose table was
// altered while it was open fails at COMMIT with 40001, so that a NOT
// NULL set, or a NOT NULL column added, in between never ends up holding
// the block's NULL.
func TestCommitAfterConcurrentAlter(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	a, b := session(t, e), session(t, e)
	mustRun(t, a, "CREATE TABLE cc (k int PRIMARY KEY, v int)")
	mustRun(t, a, "INSERT INTO cc VALUES (1, 1)")
	mustRun(t, a, "CREATE TABLE cz (k int PRIMARY KEY)")
	for _, c := range []struct{ write, alter string }{
		{"INSERT INTO cc VALUES (2, NULL)", "ALTER TABLE cc ALTER COLUMN v SET NOT NULL"},
		{"INSERT INTO cz VALUES (1)", "ALTER TABLE cz ADD COLUMN z int NOT NULL"},
	} {
		mustRun(t, a, "BEGIN")
		mustRun(t, a, c.write)
		mustRun(t, b, c.alter)
		_, err := run(t, a, "COMMIT")
		var pe *pgerr.Error
		if !errors.As(err, &pe) || pe.Code != pgerr.SerializationFailure {
			t.Fatalf("%s, then %s in another session: COMMIT gave %v, want 40001", c.write, c.alter, err)
		}
		mustRun(t, a, "ROLLBACK")
	}
	wantRows(t, a, "SELECT k, v FROM cc ORDER BY k", "1 1")
	wantRows(t, a, "SELECT count(*) FROM cz", "0")
	// Without an ALTER in between the block commits.
	mustRun(t, a, "BEGIN")
	mustRun(t, a, "INSERT INTO cc VALUES (3, 3)")
	mustRun(t, a, "COMMIT")
	wantRows(t, a, "SELECT k, v FROM cc ORDER BY k", "1 1", "3 3")
}
