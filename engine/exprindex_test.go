package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// indexEntries returns the committed entries of index name (in schema
// public), in their stored order: each entry's key columns as text,
// separated by blanks.
func indexEntries(t *testing.T, e *Engine, name string) []string {
	t.Helper()
	idx, ok := e.cat.Lookup(catalog.PublicSchema, name)
	if !ok || idx.Kind != catalog.KindIndex {
		t.Fatalf("no index %s", name)
	}
	if err := e.readFence(context.Background()); err != nil {
		t.Fatal(err)
	}
	snap := e.db.NewSnapshot()
	defer snap.Close()
	it := snap.Scan(idx.ID, relTypes(idx))
	defer it.Close()
	var out []string
	for {
		row, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if row == nil {
			return out
		}
		var f []string
		for i := 0; i < idx.IndexKeys(); i++ {
			if row[i].Null {
				f = append(f, "NULL")
			} else {
				f = append(f, types.FormatText(row[i], idx.Cols[i].T, nil))
			}
		}
		out = append(out, strings.Join(f, " "))
	}
}

// wantEntries fails unless index name holds exactly want, in order.
func wantEntries(t *testing.T, e *Engine, name string, want ...string) {
	t.Helper()
	if got := indexEntries(t, e, name); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("index %s holds\n  %q\nwant\n  %q", name, got, want)
	}
}

// wantKeyTaken fails unless q fails with 23505 on index and DETAIL
// detail, PostgreSQL's.
func wantKeyTaken(t *testing.T, s wire.Session, q, index, detail string) {
	t.Helper()
	_, err := run(t, s, q)
	pe := pgerr.As(err)
	if err == nil || pe.Code != pgerr.UniqueViolation || pe.Detail != detail {
		t.Fatalf("%s: got %v (detail %q), want 23505 on %s with %q", q, err, pe.Detail, index, detail)
	}
	if !strings.Contains(pe.Error(), index) {
		t.Fatalf("%s: got %v, want the index %s named", q, err, index)
	}
}

// TestExpressionIndexRestart checks that expression and partial indexes
// hold the rows they should, ordered by their expressions' values, that
// the unique ones refuse duplicates with PostgreSQL's DETAIL, and that
// all of it survives renames of the table and its columns, a crash, and
// the loss of the key stores (rebuilt from the rows, expressions and
// predicates applied, when the engine opens).
func TestExpressionIndexRestart(t *testing.T) {
	fs := vfs.NewCrashableMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE acct (id int PRIMARY KEY, email text, uid int, active bool)")
	mustRun(t, s, "INSERT INTO acct VALUES (1, 'Ann@X', 1, true), (2, 'bob@x', 2, false), (3, 'Carla@X', 2, true), (4, NULL, 3, NULL)")
	mustRun(t, s, "CREATE UNIQUE INDEX acct_email ON acct ((lower(email)))")
	mustRun(t, s, "CREATE UNIQUE INDEX acct_one_active ON acct (uid) WHERE active")
	mustRun(t, s, "CREATE INDEX acct_len ON acct ((length(email) * -1), uid) WHERE uid > 1")
	wantEntries(t, e, "acct_email", "NULL", "ann@x", "bob@x", "carla@x")
	wantEntries(t, e, "acct_one_active", "1", "2")
	wantEntries(t, e, "acct_len", "NULL 3", "-7 2", "-5 2")

	wantKeyTaken(t, s, "INSERT INTO acct VALUES (5, 'ANN@x', 9, false)", "acct_email", "Key (lower(email))=(ann@x) already exists.")
	wantKeyTaken(t, s, "UPDATE acct SET active = true WHERE id = 2", "acct_one_active", "Key (uid)=(2) already exists.")
	mustRun(t, s, "UPDATE acct SET active = false WHERE id = 3")
	mustRun(t, s, "UPDATE acct SET active = true, email = 'Bob@Y' WHERE id = 2")
	mustRun(t, s, "DELETE FROM acct WHERE id = 4")
	wantEntries(t, e, "acct_one_active", "1", "2")
	wantEntries(t, e, "acct_len", "-7 2", "-5 2")

	mustRun(t, s, "ALTER TABLE acct RENAME COLUMN email TO mail")
	mustRun(t, s, "ALTER TABLE acct RENAME COLUMN active TO live")
	mustRun(t, s, "ALTER TABLE acct RENAME TO accounts")
	mustRun(t, s, "INSERT INTO accounts VALUES (6, 'Dora@Z', 6, true)")
	wantRows(t, s, "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'accounts' AND indexname LIKE 'acct%' ORDER BY 1",
		"acct_email CREATE UNIQUE INDEX acct_email ON public.accounts USING btree (lower(mail))",
		"acct_len CREATE INDEX acct_len ON public.accounts USING btree (((length(mail) * '-1'::integer)), uid) WHERE (uid > 1)",
		"acct_one_active CREATE UNIQUE INDEX acct_one_active ON public.accounts USING btree (uid) WHERE live")

	crashed := fs.CrashClone(vfs.CrashCloneCfg{})
	e.Close()
	e = openTest(t, crashed)
	s = session(t, e)
	wantEntries(t, e, "acct_email", "ann@x", "bob@y", "carla@x", "dora@z")
	wantEntries(t, e, "acct_one_active", "1", "2", "6")
	wantEntries(t, e, "acct_len", "-7 2", "-6 6", "-5 2")
	wantKeyTaken(t, s, "INSERT INTO accounts VALUES (7, 'dora@z', 7, false)", "acct_email", "Key (lower(mail))=(dora@z) already exists.")
	wantKeyTaken(t, s, "INSERT INTO accounts VALUES (7, 'e@z', 6, true)", "acct_one_active", "Key (uid)=(6) already exists.")
	mustRun(t, s, "INSERT INTO accounts VALUES (7, 'e@z', 6, false)")
	mustRun(t, s, "INSERT INTO accounts VALUES (8, 'CARLA@x', 8, true) ON CONFLICT ((lower(mail))) DO UPDATE SET uid = 30")
	mustRun(t, s, "INSERT INTO accounts VALUES (9, 'x@x', 1, true) ON CONFLICT (uid) WHERE live DO UPDATE SET mail = 'Ann@New'")
	wantRows(t, s, "SELECT id, mail, uid, live FROM accounts ORDER BY id",
		"1 Ann@New 1 t", "2 Bob@Y 2 t", "3 Carla@X 30 f", "6 Dora@Z 6 t", "7 e@z 6 f")
	wantEntries(t, e, "acct_len", "-7 30", "-6 6", "-5 2", "-3 6")

	// Lose the key stores, as a crash between CREATE UNIQUE INDEX and
	// the commit of its epoch would: opening rebuilds them with the
	// expressions and the predicate applied.
	for _, r := range e.cat.All() {
		if st := r.UniqueStore(); st != 0 {
			b := e.db.NewWriteBatch()
			if err := b.DeleteRange(st); err != nil {
				t.Fatal(err)
			}
			if err := b.Commit(); err != nil {
				t.Fatal(err)
			}
		}
	}
	e.Close()
	e = openTest(t, crashed)
	defer e.Close()
	s = session(t, e)
	wantKeyTaken(t, s, "INSERT INTO accounts VALUES (10, 'ann@NEW', 10, false)", "acct_email", "Key (lower(mail))=(ann@new) already exists.")
	wantKeyTaken(t, s, "INSERT INTO accounts VALUES (10, 'f@z', 6, true)", "acct_one_active", "Key (uid)=(6) already exists.")
	mustRun(t, s, "INSERT INTO accounts VALUES (10, 'f@z', 3, false), (11, 'g@z', 3, false), (12, 'h@z', 3, true)")

	mustRun(t, s, "DROP INDEX acct_email")
	mustRun(t, s, "INSERT INTO accounts VALUES (13, 'ANN@new', 13, false)")
	if _, ok := e.cat.Lookup(catalog.PublicSchema, "acct_email"); ok {
		t.Fatal("acct_email is still in the catalog")
	}
}

// TestExpressionIndexRefusals checks the errors of CREATE INDEX with
// expressions and predicates, and that a partial or expression unique
// index backs no foreign key (PostgreSQL's 42830).
func TestExpressionIndexRefusals(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE r (id int PRIMARY KEY, a int, t text, ts timestamptz, d date)")
	for _, c := range []struct {
		q    string
		code pgerr.Code
		msg  string
	}{
		{"CREATE INDEX ON r ((random()))", pgerr.InvalidObjectDefinition, "functions in index expression must be marked IMMUTABLE"},
		{"CREATE INDEX ON r ((ts::date))", pgerr.InvalidObjectDefinition, "functions in index expression must be marked IMMUTABLE"},
		{"CREATE INDEX ON r ((t::date))", pgerr.InvalidObjectDefinition, "functions in index expression must be marked IMMUTABLE"},
		{"CREATE INDEX ON r ((to_char(d, 'YYYY')))", pgerr.InvalidObjectDefinition, "functions in index expression must be marked IMMUTABLE"},
		{"CREATE INDEX ON r (a) WHERE ts > now()", pgerr.InvalidObjectDefinition, "functions in index predicate must be marked IMMUTABLE"},
		{"CREATE INDEX ON r (a) WHERE a", pgerr.DatatypeMismatch, "argument of WHERE must be type boolean"},
		{"CREATE INDEX ON r ((sum(a)))", pgerr.GroupingError, "aggregate functions are not allowed in index expressions"},
		{"CREATE INDEX ON r ((t::json))", pgerr.UndefinedObject, "data type json has no default operator class"},
		{`CREATE INDEX ON r ((t COLLATE "C"))`, pgerr.FeatureNotSupported, "COLLATE in an index column"},
	} {
		wantCode(t, s, c.q, c.code, c.msg)
	}
	// Immutable ones pass.
	for _, q := range []string{
		"CREATE INDEX ON r ((d + 1))",
		"CREATE INDEX ON r ((upper(t) || 'x'))",
		"CREATE INDEX ON r ((date_trunc('day', d::timestamp)))",
		"CREATE INDEX ON r (a) WHERE d > '2020-01-01' AND t LIKE 'a%'",
	} {
		mustRun(t, s, q)
	}
	mustRun(t, s, "CREATE UNIQUE INDEX r_a_part ON r (a) WHERE a > 0")
	mustRun(t, s, "CREATE UNIQUE INDEX r_t_lower ON r ((lower(t)))")
	wantCode(t, s, "CREATE TABLE c1 (x int REFERENCES r (a))", pgerr.InvalidForeignKey, "there is no unique constraint matching given keys")
	wantCode(t, s, "INSERT INTO r VALUES (1, 1, 'a', NULL, NULL) ON CONFLICT (a) DO NOTHING", pgerr.InvalidColumnReference, "no unique or exclusion constraint")
	mustRun(t, s, "INSERT INTO r VALUES (1, 1, 'a', NULL, NULL) ON CONFLICT (a) WHERE a > 0 DO NOTHING")
	mustRun(t, s, "INSERT INTO r VALUES (2, 1, 'b', NULL, NULL) ON CONFLICT (a) WHERE a > 0 AND t <> '' DO NOTHING")
	mustRun(t, s, "INSERT INTO r VALUES (3, -1, 'c', NULL, NULL), (4, -1, 'd', NULL, NULL)")
	wantRows(t, s, "SELECT id FROM r ORDER BY id", "1", "3", "4")
}

// TestExpressionIndexQualifiedRename: key expressions and a predicate
// that qualify columns with the table's name follow its rename, across
// a restart.
func TestExpressionIndexQualifiedRename(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE q1 (id int PRIMARY KEY, a text, b int)")
	mustRun(t, s, "INSERT INTO q1 VALUES (1, 'A', 1), (2, 'b', -1)")
	mustRun(t, s, "CREATE UNIQUE INDEX q1_a ON q1 ((lower(q1.a))) WHERE q1.b > 0")
	mustRun(t, s, "ALTER TABLE q1 RENAME TO q2")
	check := func(s wire.Session) {
		t.Helper()
		wantRows(t, s, "SELECT indexdef FROM pg_indexes WHERE indexname = 'q1_a'",
			"CREATE UNIQUE INDEX q1_a ON public.q2 USING btree (lower(a)) WHERE (b > 0)")
		wantKeyTaken(t, s, "INSERT INTO q2 VALUES (3, 'a', 5)", "q1_a", "Key (lower(a))=(a) already exists.")
	}
	checkAcrossRestart(t, fs, e, s, check)
	e = openTest(t, fs)
	defer e.Close()
	wantEntries(t, e, "q1_a", "a")
}

// TestImmutableSyntaxInIndexes: jsonb's -> and ->>, array subscripts and
// EXTRACT from a timestamp are immutable in PostgreSQL and allowed in
// index expressions and generated columns; EXTRACT from a timestamptz,
// which reads the TimeZone, is not (42P17).
func TestImmutableSyntaxInIndexes(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE im (id int PRIMARY KEY, j jsonb, ts timestamp, tz timestamptz, d date, arr int[])")
	mustRun(t, s, `INSERT INTO im VALUES (1, '{"k": "a", "n": {"m": 1}}', '2021-05-06 07:08:09', now(), '2020-01-02', '{5,6}')`)
	for _, q := range []string{
		"CREATE INDEX im_1 ON im ((j->>'k'))",
		"CREATE INDEX im_2 ON im ((j->'n'->>'m'))",
		"CREATE INDEX im_3 ON im ((extract(year from ts)))",
		"CREATE INDEX im_4 ON im ((arr[1]))",
		"CREATE INDEX im_5 ON im ((extract(month from d)), (arr[2] + 1))",
		"CREATE INDEX im_6 ON im (id) WHERE j->>'k' = 'a' AND arr[1] > 0",
	} {
		mustRun(t, s, q)
	}
	wantEntries(t, e, "im_1", "a")
	wantEntries(t, e, "im_3", "2021")
	wantEntries(t, e, "im_4", "5")
	for _, q := range []string{
		"CREATE INDEX ON im ((extract(year from tz)))",
		"CREATE INDEX ON im ((date_part('hour', tz)))",
	} {
		wantCode(t, s, q, pgerr.InvalidObjectDefinition, "functions in index expression must be marked IMMUTABLE")
	}
	mustRun(t, s, "CREATE TABLE gen (j jsonb, k text GENERATED ALWAYS AS (j->>'k') STORED, n jsonb GENERATED ALWAYS AS (j->'n') STORED, "+
		"ts timestamp, y numeric GENERATED ALWAYS AS (extract(year from ts)) STORED, arr int[], f int GENERATED ALWAYS AS (arr[1]) STORED)")
	mustRun(t, s, `INSERT INTO gen (j, ts, arr) VALUES ('{"k": "b", "n": [1]}', '2022-01-01', '{7}')`)
	wantRows(t, s, "SELECT k, n, y, f FROM gen", "b [1] 2022 7")
	wantCode(t, s, "CREATE TABLE gen2 (tz timestamptz, y numeric GENERATED ALWAYS AS (extract(year from tz)) STORED)",
		pgerr.InvalidObjectDefinition, "generation expression is not immutable")
}
