package slt

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weirdb/weir/tests/testenv"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected query results in the .slt files from the actual output")

func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }

// sltFiles lists the test files below dir: every *.slt except those whose
// name starts with '_' (fragments for include) and those under testdata/.
// Files under weir/ test weir-only behaviour and are left out when the
// target is PostgreSQL.
func sltFiles(t *testing.T, dir string, postgres bool) []string {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() {
			if rel == "testdata" || (postgres && rel == "weir") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".slt") && !strings.HasPrefix(d.Name(), "_") {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no .slt files found under %s", dir)
	}
	return files
}

// TestSLT runs every .slt file against a fresh server, one per file:
// weir by default, or PostgreSQL with WEIR_SLT_TARGET=postgres.
func TestSLT(t *testing.T) {
	onPostgres := testenv.TargetName() == "postgres"
	files := sltFiles(t, ".", onPostgres)
	var pg *testenv.Postgres
	if onPostgres {
		pg = testenv.StartPostgres(t)
		pg.CreateUserDB(t, "root", "dev")
	}
	for i, file := range files {
		t.Run(strings.TrimSuffix(file, ".slt"), func(t *testing.T) {
			var target testenv.Target
			if onPostgres {
				db := fmt.Sprintf("slt_%d", i)
				pg.RecreateDB(t, db, "root")
				target = pg.As("root", db)
			} else {
				target = testenv.Start(t, testenv.Options{})
			}
			r := &Runner{Target: target, Rewrite: *rewrite}
			for _, f := range r.RunFile(file) {
				t.Error(f.String())
			}
		})
	}
}
