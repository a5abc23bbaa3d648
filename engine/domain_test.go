package engine

import (
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/connector/kafka"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// TestDomainsSurviveRestart: a domain over a domain and the constraints
// of both are kept in the catalog, and still enforced after a restart,
// the outer domain named in the errors of either level.
func TestDomainsSurviveRestart(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE DOMAIN posint AS int CHECK (VALUE > 0)")
	mustRun(t, s, "CREATE DOMAIN small AS posint NOT NULL CHECK (VALUE < 10)")
	mustRun(t, s, "CREATE TABLE t (k int PRIMARY KEY, v small)")
	mustRun(t, s, "INSERT INTO t VALUES (1, 5)")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openTest(t, fs)
	defer e.Close()
	s = session(t, e)
	wantCode(t, s, "INSERT INTO t VALUES (2, 0)", pgerr.CheckViolation, `value for domain small violates check constraint "posint_check"`)
	wantCode(t, s, "INSERT INTO t VALUES (2, 10)", pgerr.CheckViolation, `value for domain small violates check constraint "small_check"`)
	wantCode(t, s, "INSERT INTO t (k) VALUES (2)", pgerr.NotNullViolation, "domain small does not allow null values")
	wantCode(t, s, "SELECT 11::small", pgerr.CheckViolation, `value for domain small violates check constraint "small_check"`)
	mustRun(t, s, "INSERT INTO t VALUES (2, 9)")
	wantRows(t, s, "SELECT * FROM t ORDER BY k", "1 5", "2 9")
	wantRows(t, s, "SELECT t.typname, b.typname FROM pg_type t JOIN pg_type b ON b.oid = t.typbasetype WHERE t.typname = 'small'", "small posint")
}

// TestDomainUpdateChecksSetColumns: an UPDATE checks the domain of the
// columns it sets only, as PostgreSQL coerces only those: a stored
// value that a NOT VALID constraint would refuse stays as it is while
// another column changes.
func TestDomainUpdateChecksSetColumns(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE DOMAIN d AS int")
	mustRun(t, s, "CREATE TABLE t (k int PRIMARY KEY, v d, w int)")
	mustRun(t, s, "INSERT INTO t VALUES (1, -1, 0)")
	mustRun(t, s, "ALTER DOMAIN d ADD CONSTRAINT pos CHECK (VALUE > 0) NOT VALID")
	mustRun(t, s, "UPDATE t SET w = 1")
	wantCode(t, s, "UPDATE t SET v = v", pgerr.CheckViolation, `value for domain d violates check constraint "pos"`)
	wantCode(t, s, "ALTER DOMAIN d VALIDATE CONSTRAINT pos", pgerr.CheckViolation, `column "v" of table "t" contains values that violate the new constraint`)
	wantRows(t, s, "SELECT convalidated FROM pg_constraint WHERE conname = 'pos'", "f")
	mustRun(t, s, "UPDATE t SET v = 2")
	mustRun(t, s, "ALTER DOMAIN d VALIDATE CONSTRAINT pos")
	wantRows(t, s, "SELECT convalidated FROM pg_constraint WHERE conname = 'pos'", "t")
}

// TestDomainRefusedPaths: what weir cannot check against a domain it
// refuses with 0A000 instead of storing unchecked values.
func TestDomainRefusedPaths(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE DOMAIN posint AS int CHECK (VALUE > 0)")
	mustRun(t, s, "CREATE TABLE t (k int PRIMARY KEY, v int)")
	mustRun(t, s, "INSERT INTO t VALUES (1, -1)")
	wantCode(t, s, "ALTER TABLE t ALTER COLUMN v TYPE posint", pgerr.FeatureNotSupported, "TYPE to a domain type is not supported")
	wantCode(t, s, "ALTER TABLE t ADD COLUMN a posint, ADD COLUMN b int", pgerr.FeatureNotSupported, "ADD COLUMN of a domain type")
	wantCode(t, s, "ALTER TABLE t ADD COLUMN a posint DEFAULT random()::int - 5", pgerr.FeatureNotSupported, "ADD COLUMN of a domain type")
	wantRows(t, s, "SELECT * FROM t", "1 -1")
	// A connector's reader keeps the constraints it started with.
	mustRun(t, s, "CREATE DOMAIN looser AS int")
	mustRun(t, s, "CREATE SOURCE g (id looser) WITH (connector = 'kafka', topic = 't', properties.bootstrap.server = '127.0.0.1:1')")
	wantCode(t, s, "ALTER DOMAIN looser ADD CHECK (VALUE > 0)", pgerr.FeatureNotSupported, "column id of source g is read from a connector")
	wantCode(t, s, "ALTER DOMAIN looser SET NOT NULL", pgerr.FeatureNotSupported, "read from a connector")
	mustRun(t, s, "ALTER DOMAIN looser DROP NOT NULL")
	mustRun(t, s, "DROP SOURCE g")
	// A generator's rows would not be checked.
	wantCode(t, s, "CREATE SOURCE g (id posint) WITH (connector = 'datagen')", pgerr.FeatureNotSupported, `column "id" of a domain type is not supported with connector 'datagen'`)
	// A column that was of a domain type no longer is once its type
	// changes.
	mustRun(t, s, "CREATE TABLE u (k int PRIMARY KEY, v posint)")
	mustRun(t, s, "ALTER TABLE u ALTER COLUMN v TYPE bigint")
	mustRun(t, s, "INSERT INTO u VALUES (1, -1)")
}

// TestSourceDomainCheck: a source's reader checks the decoded columns
// of a domain type against the domain, with PostgreSQL's messages (the
// reasons its malformed records are given).
func TestSourceDomainCheck(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE DOMAIN posint AS int NOT NULL CHECK (VALUE > 0)")
	u, ok := e.cat.TypeByName("public", "posint")
	if !ok {
		t.Fatal("no domain posint")
	}
	rel := &catalog.Relation{Name: "src", Cols: []catalog.Column{
		{Name: "k", T: types.TInt4}, {Name: "v", T: types.TInt4, Domain: u.OID},
		{Name: hiddenRowID, T: types.TInt8, Hidden: true},
	}}
	cfg := kafka.SourceConfig{Schema: types.Schema{{Name: "k", T: types.TInt4}, {Name: "v", T: types.TInt4}}}
	if err := e.sourceDomainCheck(rel, &cfg); err != nil || cfg.Check == nil {
		t.Fatalf("sourceDomainCheck: %v", err)
	}
	for _, c := range []struct {
		row  types.Row
		want string
	}{
		{types.Row{types.DInt(1), types.DInt(3)}, ""},
		{types.Row{types.NullDatum, types.DInt(-3)}, `value for domain posint violates check constraint "posint_check"`},
		{types.Row{types.DInt(1), types.NullDatum}, "domain posint does not allow null values"},
	} {
		err := cfg.Check(c.row)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("Check(%v) = %v, want %q", c.row, err, c.want)
		}
	}
}

// TestDomainForeignKeyActions: ON DELETE SET DEFAULT and SET NULL set
// values of a domain type as an UPDATE does, so the domain's
// constraints hold for them.
func TestDomainForeignKeyActions(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE DOMAIN refid AS int CHECK (VALUE <> 0) DEFAULT 0")
	mustRun(t, s, "CREATE DOMAIN nnref AS int NOT NULL")
	mustRun(t, s, "CREATE TABLE parent (id int PRIMARY KEY)")
	mustRun(t, s, "CREATE TABLE c1 (id int PRIMARY KEY, p refid REFERENCES parent ON DELETE SET DEFAULT)")
	mustRun(t, s, "CREATE TABLE c2 (id int PRIMARY KEY, p nnref REFERENCES parent ON DELETE SET NULL)")
	mustRun(t, s, "INSERT INTO parent VALUES (0), (1), (2)")
	mustRun(t, s, "INSERT INTO c1 VALUES (1, 1)")
	mustRun(t, s, "INSERT INTO c2 VALUES (1, 2)")
	wantCode(t, s, "DELETE FROM parent WHERE id = 1", pgerr.CheckViolation, `value for domain refid violates check constraint "refid_check"`)
	wantCode(t, s, "DELETE FROM parent WHERE id = 2", pgerr.NotNullViolation, "domain nnref does not allow null values")
	wantRows(t, s, "SELECT * FROM c1", "1 1")
	wantRows(t, s, "SELECT * FROM c2", "1 2")
}

// TestViewDomainsSurviveRestart: the columns of a view and of a
// materialized view keep the domains of the columns they show (an
// array of a domain, its element) after a restart, and the
// materialized view keeps maintaining them.
func TestViewDomainsSurviveRestart(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE DOMAIN posint AS int CHECK (VALUE > 0)")
	mustRun(t, s, "CREATE TABLE t (k int PRIMARY KEY, p posint, b posint[])")
	mustRun(t, s, "INSERT INTO t VALUES (1, 5, '{1,2}')")
	mustRun(t, s, "CREATE VIEW v AS SELECT p, b, b[1] AS b1, p + 1 AS q FROM t")
	mustRun(t, s, "CREATE MATERIALIZED VIEW mv AS SELECT k, p, b, b[2] AS b2 FROM t")
	types := "SELECT string_agg(format_type(atttypid, atttypmod), ',' ORDER BY attrelid::regclass::text, attnum) FROM pg_attribute WHERE attrelid IN ('v'::regclass, 'mv'::regclass) AND attnum > 0"
	want := "integer,posint,posint[],posint,posint,posint[],posint,integer"
	wantRows(t, s, types, want)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openTest(t, fs)
	defer e.Close()
	s = session(t, e)
	wantRows(t, s, types, want)
	wantRows(t, s, "SELECT pg_typeof(b), pg_typeof(b1) FROM v", "posint[] posint")
	mustRun(t, s, "INSERT INTO t VALUES (2, 7, '{3}')")
	wantRows(t, s, "SELECT k, p, b, b2, pg_typeof(b2) FROM mv ORDER BY k", "1 5 {1,2} 2 posint", "2 7 {3} NULL posint")
}
