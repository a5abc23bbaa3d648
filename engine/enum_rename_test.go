package engine

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/internal/pgerr"
)

// TestEnumRenameValueStreamUsers: RENAME VALUE of an enum is refused
// (0A000, naming the object) while a materialized view converts the enum
// to or from text, whose state holds the labels' text, or names the
// label in its definition; a materialized view that groups by or
// filters on the enum's values (kept by their sort order), one that
// reads only other columns of the table, a plain view and the table
// itself follow the rename.
func TestEnumRenameValueStreamUsers(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	s := session(t, e)
	mustRun(t, s, "CREATE TYPE col3 AS ENUM ('red', 'green')")
	mustRun(t, s, "CREATE TABLE ce3 (id int, c col3, s text)")
	mustRun(t, s, "INSERT INTO ce3 VALUES (1, 'red', 'red'), (2, 'green', 'x')")
	mustRun(t, s, "CREATE VIEW v3 AS SELECT id, c::text AS t FROM ce3")
	mustRun(t, s, "CREATE MATERIALIZED VIEW cmv AS SELECT c::text AS t, count(*) AS n FROM ce3 GROUP BY 1")
	wantCode(t, s, "ALTER TYPE col3 RENAME VALUE 'red' TO 'blue'", pgerr.FeatureNotSupported, `RENAME VALUE is not supported while materialized view "cmv" uses type col3`)
	mustRun(t, s, "DROP MATERIALIZED VIEW cmv")
	mustRun(t, s, "CREATE MATERIALIZED VIEW cmv2 AS SELECT id FROM ce3 WHERE s::col3 = 'red'")
	wantCode(t, s, "ALTER TYPE col3 RENAME VALUE 'red' TO 'blue'", pgerr.FeatureNotSupported, `RENAME VALUE is not supported while materialized view "cmv2" uses type col3`)
	mustRun(t, s, "DROP MATERIALIZED VIEW cmv2")
	mustRun(t, s, "CREATE MATERIALIZED VIEW cmv3 AS SELECT count(*) AS n FROM ce3 WHERE c = 'red'")
	wantCode(t, s, "ALTER TYPE col3 RENAME VALUE 'red' TO 'blue'", pgerr.FeatureNotSupported, `RENAME VALUE is not supported while materialized view "cmv3" uses type col3`)
	mustRun(t, s, "DROP MATERIALIZED VIEW cmv3")
	mustRun(t, s, "CREATE MATERIALIZED VIEW cmv4 AS SELECT id, s FROM ce3")
	mustRun(t, s, "CREATE MATERIALIZED VIEW cmv5 AS SELECT c, count(*) AS n FROM ce3 WHERE c >= 'green' OR id > 0 GROUP BY c")
	mustRun(t, s, "CREATE MATERIALIZED VIEW cmv6 AS SELECT array_agg(c) AS cs FROM ce3")
	wantCode(t, s, "ALTER TYPE col3 RENAME VALUE 'red' TO 'blue'", pgerr.FeatureNotSupported, `RENAME VALUE is not supported while column cs of materialized view cmv6 is of type col3[]`)
	mustRun(t, s, "DROP MATERIALIZED VIEW cmv6")
	mustRun(t, s, "ALTER TYPE col3 RENAME VALUE 'red' TO 'blue'")
	wantRows(t, s, "SELECT c, n FROM cmv5 ORDER BY c", "blue 1", "green 1")
	mustRun(t, s, "INSERT INTO ce3 VALUES (3, 'blue', 'y')")
	wantRows(t, s, "SELECT c, n FROM cmv5 ORDER BY c", "blue 2", "green 1")
	mustRun(t, s, "DELETE FROM ce3 WHERE id = 3")
	wantRows(t, s, "SELECT id, t FROM v3 ORDER BY id", "1 blue", "2 green")
	wantRows(t, s, "SELECT id, c FROM ce3 WHERE c = 'blue'", "1 blue")
	mustRun(t, s, "DELETE FROM ce3 WHERE id = 1")
	wantRows(t, s, "SELECT id, s FROM cmv4 ORDER BY id", "2 x")
}
