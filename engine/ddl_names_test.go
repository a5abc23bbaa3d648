package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/wire"
)

// runTag runs one statement and returns its command tag.
func runTag(t *testing.T, s wire.Session, text string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := s.Prepare(ctx, text, nil)
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	r, err := p.Execute(ctx, nil, &testIO{})
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	defer r.Close()
	for {
		row, err := r.Next(ctx)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if row == nil {
			return r.Tag()
		}
	}
}

// TestAlterViewNames: ALTER VIEW and ALTER MATERIALIZED VIEW answer with
// their own command tag, as PostgreSQL does, and weir's refusal of DDL
// in a transaction block names the statement as written.
func TestAlterViewNames(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (a int)")
	mustRun(t, s, "CREATE VIEW v AS SELECT 1 AS x")
	mustRun(t, s, "CREATE MATERIALIZED VIEW mv AS SELECT 1 AS x")
	// In order: each renames what the one before named.
	for _, c := range [][2]string{
		{"ALTER VIEW v RENAME COLUMN x TO y", "ALTER VIEW"},
		{"ALTER VIEW IF EXISTS nosuch RENAME COLUMN x TO y", "ALTER VIEW"},
		{"ALTER MATERIALIZED VIEW mv RENAME x TO y", "ALTER MATERIALIZED VIEW"},
		{"ALTER MATERIALIZED VIEW IF EXISTS nosuch RENAME COLUMN x TO y", "ALTER MATERIALIZED VIEW"},
		{"ALTER TABLE IF EXISTS nosuch RENAME COLUMN x TO y", "ALTER TABLE"},
		{"ALTER TABLE v RENAME COLUMN y TO z", "ALTER TABLE"},
	} {
		if got := runTag(t, s, c[0]); got != c[1] {
			t.Errorf("%s: tag %q, want %q", c[0], got, c[1])
		}
	}
	mustRun(t, s, "BEGIN")
	for stmt, name := range map[string]string{
		"ALTER VIEW v RENAME COLUMN z TO w":              "ALTER VIEW",
		"ALTER VIEW v RENAME TO v2":                      "ALTER VIEW",
		"ALTER MATERIALIZED VIEW mv RENAME y TO z":       "ALTER MATERIALIZED VIEW",
		"ALTER MATERIALIZED VIEW mv RENAME TO mv2":       "ALTER MATERIALIZED VIEW",
		"ALTER MATERIALIZED VIEW mv SET PARALLELISM = 2": "ALTER MATERIALIZED VIEW",
		"ALTER TABLE t RENAME COLUMN a TO b":             "ALTER TABLE",
		"ALTER TABLE t RENAME TO t2":                     "ALTER TABLE",
		"DROP VIEW v":                                    "DROP VIEW",
	} {
		_, err := run(t, s, stmt)
		want := name + " cannot run inside a transaction block"
		if pgerr.CodeOf(err) != pgerr.FeatureNotSupported || err.Error() != want {
			t.Errorf("%s in a block: %v, want 0A000 %s", stmt, err, want)
		}
		mustRun(t, s, "ROLLBACK")
		mustRun(t, s, "BEGIN")
	}
	mustRun(t, s, "ROLLBACK")
}

// TestUnknownConnectorHint: the hint for an unknown connector lists the
// connectors weir has for a source and for a sink.
func TestUnknownConnectorHint(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (a int)")
	for stmt, want := range map[string][]string{
		"CREATE SOURCE s (a int) WITH (connector = 'nosuch', topic = 'x') FORMAT PLAIN ENCODE JSON": {"'kafka'", "'nexmark'", "'datagen'"},
		"CREATE TABLE k (a int) WITH (connector = 'nosuch', topic = 'x') FORMAT PLAIN ENCODE JSON":  {"'kafka'", "'nexmark'", "'datagen'"},
		"CREATE SINK k FROM t WITH (connector = 'nosuch', topic = 'x') FORMAT PLAIN ENCODE JSON":    {"'kafka'", "'postgres'", "'mysql'", "'blackhole'"},
	} {
		_, err := run(t, s, stmt)
		var pe *pgerr.Error
		if pgerr.CodeOf(err) != pgerr.FeatureNotSupported || !errors.As(err, &pe) {
			t.Errorf("%s: %v, want 0A000", stmt, err)
			continue
		}
		for _, w := range want {
			if !strings.Contains(pe.Hint, w) {
				t.Errorf("%s: hint %q lacks %s", stmt, pe.Hint, w)
			}
		}
	}
}
