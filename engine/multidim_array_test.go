package engine

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/pgerr"
)

// TestMultidimensionalArrays: every way to write a multidimensional
// array value is refused with one clear 0A000, and declared dimensions
// in a type name are ignored as PostgreSQL ignores them.
func TestMultidimensionalArrays(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	for _, q := range []string{
		"SELECT ARRAY[[1,2],[3,4]]",
		"SELECT ARRAY[ARRAY[1,2]]",
		"SELECT ARRAY[ARRAY['a']]",
		"SELECT '{{1,2}}'::int[]",
		"SELECT '{{a}}'::text[]",
	} {
		_, err := run(t, s, q)
		if pgerr.CodeOf(err) != pgerr.FeatureNotSupported || err.Error() != "multidimensional arrays are not supported" {
			t.Errorf("%s: %v, want 0A000 multidimensional arrays are not supported", q, err)
		}
	}
	mustRun(t, s, "CREATE TABLE t (a int[][], b int[3], c text[][2], d numeric(5,2)[][])")
	wantRows(t, s, "SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 't'::regclass AND attnum > 0 ORDER BY attnum",
		"integer[]", "integer[]", "text[]", "numeric(5,2)[]")
	wantRows(t, s, "SELECT '{1,2}'::int[][]", "{1,2}")
}
