package psql

import (
	"regexp"
	"testing"

	"github.com/weirdb/weir/tests/testenv"
)

// TestPsqlTempTables checks psql's \dt and \d over temporary tables: they
// are listed under the session's pg_temp_N schema, and a permanent
// table they hide is not listed, as on PostgreSQL (whose N differs: the
// number is replaced by N).
func TestPsqlTempTables(t *testing.T) {
	dir := t.TempDir()
	target := testenv.StartTarget(t)
	out := psql(t, target, dir, `CREATE TABLE p (a int);
CREATE TABLE q (a int);
CREATE TEMP TABLE p (a int, b text);
CREATE TEMP TABLE t (x int PRIMARY KEY);
\dt
\d p
\di
`)
	got := regexp.MustCompile(`pg_temp_[0-9]+`).ReplaceAllString(string(out), "pg_temp_N")
	want := `        List of relations
  Schema   | Name | Type  | Owner 
-----------+------+-------+-------
 pg_temp_N | p    | table | root
 pg_temp_N | t    | table | root
 public    | q    | table | root
(3 rows)

                Table "pg_temp_N.p"
 Column |  Type   | Collation | Nullable | Default 
--------+---------+-----------+----------+---------
 a      | integer |           |          | 
 b      | text    |           |          | 

             List of relations
  Schema   |  Name  | Type  | Owner | Table 
-----------+--------+-------+-------+-------
 pg_temp_N | t_pkey | index | root  | t
(1 row)

`
	if got != want {
		t.Fatalf("psql output:\n%s\nwant:\n%s", got, want)
	}
}
