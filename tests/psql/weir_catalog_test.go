package psql

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/weirdb/weir/tests/testenv"
)

// weirCatalogSetup makes a table and a materialized view over it with
// one actor per fragment, so that its operators' counts are exact.
const weirCatalogSetup = `
CREATE TABLE orders (id int PRIMARY KEY, customer int, amount int);
CREATE MATERIALIZED VIEW per_customer WITH (streaming_parallelism = 1) AS
  SELECT customer, count(*) AS n, sum(amount) AS total FROM orders GROUP BY customer;
INSERT INTO orders SELECT x, x % 3, x FROM generate_series(1, 100) x;
`

// weirCatalogInput is what a user would type to find weir's own views
// and see a running view at work.
const weirCatalogInput = `\dn
\dt weir.*
\d+ weir.jobs
SELECT table_name FROM information_schema.tables WHERE table_schema = 'weir' AND table_name LIKE 's%' ORDER BY 1;
SELECT name, kind, status, restarts, backfill_done FROM weir.jobs;
SELECT operator_id, operator, rows_in, rows_out, state_rows FROM weir.operators WHERE job = 'per_customer' ORDER BY operator_id;
EXPLAIN MATERIALIZED VIEW per_customer;
INSERT INTO orders VALUES (101, 7, 5);
EXPLAIN MATERIALIZED VIEW per_customer;
EXPLAIN SINK per_customer;
SHOW COLUMNS FROM orders;
SHOW COLUMNS FROM weir.checkpoints;
`

// TestPsqlWeirCatalog checks, with psql, that the weir schema is found
// as any schema is (\dn, \dt weir.*, information_schema), that \d+
// describes every column of its views, and that EXPLAIN MATERIALIZED
// VIEW shows the running dataflow with its operators' live row counts
// and state sizes: after one more row, the counts move. The output is
// compared with testdata/weir_catalog.txt (-rewrite regenerates it).
func TestPsqlWeirCatalog(t *testing.T) {
	if testenv.TargetName() == "postgres" {
		t.Log("weir's own catalog: nothing to check on PostgreSQL")
		return
	}
	dir := t.TempDir()
	w := testenv.Start(t, testenv.Options{})
	if out := psql(t, w, dir, weirCatalogSetup); len(out) != 0 {
		t.Fatalf("setup printed:\n%s", out)
	}
	got := psql(t, w, dir, weirCatalogInput)
	path := filepath.Join("testdata", "weir_catalog.txt")
	if *rewrite {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -rewrite to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}
