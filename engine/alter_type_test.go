package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql"
)

// TestAlterColumnType: TYPE rewrites every row with the assignment cast
// or the USING expression, and the rows keep their new type across a
// restart; a failing conversion changes nothing.
func TestAlterColumnType(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (a int PRIMARY KEY, b text, c int DEFAULT 5)")
	mustRun(t, s, "INSERT INTO t VALUES (1, '10', 1), (2, '20', NULL), (3, 'x', 3)")
	wantCode(t, s, "ALTER TABLE t ALTER COLUMN b TYPE int", pgerr.DatatypeMismatch, `column "b" cannot be cast automatically to type integer`)
	wantCode(t, s, "ALTER TABLE t ALTER COLUMN b TYPE int USING b::int", pgerr.InvalidTextRepresentation, `invalid input syntax for type integer: "x"`)
	wantRows(t, s, "SELECT a, b FROM t ORDER BY a", "1 10", "2 20", "3 x")
	mustRun(t, s, "UPDATE t SET b = '30' WHERE a = 3")
	mustRun(t, s, "ALTER TABLE t ALTER COLUMN b TYPE int USING b::int * 2")
	mustRun(t, s, "ALTER TABLE t ALTER COLUMN c SET DATA TYPE text")
	wantRows(t, s, "SELECT a, b + 1, c || '!' FROM t ORDER BY a", "1 21 1!", "2 41 NULL", "3 61 3!")
	mustRun(t, s, "INSERT INTO t (a, b) VALUES (4, 80)")
	wantRows(t, s, "SELECT c FROM t WHERE a = 4", "5")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openTest(t, fs)
	defer e.Close()
	s = session(t, e)
	wantRows(t, s, "SELECT a, b, c FROM t ORDER BY a", "1 20 1", "2 40 NULL", "3 60 3", "4 80 5")
	wantRows(t, s, "SELECT pg_typeof(b), pg_typeof(c) FROM t WHERE a = 1", "integer text")
}

// TestAlterKeyType: a primary key column changes type with its rows
// keyed anew, in the new type's order; keys that meet after the cast are
// 23505 with nothing changed.
func TestAlterKeyType(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE k (a text PRIMARY KEY, v int)")
	mustRun(t, s, "INSERT INTO k VALUES ('10', 1), ('9', 2), ('010', 3)")
	wantCode(t, s, "ALTER TABLE k ALTER COLUMN a TYPE int USING a::int", pgerr.UniqueViolation, `could not create unique index "k_pkey"`)
	wantRows(t, s, "SELECT a, v FROM k ORDER BY a", "010 3", "10 1", "9 2")
	mustRun(t, s, "DELETE FROM k WHERE a = '010'")
	mustRun(t, s, "ALTER TABLE k ALTER COLUMN a TYPE int USING a::int")
	wantRows(t, s, "SELECT a, v FROM k", "9 2", "10 1")
	wantRows(t, s, "SELECT v FROM k WHERE a = 10", "1")
	wantCode(t, s, "INSERT INTO k VALUES (9, 5)", pgerr.UniqueViolation, "duplicate key")
}

// TestAlterTypeDependents: a column a view or materialized view reads
// keeps its type (0A000); an index on it is built again; a materialized
// view reading other columns goes on.
func TestAlterTypeDependents(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (a int PRIMARY KEY, b int, c int)")
	mustRun(t, s, "INSERT INTO t VALUES (1, 10, 100), (2, 20, 200)")
	mustRun(t, s, "CREATE VIEW v AS SELECT a, b FROM t")
	mustRun(t, s, "CREATE MATERIALIZED VIEW mc AS SELECT sum(c) AS s FROM t")
	mustRun(t, s, "CREATE INDEX t_b_idx ON t (b)")
	_, err := run(t, s, "ALTER TABLE t ALTER COLUMN b TYPE bigint")
	if pe := pgerr.As(err); pe == nil || pe.Code != pgerr.FeatureNotSupported || pe.Detail != `rule _RETURN on view v depends on column "b"` {
		t.Fatalf("TYPE of a column a view reads: %v", err)
	}
	_, err = run(t, s, "ALTER TABLE t ALTER COLUMN c TYPE bigint")
	if pe := pgerr.As(err); pe == nil || pe.Detail != `rule _RETURN on materialized view mc depends on column "c"` {
		t.Fatalf("TYPE of a column a materialized view reads: %v", err)
	}
	mustRun(t, s, "DROP VIEW v")
	idx, _ := e.cat.Lookup("", "t_b_idx")
	wantCode(t, s, "ALTER TABLE t ALTER COLUMN b TYPE int2 USING b * 10000", pgerr.NumericValueOutOfRange, "out of range")
	if now, ok := e.cat.Lookup("", "t_b_idx"); !ok || now.ID != idx.ID {
		t.Fatal("a failed conversion touched the index on b")
	}
	mustRun(t, s, "ALTER TABLE t ALTER COLUMN b TYPE text")
	if now, ok := e.cat.Lookup("", "t_b_idx"); !ok || now.ID == idx.ID {
		t.Fatal("the index on b was not built again")
	}
	mustRun(t, s, "INSERT INTO t VALUES (3, 'x', 300)")
	wantRows(t, s, "SELECT a FROM t WHERE b = '20'", "2")
	wantRows(t, s, "SELECT a FROM t WHERE b = 'x'", "3")
	wantRows(t, s, "SELECT s FROM mc", "600")
}

// TestAlterTypeKeepsUnique: a unique index and a UNIQUE constraint on a
// converted column are built unique again, and enforce it on the new
// values; the column loses a COLLATE its old type had.
func TestAlterTypeKeepsUnique(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (a int PRIMARY KEY, b text COLLATE \"C\" UNIQUE, c int)")
	mustRun(t, s, "CREATE UNIQUE INDEX t_c ON t (c) NULLS NOT DISTINCT")
	mustRun(t, s, "INSERT INTO t VALUES (1, '10', 1), (2, '20', NULL)")
	mustRun(t, s, "ALTER TABLE t ALTER COLUMN b TYPE int USING b::int, ALTER COLUMN c TYPE bigint")
	wantCode(t, s, "INSERT INTO t VALUES (3, 10, 3)", pgerr.UniqueViolation, `duplicate key value violates unique constraint "t_b_key"`)
	wantCode(t, s, "INSERT INTO t VALUES (3, 30, NULL)", pgerr.UniqueViolation, `duplicate key value violates unique constraint "t_c"`)
	mustRun(t, s, "INSERT INTO t VALUES (3, 30, 3)")
	wantRows(t, s, "SELECT conname, contype FROM pg_constraint WHERE conrelid = 't'::regclass ORDER BY conname", "t_b_key u", "t_pkey p")
	wantRows(t, s, "SELECT indexrelid::regclass, indisunique, indnullsnotdistinct FROM pg_index WHERE indrelid = 't'::regclass AND NOT indisprimary ORDER BY 1::text",
		"t_b_key t f", "t_c t t")
	wantRows(t, s, "SELECT attname, attcollation FROM pg_attribute WHERE attrelid = 't'::regclass AND attnum = 2", "b 0")
}

// TestAlterSeveralActions: the actions of one statement apply in
// PostgreSQL's passes, and all or none.
func TestAlterSeveralActions(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (a int PRIMARY KEY, b text, c int)")
	mustRun(t, s, "INSERT INTO t VALUES (1, 'x', NULL)")
	wantCode(t, s, "ALTER TABLE t ADD COLUMN x int, DROP COLUMN x", pgerr.UndefinedColumn, `column "x" of relation "t" does not exist`)
	wantCode(t, s, "ALTER TABLE t ADD COLUMN y int DEFAULT 1, DROP COLUMN b, ALTER COLUMN c SET NOT NULL", pgerr.NotNullViolation, `column "c" of relation "t" contains null values`)
	wantRows(t, s, "SELECT * FROM t", "1 x NULL")
	mustRun(t, s, "ALTER TABLE t ADD COLUMN y int DEFAULT 1, DROP COLUMN b, ALTER COLUMN y SET NOT NULL, ALTER COLUMN c SET DEFAULT 7")
	mustRun(t, s, "INSERT INTO t (a) VALUES (2)")
	wantRows(t, s, "SELECT * FROM t ORDER BY a", "1 NULL 1", "2 7 1")
	mustRun(t, s, "ALTER TABLE t ALTER COLUMN c TYPE text, ADD COLUMN z text DEFAULT 'z'")
	wantRows(t, s, "SELECT c || z, y FROM t ORDER BY a", "NULL 1", "7z 1")
	// The DEFAULT keeps its own type (7 is an integer) through text.
	mustRun(t, s, "ALTER TABLE t ALTER COLUMN c TYPE int USING c::int")
	mustRun(t, s, "INSERT INTO t (a) VALUES (3)")
	wantRows(t, s, "SELECT c, pg_typeof(c) FROM t WHERE a = 3", "7 integer")
	mustRun(t, s, "ALTER TABLE t ALTER COLUMN z SET DEFAULT 'q'")
	wantCode(t, s, "ALTER TABLE t ALTER COLUMN z TYPE int USING 1", pgerr.DatatypeMismatch, `default for column "z" cannot be cast automatically to type integer`)
	// DROP DEFAULT runs in the pass before TYPE's.
	wantCode(t, s, "ALTER TABLE t ALTER COLUMN z TYPE int USING NULL, ALTER COLUMN z DROP DEFAULT, ALTER COLUMN z SET NOT NULL", pgerr.NotNullViolation, "contains null values")
	mustRun(t, s, "ALTER TABLE t ALTER COLUMN z TYPE int USING length(z), ALTER COLUMN z DROP DEFAULT, ALTER COLUMN z SET NOT NULL")
	wantRows(t, s, "SELECT a, z FROM t ORDER BY a", "1 1", "2 1", "3 1")
}

// TestAlterTypeBigTable: a table larger than a few of the rewrite's
// batches converts whole, and stays converted after a crash.
func TestAlterTypeBigTable(t *testing.T) {
	fs := vfs.NewCrashableMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE big (k int PRIMARY KEY, v int)")
	mustRun(t, s, "INSERT INTO big SELECT g, g * 2 FROM generate_series(1, 20000) g")
	mustRun(t, s, "ALTER TABLE big ALTER COLUMN k TYPE bigint, ALTER COLUMN v TYPE text USING (v + 1)::text")
	wantRows(t, s, "SELECT count(*), sum(k), min(v), max(v) FROM big", "20000 200010000 10001 9999")
	if got := mustRun(t, s, "SELECT v FROM big WHERE k = 12345"); strings.Join(got, "") != "24691" {
		t.Fatalf("k = 12345: %q", got)
	}
	crashed := fs.CrashClone(vfs.CrashCloneCfg{})
	e.Close()
	e = openTest(t, crashed)
	defer e.Close()
	s = session(t, e)
	wantRows(t, s, "SELECT count(*), sum(k), min(v), max(v), pg_typeof(min(v)) FROM big", "20000 200010000 10001 9999 text")
	if n, err := e.db.SpillBytes(); err != nil || n > 1<<20 {
		t.Fatalf("spill areas left after the rewrite: %d bytes, %v", n, err)
	}
}

// TestAlterSerialType: a serial key widens to bigint (the common
// migration) and keeps drawing from its sequence.
func TestAlterSerialType(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE s (id serial PRIMARY KEY, v text)")
	mustRun(t, s, "INSERT INTO s (v) VALUES ('a'), ('b')")
	mustRun(t, s, "ALTER TABLE s ALTER COLUMN id TYPE bigint")
	mustRun(t, s, "INSERT INTO s (v) VALUES ('c')")
	wantRows(t, s, "SELECT id, v, pg_typeof(id) FROM s ORDER BY id", "1 a bigint", "2 b bigint", "3 c bigint")
	mustRun(t, s, "CREATE TABLE g (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY)")
	wantCode(t, s, "ALTER TABLE g ALTER COLUMN id TYPE bigint", pgerr.FeatureNotSupported, "identity column")
}

// TestStaleTypesRefused: a statement bound before ALTER COLUMN ... TYPE
// and run after it (a race the plan cache cannot see) is refused with
// 40001 rather than reading or writing rows in the other encoding.
func TestStaleTypesRefused(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (a int PRIMARY KEY, b int)")
	mustRun(t, s, "INSERT INTO t VALUES (1, 10)")
	sess := s.(*Session)
	bind := func(text string) *queryPrepared {
		t.Helper()
		st, err := sql.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		q, err := sess.prepareQuery(context.Background(), st.(*sql.Query), nil)
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	sel, ins := bind("SELECT b FROM t"), bind("INSERT INTO t VALUES (2, 20)")
	other := bind("SELECT a FROM t WHERE a = 1")
	mustRun(t, s, "ALTER TABLE t ALTER COLUMN b TYPE text")
	for _, q := range []*queryPrepared{sel, ins} {
		if _, err := q.Execute(context.Background(), nil, nil); pgerr.CodeOf(err) != pgerr.SerializationFailure {
			t.Fatalf("a plan bound before the change ran: %v", err)
		}
	}
	// So is one reading only another column: a stored row is decoded
	// column after column, through b's encoding.
	if _, err := other.Execute(context.Background(), nil, nil); pgerr.CodeOf(err) != pgerr.SerializationFailure {
		t.Fatalf("a plan bound before the change ran: %v", err)
	}
	wantRows(t, s, "SELECT a, b FROM t", "1 10")
}

// TestAlterTypeVolatileUsing: a USING expression is evaluated per row,
// volatile functions included (nextval draws one value per row).
func TestAlterTypeVolatileUsing(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (a int PRIMARY KEY, b text)")
	mustRun(t, s, "INSERT INTO t VALUES (1, 'x'), (2, 'y'), (3, 'z')")
	mustRun(t, s, "CREATE SEQUENCE sq")
	mustRun(t, s, "ALTER TABLE t ALTER COLUMN b TYPE bigint USING nextval('sq') * 10")
	wantRows(t, s, "SELECT count(DISTINCT b), min(b), max(b) FROM t", "3 10 30")
	wantRows(t, s, "SELECT nextval('sq')", "4")
}

// TestAlterTypeUniqueDuplicates: a TYPE change under which two rows meet
// in a unique index or UNIQUE constraint fails with PostgreSQL's 23505
// and leaves the table, its rows and its unique index as they were.
func TestAlterTypeUniqueDuplicates(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE ub (id int PRIMARY KEY, b numeric UNIQUE)")
	mustRun(t, s, "INSERT INTO ub VALUES (1, 1.2), (2, 1.4)")
	_, err := run(t, s, "ALTER TABLE ub ALTER COLUMN b TYPE int")
	if pe := pgerr.As(err); pe == nil || pe.Code != pgerr.UniqueViolation || pe.Message != `could not create unique index "ub_b_key"` || pe.Detail != "Key (b)=(1) is duplicated." {
		t.Fatalf("TYPE making a UNIQUE column repeat: %v", err)
	}
	wantRows(t, s, "SELECT id, b, pg_typeof(b) FROM ub ORDER BY id", "1 1.2 numeric", "2 1.4 numeric")
	wantCode(t, s, "INSERT INTO ub VALUES (3, 1.2)", pgerr.UniqueViolation, `duplicate key value violates unique constraint "ub_b_key"`)

	mustRun(t, s, "CREATE TABLE uc (id int PRIMARY KEY, c text)")
	mustRun(t, s, "CREATE UNIQUE INDEX uc_c_idx ON uc (c)")
	mustRun(t, s, "INSERT INTO uc VALUES (1, 'ab'), (2, NULL), (3, NULL), (4, 'xyz'), (5, 'cd')")
	_, err = run(t, s, "ALTER TABLE uc ALTER COLUMN c TYPE int USING length(c)")
	if pe := pgerr.As(err); pe == nil || pe.Code != pgerr.UniqueViolation || pe.Message != `could not create unique index "uc_c_idx"` || pe.Detail != "Key (c)=(2) is duplicated." {
		t.Fatalf("TYPE making a uniquely indexed column repeat: %v", err)
	}
	wantRows(t, s, "SELECT id, c FROM uc ORDER BY id", "1 ab", "2 NULL", "3 NULL", "4 xyz", "5 cd")
	wantCode(t, s, "INSERT INTO uc VALUES (6, 'cd')", pgerr.UniqueViolation, `duplicate key value violates unique constraint "uc_c_idx"`)
	// NULLs stay distinct: without the repeat the change goes through.
	mustRun(t, s, "DELETE FROM uc WHERE id = 5")
	mustRun(t, s, "ALTER TABLE uc ALTER COLUMN c TYPE int USING length(c)")
	wantRows(t, s, "SELECT id, c FROM uc ORDER BY id", "1 2", "2 NULL", "3 NULL", "4 3")
	wantCode(t, s, "INSERT INTO uc VALUES (6, 3)", pgerr.UniqueViolation, `duplicate key value violates unique constraint "uc_c_idx"`)

	// More rows than the check holds at once: the repeat is found in
	// its spill area.
	mustRun(t, s, "CREATE TABLE ubig (id int PRIMARY KEY, b numeric UNIQUE)")
	mustRun(t, s, "INSERT INTO ubig SELECT i, i FROM generate_series(1, 9000) AS i")
	mustRun(t, s, "INSERT INTO ubig VALUES (9001, 0.6)")
	_, err = run(t, s, "ALTER TABLE ubig ALTER COLUMN b TYPE int")
	if pe := pgerr.As(err); pe == nil || pe.Code != pgerr.UniqueViolation || pe.Detail != "Key (b)=(1) is duplicated." {
		t.Fatalf("TYPE making a UNIQUE column repeat across the held keys: %v", err)
	}
	wantRows(t, s, "SELECT count(*), pg_typeof(min(b)) FROM ubig", "9001 numeric")
	mustRun(t, s, "DELETE FROM ubig WHERE id = 9001")
	mustRun(t, s, "ALTER TABLE ubig ALTER COLUMN b TYPE int")
	wantCode(t, s, "INSERT INTO ubig VALUES (9001, 9000)", pgerr.UniqueViolation, `duplicate key value violates unique constraint "ubig_b_key"`)
}

// TestAlterKeyTypeThenDropColumn: once the primary key's column changed
// type, dropping another column keeps the table's other indexes, which
// read neither.
func TestAlterKeyTypeThenDropColumn(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE g (id int PRIMARY KEY, w int UNIQUE, x int)")
	mustRun(t, s, "ALTER TABLE g ALTER COLUMN id TYPE bigint")
	mustRun(t, s, "ALTER TABLE g DROP COLUMN x")
	if _, ok := e.cat.Lookup("", "g_w_key"); !ok {
		t.Fatal("g_w_key dropped with column x")
	}
	mustRun(t, s, "INSERT INTO g VALUES (1, 5)")
	wantCode(t, s, "INSERT INTO g VALUES (2, 5)", pgerr.UniqueViolation, `duplicate key value violates unique constraint "g_w_key"`)

	mustRun(t, s, "CREATE TABLE f2 (id int PRIMARY KEY, v int, x numeric)")
	mustRun(t, s, "CREATE INDEX ON f2 (v)")
	mustRun(t, s, "ALTER TABLE f2 ALTER COLUMN id TYPE bigint")
	mustRun(t, s, "ALTER TABLE f2 DROP COLUMN x, ADD COLUMN y int")
	if _, ok := e.cat.Lookup("", "f2_v_idx"); !ok {
		t.Fatal("f2_v_idx dropped with column x")
	}
	mustRun(t, s, "INSERT INTO f2 VALUES (1, 2, 3)")
	wantRows(t, s, "SELECT id, v, y FROM f2 WHERE v = 2", "1 2 3")
}

// TestAddPrimaryKey: a table created without a primary key is keyed by
// the one ALTER TABLE adds, across a restart, with its rows and
// indexes; what is keyed by the table's rows refuses it.
func TestAddPrimaryKey(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (a int, b text)")
	mustRun(t, s, "CREATE UNIQUE INDEX t_b ON t (b)")
	mustRun(t, s, "INSERT INTO t VALUES (2, 'x'), (1, 'y'), (3, 'z')")
	mustRun(t, s, "CREATE MATERIALIZED VIEW m AS SELECT count(*) AS n FROM t")
	wantCode(t, s, "ALTER TABLE t ADD PRIMARY KEY (a)", pgerr.FeatureNotSupported, `cannot add a primary key to table "t": materialized view m depends on it`)
	mustRun(t, s, "DROP MATERIALIZED VIEW m")
	mustRun(t, s, "CREATE TABLE c (b text REFERENCES t (b))")
	wantCode(t, s, "ALTER TABLE t ADD PRIMARY KEY (a)", pgerr.FeatureNotSupported, `constraint c_b_fkey on table c depends on it`)
	mustRun(t, s, "DROP TABLE c")
	mustRun(t, s, "ALTER TABLE ONLY t ADD CONSTRAINT t_pkey PRIMARY KEY (a)")
	wantCode(t, s, "ALTER TABLE t ADD PRIMARY KEY (b)", pgerr.InvalidTableDefinition, `multiple primary keys for table "t" are not allowed`)
	wantCode(t, s, "INSERT INTO t VALUES (1, 'w')", pgerr.UniqueViolation, `duplicate key value violates unique constraint "t_pkey"`)
	wantCode(t, s, "INSERT INTO t VALUES (4, 'x')", pgerr.UniqueViolation, `t_b`)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openTest(t, fs)
	defer e.Close()
	s = session(t, e)
	wantRows(t, s, "SELECT a, b FROM t", "1 y", "2 x", "3 z")
	wantRows(t, s, "SELECT a FROM t WHERE b = 'z'", "3")
	wantRows(t, s, "SHOW CREATE TABLE t", "public.t CREATE TABLE t (a int, b text, PRIMARY KEY (a))")
	wantCode(t, s, "INSERT INTO t VALUES (3, 'v')", pgerr.UniqueViolation, `duplicate key value violates unique constraint "t_pkey"`)
}

// TestAlterOwner: OWNER TO the relation's owner changes nothing; to
// another role it is refused, and the owner stays.
func TestAlterOwner(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (a int)")
	mustRun(t, s, "CREATE ROLE other")
	mustRun(t, s, "ALTER TABLE t OWNER TO CURRENT_USER")
	wantCode(t, s, "ALTER TABLE t OWNER TO other", pgerr.FeatureNotSupported, `changing the owner of table "t" is not supported`)
	wantRows(t, s, "SELECT tableowner = current_user FROM pg_tables WHERE tablename = 't'", "t")
}
