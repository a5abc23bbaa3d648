package engine

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestSchemaElementViewAcrossRestart: a view made by a CREATE SCHEMA
// element reads the schema's table its definition names unqualified,
// not public's table of that name, after a restart too.
func TestSchemaElementViewAcrossRestart(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE films (title text)")
	mustRun(t, s, "INSERT INTO films VALUES ('public')")
	mustRun(t, s, "CREATE SCHEMA h CREATE VIEW w AS SELECT title FROM films CREATE TABLE films (title text)")
	mustRun(t, s, "INSERT INTO h.films VALUES ('h')")
	wantRows(t, s, "SELECT * FROM h.w", "h")
	e.Close()
	e = openTest(t, fs)
	defer e.Close()
	s = session(t, e)
	wantRows(t, s, "SELECT * FROM h.w", "h")
	wantRows(t, s, "SELECT * FROM films", "public")
}
