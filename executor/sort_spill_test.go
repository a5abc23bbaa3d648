package executor

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// countingTemp is a TempSpace over a storage.DB in memory that counts
// the tapes made.
type countingTemp struct {
	db    *storage.DB
	tapes int
}

func (c *countingTemp) NewTape() (*storage.Tape, error) {
	c.tapes++
	return c.db.NewTape()
}

// left returns the names of the tape files still in the logs directory.
func (c *countingTemp) left(t *testing.T) []string {
	t.Helper()
	fs := c.db.FS()
	names, err := fs.List(fs.PathJoin(c.db.Dir(), "logs"))
	if err != nil {
		t.Fatal(err)
	}
	var tapes []string
	for _, n := range names {
		if strings.HasPrefix(n, "tape-") {
			tapes = append(tapes, n)
		}
	}
	return tapes
}

func newTemp(t testing.TB) *countingTemp {
	t.Helper()
	db, err := storage.Open("data", storage.Options{FS: vfs.NewMem()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &countingTemp{db: db}
}

var spillRel = &catalog.Relation{ID: 9, Name: "s", Cols: []catalog.Column{
	{Name: "a", T: tI8}, {Name: "b", T: tTxt}, {Name: "c", T: tF8}, {Name: "d", T: tN}, {Name: "u", T: types.T{ID: types.Unknown}},
}}

// spillRows returns n rows: a has few values and NULLs, b is unique, c
// has NULLs, d is numeric with its scale kept, u an unknown-typed text.
func spillRows(n int) []types.Row {
	r := rand.New(rand.NewSource(1))
	rows := make([]types.Row, n)
	for i := range rows {
		a := types.DInt(int64(r.Intn(50)))
		if r.Intn(20) == 0 {
			a = types.NullDatum
		}
		c := types.DFloat(r.NormFloat64())
		if r.Intn(10) == 0 {
			c = types.NullDatum
		}
		rows[i] = types.Row{a, types.DString(fmt.Sprintf("%08d-%s", r.Intn(1e8), strings.Repeat("x", r.Intn(40)))),
			c, dec(fmt.Sprintf("%d.%02d", r.Intn(1000)-500, i%100)), types.DString(fmt.Sprintf("u%d", i))}
	}
	return rows
}

func spillScan(rows []types.Row, ec *ExecCtx) *planner.Scan {
	ec.Source = &fakeSource{rels: map[uint32][]types.Row{9: rows}}
	return &planner.Scan{Rel: spillRel, Cols: []int{0, 1, 2, 3, 4}, Out: schema(tI8, tTxt, tF8, tN, types.T{ID: types.Unknown})}
}

// sortText runs p and returns its rows as text, one a line.
func sortText(t *testing.T, p planner.Plan, ec *ExecCtx) []string {
	t.Helper()
	c, err := runPlan(t, p, ec)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, c.Len())
	for i := range out {
		r := c.Row(i)
		parts := make([]string, len(r))
		for j, d := range r {
			switch {
			case d.Null:
				parts[j] = "NULL"
			case d.D != nil:
				parts[j] = d.D.String()
			case j == 2:
				parts[j] = fmt.Sprint(d.F)
			case d.S != "" || j == 1 || j == 4:
				parts[j] = d.S
			default:
				parts[j] = fmt.Sprint(d.I)
			}
		}
		out[i] = strings.Join(parts, " ")
	}
	return out
}

// TestSortSpillsLikeMemory sorts 20,000 rows with a 64 kB work_mem, so
// into a hundred runs merged in several passes, by keys that decide
// every row's place, and checks the output equals the in-memory sort's,
// and that every tape is gone afterwards.
func TestSortSpillsLikeMemory(t *testing.T) {
	rows := spillRows(20000)
	keySets := map[string][]planner.SortKey{
		"a,b":                      {{Expr: col(0, tI8)}, {Expr: col(1, tTxt)}},
		"a desc nulls first,b":     {{Expr: col(0, tI8), Desc: true, NullsFirst: true}, {Expr: col(1, tTxt)}},
		"a nulls first,b desc":     {{Expr: col(0, tI8), NullsFirst: true}, {Expr: col(1, tTxt), Desc: true}},
		"c desc nulls last,d,u":    {{Expr: col(2, tF8), Desc: true}, {Expr: col(3, tN)}, {Expr: col(4, types.T{ID: types.Unknown})}},
		"d desc,b":                 {{Expr: col(3, tN), Desc: true}, {Expr: col(1, tTxt)}},
		"u (an unknown-typed key)": {{Expr: col(4, types.T{ID: types.Unknown})}},
		// A key computed from the row is stored after it in the runs.
		"a + 1 desc,b": {{Expr: &planner.Call{Fn: "+", Args: []planner.Expr{col(0, tI8), i8(1)}, T: tI8}, Desc: true}, {Expr: col(1, tTxt)}},
	}
	for name, keys := range keySets {
		t.Run(name, func(t *testing.T) {
			memEC := newEC()
			want := sortText(t, &planner.Sort{Input: spillScan(rows, memEC), Keys: keys}, memEC)
			temp := newTemp(t)
			ec := newEC()
			ec.WorkMem, ec.Temp = 64<<10, temp
			got := sortText(t, &planner.Sort{Input: spillScan(rows, ec), Keys: keys}, ec)
			if len(got) != len(want) {
				t.Fatalf("%d rows, want %d", len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("row %d: %s, want %s", i, got[i], want[i])
				}
			}
			// Some 100 runs of 64 kB, merged 6 at a time: more tapes
			// than runs means a merge pass wrote some.
			if temp.tapes <= 100 {
				t.Errorf("%d tapes made, want more than 100 (runs and merge passes)", temp.tapes)
			}
			if left := temp.left(t); len(left) != 0 {
				t.Errorf("tapes left after the sort: %v", left)
			}
		})
	}
}

// TestSortSpillsTies sorts by a key with many ties under a small
// work_mem: the output is ordered by the key and holds every input row.
func TestSortSpillsTies(t *testing.T) {
	rows := spillRows(10000)
	temp := newTemp(t)
	ec := newEC()
	ec.WorkMem, ec.Temp = 64<<10, temp
	got := sortText(t, &planner.Sort{Input: spillScan(rows, ec), Keys: []planner.SortKey{{Expr: col(0, tI8), Desc: true}}}, ec)
	memEC := newEC()
	want := sortText(t, spillScan(rows, memEC), memEC)
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	count := map[string]int{}
	for _, r := range want {
		count[r]++
	}
	prev := ""
	for i, r := range got {
		count[r]--
		a := strings.Fields(r)[0]
		if i > 0 && keyLess(prev, a) {
			t.Fatalf("row %d: a = %s after %s in a descending sort", i, a, prev)
		}
		prev = a
	}
	for r, n := range count {
		if n != 0 {
			t.Fatalf("row %q: %d more in than out", r, n)
		}
	}
	if temp.tapes == 0 {
		t.Fatal("the sort did not spill")
	}
}

// keyLess reports whether x must come after y in a DESC NULLS LAST
// sort: it is less, or NULL before a value.
func keyLess(x, y string) bool {
	if x == "NULL" || y == "NULL" {
		return x == "NULL" && y != "NULL"
	}
	var a, b int
	fmt.Sscan(x, &a)
	fmt.Sscan(y, &b)
	return a < b
}

// cancelAfter passes its input's chunks and cancels after the n-th.
type cancelAfter struct {
	in     Operator
	n      int
	cancel func()
}

func (c *cancelAfter) Next(ctx context.Context) (*types.Chunk, error) {
	if c.n == 0 {
		c.cancel()
	}
	c.n--
	return c.in.Next(ctx)
}

func (c *cancelAfter) Close() { c.in.Close() }

// TestSortSpillCancel cancels a spilling sort while it reads its input
// and while it merges: it stops with the context's error and leaves no
// tape behind.
func TestSortSpillCancel(t *testing.T) {
	rows := spillRows(10000)
	keys := []planner.SortKey{{Expr: col(1, tTxt)}}
	t.Run("loading", func(t *testing.T) {
		temp := newTemp(t)
		ec := newEC()
		ec.WorkMem, ec.Temp = 64<<10, temp
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		scan, err := Build(spillScan(rows, ec), ec)
		if err != nil {
			t.Fatal(err)
		}
		s, err := NewSort(&cancelAfter{in: scan, n: 5, cancel: cancel}, keys, spillScan(rows, ec).Schema(), ec)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Next(ctx); err != context.Canceled {
			t.Fatalf("got %v, want context.Canceled", err)
		}
		if temp.tapes == 0 {
			t.Fatal("the sort did not spill before the cancel")
		}
		if left := temp.left(t); len(left) != 0 {
			t.Errorf("tapes left after the cancel: %v", left)
		}
		s.Close()
	})
	t.Run("merging", func(t *testing.T) {
		temp := newTemp(t)
		ec := newEC()
		ec.WorkMem, ec.Temp = 64<<10, temp
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		op, err := Build(&planner.Sort{Input: spillScan(rows, ec), Keys: keys}, ec)
		if err != nil {
			t.Fatal(err)
		}
		if c, err := op.Next(ctx); err != nil || c == nil {
			t.Fatalf("first chunk: %v, %v", c, err)
		}
		cancel()
		if _, err := op.Next(ctx); err != context.Canceled {
			t.Fatalf("got %v, want context.Canceled", err)
		}
		if left := temp.left(t); len(left) != 0 {
			t.Errorf("tapes left after the cancel: %v", left)
		}
		op.Close()
	})
	t.Run("closed early", func(t *testing.T) {
		temp := newTemp(t)
		ec := newEC()
		ec.WorkMem, ec.Temp = 64<<10, temp
		op, err := Build(&planner.Sort{Input: spillScan(rows, ec), Keys: keys}, ec)
		if err != nil {
			t.Fatal(err)
		}
		if c, err := op.Next(context.Background()); err != nil || c == nil {
			t.Fatalf("first chunk: %v, %v", c, err)
		}
		if len(temp.left(t)) == 0 {
			t.Fatal("no tapes while merging")
		}
		op.Close()
		if left := temp.left(t); len(left) != 0 {
			t.Errorf("tapes left after Close: %v", left)
		}
	})
}

// TestSortTopN takes the first rows of a sort through a Limit, which
// bounds the sort: with keys that decide every row's place, the rows
// are those of the unbounded sort, whether the heap was used (many
// more rows than the bound) or not.
func TestSortTopN(t *testing.T) {
	rows := spillRows(5000)
	keys := []planner.SortKey{{Expr: col(2, tF8), Desc: true, NullsFirst: true}, {Expr: col(1, tTxt)}}
	memEC := newEC()
	all := sortText(t, &planner.Sort{Input: spillScan(rows, memEC), Keys: keys}, memEC)
	for _, c := range []struct{ limit, off int64 }{{1, 0}, {10, 0}, {10, 5}, {2000, 0}, {3000, 0}, {10000, 0}} {
		for _, workMem := range []int64{0, 64 << 10} {
			ec := newEC()
			ec.WorkMem, ec.Temp = workMem, newTemp(t)
			p := &planner.Limit{Input: &planner.Sort{Input: spillScan(rows, ec), Keys: keys}, Limit: i8(c.limit), Offset: i8(c.off)}
			got := sortText(t, p, ec)
			want := all[min(c.off, int64(len(all))):min(c.off+c.limit, int64(len(all)))]
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("LIMIT %d OFFSET %d, work_mem %d: got %d rows, not the first of the full sort", c.limit, c.off, workMem, len(got))
			}
		}
	}
}

// TestWindowSpills computes window functions over 20,000 rows with a
// 64 kB work_mem: the partitions are sorted by the spilling Sort, and
// the output (order included) equals the one computed in memory.
func TestWindowSpills(t *testing.T) {
	rows := spillRows(20000)
	calls := []planner.WindowCall{
		{Fn: "row_number", PartitionBy: []planner.Expr{col(0, tI8)}, OrderBy: []planner.SortKey{{Expr: col(1, tTxt)}}, T: tI8},
		{Fn: "rank", PartitionBy: []planner.Expr{col(0, tI8)}, OrderBy: []planner.SortKey{{Expr: col(1, tTxt)}}, T: tI8},
		// Ties on c's NULLs and on a keep the input order.
		{Fn: "count", OrderBy: []planner.SortKey{{Expr: col(2, tF8), Desc: true}}, T: tI8},
		{Fn: "sum", Args: []planner.Expr{col(0, tI8)}, PartitionBy: []planner.Expr{col(3, tN)}, T: tN},
		{Fn: "row_number", OrderBy: []planner.SortKey{{Expr: col(0, tI8), NullsFirst: true}}, T: tI8},
	}
	out := schema(tI8, tTxt, tF8, tN, types.T{ID: types.Unknown}, tI8, tI8, tI8, tN, tI8)
	memEC := newEC()
	want := sortText(t, &planner.Window{Input: spillScan(rows, memEC), Calls: calls, Out: out}, memEC)
	temp := newTemp(t)
	ec := newEC()
	ec.WorkMem, ec.Temp = 64<<10, temp
	got := sortText(t, &planner.Window{Input: spillScan(rows, ec), Calls: calls, Out: out}, ec)
	if len(got) != len(rows) || len(want) != len(rows) {
		t.Fatalf("%d and %d rows, want %d", len(got), len(want), len(rows))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("row %d: %s, want %s", i, got[i], want[i])
		}
	}
	if temp.tapes == 0 {
		t.Error("the window's sorts did not spill")
	}
	if left := temp.left(t); len(left) != 0 {
		t.Errorf("tapes left after the window: %v", left)
	}
}

// failAfter passes its input's first n chunks, then fails.
type failAfter struct {
	in Operator
	n  int
}

func (f *failAfter) Next(ctx context.Context) (*types.Chunk, error) {
	if f.n == 0 {
		return nil, pgerr.New(pgerr.IOError, "input failed")
	}
	f.n--
	return f.in.Next(ctx)
}

func (f *failAfter) Close() { f.in.Close() }

// TestSortMergesInPasses sorts 20,000 rows with a 64 kB work_mem, far
// more runs than one merge reads (6): the final merge reads at most 6
// sources, so earlier passes merged the runs into fewer; and a sort
// whose input fails after it spilled leaves no tape behind.
func TestSortMergesInPasses(t *testing.T) {
	rows := spillRows(20000)
	keys := []planner.SortKey{{Expr: col(1, tTxt)}}
	temp := newTemp(t)
	ec := newEC()
	ec.WorkMem, ec.Temp = 64<<10, temp
	scan, err := Build(spillScan(rows, ec), ec)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSort(scan, keys, spillScan(rows, ec).Schema(), ec)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if c, err := s.Next(context.Background()); err != nil || c == nil {
		t.Fatalf("first chunk: %v, %v", c, err)
	}
	order := sortMergeOrder(ec.WorkMem)
	if s.merge == nil || len(s.merge.srcs) > order {
		t.Fatalf("final merge of %v sources, want at most %d", s.merge, order)
	}
	// The runs alone: 20,000 rows of some 600 bytes in 64 kB.
	if temp.tapes < 4*order {
		t.Fatalf("%d tapes made, want at least %d", temp.tapes, 4*order)
	}

	temp = newTemp(t)
	ec = newEC()
	ec.WorkMem, ec.Temp = 64<<10, temp
	if scan, err = Build(spillScan(rows, ec), ec); err != nil {
		t.Fatal(err)
	}
	if s, err = NewSort(&failAfter{in: scan, n: 10}, keys, spillScan(rows, ec).Schema(), ec); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Next(context.Background()); err == nil || err.Error() != "input failed" {
		t.Fatalf("got %v, want the input's error", err)
	}
	if temp.tapes == 0 {
		t.Fatal("the sort did not spill before the error")
	}
	if left := temp.left(t); len(left) != 0 {
		t.Errorf("tapes left after the error: %v", left)
	}
}

// TestRecursiveUnionSpills runs WITH RECURSIVE over working tables of
// up to 20,000 rows with a 64 kB work_mem: with UNION ALL they go to
// tapes; the rows are those computed in memory, and no tape is left.
func TestRecursiveUnionSpills(t *testing.T) {
	var sb strings.Builder
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&sb, "+ %d\n", i%3)
	}
	text := sb.String()
	for _, all := range []bool{true, false} {
		nonRec := vals(t, text, types.TInt8)
		want, err := runPlan(t, recursiveCounter(nonRec, all, 4), newEC())
		if err != nil {
			t.Fatal(err)
		}
		temp := newTemp(t)
		ec := newEC()
		ec.WorkMem, ec.Temp = 64<<10, temp
		got, err := runPlan(t, recursiveCounter(nonRec, all, 4), ec)
		if err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("UNION ALL %v: %d rows, want %d, or not the same", all, got.Len(), want.Len())
		}
		if all && temp.tapes == 0 {
			t.Errorf("UNION ALL: the working tables did not spill")
		}
		if left := temp.left(t); len(left) != 0 {
			t.Errorf("UNION ALL %v: tapes left: %v", all, left)
		}
	}
}

// TestWindowWithoutKeysKeepsInputOrder checks a first window with
// neither PARTITION BY nor ORDER BY, which needs no sort: its rows come
// out in input order, numbered in it, also under a small work_mem and
// followed by a window that sorts.
func TestWindowWithoutKeysKeepsInputOrder(t *testing.T) {
	rows := spillRows(5000)
	calls := []planner.WindowCall{
		{Fn: "row_number", T: tI8},
		{Fn: "row_number", OrderBy: []planner.SortKey{{Expr: col(1, tTxt), Desc: true}}, T: tI8},
		{Fn: "row_number", T: tI8},
	}
	out := schema(tI8, tTxt, tF8, tN, types.T{ID: types.Unknown}, tI8, tI8, tI8)
	for _, workMem := range []int64{0, 64 << 10} {
		ec := newEC()
		ec.WorkMem, ec.Temp = workMem, newTemp(t)
		got, err := runPlan(t, &planner.Window{Input: spillScan(rows, ec), Calls: calls[:1], Out: out[:6]}, ec)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < got.Len(); i++ {
			if r := got.Row(i); r[1].S != rows[i][1].S || r[5].I != int64(i+1) {
				t.Fatalf("work_mem %d: row %d is %v, want input row %d numbered %d", workMem, i, r, i, i+1)
			}
		}
		// After a window that sorts by b DESC, one without keys numbers
		// the rows in input order still, and they come out in its order.
		got, err = runPlan(t, &planner.Window{Input: spillScan(rows, ec), Calls: calls, Out: out}, ec)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < got.Len(); i++ {
			if r := got.Row(i); r[1].S != rows[i][1].S || r[5].I != int64(i+1) || r[7].I != int64(i+1) {
				t.Fatalf("work_mem %d: row %d is %v, want input row %d numbered %d", workMem, i, r, i, i+1)
			}
		}
	}
}

// watchTapes passes its input on and records the most tape files that
// were in the logs directory when it was asked for a chunk.
type watchTapes struct {
	t    *testing.T
	in   Operator
	temp *countingTemp
	most int
}

func (w *watchTapes) Next(ctx context.Context) (*types.Chunk, error) {
	w.most = max(w.most, len(w.temp.left(w.t)))
	return w.in.Next(ctx)
}

func (w *watchTapes) Close() { w.in.Close() }

// TestSortCascadesRuns sorts 40,000 rows with a 64 kB work_mem, some
// hundreds of runs: while it reads, runs of one level are merged into
// one of the next as soon as there are sortMergeOrder of them, so the
// tapes it holds (each an open file) stay a few merges' worth, not one
// per run; the output is still sorted and complete.
func TestSortCascadesRuns(t *testing.T) {
	rows := spillRows(40000)
	keys := []planner.SortKey{{Expr: col(1, tTxt)}}
	temp := newTemp(t)
	ec := newEC()
	ec.WorkMem, ec.Temp = 64<<10, temp
	scan, err := Build(spillScan(rows, ec), ec)
	if err != nil {
		t.Fatal(err)
	}
	w := &watchTapes{t: t, in: scan, temp: temp}
	s, err := NewSort(w, keys, spillScan(rows, ec).Schema(), ec)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var n int
	var last string
	for {
		c, err := s.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if c == nil {
			break
		}
		for i := 0; i < c.Len(); i++ {
			k := c.Row(i)[1].S
			if k < last {
				t.Fatalf("row %d: %q after %q", n, k, last)
			}
			last = k
			n++
		}
	}
	if n != len(rows) {
		t.Fatalf("%d rows out, want %d", n, len(rows))
	}
	order := sortMergeOrder(ec.WorkMem)
	if temp.tapes < 20*order {
		t.Fatalf("%d tapes made, want at least %d for the test to mean anything", temp.tapes, 20*order)
	}
	// Levels: log_order(runs) + 1; each holds fewer than order runs, and
	// one more tape is being written.
	if limit := 5 * order; w.most > limit {
		t.Errorf("%d tapes at once while reading (of %d made), want at most %d", w.most, temp.tapes, limit)
	}
	t.Logf("%d tapes made, at most %d at once", temp.tapes, w.most)
}
