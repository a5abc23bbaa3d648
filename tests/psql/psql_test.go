// Package psql drives the real psql client's meta-commands (\d, \dt, \l,
// \copy, ...) against weir. psql implements them as catalog queries, so
// these tests pin down weir's pg_catalog surface as psql 15 sees it.
//
// Where weir's output should equal PostgreSQL's the case is compared with
// a live PostgreSQL 15 (same user root and database dev, so owners
// match). Where it legitimately differs (the database list, schemas,
// connection details) it is compared with a golden file in testdata/,
// regenerated with -rewrite. With WEIR_TEST_TARGET=postgres, PostgreSQL
// stands in for weir and the golden files live in testdata/postgres/.
package psql

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/weirdb/weir/tests/testenv"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the golden files in testdata/ from weir's output")

func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }

// setup is run on both servers before the cases.
const setup = `
CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL DEFAULT 'none', price numeric(8,2), added timestamptz, tags varchar(10));
CREATE TABLE people (id bigint, email text NOT NULL, ok boolean DEFAULT true);
CREATE VIEW cheap AS SELECT id, name FROM items WHERE price < 10;
CREATE MATERIALIZED VIEW item_count AS SELECT count(*) AS n, max(price) AS top FROM items;
CREATE TABLE loaded (id int PRIMARY KEY, name text, score double precision);
INSERT INTO items (id, name, price, tags) VALUES (1, 'pen', 2.50, 'office'), (2, DEFAULT, 12, NULL);
CREATE INDEX ON items (name);
CREATE INDEX people_email ON people (email, ok DESC) INCLUDE (id);
`

// cases are psql inputs. compare says whether the output must equal
// PostgreSQL's (true) or a golden file (false).
var cases = []struct {
	name    string
	input   string
	compare bool
}{
	{"d", `\d`, true},
	{"dt", `\dt`, true},
	{"dv", `\dv`, true},
	{"d_items", `\d items`, true},
	{"d_people", `\d people`, true},
	{"d_cheap", `\d cheap`, true},
	{"dm", `\dm`, true},
	{"d_item_count", `\d item_count`, true},
	{"d_missing", `\d nosuch`, true},
	// Patterns without a schema also match Postgres's pg_catalog tables,
	// whose set weir does not copy; these stay within public.
	{"dt_pattern", `\dt pe*`, true},
	{"dt_schema_pattern", `\dt public.p*`, true},
	{"d_index", `\d items_pkey`, true},
	{"di", `\di`, true},
	{"d_items_name_idx", `\d items_name_idx`, true},
	{"d_people_email", `\d people_email`, true},
	{"ds", `\ds`, true},
	{"dT", `\dT`, true},
	{"d_plus_items", `\d+ items`, true},
	{"d_plus_people", `\d+ people`, true},
	{"dv_plus", `\dv+`, true},
	{"expanded", "\\x on\nSELECT * FROM items;\n\\x off\nSELECT count(*) FROM people;\n", true},
	{"copy", "\\copy loaded from 'in.csv' csv header\n\\copy loaded to stdout\n\\copy loaded (id, name) to stdout csv header\nSELECT * FROM loaded ORDER BY id;\n", true},
	{"copy_bad", "\\copy loaded from 'bad.csv' csv header\nSELECT count(*) FROM loaded;\n", true},
	{"l", `\l`, false},
	// weir lists its own schema, weir (TestPsqlWeirCatalog).
	{"dn", `\dn`, false},
	// weir measures a relation by the bytes its store holds, not in
	// pages, prints a view's definition as written, and has the one role
	// root.
	{"dt_plus", `\dt+`, false},
	{"d_plus_cheap", `\d+ cheap`, false},
	{"du", `\du`, false},
	{"conninfo", `\conninfo`, false},
}

const inCSV = "id,name,score\n10,ten,1.5\n11,,2\n12,\"with, comma\",-0.25\n"
const badCSV = "id,name,score\n20,ok,1\nnotanumber,bad,2\n"

// psql runs input through psql against target in dir and returns stdout
// followed by stderr, with the port number replaced by PORT.
func psql(t *testing.T, target testenv.Target, dir, input string) []byte {
	t.Helper()
	cmd := exec.Command("psql", "-X", "-q", "-v", "ON_ERROR_STOP=0",
		"-h", target.Host(), "-p", strconv.Itoa(target.Port()),
		"-U", target.User(), "-d", target.Database())
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LC_ALL=C", "PGCLIENTENCODING=UTF8"}
	cmd.Stdin = strings.NewReader(input)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("running psql: %v", err)
		}
	}
	out := append(stdout.Bytes(), stderr.Bytes()...)
	return bytes.ReplaceAll(out, []byte(`"`+strconv.Itoa(target.Port())+`"`), []byte(`"PORT"`))
}

func TestPsqlMetaCommands(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "in.csv"), []byte(inCSV), 0o644)
	os.WriteFile(filepath.Join(dir, "bad.csv"), []byte(badCSV), 0o644)

	pg := testenv.StartPostgres(t)
	pg.CreateUserDB(t, "root", "dev")
	ref := pg.As("root", "dev")

	var sut testenv.Target
	golden := "testdata"
	if testenv.TargetName() == "postgres" {
		pg.CreateUserDB(t, "root", "sut")
		sut = pg.As("root", "sut")
		golden = filepath.Join("testdata", "postgres")
	} else {
		sut = testenv.Start(t, testenv.Options{})
	}
	for _, target := range []testenv.Target{ref, sut} {
		if out := psql(t, target, dir, setup); len(out) != 0 {
			t.Fatalf("setup on %s printed:\n%s", target.Kind(), out)
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := psql(t, sut, dir, c.input)
			if c.compare {
				want := psql(t, ref, dir, c.input)
				if !bytes.Equal(got, want) {
					t.Errorf("psql %q: output differs from PostgreSQL's\n--- postgres\n%s\n--- %s\n%s", c.input, want, sut.Kind(), got)
				}
				return
			}
			path := filepath.Join(golden, c.name+".txt")
			if *rewrite {
				os.MkdirAll(golden, 0o755)
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
				t.Errorf("psql %q: output differs from %s\n--- want\n%s\n--- got\n%s", c.input, path, want, got)
			}
		})
	}
}
