package engine

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/internal/pgerr"
)

// TestEnumArraysRefused: arrays of an enum (or a domain) are refused
// with 0A000 wherever they would be made, rather than reported as a
// type that does not exist or an aggregate that is missing; enum_range,
// whose labels weir keeps as text[], still works with = ANY.
func TestEnumArraysRefused(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')")
	mustRun(t, s, "CREATE DOMAIN posint AS int CHECK (VALUE > 0)")
	mustRun(t, s, "CREATE TABLE em (k int PRIMARY KEY, m mood)")
	mustRun(t, s, "INSERT INTO em VALUES (1, 'ok'), (2, 'sad')")
	wantCode(t, s, "CREATE TABLE em2 (ms mood[])", pgerr.FeatureNotSupported, "arrays of type mood are not supported")
	wantCode(t, s, "SELECT '{sad,ok}'::mood[]", pgerr.FeatureNotSupported, "arrays of type mood are not supported")
	wantCode(t, s, "SELECT '{1}'::posint[]", pgerr.FeatureNotSupported, "arrays of type posint are not supported")
	wantCode(t, s, "SELECT array_agg(m) FROM em", pgerr.FeatureNotSupported, "arrays of type mood are not supported")
	wantCode(t, s, "SELECT '{a}'::nosuch[]", pgerr.UndefinedObject, `type "nosuch[]" does not exist`)
	wantRows(t, s, "SELECT k FROM em WHERE m = ANY(enum_range('ok'::mood, NULL)) ORDER BY k", "1")
}
