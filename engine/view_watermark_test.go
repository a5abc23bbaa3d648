package engine

import (
	"fmt"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/types"
)

// TestViewWatermarkStored checks that a view's watermarks are committed
// with the checkpoints, that a job rebuilt after a crash starts from
// them, and that dropping the view removes them.
func TestViewWatermarkStored(t *testing.T) {
	fs := vfs.NewCrashableMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE src (k int, v int, ts timestamp, WATERMARK FOR ts AS ts - INTERVAL '5 seconds') APPEND ONLY")
	mustRun(t, s, "CREATE MATERIALIZED VIEW a AS SELECT k, ts, v FROM src WHERE v > 0")
	mustRun(t, s, "INSERT INTO src VALUES (1, 1, '2024-01-01 10:00:10'), (2, 1, '2024-01-01 10:01:20')")
	mustRun(t, s, "FLUSH")
	mustRun(t, s, "FLUSH")
	src, _ := e.cat.Lookup("public", "src")
	a, _ := e.cat.Lookup("public", "a")
	tw, ok, err := e.db.Meta(watermarkMetaKey(src.ID))
	if err != nil || !ok {
		t.Fatalf("table watermark: %v %v", ok, err)
	}
	// a passes ts through, as its column 1: the table's watermark
	// (10:01:15) on it.
	want := "1:" + string(tw)
	if v, ok, err := e.db.Meta(viewWatermarkMetaKey(a.ID)); err != nil || string(v) != want {
		t.Fatalf("view watermark entry: got %q (%v, %v), want %q", v, ok, err, want)
	}
	crashed := fs.CrashClone(vfs.CrashCloneCfg{})
	e.Close()

	e = openTest(t, crashed)
	defer e.Close()
	s = session(t, e)
	e.writeMu.Lock()
	j := e.st.jobs[types.JobID(a.ID)]
	e.writeMu.Unlock()
	if j == nil {
		t.Fatal("no job for a after the restart")
	}
	got := j.watermarks()
	if len(got) != 1 || got[0].Col != 1 || fmt.Sprint(got[0].Val.I) != string(tw) {
		t.Fatalf("rebuilt job's watermarks: got %+v, want column 1 at %s", got, tw)
	}
	// A view created after the restart closes the windows the stored
	// watermark has passed.
	mustRun(t, s, `CREATE MATERIALIZED VIEW b AS SELECT window_start, count(*) AS n
		FROM TUMBLE(a, ts, INTERVAL '1 minute') GROUP BY window_start EMIT ON WINDOW CLOSE`)
	wantRows(t, s, "SELECT * FROM b", "2024-01-01 10:00:00 1")
	mustRun(t, s, "DROP MATERIALIZED VIEW b")
	mustRun(t, s, "DROP MATERIALIZED VIEW a")
	mustRun(t, s, "FLUSH")
	if v, ok, _ := e.db.Meta(viewWatermarkMetaKey(a.ID)); ok {
		t.Fatalf("dropped view's watermarks still stored: %q", v)
	}
}
