package psql

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/weirdb/weir/tests/testenv"
)

// dumpSource is the database pg_dump dumps: the constraints, defaults,
// sequences and indexes a plain dump restores after the rows, among them
// an index on a schema-qualified user function, which pg_dump writes
// as app.norm(email) without parentheses around it, and materialized
// views, which pg_dump creates WITH NO DATA (an index on one before it
// is filled) and fills with REFRESH MATERIALIZED VIEW at the end, but
// for one that was not populated.
const dumpSource = `
CREATE TABLE dept (id int PRIMARY KEY, name text NOT NULL UNIQUE);
CREATE SEQUENCE emp_ids;
CREATE TABLE emp (
  id int PRIMARY KEY DEFAULT nextval('emp_ids'),
  name text NOT NULL,
  dept int REFERENCES dept (id),
  salary numeric(10,2) DEFAULT 100 CHECK (salary > 0),
  code varchar(8),
  CONSTRAINT emp_code_key UNIQUE (code)
);
CREATE INDEX emp_name ON emp (name);
CREATE SEQUENCE tickets START 10;
CREATE TABLE nokey (a int, b text DEFAULT 'x');
INSERT INTO dept VALUES (1, 'eng'), (2, 'ops');
INSERT INTO emp (name, dept, salary, code) VALUES ('ann', 1, 50, 'a1'), ('bob', 2, DEFAULT, NULL), ('cy', NULL, 7.5, 'c''3');
INSERT INTO nokey VALUES (1, 'one'), (NULL, NULL), (1, 'one');
SELECT nextval('tickets');
CREATE SCHEMA app;
CREATE FUNCTION app.norm(t text) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT lower(t) $$;
CREATE TABLE app.customers (id int PRIMARY KEY, email text);
CREATE UNIQUE INDEX cust_email_norm ON app.customers (app.norm(email));
INSERT INTO app.customers VALUES (1, 'Ann@X'), (2, 'bob@y');
CREATE MATERIALIZED VIEW dept_pay AS SELECT d.name, count(*) AS n, sum(e.salary) AS total FROM emp e JOIN dept d ON d.id = e.dept GROUP BY d.name;
CREATE INDEX dept_pay_n ON dept_pay (n);
CREATE VIEW dept_pay_v AS SELECT name, total FROM dept_pay;
CREATE MATERIALIZED VIEW emp_names AS SELECT id, upper(name) AS uname FROM emp WITH NO DATA;
`

// dumpChecks are run on PostgreSQL's source database and on weir after
// the restore; their outputs must be the same.
const dumpChecks = `\d dept
\d emp
\d nokey
SELECT * FROM dept ORDER BY id;
SELECT * FROM emp ORDER BY id;
SELECT * FROM nokey ORDER BY a, b;
SELECT nextval('tickets'), nextval('emp_ids');
\d dept_pay
SELECT * FROM dept_pay ORDER BY name;
SELECT * FROM dept_pay_v ORDER BY name;
SELECT matviewname, ispopulated FROM pg_matviews ORDER BY 1;
SELECT * FROM emp_names;
INSERT INTO emp (name) VALUES ('dee') RETURNING *;
INSERT INTO emp (id, name) VALUES (1, 'dup');
INSERT INTO emp (name, dept) VALUES ('eve', 9);
INSERT INTO emp (name, salary) VALUES ('fay', -1);
INSERT INTO dept VALUES (3, 'eng');
\d app.customers
SELECT * FROM app.customers ORDER BY id;
INSERT INTO app.customers VALUES (3, 'ANN@x');
`

// TestPgDumpRestore restores plain pg_dump output of a PostgreSQL 15
// database into weir with psql -v ON_ERROR_STOP=1 -f, as COPY, as
// INSERTs and as multi-row INSERTs: every statement must succeed, and
// the tables (\d), rows, sequences and constraints must then be as in
// PostgreSQL.
func TestPgDumpRestore(t *testing.T) {
	bindir, err := testenv.PostgresBinDir()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pg := testenv.StartPostgres(t)
	pg.CreateUserDB(t, "root", "dev")
	src := pg.As("root", "dev")
	if out := psql(t, src, dir, dumpSource); bytes.Contains(out, []byte("ERROR")) {
		t.Fatalf("setting up PostgreSQL: %s", out)
	}
	for _, mode := range [][]string{nil, {"--inserts"}, {"--rows-per-insert=100000"}} {
		name := "copy"
		if mode != nil {
			name = mode[0][2:]
		}
		t.Run(name, func(t *testing.T) {
			dump := filepath.Join(dir, name+".sql")
			args := append([]string{"-h", src.Host(), "-p", strconv.Itoa(src.Port()), "-U", src.User(), "-d", src.Database(), "-f", dump}, mode...)
			cmd := exec.Command(filepath.Join(bindir, "pg_dump"), args...)
			cmd.Env = []string{"HOME=" + dir, "LC_ALL=C"}
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("pg_dump: %v\n%s", err, out)
			}
			w := testenv.Start(t, testenv.Options{})
			defer w.Stop()
			restore := exec.Command("psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", dump,
				"-h", w.Host(), "-p", strconv.Itoa(w.Port()), "-U", w.User(), "-d", w.Database())
			restore.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LC_ALL=C", "PGCLIENTENCODING=UTF8"}
			if out, err := restore.CombinedOutput(); err != nil {
				t.Fatalf("psql -f %s into weir: %v\n%s", filepath.Base(dump), err, out)
			}
			want := psql(t, src, dir, dumpChecks)
			got := psql(t, w, dir, dumpChecks)
			if !bytes.Equal(got, want) {
				t.Errorf("after the restore, weir differs from PostgreSQL's source\n--- postgres\n%s\n--- weir\n%s", want, got)
			}
		})
	}
}
