package planner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// accessCatalog is the test catalog with a mixed-case table, whose name
// only a quoted identifier reaches.
func accessCatalog() *fakeCatalog {
	c := newFakeCatalog()
	c.rels["Secret"] = &catalog.Relation{ID: 20, OID: 20 + catalog.FirstUserOID, Schema: "public", Name: "Secret", Kind: catalog.KindTable,
		Cols: []catalog.Column{col("id", types.TInt4), col("ts", types.TTimestamp)}}
	c.sys["pg_catalog.pg_authid"] = types.Schema{{Name: "rolname", T: types.TName}, {Name: "rolvaliduntil", T: types.TTimestamptz}}
	return c
}

// accessString prints a statement's accesses: rel:privileges, with
// @view for those a view reads.
func accessString(acc []Access) string {
	var out []string
	for _, a := range acc {
		name := a.Name
		if a.Rel != nil {
			name = a.Rel.Name
		} else {
			name = a.Schema + "." + name
		}
		s := name + ":" + a.Priv.Letters()
		if a.View != nil {
			s += "@" + a.View.Name
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

// TestAccessRecordsWhatIsBound checks that every relation the binder
// resolves is in Bound.Access with the privileges the statement needs,
// however the text spells it.
func TestAccessRecordsWhatIsBound(t *testing.T) {
	if _, err := sql.Parse("select 1"); err != nil {
		t.Fatalf("the front end: %v", err)
	}
	cases := []struct{ q, want string }{
		{`SELECT * FROM "Secret"`, "Secret:r"},
		{`WITH "SECRET" AS (SELECT 1) SELECT * FROM t`, "t:r"},
		{`WITH "T" AS (SELECT 1) SELECT * FROM t`, "t:r"},
		{`WITH t AS (SELECT 1 AS a) SELECT * FROM t`, ""},
		{`WITH "PG_AUTHID" AS (SELECT 1) SELECT rolname FROM pg_authid`, "pg_catalog.pg_authid:r"},
		{`SELECT * FROM tumble("Secret" AS s, ts, INTERVAL '1 hour')`, "Secret:r"},
		{`SELECT * FROM tumble("Secret" s, ts, INTERVAL '1 hour')`, "Secret:r"},
		{`SELECT * FROM hop("Secret" AS x, ts, INTERVAL '1 hour', INTERVAL '2 hours')`, "Secret:r"},
		{`SELECT * FROM tumble(pg_authid AS a, rolvaliduntil, INTERVAL '1 hour')`, "pg_catalog.pg_authid:r"},
		{`SELECT * FROM v`, "v:r t:r@v"},
		{`SELECT * FROM mv`, "mv:r"},
		{`SELECT * FROM u, LATERAL (SELECT * FROM "Secret" s WHERE s.id = u.a) x`, "u:r Secret:r"},
		{`SELECT (SELECT count(*) FROM "Secret")`, "Secret:r"},
		{`SELECT * FROM generate_series(1, (SELECT count(*)::int FROM "Secret"))`, "Secret:r"},
		{`INSERT INTO t (a) VALUES (1)`, "t:a"},
		{`INSERT INTO t (a) SELECT id FROM "Secret"`, "t:a Secret:r"},
		{`INSERT INTO t (a) VALUES (1) RETURNING b`, "t:ar"},
		{`INSERT INTO t (a) VALUES (1) ON CONFLICT (a) DO UPDATE SET b = 'x'`, "t:arw"},
		{`INSERT INTO t (a) VALUES (1) ON CONFLICT DO NOTHING`, "t:a"},
		{`INSERT INTO t (a) VALUES (1) ON CONFLICT (a) DO NOTHING`, "t:ar"},
		{`INSERT INTO t (a) VALUES (1) ON CONFLICT (a) DO UPDATE SET b = 'x' WHERE t.b = 'y'`, "t:arw"},
		{`UPDATE t SET b = 'x'`, "t:w"},
		{`UPDATE t SET b = 'x' WHERE a = 1`, "t:rw"},
		{`UPDATE t SET b = b || 'x'`, "t:w t:r"},
		{`UPDATE t SET b = (SELECT max(x) FROM u)`, "t:w u:r"},
		{`UPDATE t SET b = (SELECT max(x) FROM u WHERE u.a = t.a)`, "t:w u:r t:r"},
		{`UPDATE t SET b = u.x FROM u`, "t:w t: u:r"},
		{`INSERT INTO t (a) VALUES (1) ON CONFLICT ON CONSTRAINT t_pkey DO UPDATE SET b = excluded.b`, "t:arw"},
		{`INSERT INTO t (a) VALUES (1) ON CONFLICT ON CONSTRAINT t_pkey DO NOTHING`, "t:ar"},
		{`UPDATE t SET b = u.x FROM u WHERE u.a = t.a`, "t:rw t: u:r"},
		{`DELETE FROM t`, "t:d"},
		{`DELETE FROM t USING u WHERE u.a = t.a`, "t:rd t: u:r"},
		{`WITH t AS (SELECT 1) DELETE FROM t`, "t:d"},
		{`SELECT '"Secret"'::regclass`, ""},
		// A locking clause needs UPDATE on the tables it locks: every
		// table of FROM, or those OF names by their range variable.
		{`SELECT * FROM t FOR UPDATE`, "t:r t:w"},
		{`SELECT * FROM t x, u FOR UPDATE OF x`, "t:r u:r t:w"},
		{`SELECT * FROM t, u y FOR SHARE OF y`, "t:r u:r u:w"},
		{`SELECT * FROM t x, t FOR UPDATE OF t`, "t:r t:r t:w"},
		{`SELECT * FROM (SELECT * FROM t) s, u FOR UPDATE OF s`, "t:r u:r t:w"},
		{`SELECT * FROM t WHERE a IN (SELECT a FROM u) FOR UPDATE`, "t:r t:w u:r"},
		{`SELECT * FROM v FOR UPDATE`, "v:r t:r@v v:w t:w@v"},
		{`SELECT * FROM v x, u FOR UPDATE OF u`, "v:r t:r@v u:r u:w"},
		{`WITH c AS (SELECT * FROM u) SELECT * FROM c, t FOR UPDATE`, "u:r t:r t:w"},
	}
	for _, c := range cases {
		st, err := sql.Parse(c.q)
		if err != nil {
			t.Errorf("%s: %v", c.q, err)
			continue
		}
		b, err := Bind(st.(*sql.Query), accessCatalog(), nil)
		if err != nil {
			t.Errorf("%s: %v", c.q, err)
			continue
		}
		if got := accessString(b.Access); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.q, got, c.want)
		}
	}
}

// denyAll is a catalog whose Authorizer refuses any access.
type denyAll struct{ *fakeCatalog }

func (denyAll) Authorize(acc []Access) error {
	if len(acc) > 0 {
		return fmt.Errorf("denied %s", accessString(acc))
	}
	return nil
}

// TestBindAuthorizes checks that Bind hands an Authorizer catalog the
// accesses and returns its error instead of the statement.
func TestBindAuthorizes(t *testing.T) {
	st, err := sql.Parse(`SELECT * FROM "Secret"`)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := Bind(st.(*sql.Query), denyAll{accessCatalog()}, nil); err == nil || err.Error() != "denied Secret:r" {
		t.Errorf("got %v, %v; want the Authorizer's error", b, err)
	}
	st, _ = sql.Parse(`SELECT 1`)
	if _, err := Bind(st.(*sql.Query), denyAll{accessCatalog()}, nil); err != nil {
		t.Errorf("a statement that reads nothing: %v", err)
	}
}

// TestLockingClauseNames checks that FOR UPDATE OF finds FROM items by
// their range variable, with PostgreSQL's errors for the names it
// cannot lock.
func TestLockingClauseNames(t *testing.T) {
	cases := []struct{ q, want string }{
		{`SELECT * FROM t x FOR UPDATE OF t`, `42P01 relation "t" in FOR UPDATE clause not found in FROM clause`},
		{`SELECT * FROM t FOR SHARE OF nosuch`, `42P01 relation "nosuch" in FOR SHARE clause not found in FROM clause`},
		{`SELECT * FROM t FOR UPDATE OF public.t`, `42601 FOR UPDATE must specify unqualified relation names`},
		{`WITH c AS (SELECT 1) SELECT * FROM c FOR UPDATE OF c`, `0A000 FOR UPDATE cannot be applied to a WITH query`},
		{`SELECT * FROM generate_series(1, 2) g FOR UPDATE OF g`, `0A000 FOR UPDATE cannot be applied to a function`},
		{`SELECT * FROM (SELECT a FROM t UNION SELECT a FROM u) s FOR UPDATE`, `0A000 FOR UPDATE is not allowed with UNION/INTERSECT/EXCEPT`},
	}
	for _, c := range cases {
		st, err := sql.Parse(c.q)
		if err != nil {
			t.Errorf("%s: %v", c.q, err)
			continue
		}
		_, err = Bind(st.(*sql.Query), accessCatalog(), nil)
		if got := fmt.Sprintf("%s %v", pgerr.CodeOf(err), err); err == nil || !strings.HasSuffix(got, c.want) && got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.q, got, c.want)
		}
	}
}

// TestLockingClauseWritten checks that a message names the locking
// clause as written, though FOR NO KEY UPDATE and FOR KEY SHARE reach
// the binder as FOR UPDATE and FOR SHARE.
func TestLockingClauseWritten(t *testing.T) {
	for _, c := range []struct{ q, want string }{
		{`SELECT * FROM t FOR NO KEY UPDATE OF x`, `relation "x" in FOR NO KEY UPDATE clause not found in FROM clause`},
		{`SELECT * FROM t FOR KEY SHARE OF x`, `relation "x" in FOR KEY SHARE clause not found in FROM clause`},
		{`SELECT * FROM (SELECT * FROM u FOR KEY SHARE) s FOR UPDATE OF x`, `relation "x" in FOR UPDATE clause not found in FROM clause`},
		{`SELECT * FROM (SELECT * FROM u FOR UPDATE) s FOR NO KEY UPDATE OF x`, `relation "x" in FOR NO KEY UPDATE clause not found in FROM clause`},
	} {
		st, err := sql.Parse(c.q)
		if err != nil {
			t.Errorf("%s: %v", c.q, err)
			continue
		}
		if _, err := Bind(st.(*sql.Query), accessCatalog(), nil); err == nil || err.Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.q, err, c.want)
		}
	}
}
