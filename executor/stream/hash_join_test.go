package stream

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// The join tests use two inputs of the same shape, (id, k, v) int8 with
// stream key id and join key k: output columns are l.id l.k l.v r.id r.k
// r.v (left's only for semi and anti).
var joinSideTypes = []types.T{types.TInt8, types.TInt8, types.TInt8}

var joinKindNames = map[planner.JoinKind]string{
	planner.InnerJoin: "inner", planner.LeftJoin: "left", planner.RightJoin: "right",
	planner.FullJoin: "full", planner.SemiJoin: "semi", planner.AntiJoin: "anti",
}

// sideNode returns a placeholder input node of the test shape.
func sideNode() planner.StreamNode {
	out := types.Schema{
		{Name: "id", T: types.TInt8, NotNull: true},
		{Name: "k", T: types.TInt8},
		{Name: "v", T: types.TInt8},
	}
	return &planner.StreamValues{StreamBase: planner.StreamBase{Out: out, StreamKey: []int{0}}}
}

// joinStateDesc is the stream planner's state layout for a join side:
// the input columns (+ _degree), keyed by join key + stream key.
func joinStateDesc(id uint32, name string, in planner.StreamNode, keys []int, degree bool) planner.StateTableDesc {
	b := in.Base()
	d := planner.StateTableDesc{ID: id, Name: name, Cols: append(types.Schema(nil), b.Out...)}
	for _, k := range append(append([]int(nil), keys...), b.StreamKey...) {
		dup := false
		for _, x := range d.KeyCols {
			dup = dup || x == k
		}
		if !dup {
			d.KeyCols = append(d.KeyCols, k)
		}
	}
	d.OrderDesc = make([]bool, len(d.KeyCols))
	d.DistKeyCols = append([]int(nil), keys...)
	if degree {
		d.Cols = append(d.Cols, types.Column{Name: "_degree", T: types.TInt8, NotNull: true})
	}
	return d
}

// joinNode returns a join of two test inputs on k = k with cond.
func joinNode(kind planner.JoinKind, cond planner.Expr) *planner.StreamHashJoin {
	return joinNodeKeys(kind, []int{1}, []int{1}, cond)
}

func joinNodeKeys(kind planner.JoinKind, lk, rk []int, cond planner.Expr) *planner.StreamHashJoin {
	l, r := sideNode(), sideNode()
	n := &planner.StreamHashJoin{Kind: kind, Left: l, Right: r, LeftKeys: lk, RightKeys: rk, Cond: cond}
	semi := kind == planner.SemiJoin || kind == planner.AntiJoin
	n.Out = append(types.Schema(nil), l.Base().Out...)
	n.StreamKey = []int{0}
	if !semi {
		n.Out = append(n.Out, r.Base().Out...)
		n.StreamKey = append(n.StreamKey, 3)
	}
	ld := kind == planner.LeftJoin || kind == planner.FullJoin || semi
	rd := kind == planner.RightJoin || kind == planner.FullJoin
	n.LeftState = joinStateDesc(1001, "join_left", l, lk, ld)
	n.RightState = joinStateDesc(1002, "join_right", r, rk, rd)
	return n
}

// sidedScript yields a script's messages in order with their side, as a
// joinReader: the tests decide the interleaving of the two inputs. The
// script form, one item per line:
//
//	barrier 3        aligned barrier of epoch {2, 3}
//	barrier @1500    aligned barrier of an epoch of time 1500 ms
//	L + 1 2 3        a left row (R: a right row); consecutive rows of
//	                 one side form one chunk
//	--               ends a chunk
//	wm L 1 5         a watermark of the left side on column 1 at 5
type sidedScript struct {
	sides []int
	msgs  []types.Message
}

func parseSided(t testing.TB, script string) *sidedScript {
	t.Helper()
	s := &sidedScript{}
	var rows []string
	side := -1
	var lastEpoch uint64
	flush := func() {
		if len(rows) == 0 {
			return
		}
		c, err := types.ParseChunk(strings.Join(rows, "\n"), joinSideTypes)
		if err != nil {
			t.Fatal(err)
		}
		s.sides = append(s.sides, side)
		s.msgs = append(s.msgs, c)
		rows = nil
	}
	for _, line := range strings.Split(script, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "--":
			flush()
		case "barrier":
			flush()
			e, _ := strconv.ParseUint(f[1], 10, 64)
			prev := e - 1
			if at, ok := strings.CutPrefix(f[1], "@"); ok {
				// barrier @MS: an epoch whose time is MS milliseconds,
				// after the previous barrier's.
				ms, _ := strconv.ParseUint(at, 10, 64)
				e, prev = ms<<types.EpochSeqBits, lastEpoch
			}
			lastEpoch = e
			s.sides = append(s.sides, 0)
			s.msgs = append(s.msgs, types.Barrier{Epoch: types.Epoch{Prev: prev, Curr: e}})
		case "wm":
			// wm L|R COL VALUE: an int8 watermark of one side.
			flush()
			c, _ := strconv.Atoi(f[2])
			v, _ := strconv.ParseInt(f[3], 10, 64)
			sd := 0
			if f[1] == "R" {
				sd = 1
			}
			s.sides = append(s.sides, sd)
			s.msgs = append(s.msgs, types.Watermark{Col: c, T: types.TInt8, Val: types.DInt(v)})
		case "L", "R":
			sd := 0
			if f[0] == "R" {
				sd = 1
			}
			if sd != side {
				flush()
				side = sd
			}
			rows = append(rows, strings.Join(f[1:], " "))
		default:
			t.Fatalf("bad script line %q", line)
		}
	}
	flush()
	return s
}

func (s *sidedScript) next(ctx context.Context) (int, types.Message, error) {
	if len(s.msgs) == 0 {
		return 0, nil, fmt.Errorf("script exhausted")
	}
	side, m := s.sides[0], s.msgs[0]
	s.sides, s.msgs = s.sides[1:], s.msgs[1:]
	return side, m, nil
}

func (s *sidedScript) close() {}

func (s *sidedScript) barriers() int {
	n := 0
	for _, m := range s.msgs {
		if _, ok := m.(types.Barrier); ok {
			n++
		}
	}
	return n
}

// newScriptedJoin returns join n over the scripted inputs.
func newScriptedJoin(t testing.TB, actx *ActorContext, n *planner.StreamHashJoin, script *sidedScript) *HashJoin {
	t.Helper()
	op, err := NewHashJoin(actx, &joinInput{}, &joinInput{}, n)
	if err != nil {
		t.Fatal(err)
	}
	j := op.(*HashJoin)
	j.in = script
	return j
}

func runJoin(t *testing.T, n *planner.StreamHashJoin, script string) (string, *ActorContext) {
	t.Helper()
	db := joinOpenDB(t, vfs.NewMem())
	t.Cleanup(func() { db.Close() })
	actx := joinActx(db)
	s := parseSided(t, script)
	j := newScriptedJoin(t, actx, n, s)
	defer j.Close()
	return joinDrain(t, j, s.barriers()), actx
}

// condLt is left.v < right.v; condDiv is 10 / (right.v - left.v) > 0,
// which fails (division by zero) when the values are equal.
func condLt() planner.Expr {
	return joinCall("<", types.TBool, joinCol(2, types.TInt8), joinCol(5, types.TInt8))
}

func condDiv() planner.Expr {
	return joinCall(">", types.TBool, joinCall("/", types.TInt8, joinInt(10), joinCall("-", types.TInt8, joinCol(5, types.TInt8), joinCol(2, types.TInt8))), joinInt(0))
}

var joinCases = []struct {
	name   string
	kind   planner.JoinKind
	cond   func() planner.Expr
	script string
	want   string
	errs   int // expression errors recorded
}{
	{
		name: "inner",
		kind: planner.InnerJoin,
		script: `
barrier 1
L + 1 10 100
L + 2 20 200
R + 1 10 1000
barrier 2
R + 2 10 1001
R + 3 30 1002
L - 1 10 100
barrier 3
`,
		want: `
barrier 1
 I  I   I   I  I    I
+ 1 10 100 1 10 1000
barrier 2
 I  I   I   I  I    I
+ 1 10 100 2 10 1001
 I  I   I   I  I    I
- 1 10 100 1 10 1000
- 1 10 100 2 10 1001
barrier 3
`,
	},
	{
		name: "inner many-to-many, updates, NULL keys",
		kind: planner.InnerJoin,
		script: `
barrier 1
L + 1 10 100
L + 2 10 200
L + 3 . 300
R + 1 10 1000
R + 2 10 1001
R + 3 . 1002
barrier 2
L U- 1 10 100
L U+ 1 10 101
--
R U- 1 10 1000
R U+ 1 20 1000
--
L U- 2 10 200
L U+ 2 20 200
--
L U- 3 . 300
L U+ 3 10 300
barrier 3
`,
		want: `
barrier 1
I I  I   I I  I
+ 1 10 100 1 10 1000
+ 2 10 200 1 10 1000
+ 1 10 100 2 10 1001
+ 2 10 200 2 10 1001
barrier 2
I I  I   I I  I
U- 1 10 100 1 10 1000
U+ 1 10 101 1 10 1000
U- 1 10 100 2 10 1001
U+ 1 10 101 2 10 1001
I I  I   I I  I
- 1 10 101 1 10 1000
- 2 10 200 1 10 1000
I I  I   I I  I
- 2 10 200 2 10 1001
+ 2 20 200 1 20 1000
I I  I   I I  I
+ 3 10 300 2 10 1001
barrier 3
`,
	},
	{
		name: "left degrees",
		kind: planner.LeftJoin,
		script: `
barrier 1
L + 1 10 100
L + 2 . 200
barrier 2
R + 1 10 1000
R + 2 10 1001
R + 3 . 1002
barrier 3
R - 1 10 1000
R - 2 10 1001
L U- 2 . 200
L U+ 2 . 201
barrier 4
L U- 1 10 100
L U+ 1 10 101
--
R + 4 10 1004
--
L U- 1 10 101
L U+ 1 20 101
--
L - 2 . 201
barrier 5
`,
		want: `
barrier 1
I I  I   I I I
+ 1 10 100 . . .
+ 2 .  200 . . .
barrier 2
I I  I   I I  I
- 1 10 100 . .  .
+ 1 10 100 1 10 1000
+ 1 10 100 2 10 1001
barrier 3
I I  I   I I  I
- 1 10 100 1 10 1000
- 1 10 100 2 10 1001
+ 1 10 100 . .  .
I I I   I I I
U- 2 . 200 . . .
U+ 2 . 201 . . .
barrier 4
I I  I   I I I
U- 1 10 100 . . .
U+ 1 10 101 . . .
I I  I   I I  I
- 1 10 101 . .  .
+ 1 10 101 4 10 1004
I I  I   I I  I
- 1 10 101 4 10 1004
+ 1 20 101 . .  .
I I I   I I I
- 2 . 201 . . .
barrier 5
`,
	},
	{
		name: "right degrees",
		kind: planner.RightJoin,
		script: `
barrier 1
R + 1 10 1000
R + 2 . 1001
barrier 2
L + 1 10 100
L + 2 10 200
barrier 3
L - 1 10 100
L U- 2 10 200
L U+ 2 20 200
--
R U- 1 10 1000
R U+ 1 20 1000
barrier 4
`,
		want: `
barrier 1
I I I I I  I
+ . . . 1 10 1000
+ . . . 2 .  1001
barrier 2
I I  I   I I  I
- . .  .   1 10 1000
+ 1 10 100 1 10 1000
+ 2 10 200 1 10 1000
barrier 3
I I  I   I I  I
- 1 10 100 1 10 1000
- 2 10 200 1 10 1000
+ . .  .   1 10 1000
I I  I   I I  I
- . .  .   1 10 1000
+ 2 20 200 1 20 1000
barrier 4
`,
	},
	{
		name: "full degrees",
		kind: planner.FullJoin,
		script: `
barrier 1
L + 1 10 100
R + 1 20 1000
barrier 2
L U- 1 10 100
L U+ 1 20 100
--
R + 2 . 1001
--
L + 2 . 200
barrier 3
R - 1 20 1000
--
L - 1 20 100
barrier 4
`,
		want: `
barrier 1
I I  I   I I I
+ 1 10 100 . . .
I I I I I  I
+ . . . 1 20 1000
barrier 2
I I  I   I I  I
- 1 10 100 . .  .
- . .  .   1 20 1000
+ 1 20 100 1 20 1000
I I I I I I
+ . . . 2 . 1001
I I I   I I I
+ 2 . 200 . . .
barrier 3
I I  I   I I  I
- 1 20 100 1 20 1000
+ 1 20 100 . .  .
I I  I   I I I
- 1 20 100 . . .
barrier 4
`,
	},
	{
		name: "semi",
		kind: planner.SemiJoin,
		script: `
barrier 1
L + 1 10 100
L + 2 . 200
R + 1 10 1000
R + 2 10 1001
barrier 2
R - 1 10 1000
--
L U- 1 10 100
L U+ 1 10 101
--
R - 2 10 1001
--
R + 3 . 1003
barrier 3
R + 4 10 1004
--
L U- 1 10 101
L U+ 1 20 101
barrier 4
`,
		want: `
barrier 1
I I  I
+ 1 10 100
barrier 2
I I  I
U- 1 10 100
U+ 1 10 101
I I  I
- 1 10 101
barrier 3
I I  I
+ 1 10 101
I I  I
- 1 10 101
barrier 4
`,
	},
	{
		name: "anti",
		kind: planner.AntiJoin,
		script: `
barrier 1
L + 1 10 100
L + 2 . 200
R + 1 10 1000
R + 2 10 1001
barrier 2
R - 1 10 1000
--
R - 2 10 1001
--
L U- 1 10 100
L U+ 1 10 101
--
R + 3 . 1003
barrier 3
R + 4 10 1004
--
L U- 2 . 200
L U+ 2 10 200
barrier 4
`,
		want: `
barrier 1
I I  I
+ 1 10 100
+ 2 .  200
I I  I
- 1 10 100
barrier 2
I I  I
+ 1 10 100
I I  I
U- 1 10 100
U+ 1 10 101
barrier 3
I I  I
- 1 10 101
I I I
- 2 . 200
barrier 4
`,
	},
	{
		name: "left residual condition",
		kind: planner.LeftJoin,
		cond: condLt,
		script: `
barrier 1
L + 1 10 5
R + 1 10 3
R + 2 10 7
barrier 2
R U- 1 10 3
R U+ 1 10 9
--
R U- 2 10 7
R U+ 2 10 1
--
L U- 1 10 5
L U+ 1 10 0
barrier 3
`,
		want: `
barrier 1
I I  I I I I
+ 1 10 5 . . .
I I  I I I  I
- 1 10 5 . .  .
+ 1 10 5 2 10 7
barrier 2
I I  I I I  I
+ 1 10 5 1 10 9
I I  I I I  I
- 1 10 5 2 10 7
I I  I I I  I
- 1 10 5 1 10 9
+ 1 10 0 1 10 9
+ 1 10 0 2 10 1
barrier 3
`,
	},
	{
		name: "full residual errors",
		kind: planner.FullJoin,
		cond: condDiv,
		errs: 2,
		script: `
barrier 1
L + 1 10 5
R + 1 10 5
R + 2 10 7
barrier 2
L - 1 10 5
barrier 3
`,
		want: `
barrier 1
I I  I I I I
+ 1 10 5 . . .
I I  I I I  I
+ . .  . 1 10 5
- 1 10 5 . .  .
+ 1 10 5 2 10 7
barrier 2
I I  I I I  I
- 1 10 5 2 10 7
+ . .  . 2 10 7
barrier 3
`,
	},
	{
		name: "anti residual condition",
		kind: planner.AntiJoin,
		cond: condLt,
		script: `
barrier 1
L + 1 10 5
R + 1 10 3
barrier 2
R + 2 10 7
--
R U- 2 10 7
R U+ 2 10 2
barrier 3
`,
		want: `
barrier 1
I I  I
+ 1 10 5
barrier 2
I I  I
- 1 10 5
I I  I
+ 1 10 5
barrier 3
`,
	},
}

// TestHashJoinWatermarks checks that a join forwards the minimum of both
// sides' watermarks on a join key (the planner's bounds l.k >= r.k and
// r.k >= l.k), on the sides never padded with NULLs, and a full join
// none.
func TestHashJoinWatermarks(t *testing.T) {
	script := `
barrier 1
wm L 1 5
wm L 2 9
wm R 1 3
wm L 1 7
wm R 1 6
wm R 1 8
wm R 1 8
barrier 2
`
	for _, tc := range []struct {
		kind planner.JoinKind
		want string
	}{
		{planner.InnerJoin, "barrier 1\nwm 1 3\nwm 4 3\nwm 1 6\nwm 4 6\nwm 1 7\nwm 4 7\nbarrier 2\n"},
		{planner.SemiJoin, "barrier 1\nwm 1 3\nwm 1 6\nwm 1 7\nbarrier 2\n"},
		{planner.AntiJoin, "barrier 1\nwm 1 3\nwm 1 6\nwm 1 7\nbarrier 2\n"},
		{planner.LeftJoin, "barrier 1\nwm 1 3\nwm 1 6\nwm 1 7\nbarrier 2\n"},
		{planner.RightJoin, "barrier 1\nwm 4 3\nwm 4 6\nwm 4 7\nbarrier 2\n"},
		{planner.FullJoin, "barrier 1\nbarrier 2\n"},
	} {
		got, _ := runJoin(t, withKeyBounds(joinNode(tc.kind, nil)), script)
		joinCheck(t, got, tc.want)
	}
}

// TestHashJoinRepeatedKeyColumn joins on l.k = r.k AND l.k = r.v: the
// left state is keyed by k once, and a probe from the right matches only
// when its two key values are equal.
func TestHashJoinRepeatedKeyColumn(t *testing.T) {
	script := `
barrier 1
L + 1 10 0
L + 2 11 0
R + 1 10 10
R + 2 10 11
R + 3 11 11
barrier 2
L - 1 10 0
L + 4 10 5
barrier 3
`
	want := `
barrier 1
 I  I  I  I  I  I
+ 1 10 0 1 10 10
+ 2 11 0 3 11 11
barrier 2
 I  I  I  I  I  I
- 1 10 0 1 10 10
+ 4 10 5 1 10 10
barrier 3
`
	got, _ := runJoin(t, joinNodeKeys(planner.InnerJoin, []int{1, 1}, []int{1, 2}, nil), script)
	joinCheck(t, got, want)
}

func TestHashJoinCases(t *testing.T) {
	for _, tc := range joinCases {
		t.Run(tc.name, func(t *testing.T) {
			var cond planner.Expr
			if tc.cond != nil {
				cond = tc.cond()
			}
			got, actx := runJoin(t, joinNode(tc.kind, cond), tc.script)
			joinCheck(t, got, tc.want)
			if n := len(actx.Errors.(*joinErrs).errs); n != tc.errs {
				t.Errorf("%d expression errors recorded, want %d: %v", n, tc.errs, actx.Errors.(*joinErrs).errs)
			}
		})
	}
}

// stepEpoch pulls from op until a barrier, returning the rendered output,
// then does what the actor does with the barrier: commits the epoch's
// write set to the database and starts a fresh one.
func stepEpoch(t testing.TB, op Operator, actx *ActorContext) string {
	t.Helper()
	var b strings.Builder
	for {
		m, err := op.Next(context.Background())
		if err != nil {
			t.Fatalf("after\n%s: %v", b.String(), err)
		}
		b.WriteString(joinRender(m))
		if _, ok := m.(types.Barrier); ok {
			if err := actx.WriteSet.Commit(); err != nil {
				t.Fatal(err)
			}
			actx.WriteSet = actx.DB.NewBatch()
			return b.String()
		}
	}
}

// TestHashJoinRestart checks that a join rebuilt from the state committed
// at a barrier continues exactly like an uninterrupted one, for every
// kind, including rows of an epoch that never committed (replayed after
// the restart).
func TestHashJoinRestart(t *testing.T) {
	head := `
barrier 1
L + 1 10 100
L + 2 . 200
R + 1 10 1000
R + 2 20 1001
barrier 2
L + 3 20 300
R - 1 10 1000
barrier 3
`
	lost := `
L - 3 20 300
R + 9 10 1009
`
	tail := `
R + 3 10 1002
L U- 2 . 200
L U+ 2 20 201
barrier 4
R - 2 20 1001
L - 1 10 100
barrier 5
`
	for _, kind := range []planner.JoinKind{planner.InnerJoin, planner.LeftJoin, planner.RightJoin, planner.FullJoin, planner.SemiJoin, planner.AntiJoin} {
		t.Run(joinKindNames[kind], func(t *testing.T) {
			// Uninterrupted.
			fs := vfs.NewMem()
			db := joinOpenDB(t, fs)
			actx := joinActx(db)
			s := parseSided(t, head+tail)
			j := newScriptedJoin(t, actx, joinNode(kind, nil), s)
			var want []string
			for i := 0; i < 5; i++ {
				want = append(want, stepEpoch(t, j, actx))
			}
			j.Close()
			db.Close()

			// Interrupted after barrier 3, with part of epoch 4 lost.
			fs = vfs.NewMem()
			db = joinOpenDB(t, fs)
			actx = joinActx(db)
			s = parseSided(t, head+lost)
			j = newScriptedJoin(t, actx, joinNode(kind, nil), s)
			var got []string
			for i := 0; i < 3; i++ {
				got = append(got, stepEpoch(t, j, actx))
			}
			// Rows of epoch 4 are processed but never committed.
			for len(s.msgs) > 0 {
				if _, err := j.Next(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			j.Close()
			actx.WriteSet.Close()
			db.Close()

			db = joinOpenDB(t, fs)
			defer db.Close()
			actx = joinActx(db)
			s = parseSided(t, "barrier 3\n"+tail)
			s.msgs[0] = types.Barrier{Epoch: types.Epoch{Prev: 3, Curr: 3}, Kind: types.BarrierInitial}
			j = newScriptedJoin(t, actx, joinNode(kind, nil), s)
			defer j.Close()
			stepEpoch(t, j, actx) // the initial barrier
			for i := 0; i < 2; i++ {
				got = append(got, stepEpoch(t, j, actx))
			}
			joinCheck(t, strings.Join(got, ""), strings.Join(want, ""))
		})
	}
}

// epochLines splits rendered output into epochs (the text before each
// barrier) with each epoch's rows sorted, the chunk headers dropped: the
// interleaving of two live inputs within an epoch is not deterministic.
func epochLines(out string) []string {
	var epochs []string
	var cur []string
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) == 0:
		case f[0] == "barrier":
			sort.Strings(cur)
			epochs = append(epochs, strings.Join(append(cur, strings.TrimSpace(l)), "\n"))
			cur = nil
		case f[0] == "+" || f[0] == "-" || f[0] == "U-" || f[0] == "U+":
			cur = append(cur, strings.Join(f, " "))
		}
	}
	return epochs
}

// TestHashJoinLiveInputs runs the join over real inputs, read
// concurrently: operators (pumped by goroutines) and exchange receivers.
// Barriers must be aligned: rows a side delivers after barrier e leave
// after e.
func TestHashJoinLiveInputs(t *testing.T) {
	left := `
barrier 1
+ 1 10 100
barrier 2
+ 2 10 200
barrier 3
`
	right := `
barrier 1
+ 1 10 1000
barrier 2
+ 2 10 1001
barrier 3
`
	want := []string{
		"barrier 1",
		"+ 1 10 100 1 10 1000\nbarrier 2",
		"+ 1 10 100 2 10 1001\n+ 2 10 200 1 10 1000\n+ 2 10 200 2 10 1001\nbarrier 3",
	}
	check := func(t *testing.T, l, r Operator) {
		db := joinOpenDB(t, vfs.NewMem())
		defer db.Close()
		actx := joinActx(db)
		j, err := NewHashJoin(actx, l, r, joinNode(planner.InnerJoin, nil))
		if err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		var out strings.Builder
		for i := 0; i < 3; i++ {
			out.WriteString(stepEpoch(t, j, actx))
		}
		if got := epochLines(out.String()); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	t.Run("operators", func(t *testing.T) {
		for i := 0; i < 20; i++ {
			check(t, &joinInput{msgs: joinScript(t, joinSideTypes, left)}, &joinInput{msgs: joinScript(t, joinSideTypes, right)})
		}
	})
	t.Run("exchanges", func(t *testing.T) {
		for i := 0; i < 20; i++ {
			var merges [2]Operator
			for side, script := range []string{left, right} {
				// Two upstream actors per side: the script's rows go to
				// the first, barriers to both.
				chs := []chan types.Message{make(chan types.Message, 16), make(chan types.Message, 16)}
				for _, m := range joinScript(t, joinSideTypes, script) {
					chs[0] <- m
					if _, ok := m.(types.Barrier); ok {
						chs[1] <- m
					}
				}
				merges[side] = newMerge([]<-chan types.Message{chs[0], chs[1]})
			}
			check(t, merges[0], merges[1])
		}
	})
}

type failingInput struct{ n int }

func (f *failingInput) Next(ctx context.Context) (types.Message, error) {
	if f.n == 0 {
		f.n++
		return types.Barrier{Epoch: types.Epoch{Prev: 0, Curr: 1}}, nil
	}
	return nil, fmt.Errorf("input failed")
}

func (f *failingInput) Close() {}

// TestHashJoinInputError checks that an input's error is the join's.
func TestHashJoinInputError(t *testing.T) {
	db := joinOpenDB(t, vfs.NewMem())
	defer db.Close()
	actx := joinActx(db)
	right := &joinInput{msgs: joinScript(t, joinSideTypes, "barrier 1\n+ 1 1 1\n")}
	j, err := NewHashJoin(actx, &failingInput{}, right, joinNode(planner.InnerJoin, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if m, err := j.Next(context.Background()); err != nil {
		t.Fatal(err)
	} else if _, ok := m.(types.Barrier); !ok {
		t.Fatalf("first message %v, want the barrier", m)
	}
	for i := 0; i < 3; i++ {
		if _, err = j.Next(context.Background()); err != nil {
			break
		}
	}
	if err == nil || !strings.Contains(err.Error(), "failed") && !strings.Contains(err.Error(), "exhausted") {
		t.Fatalf("got error %v, want the input's", err)
	}
}

// The helpers below are the join tests' own, so that they do not depend
// on other tests of the package.

// joinInput is an operator yielding scripted messages, then an error.
type joinInput struct {
	msgs []types.Message
}

func (s *joinInput) Next(ctx context.Context) (types.Message, error) {
	if len(s.msgs) == 0 {
		return nil, fmt.Errorf("script exhausted")
	}
	m := s.msgs[0]
	s.msgs = s.msgs[1:]
	return m, nil
}

func (s *joinInput) Close() {}

// joinScript parses a one-input script: barrier lines and pretty rows of
// the test shape.
func joinScript(t testing.TB, ts []types.T, script string) []types.Message {
	t.Helper()
	var lines []string
	for _, l := range strings.Split(script, "\n") {
		f := strings.Fields(l)
		if len(f) > 0 && f[0] != "barrier" && f[0] != "--" {
			l = "L " + l
		}
		lines = append(lines, l)
	}
	return parseSided(t, strings.Join(lines, "\n")).msgs
}

// joinRender prints a message in the test form.
func joinRender(m types.Message) string {
	switch x := m.(type) {
	case *types.Chunk:
		return x.String()
	case types.Barrier:
		return fmt.Sprintf("barrier %d\n", x.Epoch.Curr)
	case types.Watermark:
		return fmt.Sprintf("wm %d %s\n", x.Col, types.FormatText(x.Val, x.T, nil))
	}
	return "?\n"
}

// joinDrain pulls from op until it returned n barriers, rendering the
// messages.
func joinDrain(t testing.TB, op Operator, n int) string {
	t.Helper()
	var b strings.Builder
	for n > 0 {
		m, err := op.Next(context.Background())
		if err != nil {
			t.Fatalf("after\n%s: %v", b.String(), err)
		}
		b.WriteString(joinRender(m))
		if _, ok := m.(types.Barrier); ok {
			n--
		}
	}
	return b.String()
}

// joinCheck compares outputs ignoring the amount of white space.
func joinCheck(t testing.TB, got, want string) {
	t.Helper()
	norm := func(s string) string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			if f := strings.Fields(l); len(f) > 0 {
				out = append(out, strings.Join(f, " "))
			}
		}
		return strings.Join(out, "\n")
	}
	if norm(got) != norm(want) {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func joinOpenDB(t testing.TB, fs vfs.FS) *storage.DB {
	t.Helper()
	db, err := storage.Open("data", storage.Options{FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// joinErrs records expression errors.
type joinErrs struct {
	mu   sync.Mutex
	errs []string
}

func (e *joinErrs) Record(job types.JobID, op string, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.errs = append(e.errs, op+": "+err.Error())
}

func joinActx(db *storage.DB) *ActorContext {
	return &ActorContext{
		Job: 7, Actor: 1, Parallelism: 1, DB: db, Cache: storage.NewCache(1 << 20),
		WriteSet: db.NewBatch(), Errors: &joinErrs{}, Eval: &executor.EvalCtx{Context: functions.Context{Location: time.UTC}},
	}
}

func joinCol(i int, t types.T) *planner.ColRef { return &planner.ColRef{Idx: i, T: t} }

func joinCall(fn string, t types.T, args ...planner.Expr) *planner.Call {
	return &planner.Call{Fn: fn, Args: args, T: t}
}

func joinInt(v int64) *planner.Const { return &planner.Const{V: types.DInt(v), T: types.TInt8} }
