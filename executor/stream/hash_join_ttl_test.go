package stream

import (
	"context"
	"strings"
	"testing"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// ttlJoinNode is joinNode with a state TTL of ttlMs on both sides: their
// state rows end with the time stored, and TTL indexes 1005 and 1006.
func ttlJoinNode(kind planner.JoinKind, ttlMs int64) *planner.StreamHashJoin {
	n := joinNode(kind, nil)
	n.TTLMs = ttlMs
	for _, st := range []*planner.StateTableDesc{&n.LeftState, &n.RightState} {
		st.Cols = append(st.Cols, types.Column{Name: "_write_ms", T: types.TInt8, NotNull: true})
	}
	idx := func(id uint32) planner.StateTableDesc {
		cols := types.Schema{{Name: "_write_ms", T: types.TInt8}, {Name: "k", T: types.TInt8}, {Name: "id", T: types.TInt8}}
		return planner.StateTableDesc{ID: id, Cols: cols, KeyCols: []int{0, 1, 2}, OrderDesc: make([]bool, 3)}
	}
	n.LeftTTL, n.RightTTL = idx(1005), idx(1006)
	return n
}

// runJoinCommitted runs n over script like runJoin, committing each
// epoch's write set at its barrier, and returns the output and the
// environment (whose tables can then be counted).
func runJoinCommitted(t *testing.T, n *planner.StreamHashJoin, script string) (string, *opEnv) {
	t.Helper()
	e := newOpEnv(t)
	e.actx = joinActx(e.db)
	s := parseSided(t, script)
	j := newScriptedJoin(t, e.actx, n, s)
	defer j.Close()
	var b strings.Builder
	for left := s.barriers(); left > 0; {
		m, err := j.Next(context.Background())
		if err != nil {
			t.Fatalf("after\n%s: %v", b.String(), err)
		}
		b.WriteString(joinRender(m))
		if _, ok := m.(types.Barrier); ok {
			if err := e.actx.WriteSet.Commit(); err != nil {
				t.Fatal(err)
			}
			e.actx.WriteSet = e.db.NewBatch()
			left--
		}
	}
	return b.String(), e
}

// TestHashJoinStateTTL checks that a left join forgets the rows of either
// side stored more than the TTL before a barrier's epoch time, without
// output: a later row of the other side no longer matches them, and the
// padded and joined rows emitted stay.
func TestHashJoinStateTTL(t *testing.T) {
	got, e := runJoinCommitted(t, ttlJoinNode(planner.LeftJoin, 1000), `
barrier @1000
L + 1 10 100
R + 1 10 1000
barrier @1500
R + 2 10 1001
barrier @2100
R + 3 10 1002
L + 2 10 200
barrier @2200
barrier @2600
`)
	// Left row 1 and right row 1 (stored at 1000) expire at 2100: right
	// row 3 finds no partner. Right row 2 (1500) expires at 2600.
	joinCheck(t, got, `
barrier 65536000
  I I  I   I I I
+ 1 10 100 . . .
  I I  I   I I  I
- 1 10 100 . .  .
+ 1 10 100 1 10 1000
barrier 98304000
  I I  I   I I  I
+ 1 10 100 2 10 1001
barrier 137625600
  I I  I   I I  I
+ 2 10 200 2 10 1001
+ 2 10 200 3 10 1002
barrier 144179200
barrier 170393600
`)
	for _, c := range []struct {
		id   uint32
		want int
	}{{1001, 1}, {1002, 1}, {1005, 1}, {1006, 1}} {
		if n := stateRows(t, e, c.id); n != c.want {
			t.Errorf("state table %d holds %d rows, want %d", c.id, n, c.want)
		}
	}
}
