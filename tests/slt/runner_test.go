package slt

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/weirdb/weir/tests/testenv"
)

func TestParse(t *testing.T) {
	text := "# comment\nstatement error 23505\nINSERT INTO t\nVALUES (1)\n\nquery IT rowsort lbl\nSELECT $1::int, 'a'\nparams: [7, \"s\", null, 1.5, true]\n----\n7 a\n\nquery error division by zero\nSELECT 1/0\n\nconnection c2\nsleep 1ms\nrestart\nkill\nhalt\n"
	recs, err := Parse("x.slt", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 8 {
		t.Fatalf("got %d records, want 8: %+v", len(recs), recs)
	}
	st := recs[0]
	if st.Kind != Statement || !st.ExpectError || st.ErrPattern != "23505" || st.SQL != "INSERT INTO t\nVALUES (1)" || st.Line != 2 {
		t.Errorf("statement record: %+v", st)
	}
	q := recs[1]
	if q.Kind != Query || q.Types != "IT" || q.Sort != RowSort || q.Label != "lbl" || q.Line != 6 {
		t.Errorf("query record: %+v", q)
	}
	if want := []any{int64(7), "s", nil, 1.5, true}; !reflect.DeepEqual(q.Params, want) {
		t.Errorf("params %#v, want %#v", q.Params, want)
	}
	if !reflect.DeepEqual(q.Expected, []string{"7 a"}) {
		t.Errorf("expected %q", q.Expected)
	}
	if e := recs[2]; e.Kind != Query || !e.ExpectError || e.ErrPattern != "division by zero" {
		t.Errorf("query error record: %+v", e)
	}
	kinds := []Kind{Connection, Sleep, Restart, Kill, Halt}
	for i, k := range kinds {
		if recs[3+i].Kind != k {
			t.Errorf("record %d kind %v, want %v", 3+i, recs[3+i].Kind, k)
		}
	}
	if recs[3].Arg != "c2" {
		t.Errorf("connection arg %q", recs[3].Arg)
	}
	for _, bad := range []string{"bogus\n", "statement maybe\nSELECT 1\n", "statement ok\nSELECT 1\n----\n1\n", "query I\n----\n1\n", "query I\nSELECT 1\nparams: [1\n"} {
		if _, err := Parse("bad.slt", []byte(bad)); err == nil {
			t.Errorf("Parse(%q) succeeded, want an error", bad)
		}
	}
}

func TestRenderRows(t *testing.T) {
	rows := [][]string{{"2", "b"}, {"1", "NULL"}}
	if got := renderRows(rows, NoSort); !reflect.DeepEqual(got, []string{"2 b", "1 NULL"}) {
		t.Errorf("nosort: %q", got)
	}
	if got := renderRows(rows, RowSort); !reflect.DeepEqual(got, []string{"1 NULL", "2 b"}) {
		t.Errorf("rowsort: %q", got)
	}
	if got := renderRows(rows, ValueSort); !reflect.DeepEqual(got, []string{"1", "2", "NULL", "b"}) {
		t.Errorf("valuesort: %q", got)
	}
	if FormatValue(nil, true) != "NULL" || FormatValue([]byte{}, false) != "(empty)" || FormatValue([]byte("x y"), false) != "x y" {
		t.Error("FormatValue")
	}
}

// TestRunnerReportsFailures feeds the runner deliberately wrong
// expectations and checks each one is reported at its line, then checks a
// correct file (sessions, include, restart, kill, halt) passes and that
// -rewrite repairs a wrong file. It runs against PostgreSQL, the
// reference the .slt files are validated with.
func TestRunnerReportsFailures(t *testing.T) {
	pg := testenv.StartPostgres(t)
	pg.CreateUserDB(t, "root", "dev")

	pg.RecreateDB(t, "bad", "root")
	r := &Runner{Target: pg.As("root", "bad")}
	failures := r.RunFile("testdata/selftest_bad.slt")
	var lines []int
	for _, f := range failures {
		lines = append(lines, f.Line)
		t.Logf("reported as expected: %s", f)
	}
	if want := []int{11, 19, 23, 27, 31, 37, 41, 49}; !reflect.DeepEqual(lines, want) {
		t.Errorf("failures at lines %v, want %v", lines, want)
	}
	if len(failures) > 0 {
		f := failures[0].String()
		for _, want := range []string{"selftest_bad.slt:11:", "SELECT a, b FROM t", "3 wrong", "3 (empty)"} {
			if !strings.Contains(f, want) {
				t.Errorf("first failure report lacks %q:\n%s", want, f)
			}
		}
	}

	pg.RecreateDB(t, "good", "root")
	r = &Runner{Target: pg.As("root", "good")}
	for _, f := range r.RunFile("testdata/selftest_good.slt") {
		t.Errorf("good file: %s", f)
	}

	// -rewrite: the repaired copy of a wrong file must then pass.
	dir := t.TempDir()
	text := "statement ok\nCREATE TABLE t (a int)\n\nstatement ok\nINSERT INTO t VALUES (2), (1)\n\nquery I\nSELECT a FROM t ORDER BY a\n----\n5\n\nquery I rowsort\nSELECT a FROM t\n\nquery I\nSELECT a FROM t WHERE a = 0\n----\n9\n"
	path := filepath.Join(dir, "rw.slt")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	pg.RecreateDB(t, "rw", "root")
	r = &Runner{Target: pg.As("root", "rw"), Rewrite: true}
	for _, f := range r.RunFile(path) {
		t.Errorf("rewrite run: %s", f)
	}
	got, _ := os.ReadFile(path)
	want := "statement ok\nCREATE TABLE t (a int)\n\nstatement ok\nINSERT INTO t VALUES (2), (1)\n\nquery I\nSELECT a FROM t ORDER BY a\n----\n1\n2\n\nquery I rowsort\nSELECT a FROM t\n----\n1\n2\n\nquery I\nSELECT a FROM t WHERE a = 0\n----\n"
	if string(got) != want {
		t.Errorf("rewritten file:\n%s\nwant:\n%s", got, want)
	}
	pg.RecreateDB(t, "rw", "root")
	r = &Runner{Target: pg.As("root", "rw")}
	for _, f := range r.RunFile(path) {
		t.Errorf("rewritten file fails: %s", f)
	}
}
