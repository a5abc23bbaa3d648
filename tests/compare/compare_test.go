// Package compare runs SQL scripts through the real psql against weir and
// against PostgreSQL 15 and requires byte-identical output: result
// tables, command tags suppressed by -q, NOTICEs, and psql's error lines
// with the LINE/caret excerpt built from the error's position.
//
// With WEIR_COMPARE_SELF=1 both sides are PostgreSQL (each script runs
// twice on a recreated database), which checks the scripts and the
// machinery themselves: a script whose output is not deterministic fails
// there.
package compare

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/weirdb/weir/tests/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }

// runPsql runs script (a file name in the current directory) through psql
// with a fixed environment and returns stdout followed by stderr. psql's
// exit status is ignored: with ON_ERROR_STOP=0 errors are part of the
// output being compared.
func runPsql(t *testing.T, target testenv.Target, script string) []byte {
	t.Helper()
	cmd := exec.Command("psql", "-X", "-q", "-v", "ON_ERROR_STOP=0",
		"-h", target.Host(), "-p", strconv.Itoa(target.Port()),
		"-U", target.User(), "-d", target.Database(), "-f", script)
	cmd.Env = PsqlEnv(t.TempDir())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("running psql: %v", err)
		}
	}
	return append(stdout.Bytes(), stderr.Bytes()...)
}

// PsqlEnv returns the environment psql runs with: no PG* variables except
// a UTF8 client encoding, the C locale (so psql's own messages are not
// translated) and an empty home (no .psqlrc, no history).
func PsqlEnv(home string) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"LC_ALL=C",
		"PGCLIENTENCODING=UTF8",
		"PGCONNECT_TIMEOUT=10",
	}
}

// Diff returns a unified diff of a and b (diff -u), labelled.
func Diff(t *testing.T, labelA string, a []byte, labelB string, b []byte) string {
	dir := t.TempDir()
	pa, pb := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.WriteFile(pa, a, 0o644)
	os.WriteFile(pb, b, 0o644)
	out, _ := exec.Command("diff", "-u", "--label", labelA, "--label", labelB, pa, pb).CombinedOutput()
	return string(out)
}

func TestCompareWithPostgres(t *testing.T) {
	scripts, err := filepath.Glob("*.sql")
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no *.sql scripts in tests/compare (%v)", err)
	}
	sort.Strings(scripts)
	self := os.Getenv("WEIR_COMPARE_SELF") != ""

	pg := testenv.StartPostgres(t)
	pg.CreateUserDB(t, "root", "dev")
	ref := pg.As("root", "dev")

	ran, passed := 0, 0
	for _, script := range scripts {
		started := false
		ok := t.Run(strings.TrimSuffix(script, ".sql"), func(t *testing.T) {
			started = true
			pg.RecreateDB(t, "dev", "root")
			want := runPsql(t, ref, script)

			var got []byte
			label := "weir"
			if self {
				label = "postgres (second run)"
				pg.RecreateDB(t, "dev", "root")
				got = runPsql(t, ref, script)
			} else {
				got = runPsql(t, testenv.Start(t, testenv.Options{}), script)
			}
			if !bytes.Equal(want, got) {
				t.Errorf("%s: output differs from PostgreSQL's:\n%s", script, Diff(t, "postgres", want, label, got))
			}
		})
		// A script -run filters out is neither run nor passed.
		if started {
			ran++
			if ok {
				passed++
			}
		}
	}
	summary := fmt.Sprintf("compare: %d scripts, %d passed", ran, passed)
	fmt.Println(summary)
	t.Log(summary)
}

// TestCompareDetectsDifferences checks that the comparison fails when the
// two sides differ: a script run on a database that lacks a table must
// not compare equal to a run where the table exists.
func TestCompareDetectsDifferences(t *testing.T) {
	pg := testenv.StartPostgres(t)
	pg.CreateUserDB(t, "root", "dev")
	dir := t.TempDir()
	script := filepath.Join(dir, "probe.sql")
	os.WriteFile(script, []byte("SELECT * FROM probe;\nSELECT 1 +;\n"), 0o644)
	without := runPsql(t, pg.As("root", "dev"), script)
	pg.RecreateDB(t, "dev", "root")
	// dev was recreated, so create the table inside it.
	c := exec.Command("psql", "-X", "-q", "-h", pg.Host(), "-p", strconv.Itoa(pg.Port()), "-U", "root", "-d", "dev", "-c", "CREATE TABLE probe (a int); INSERT INTO probe VALUES (7)")
	c.Env = PsqlEnv(dir)
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	with := runPsql(t, pg.As("root", "dev"), script)
	if bytes.Equal(with, without) {
		t.Fatalf("outputs are equal, want a difference:\n%s", with)
	}
	d := Diff(t, "without", without, "with", with)
	for _, want := range []string{"--- without", "+++ with", `-psql:` + script + `:1: ERROR:  relation "probe" does not exist`, "+ 7"} {
		if !strings.Contains(d, want) {
			t.Errorf("diff lacks %q:\n%s", want, d)
		}
	}
	if !strings.Contains(string(without), "LINE 1: SELECT 1 +;\n"+strings.Repeat(" ", 18)+"^") {
		t.Errorf("psql error output lacks the caret line:\n%s", without)
	}
}
