package engine

import (
	"fmt"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// TestDropRacingCreateView runs CREATE VIEW over a materialized view in
// the window where a DROP ... CASCADE of its table has stopped the
// view's job but not yet removed it from the catalog. The new view must
// not get in there: the DROP then failed on it (2BP01) and left the
// materialized view in the catalog without a job, its rows never
// changing again, and the next CREATE MATERIALIZED VIEW over it held up
// every checkpoint until checkpoint_timeout_ms. It waits for the DROP
// (here lock_timeout ends its wait), as a DDL adding a dependent does.
func TestDropRacingCreateView(t *testing.T) {
	for _, drop := range []string{"DROP TABLE c CASCADE", "DROP MATERIALIZED VIEW m"} {
		t.Run(drop, func(t *testing.T) {
			e := openTest(t, vfs.NewMem())
			defer e.Close()
			s := session(t, e)
			mustRun(t, s, "CREATE TABLE c (id int PRIMARY KEY, k int, v int)")
			mustRun(t, s, "INSERT INTO c SELECT g, g % 7, g FROM generate_series(1, 300) g")
			mustRun(t, s, "CREATE MATERIALIZED VIEW m AS SELECT k, count(*) AS n, sum(v) AS s FROM c GROUP BY k")
			other := session(t, e)
			mustRun(t, other, "SET lock_timeout = '10ms'")

			var createErr error
			ran := false
			prev := afterDropStoppedJobs
			afterDropStoppedJobs = func() {
				if !ran {
					ran = true
					_, createErr = run(t, other, "CREATE VIEW v AS SELECT * FROM m")
				}
			}
			_, dropErr := run(t, s, drop)
			afterDropStoppedJobs = prev
			if !ran {
				t.Fatal("the DROP stopped no job")
			}
			if dropErr != nil {
				t.Fatalf("%s: %v (CREATE VIEW in its window: %v)", drop, dropErr, createErr)
			}
			if pgerr.CodeOf(createErr) != pgerr.LockNotAvailable {
				t.Fatalf("CREATE VIEW while the DROP runs: got %v, want 55P03", createErr)
			}
			wantRows(t, s, "SELECT count(*) FROM pg_class WHERE relname IN ('m', 'v')", "0")
			assertViewsHaveJobs(t, e)
		})
	}
}

// assertViewsHaveJobs fails unless every materialized view in the
// catalog has a running job.
func assertViewsHaveJobs(t *testing.T, e *Engine) {
	t.Helper()
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	for _, rel := range e.cat.All() {
		if hasJob(rel) && e.st.jobs[types.JobID(rel.ID)] == nil {
			t.Errorf("%s", fmt.Sprintf("%s %q has no job", kindWords[rel.Kind], rel.Name))
		}
	}
}
