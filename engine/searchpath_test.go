package engine

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestSearchPathDefinitionsAfterRestart: a view and a materialized view
// created under search_path other, public read other.zz through their
// unqualified name whatever the reading session's search_path, after a
// relation of the name appears in public, and after a restart, when
// their definitions are bound again.
func TestSearchPathDefinitionsAfterRestart(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE SCHEMA other")
	mustRun(t, s, "SET search_path = other, public")
	mustRun(t, s, "CREATE TABLE zz (a int)")
	mustRun(t, s, "INSERT INTO zz VALUES (1)")
	mustRun(t, s, "CREATE VIEW v AS SELECT a FROM zz")
	mustRun(t, s, "CREATE MATERIALIZED VIEW mv AS SELECT sum(a) AS s FROM zz")
	mustRun(t, s, "CREATE TABLE public.zz (a int)")
	mustRun(t, s, "INSERT INTO public.zz VALUES (100)")
	wantRows(t, s, "SELECT schemaname, count(*) FROM pg_tables WHERE tablename = 'zz' GROUP BY 1 ORDER BY 1", "other 1", "public 1")
	mustRun(t, s, "SET search_path = public")
	wantRows(t, s, "SELECT * FROM zz", "100")
	wantRows(t, s, "SELECT * FROM other.v", "1")
	wantRows(t, s, "SELECT * FROM other.mv", "1")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	e = openTest(t, fs)
	defer e.Close()
	s = session(t, e)
	mustRun(t, s, "INSERT INTO other.zz VALUES (2)")
	mustRun(t, s, "INSERT INTO public.zz VALUES (200)")
	wantRows(t, s, "SELECT * FROM other.v ORDER BY a", "1", "2")
	wantRows(t, s, "SELECT * FROM other.mv", "3")
	mustRun(t, s, "SET search_path = other, public")
	wantRows(t, s, "SELECT * FROM v ORDER BY a", "1", "2")
	wantRows(t, s, "SELECT * FROM mv", "3")
	wantRows(t, s, "SELECT * FROM zz ORDER BY a", "1", "2")
}
