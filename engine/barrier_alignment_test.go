package engine

import (
	"fmt"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/pgerr"
)

// TestBarrierAlignmentOption checks the view option
// streaming.barrier_alignment: 'false' builds a job whose join inputs
// skip alignment and which still follows DML (every write is its own
// checkpoint here, so nothing runs ahead), and a value that is not a
// boolean is refused with 22023 and leaves no view behind.
func TestBarrierAlignmentOption(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE a (id int PRIMARY KEY, g int)")
	mustRun(t, s, "CREATE TABLE b (g int PRIMARY KEY, name text)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW j WITH (streaming.barrier_alignment = 'false', streaming_parallelism = 2) AS "+
		"SELECT b.name, count(*) AS n FROM a JOIN b ON a.g = b.g GROUP BY b.name")
	mustRun(t, s, "INSERT INTO b VALUES (1, 'x'), (2, 'y')")
	for i := 1; i <= 20; i++ {
		mustRun(t, s, fmt.Sprintf("INSERT INTO a VALUES (%d, %d)", i, 1+i%2))
	}
	wantRows(t, s, "SELECT * FROM j ORDER BY name", "x 10", "y 10")
	mustRun(t, s, "UPDATE b SET name = 'z' WHERE g = 2")
	wantRows(t, s, "SELECT * FROM j ORDER BY name", "x 10", "z 10")

	_, err := run(t, s, "CREATE MATERIALIZED VIEW bad WITH (streaming.barrier_alignment = 'sometimes') AS SELECT * FROM a")
	if pgerr.CodeOf(err) != pgerr.InvalidParameterValue {
		t.Fatalf("bad streaming.barrier_alignment: %v", err)
	}
	if _, err := run(t, s, "SELECT * FROM bad"); pgerr.CodeOf(err) != pgerr.UndefinedTable {
		t.Fatalf("view bad after a refused CREATE: %v", err)
	}
}

// TestBarrierAlignmentValues checks how the option's values read.
func TestBarrierAlignmentValues(t *testing.T) {
	for _, tc := range []struct {
		with    map[string]string
		aligned bool
		bad     bool
	}{
		{with: nil, aligned: true},
		{with: map[string]string{optBarrierAlignment: "true"}, aligned: true},
		{with: map[string]string{optBarrierAlignment: "FALSE"}},
		{with: map[string]string{optBarrierAlignment: "off"}},
		{with: map[string]string{optBarrierAlignment: ""}, bad: true},
		{with: map[string]string{optBarrierAlignment: "no way"}, bad: true},
	} {
		got, err := barrierAlignment(tc.with)
		if tc.bad {
			if pgerr.CodeOf(err) != pgerr.InvalidParameterValue {
				t.Errorf("%v: err %v, want 22023", tc.with, err)
			}
			continue
		}
		if err != nil || got != tc.aligned {
			t.Errorf("%v: %v, %v; want %v", tc.with, got, err, tc.aligned)
		}
	}
}
