package engine

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/wire"
)

// TestDeferredForeignKeyFailedCommitLeavesViews: a transaction block
// whose deferred foreign key check fails at COMMIT keeps nothing: not
// its rows, not the rows its cascades changed, and the materialized
// views over those tables never see them, neither while the block is
// open nor after; the same block with the key in place commits, and
// the views follow.
func TestDeferredForeignKeyFailedCommitLeavesViews(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s, other := session(t, e), session(t, e)
	mustRun(t, s, "CREATE TABLE p (id int PRIMARY KEY)")
	mustRun(t, s, "CREATE TABLE c (id int PRIMARY KEY, pid int REFERENCES p DEFERRABLE INITIALLY DEFERRED, v int)")
	mustRun(t, s, "CREATE TABLE g (id int PRIMARY KEY, pid int REFERENCES p ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW cs AS SELECT count(*) AS n, sum(v) AS s FROM c")
	mustRun(t, s, "CREATE MATERIALIZED VIEW pc AS SELECT p.id, count(c.id) AS n FROM p LEFT JOIN c ON c.pid = p.id GROUP BY p.id")
	mustRun(t, s, "CREATE MATERIALIZED VIEW gs AS SELECT count(*) AS n FROM g")
	mustRun(t, s, "INSERT INTO p VALUES (1), (2)")
	mustRun(t, s, "INSERT INTO c VALUES (1, 1, 10)")
	mustRun(t, s, "INSERT INTO g VALUES (1, 2), (2, 2)")
	views := func(s wire.Session) {
		t.Helper()
		wantRows(t, s, "SELECT * FROM cs", "1 10")
		wantRows(t, s, "SELECT * FROM pc ORDER BY id", "1 1", "2 0")
		wantRows(t, s, "SELECT * FROM gs", "2")
		wantRows(t, s, "SELECT id FROM p ORDER BY id", "1", "2")
	}
	views(s)

	mustRun(t, s, "BEGIN")
	mustRun(t, s, "INSERT INTO c VALUES (2, 9, 100)")
	mustRun(t, s, "INSERT INTO p VALUES (3)")
	mustRun(t, s, "UPDATE c SET v = 11 WHERE id = 1")
	mustRun(t, s, "DELETE FROM p WHERE id = 2")
	// The cascade ran at the statement's end, in the block.
	wantRows(t, s, "SELECT count(*) FROM g", "0")
	wantRows(t, s, "SELECT count(*), sum(v) FROM c", "2 111")
	views(other)
	wantCode(t, s, "COMMIT", pgerr.ForeignKeyViolation, `insert or update on table "c" violates foreign key constraint "c_pid_fkey"`)
	views(s)
	views(other)
	wantRows(t, s, "SELECT * FROM c", "1 1 10")
	wantRows(t, s, "SELECT count(*) FROM g", "2")
	// The block is over: the session is back in autocommit.
	mustRun(t, s, "INSERT INTO p VALUES (4)")
	mustRun(t, s, "DELETE FROM p WHERE id = 4")

	// A removed key still referenced fails COMMIT the same way.
	mustRun(t, s, "BEGIN")
	mustRun(t, s, "INSERT INTO p VALUES (3)")
	mustRun(t, s, "DELETE FROM p WHERE id = 1")
	wantCode(t, s, "COMMIT", pgerr.ForeignKeyViolation, `update or delete on table "p" violates foreign key constraint "c_pid_fkey" on table "c"`)
	views(other)

	// With the key in place by COMMIT, everything lands at once.
	mustRun(t, s, "BEGIN")
	mustRun(t, s, "INSERT INTO c VALUES (2, 9, 100)")
	mustRun(t, s, "DELETE FROM p WHERE id = 2")
	mustRun(t, s, "INSERT INTO p VALUES (9)")
	mustRun(t, s, "COMMIT")
	wantRows(t, other, "SELECT * FROM cs", "2 110")
	wantRows(t, other, "SELECT * FROM pc ORDER BY id", "1 1", "9 1")
	wantRows(t, other, "SELECT * FROM gs", "0")
}

// TestSetConstraintsImmediateFailsBlock: SET CONSTRAINTS ... IMMEDIATE
// runs the checks put off so far; its violation fails the block, whose
// COMMIT then rolls it back.
func TestSetConstraintsImmediateFailsBlock(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE p (id int PRIMARY KEY)")
	mustRun(t, s, "CREATE TABLE c (id int PRIMARY KEY, pid int REFERENCES p DEFERRABLE INITIALLY DEFERRED)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW n AS SELECT count(*) AS n FROM c")
	mustRun(t, s, "BEGIN")
	mustRun(t, s, "INSERT INTO c VALUES (1, 5)")
	wantCode(t, s, "SET CONSTRAINTS c_pid_fkey IMMEDIATE", pgerr.ForeignKeyViolation, `insert or update on table "c" violates foreign key constraint "c_pid_fkey"`)
	wantCode(t, s, "SELECT 1", pgerr.InFailedSQLTransaction, "current transaction is aborted")
	mustRun(t, s, "COMMIT")
	wantRows(t, s, "SELECT * FROM n", "0")
	wantRows(t, s, "SELECT count(*) FROM c", "0")

	// Once immediate, a statement checks at its end.
	mustRun(t, s, "BEGIN")
	mustRun(t, s, "SET CONSTRAINTS ALL IMMEDIATE")
	wantCode(t, s, "INSERT INTO c VALUES (1, 5)", pgerr.ForeignKeyViolation, `violates foreign key constraint "c_pid_fkey"`)
	mustRun(t, s, "ROLLBACK")
}

// TestDeferredForeignKeyConcurrentRemoval: a deferred reference is
// checked at COMMIT against what other sessions committed meanwhile: a
// key removed since fails it, though it was there when the row was
// written.
func TestDeferredForeignKeyConcurrentRemoval(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	a, b := session(t, e), session(t, e)
	mustRun(t, a, "CREATE TABLE p (id int PRIMARY KEY)")
	mustRun(t, a, "CREATE TABLE c (id int PRIMARY KEY, pid int REFERENCES p DEFERRABLE INITIALLY DEFERRED)")
	mustRun(t, a, "INSERT INTO p VALUES (1), (2)")
	mustRun(t, a, "BEGIN")
	mustRun(t, a, "INSERT INTO c VALUES (1, 1)")
	mustRun(t, b, "DELETE FROM p WHERE id = 1")
	wantCode(t, a, "COMMIT", pgerr.ForeignKeyViolation, `insert or update on table "c" violates foreign key constraint "c_pid_fkey"`)
	wantRows(t, b, "SELECT count(*) FROM c", "0")

	// The block removes a key another session then references.
	mustRun(t, a, "BEGIN")
	mustRun(t, a, "DELETE FROM p WHERE id = 2")
	mustRun(t, b, "INSERT INTO c VALUES (2, 2)")
	wantCode(t, a, "COMMIT", pgerr.ForeignKeyViolation, `update or delete on table "p" violates foreign key constraint "c_pid_fkey" on table "c"`)
	wantRows(t, b, "SELECT id FROM p", "2")
}

// TestDeferrableForeignKeysSurviveRestart: DEFERRABLE and INITIALLY
// DEFERRED, as created and as ALTER CONSTRAINT changed them, are kept in
// the catalog and acted on after a restart.
func TestDeferrableForeignKeysSurviveRestart(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE p (id int PRIMARY KEY)")
	mustRun(t, s, "CREATE TABLE c (id int PRIMARY KEY, pid int REFERENCES p INITIALLY DEFERRED)")
	mustRun(t, s, "CREATE TABLE d (id int PRIMARY KEY, pid int, CONSTRAINT d_p FOREIGN KEY (pid) REFERENCES p DEFERRABLE)")
	mustRun(t, s, "CREATE TABLE n (id int PRIMARY KEY, pid int REFERENCES p DEFERRABLE INITIALLY DEFERRED)")
	mustRun(t, s, "ALTER TABLE n ALTER CONSTRAINT n_pid_fkey NOT DEFERRABLE")
	checkAcrossRestart(t, fs, e, s, func(s wire.Session) {
		t.Helper()
		wantRows(t, s, "SELECT conname, condeferrable, condeferred, pg_get_constraintdef(oid) FROM pg_constraint WHERE contype = 'f' ORDER BY 1",
			"c_pid_fkey t t FOREIGN KEY (pid) REFERENCES p(id) DEFERRABLE INITIALLY DEFERRED",
			"d_p t f FOREIGN KEY (pid) REFERENCES p(id) DEFERRABLE",
			"n_pid_fkey f f FOREIGN KEY (pid) REFERENCES p(id)")
		mustRun(t, s, "BEGIN")
		mustRun(t, s, "INSERT INTO c VALUES (1, 7)")
		wantCode(t, s, "INSERT INTO d VALUES (1, 7)", pgerr.ForeignKeyViolation, `violates foreign key constraint "d_p"`)
		mustRun(t, s, "ROLLBACK")
		mustRun(t, s, "BEGIN")
		mustRun(t, s, "SET CONSTRAINTS d_p DEFERRED")
		mustRun(t, s, "INSERT INTO c VALUES (1, 7)")
		mustRun(t, s, "INSERT INTO d VALUES (1, 7)")
		wantCode(t, s, "SET CONSTRAINTS n_pid_fkey DEFERRED", pgerr.WrongObjectType, `constraint "n_pid_fkey" is not deferrable`)
		mustRun(t, s, "ROLLBACK")
		mustRun(t, s, "BEGIN")
		mustRun(t, s, "INSERT INTO c VALUES (1, 7)")
		wantCode(t, s, "COMMIT", pgerr.ForeignKeyViolation, `insert or update on table "c" violates foreign key constraint "c_pid_fkey"`)
		wantRows(t, s, "SELECT count(*) FROM c", "0")
	})
}

// TestTruncatePendingChecks: TRUNCATE of a table on which deferred
// foreign key checks wait in the block fails with PostgreSQL's 55006,
// also when a cascade reaches it; a table whose changes queued nothing
// (an insert into the referenced table), checks already run by SET
// CONSTRAINTS ... IMMEDIATE and ROLLBACK TO SAVEPOINT leave it free.
func TestTruncatePendingChecks(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE tp (id int PRIMARY KEY)")
	mustRun(t, s, "CREATE TABLE tc (id int REFERENCES tp DEFERRABLE INITIALLY DEFERRED)")
	busy := func(q, table string) {
		t.Helper()
		wantCode(t, s, q, pgerr.ObjectInUse, `cannot TRUNCATE "`+table+`" because it has pending trigger events`)
		mustRun(t, s, "ROLLBACK")
	}
	for _, q := range []string{"TRUNCATE tc", "TRUNCATE tp, tc", "TRUNCATE tp CASCADE"} {
		mustRun(t, s, "BEGIN")
		mustRun(t, s, "INSERT INTO tc VALUES (1)")
		busy(q, "tc")
	}
	// An insert into tp queues no check; deleting a key of tp does.
	mustRun(t, s, "BEGIN")
	mustRun(t, s, "INSERT INTO tp VALUES (1)")
	mustRun(t, s, "TRUNCATE tp CASCADE")
	mustRun(t, s, "ROLLBACK")
	mustRun(t, s, "INSERT INTO tp VALUES (1)")
	mustRun(t, s, "BEGIN")
	mustRun(t, s, "DELETE FROM tp")
	busy("TRUNCATE tp CASCADE", "tp")
	// The check stays queued though the row is gone again.
	mustRun(t, s, "BEGIN")
	mustRun(t, s, "INSERT INTO tc VALUES (1)")
	mustRun(t, s, "DELETE FROM tc")
	busy("TRUNCATE tc", "tc")
	mustRun(t, s, "BEGIN")
	mustRun(t, s, "INSERT INTO tc VALUES (1)")
	mustRun(t, s, "SET CONSTRAINTS ALL IMMEDIATE")
	mustRun(t, s, "TRUNCATE tc")
	mustRun(t, s, "COMMIT")
	mustRun(t, s, "BEGIN")
	mustRun(t, s, "SAVEPOINT a")
	mustRun(t, s, "INSERT INTO tc VALUES (1)")
	mustRun(t, s, "ROLLBACK TO SAVEPOINT a")
	mustRun(t, s, "TRUNCATE tc")
	mustRun(t, s, "INSERT INTO tc VALUES (1)")
	mustRun(t, s, "COMMIT")
	mustRun(t, s, "TRUNCATE tc")
	wantRows(t, s, "SELECT count(*) FROM tc", "0")
	// Checks run at once queue nothing, SET CONSTRAINTS or not.
	mustRun(t, s, "CREATE TABLE tn (id int REFERENCES tp, d int REFERENCES tp DEFERRABLE)")
	mustRun(t, s, "BEGIN")
	mustRun(t, s, "INSERT INTO tn VALUES (1, 1)")
	mustRun(t, s, "SET CONSTRAINTS tn_d_fkey IMMEDIATE")
	mustRun(t, s, "TRUNCATE tn")
	mustRun(t, s, "COMMIT")
}
