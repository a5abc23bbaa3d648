package storage

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/types"
)

// State tables in these tests are keyed by (group int8, x int8) and hold
// rows (group, x, text).
var (
	stKeyTypes = []types.T{types.TInt8, types.TInt8}
	stRowTypes = []types.T{types.TInt8, types.TInt8, types.TText}
)

func stKey(g, x int64) types.Row { return types.Row{types.DInt(g), types.DInt(x)} }

func stRow(g, x int64, s string) types.Row {
	return types.Row{types.DInt(g), types.DInt(x), types.DString(s)}
}

func newST(db *DB, cache *Cache) *StateTable {
	return NewStateTable(db, 42, stKeyTypes, stRowTypes, cache)
}

// stDump renders an iteration as "g/x=s" items.
func stDump(t testing.TB, it RowIter) string {
	t.Helper()
	defer it.Close()
	var out []string
	for {
		r, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if r == nil {
			return strings.Join(out, " ")
		}
		out = append(out, fmt.Sprintf("%d/%d=%s", r[0].I, r[1].I, r[2].S))
	}
}

// stGroupDump returns the rows of group g as AppendRows and as Scan
// return them, as stDump prints rows.
func stGroupDump(t testing.TB, st *StateTable, g int64) (appended, scanned string) {
	t.Helper()
	rows, err := st.AppendRows(nil, stKey(g, 0)[:1])
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprintf("%d/%d=%s", r[0].I, r[1].I, r[2].S))
	}
	appended = strings.Join(out, " ")
	out = out[:0]
	if err := st.Scan(stKey(g, 0)[:1], func(_ string, r types.Row) bool {
		out = append(out, fmt.Sprintf("%d/%d=%s", r[0].I, r[1].I, r[2].S))
		return true
	}); err != nil {
		t.Fatal(err)
	}
	return appended, strings.Join(out, " ")
}

func stGet(t testing.TB, st *StateTable, g, x int64) string {
	t.Helper()
	r, ok, err := st.Get(stKey(g, x))
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return "<none>"
	}
	return r[2].S
}

// commitEpoch runs one checkpoint of st the way the engine does: Commit
// into the epoch's batch, commit the batch, report it durable.
func commitEpoch(t testing.TB, db *DB, st *StateTable, epoch uint64) {
	t.Helper()
	b := db.NewBatch()
	if err := st.Commit(b, epoch); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	st.Committed(epoch)
}

func TestStateTableReadYourWrites(t *testing.T) {
	db := openMem(t, vfs.NewMem())
	defer db.Close()
	st := newST(db, NewCache(1<<20))
	if got := stGet(t, st, 1, 1); got != "<none>" {
		t.Fatalf("empty table Get = %s", got)
	}
	st.Insert(stKey(1, 1), stRow(1, 1, "a"))
	st.Insert(stKey(1, 2), stRow(1, 2, "b"))
	if got := stGet(t, st, 1, 1); got != "a" {
		t.Fatalf("Get after Insert = %s", got)
	}
	st.Update(stKey(1, 1), stRow(1, 1, "a2"))
	st.Delete(stKey(1, 2))
	if got := stGet(t, st, 1, 1) + " " + stGet(t, st, 1, 2); got != "a2 <none>" {
		t.Fatalf("Get after Update/Delete = %s", got)
	}
	if got := stDump(t, st.Iter(nil, false)); got != "1/1=a2" {
		t.Fatalf("Iter = %s", got)
	}
	// Nothing reaches Pebble between barriers.
	if got := scan(t, db, 42); got != "" {
		t.Fatalf("Pebble holds %q before the barrier", got)
	}
	if st.DirtyLen() != 2 {
		t.Fatalf("DirtyLen = %d, want 2", st.DirtyLen())
	}
}

func TestStateTableCommitReopen(t *testing.T) {
	fs := vfs.NewMem()
	db := openMem(t, fs)
	cache := NewCache(1 << 20)
	st := newST(db, cache)
	st.Insert(stKey(1, 1), stRow(1, 1, "a"))
	st.Insert(stKey(2, 1), stRow(2, 1, "b"))
	commitEpoch(t, db, st, 1)
	st.Delete(stKey(1, 1))
	st.Insert(stKey(3, 1), stRow(3, 1, "c"))
	commitEpoch(t, db, st, 2)
	if st.DirtyLen() != 0 {
		t.Fatalf("DirtyLen after commit = %d", st.DirtyLen())
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db = openMem(t, fs)
	defer db.Close()
	st = newST(db, cache)
	if got := stDump(t, st.Iter(nil, false)); got != "2/1=b 3/1=c" {
		t.Fatalf("after reopen Iter = %s", got)
	}
	if got := stGet(t, st, 1, 1) + " " + stGet(t, st, 3, 1); got != "<none> c" {
		t.Fatalf("after reopen Get = %s", got)
	}
}

// TestStateTableCrashLosesUncommitted crashes (keeping only synced data)
// with one epoch committed, one flushed into a batch that never committed
// and one still dirty: only the committed epoch survives.
func TestStateTableCrashLosesUncommitted(t *testing.T) {
	fs := vfs.NewCrashableMem()
	db := openMem(t, fs)
	st := newST(db, NewCache(1<<20))
	st.Insert(stKey(1, 1), stRow(1, 1, "committed"))
	commitEpoch(t, db, st, 1)

	st.Insert(stKey(1, 2), stRow(1, 2, "flushed"))
	st.Update(stKey(1, 1), stRow(1, 1, "overwritten"))
	pending := db.NewBatch()
	if err := st.Commit(pending, 2); err != nil {
		t.Fatal(err)
	}
	st.Insert(stKey(1, 3), stRow(1, 3, "dirty"))
	if got := stDump(t, st.Iter(nil, false)); got != "1/1=overwritten 1/2=flushed 1/3=dirty" {
		t.Fatalf("before crash Iter = %s", got)
	}

	crashed := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 50, RNG: rand.New(rand.NewPCG(1, 2))})
	pending.Close()
	db.Close()
	db = openMem(t, crashed)
	defer db.Close()
	st = newST(db, NewCache(1<<20))
	if got := stDump(t, st.Iter(nil, false)); got != "1/1=committed" {
		t.Fatalf("after crash Iter = %s", got)
	}
}

// TestStateTableIterMerge checks that iteration merges committed rows
// with dirty and flushed-but-not-durable ones, deletions hiding committed
// rows, forwards and backwards, over prefixes and ranges.
func TestStateTableIterMerge(t *testing.T) {
	db := openMem(t, vfs.NewMem())
	defer db.Close()
	st := newST(db, NewCache(1<<20))
	for g := int64(1); g <= 3; g++ {
		for x := int64(1); x <= 4; x++ {
			st.Insert(stKey(g, x), stRow(g, x, "c"))
		}
	}
	commitEpoch(t, db, st, 1)
	// Epoch 2 is flushed into a batch whose commit is still outstanding.
	st.Delete(stKey(2, 1))
	st.Update(stKey(2, 3), stRow(2, 3, "f"))
	b := db.NewBatch()
	if err := st.Commit(b, 2); err != nil {
		t.Fatal(err)
	}
	// Epoch 3 is open.
	st.Delete(stKey(2, 4))
	st.Insert(stKey(2, 0), stRow(2, 0, "d"))
	st.Insert(stKey(2, 5), stRow(2, 5, "d"))
	st.Delete(stKey(3, 9)) // deleting a missing key is harmless

	check := func(stage string) {
		t.Helper()
		for _, c := range []struct {
			it   RowIter
			want string
		}{
			{st.Iter(stKey(2, 0)[:1], false), "2/0=d 2/2=c 2/3=f 2/5=d"},
			{st.Iter(stKey(2, 0)[:1], true), "2/5=d 2/3=f 2/2=c 2/0=d"},
			{st.IterRange(stKey(1, 4), stKey(2, 3), false), "1/4=c 2/0=d 2/2=c"},
			{st.IterRange(stKey(1, 4), stKey(2, 3), true), "2/2=c 2/0=d 1/4=c"},
			{st.IterRange(stKey(3, 0)[:1], nil, false), "3/1=c 3/2=c 3/3=c 3/4=c"},
			{st.IterRange(nil, stKey(1, 3), true), "1/2=c 1/1=c"},
		} {
			if got := stDump(t, c.it); got != c.want {
				t.Errorf("%s: got %s, want %s", stage, got, c.want)
			}
		}
	}
	check("epoch 2 pending")
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	st.Committed(2)
	check("epoch 2 durable")
	commitEpoch(t, db, st, 3)
	check("epoch 3 durable")
	snap := db.NewSnapshot()
	defer snap.Close()
	it := snap.ScanRange(42, st.EncodeKey(nil, stKey(2, 0)[:1]), st.EncodeKey(nil, stKey(3, 0)[:1]), stRowTypes)
	if got := stDump(t, it); got != "2/0=d 2/2=c 2/3=f 2/5=d" {
		t.Fatalf("Pebble after epoch 3 = %s", got)
	}
}

// TestStateTableEvictionModel runs random operations on two state tables
// sharing a tiny cache, checkpointing now and then, and checks every read
// and iteration against a model, and that the budget is kept whenever no
// unevictable entries exceed it.
func TestStateTableEvictionModel(t *testing.T) {
	// A small budget evicts all the time; a large one never, so that the
	// Exclusive table stays whole and serves iterators from memory. In
	// between, the Exclusive tables evict rows and remember their keys
	// (under the smallest budget, a few small filters and then none).
	for _, budget := range []int64{4 << 10, 32 << 10, 64 << 20} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) { testStateTableModel(t, budget) })
	}
}

func testStateTableModel(t *testing.T, budget int64) {
	db := openMem(t, vfs.NewMem())
	defer db.Close()
	cache := NewCache(budget)
	rng := rand.New(rand.NewPCG(3, 4))
	type model map[[2]int64]string
	tables := []*StateTable{
		NewStateTable(db, 7, stKeyTypes, stRowTypes, cache),
		NewStateTable(db, 8, stKeyTypes, stRowTypes, cache),
		NewStateTable(db, 9, stKeyTypes, stRowTypes, cache),
		NewStateTable(db, 10, stKeyTypes, stRowTypes, cache),
		NewStateTable(db, 11, stKeyTypes, stRowTypes, cache),
	}
	tables[1].SetDesc([]bool{false, true})
	// The fourth and fifth hold their rows encoded, the fourth as the
	// only writer of its keyspace.
	tables[3].EncodeRows()
	tables[4].EncodeRows()
	// It and the first read a group's rows by its first key column,
	// from memory alone while none of the group's rows has left it.
	tables[3].SetReadPrefix(1)
	tables[0].SetReadPrefix(1)
	if err := tables[3].Exclusive(); err != nil {
		t.Fatal(err)
	}
	// The first table is its keyspace's only writer: while nothing of
	// it is evicted, its misses do not read Pebble.
	if err := tables[0].Exclusive(); err != nil {
		t.Fatal(err)
	}
	// The third table keeps nothing clean and indexes no write by key.
	tables[2].DropClean()
	// Every table is its keyspace's only writer, so DeleteBefore may
	// delete by range where CanDeleteBefore allows.
	for _, st := range tables {
		st.SoleWriter()
	}
	ranged := make([]int, len(tables))
	models := []model{{}, {}, {}, {}, {}}
	epoch := uint64(1)
	var pending *Batch
	for step := range 20000 {
		i := rng.IntN(len(tables))
		st, m := tables[i], models[i]
		g, x := int64(rng.IntN(4)), int64(rng.IntN(12))
		k := [2]int64{g, x}
		for _, st := range tables {
			if err := st.verifyIndex(); err != nil {
				t.Fatalf("step %d table %d: %v", step, st.ID(), err)
			}
		}
		switch op := rng.IntN(100); {
		case op < 45:
			want, ok := m[k]
			if !ok {
				want = "<none>"
			}
			if got := stGet(t, st, g, x); got != want {
				t.Fatalf("step %d table %d Get(%d,%d) = %s, want %s", step, i, g, x, got, want)
			}
			if st.dropClean {
				break
			}
			// The same through GetCols, of the value column alone.
			r, ok, err := st.GetCols(nil, stKey(g, x), []bool{false, false, true})
			got := "<none>"
			if ok {
				got = r[2].S
			}
			if err != nil || got != want {
				t.Fatalf("step %d table %d GetCols(%d,%d) = %s (%v), want %s", step, i, g, x, got, err, want)
			}
		case op < 75:
			v := fmt.Sprint("v", step, strings.Repeat("x", rng.IntN(30)))
			row := stRow(g, x, v)
			st.Insert(stKey(g, x), row)
			if st.encoded {
				// The table keeps no reference to the row.
				row[2].S = "overwritten"
			}
			m[k] = v
		case op < 90:
			st.Delete(stKey(g, x))
			delete(m, k)
		case op < 93:
			var want []string
			xs := []int64{}
			for kk := range m {
				if kk[0] == g {
					xs = append(xs, kk[1])
				}
			}
			slices.Sort(xs)
			if i == 1 {
				slices.Reverse(xs) // x is a descending key column
			}
			for _, x := range xs {
				want = append(want, fmt.Sprintf("%d/%d=%s", g, x, m[[2]int64{g, x}]))
			}
			if got := stDump(t, st.Iter(stKey(g, 0)[:1], false)); got != strings.Join(want, " ") {
				t.Fatalf("step %d table %d Iter(%d):\n got %s\nwant %s", step, i, g, got, strings.Join(want, " "))
			}
			if st.encoded || st.dropClean {
				// AppendRows and Scan return rows of their own there.
				if a, sc := stGroupDump(t, st, g); a != strings.Join(want, " ") || sc != a {
					t.Fatalf("step %d table %d group %d:\nAppendRows %s\nScan       %s\nwant       %s", step, i, g, a, sc, strings.Join(want, " "))
				}
			}
		case op < 95:
			// Every row of a group below g goes, by one range deletion
			// or, where the table cannot, row by row (as operators do).
			g := int64(1 + rng.IntN(3))
			if st.DeleteBefore(types.DInt(g)) {
				ranged[i]++
			} else {
				for kk := range m {
					if kk[0] < g {
						st.Delete(stKey(kk[0], kk[1]))
					}
				}
			}
			for kk := range m {
				if kk[0] < g {
					delete(m, kk)
				}
			}
		default:
			// A barrier: the previous epoch's batch commits (as the
			// coordinator does before injecting the next barrier), then
			// both tables flush into this epoch's batch.
			if pending != nil {
				if err := pending.Commit(); err != nil {
					t.Fatal(err)
				}
				for _, st := range tables {
					st.Committed(epoch - 1)
				}
			}
			pending = db.NewBatch()
			for _, st := range tables {
				if err := st.Commit(pending, epoch); err != nil {
					t.Fatal(err)
				}
			}
			epoch++
		}
	}
	if pending != nil {
		if err := pending.Commit(); err != nil {
			t.Fatal(err)
		}
		for _, st := range tables {
			st.Committed(epoch - 1)
		}
	}
	// The whole tables and the DropClean one delete by range (the whole
	// ones only while whole); the fifth, neither, never does.
	if ranged[2] == 0 || ranged[4] != 0 || (budget > 1<<20 && (ranged[0] == 0 || ranged[3] == 0)) {
		t.Fatalf("range deletions per table: %v", ranged)
	}
	for _, i := range []int{0, 3} {
		if whole := tables[i].whole; whole != (budget > 1<<20) {
			t.Fatalf("with a budget of %d the Exclusive table %d is whole: %v", budget, i, whole)
		}
	}
	// Once its last writes are durable, the DropClean table holds nothing.
	commitEpoch(t, db, tables[2], epoch)
	// What Pebble holds is what the tables said: a new table over each
	// keyspace, which reads every row from Pebble, sees the model (a
	// row written and deleted before it reached Pebble left nothing
	// behind, a deletion of a stored row removed it).
	for i, st := range tables {
		if i != 2 {
			commitEpoch(t, db, st, epoch)
		}
	}
	for i, st := range tables {
		re := NewStateTable(db, st.ID(), stKeyTypes, stRowTypes, NewCache(budget))
		re.SetDesc(st.desc)
		for k, want := range models[i] {
			if got := stGet(t, re, k[0], k[1]); got != want {
				t.Fatalf("table %d reread: Get(%d,%d) = %s, want %s", i, k[0], k[1], got, want)
			}
		}
		if n := len(strings.Fields(stDump(t, re.Iter(nil, false)))); n != len(models[i]) {
			t.Fatalf("table %d reread: %d rows, want %d", i, n, len(models[i]))
		}
	}
	tables[0].Get(stKey(0, 0)) // lets the table give back memory after the last commit
	tables[1].Get(stKey(0, 0))
	tables[3].Get(stKey(0, 0))
	tables[4].Get(stKey(0, 0))
	// Released slots stay counted (slotBytes) until reused: beyond
	// them, the entries are within the budget.
	var free int64
	for _, st := range tables {
		free += st.freeSlotBytes()
	}
	if cache.Used()-free > cache.Budget() {
		t.Fatalf("cache holds %d bytes (%d of them released slots) with nothing dirty, budget %d", cache.Used(), free, cache.Budget())
	}
	if tables[2].Bytes() != tables[2].freeSlotBytes() {
		t.Fatalf("the DropClean table holds %d bytes with everything durable (%d of them released slots)", tables[2].Bytes(), tables[2].freeSlotBytes())
	}
	var sum int64
	for _, st := range tables {
		sum += st.Bytes()
	}
	if sum != cache.Used() {
		t.Fatalf("tables account %d bytes, cache %d", sum, cache.Used())
	}
}

func BenchmarkStateTableGetHit(b *testing.B) {
	db := openMem(b, vfs.NewMem())
	defer db.Close()
	st := newST(db, NewCache(64<<20))
	for x := range int64(1000) {
		st.Insert(stKey(1, x), stRow(1, x, "value"))
	}
	commitEpoch(b, db, st, 1)
	key := stKey(1, 0)
	b.ResetTimer()
	for i := range b.N {
		key[1].I = int64(i % 1000)
		if _, ok, err := st.Get(key); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

func BenchmarkStateTableGetMiss(b *testing.B) {
	db := openMem(b, vfs.NewMem())
	defer db.Close()
	st := newST(db, NewCache(1<<10)) // nothing stays cached
	for x := range int64(1000) {
		st.Insert(stKey(1, x), stRow(1, x, "value"))
	}
	commitEpoch(b, db, st, 1)
	key := stKey(1, 0)
	b.ResetTimer()
	for i := range b.N {
		key[1].I = int64(i % 1000)
		if _, ok, err := st.Get(key); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

func BenchmarkStateTableInsert(b *testing.B) {
	db := openMem(b, vfs.NewMem())
	defer db.Close()
	st := newST(db, NewCache(64<<20))
	row := stRow(1, 0, "value")
	key := stKey(1, 0)
	b.ResetTimer()
	for i := range b.N {
		key[1].I = int64(i % 1000)
		st.Insert(key, row)
		if i%1000 == 999 {
			b.StopTimer()
			commitEpoch(b, db, st, uint64(i))
			b.StartTimer()
		}
	}
}

func TestCommittedEpoch(t *testing.T) {
	fs := vfs.NewMem()
	db := openMem(t, fs)
	if e, err := db.CommittedEpoch(); e != 0 || err != nil {
		t.Fatalf("fresh CommittedEpoch = %d, %v", e, err)
	}
	st := newST(db, NewCache(1<<20))
	st.Insert(stKey(1, 1), stRow(1, 1, "a"))
	b := db.NewBatch()
	if err := st.Commit(b, 7<<16); err != nil {
		t.Fatal(err)
	}
	if err := b.SetCommittedEpoch(7 << 16); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = openMem(t, fs)
	defer db.Close()
	if e, err := db.CommittedEpoch(); e != 7<<16 || err != nil {
		t.Fatalf("CommittedEpoch after reopen = %d, %v", e, err)
	}
}

// TestStateTableDropClean: a DropClean table holds its entries only until
// they are durable, serves its own writes meanwhile (Get and Iter), and
// reads Pebble afterwards without caching what it reads.
func TestStateTableDropClean(t *testing.T) {
	db := openMem(t, vfs.NewMem())
	defer db.Close()
	cache := NewCache(1 << 20)
	st := newST(db, cache)
	st.DropClean()
	st.Insert(stKey(1, 1), stRow(1, 1, "a"))
	st.Insert(stKey(1, 2), stRow(1, 2, "b"))
	if got := stGet(t, st, 1, 2); got != "b" {
		t.Fatalf("dirty Get = %s", got)
	}
	b := db.NewBatch()
	if err := st.Commit(b, 1); err != nil {
		t.Fatal(err)
	}
	st.Delete(stKey(1, 1))
	if got := stDump(t, st.Iter(stKey(1, 0)[:1], false)); got != "1/2=b" {
		t.Fatalf("Iter before the commit = %q", got)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	st.Committed(1)
	if st.Bytes() == 0 {
		t.Fatal("the deletion not yet flushed left memory")
	}
	commitEpoch(t, db, st, 2)
	if free := st.freeSlotBytes(); st.Bytes() != free || cache.Used() != free {
		t.Fatalf("durable entries kept: table %d bytes, cache %d, released slots %d", st.Bytes(), cache.Used(), free)
	}
	if got := stGet(t, st, 1, 2) + stGet(t, st, 1, 1); got != "b<none>" {
		t.Fatalf("Get after the commit = %s", got)
	}
	if st.Bytes() != st.freeSlotBytes() {
		t.Fatalf("reads were cached: %d bytes", st.Bytes())
	}
	if got := stDump(t, st.Iter(nil, false)); got != "1/2=b" {
		t.Fatalf("Iter after the commit = %q", got)
	}
}

// TestStateTableExclusive checks a table declared its keyspace's only
// writer: over an empty keyspace it answers from its entries alone until
// one with a row is evicted, and over committed rows it reads them.
func TestStateTableExclusive(t *testing.T) {
	db := openMem(t, vfs.NewMem())
	defer db.Close()
	st := newST(db, NewCache(1<<20))
	if err := st.Exclusive(); err != nil {
		t.Fatal(err)
	}
	if !st.whole {
		t.Fatal("a table over an empty keyspace is not whole")
	}
	st.Insert(stKey(1, 1), stRow(1, 1, "a"))
	st.Insert(stKey(1, 2), stRow(1, 2, "b"))
	commitEpoch(t, db, st, 1)
	st.Delete(stKey(1, 2))
	commitEpoch(t, db, st, 2)
	// The durable deletion leaves nothing in memory: range scans of a
	// whole table do not step over the keys it once held.
	if got := stDump(t, st.Iter(nil, false)); got != "1/1=a" {
		t.Fatalf("scan after the deletion = %s", got)
	}
	if n, m := st.overlay.Len(), st.index.len(); n != 1 || m != 1 {
		t.Fatalf("after deleting one of two rows: %d entries in the tree, %d in the map, want 1 and 1", n, m)
	}
	// A row written around the table is not seen by Get: the proof that
	// a miss does not read Pebble (and why only the keyspace's only
	// writer may say Exclusive).
	b := db.NewBatch()
	if err := b.Put(42, st.EncodeKey(nil, stKey(1, 3)), stRow(1, 3, "behind"), stRowTypes); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := stGet(t, st, 1, 3); got != "<none>" {
		t.Fatalf("whole table Get(1,3) = %s, want <none>", got)
	}
	for x, want := range map[int64]string{1: "a", 2: "<none>", 4: "<none>"} {
		if got := stGet(t, st, 1, x); got != want {
			t.Fatalf("Get(1,%d) = %s, want %s", x, got, want)
		}
	}
	// Evicting the row of (1,1) leaves it in Pebble only: from then on
	// a miss of its key reads Pebble, and a miss of a key that never
	// left memory does not (it would find the row written around the
	// table).
	st.cache.budget = 1 << 20
	st.cache.used.Add(st.cache.budget)
	st.maybeEvict()
	st.cache.used.Add(-st.cache.budget)
	if st.whole {
		t.Fatal("the table is still whole after evicting a row")
	}
	if st.left == nil {
		t.Fatal("the table keeps no filter of the keys it evicted")
	}
	for x, want := range map[int64]string{1: "a", 2: "<none>", 3: "<none>"} {
		if got := stGet(t, st, 1, x); got != want {
			t.Fatalf("after eviction Get(1,%d) = %s, want %s", x, got, want)
		}
	}
	// The filter counts in the budget, its first part sized from it.
	if fb := st.left.bytes(); fb == 0 || st.cache.filters.Load() != fb || st.Bytes() < fb {
		t.Fatalf("filter of %d bytes, cache counts %d, table %d", fb, st.cache.filters.Load(), st.Bytes())
	}
	// Past a quarter of the budget in filters, the table gives its
	// filter up and reads Pebble for every miss again.
	st.cache.filters.Add(st.cache.budget)
	for !st.left.full() {
		st.left.add("x")
	}
	used := st.cache.Used()
	st.remember("y")
	st.cache.filters.Add(-st.cache.budget)
	if st.left != nil || st.cache.filters.Load() != 0 || st.cache.Used() >= used {
		t.Fatalf("over the filters' share: filter kept %v, filters %d bytes, used %d (was %d)", st.left != nil, st.cache.filters.Load(), st.cache.Used(), used)
	}
	for x, want := range map[int64]string{1: "a", 2: "<none>", 3: "behind"} {
		if got := stGet(t, st, 1, x); got != want {
			t.Fatalf("without a filter Get(1,%d) = %s, want %s", x, got, want)
		}
	}
	// A new table over the committed rows is not whole, and reads them.
	st2 := newST(db, NewCache(1<<20))
	if err := st2.Exclusive(); err != nil {
		t.Fatal(err)
	}
	if st2.whole {
		t.Fatal("a table over committed rows is whole")
	}
	if got := stGet(t, st2, 1, 1); got != "a" {
		t.Fatalf("reopened Get(1,1) = %s, want a", got)
	}
}

// TestAppendRowsMatchesIter: AppendRows, AppendRange and Scan return
// what Iter and IterRange do, over a table held whole (read from its B-tree) and
// over one that is not (through an iterator), with rows committed,
// written in the open epoch and deleted; DeletePrefix deletes the same
// rows either way.
func TestAppendRowsMatchesIter(t *testing.T) {
	db := openMem(t, vfs.NewMem())
	defer db.Close()
	for i, whole := range []bool{true, false, true, false} {
		st := NewStateTable(db, uint32(50+i), stKeyTypes, stRowTypes, NewCache(64<<20))
		if i >= 2 {
			st.EncodeRows()
		}
		if whole {
			if err := st.Exclusive(); err != nil {
				t.Fatal(err)
			}
		}
		for g := int64(1); g <= 3; g++ {
			for x := int64(0); x < 5; x++ {
				st.Insert(stKey(g, x), stRow(g, x, fmt.Sprintf("v%d", x)))
			}
		}
		commitEpoch(t, db, st, 1)
		st.Delete(stKey(2, 1))
		st.Update(stKey(2, 3), stRow(2, 3, "new"))
		st.Insert(stKey(2, 9), stRow(2, 9, "nine"))
		if st.whole != whole {
			t.Fatalf("whole = %v, want %v", st.whole, whole)
		}
		dump := func(rows []types.Row) string {
			var out []string
			for _, r := range rows {
				out = append(out, fmt.Sprintf("%d/%d=%s", r[0].I, r[1].I, r[2].S))
			}
			return strings.Join(out, " ")
		}
		for _, prefix := range []types.Row{nil, {types.DInt(2)}, {types.DInt(4)}, stKey(3, 2)} {
			rows, err := st.AppendRows(nil, prefix)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := dump(rows), stDump(t, st.Iter(prefix, false)); got != want {
				t.Fatalf("whole %v, AppendRows(%v) = %s, Iter %s", whole, prefix, got, want)
			}
			// Scan gives Iter's keys and rows, and stops when told.
			var want []string
			it := st.Iter(prefix, false)
			for {
				r, err := it.Next()
				if err != nil {
					t.Fatal(err)
				}
				if r == nil {
					break
				}
				want = append(want, fmt.Sprintf("%x:%d/%d=%s", it.Key(), r[0].I, r[1].I, r[2].S))
			}
			it.Close()
			for _, stop := range []int{-1, 2} {
				var got []string
				err := st.Scan(prefix, func(k string, r types.Row) bool {
					got = append(got, fmt.Sprintf("%x:%d/%d=%s", k, r[0].I, r[1].I, r[2].S))
					return len(got) != stop
				})
				if err != nil {
					t.Fatal(err)
				}
				w := want
				if stop >= 0 && len(w) > stop {
					w = w[:stop]
				}
				if strings.Join(got, " ") != strings.Join(w, " ") {
					t.Fatalf("whole %v, Scan(%v) stopping at %d = %s, Iter %s", whole, prefix, stop, got, w)
				}
			}
		}
		for _, r := range [][2]types.Row{{nil, {types.DInt(2)}}, {stKey(1, 3), stKey(2, 4)}, {{types.DInt(2)}, nil}, {nil, nil}} {
			rows, err := st.AppendRange([]types.Row{stRow(0, 0, "kept")}, r[0], r[1])
			if err != nil {
				t.Fatal(err)
			}
			want := stDump(t, st.IterRange(r[0], r[1], false))
			if want != "" {
				want = " " + want
			}
			if got := dump(rows); got != "0/0=kept"+want {
				t.Fatalf("whole %v, AppendRange(%v, %v) = %s, IterRange %s", whole, r[0], r[1], got, want)
			}
		}
		if err := st.DeletePrefix(types.Row{types.DInt(2)}); err != nil {
			t.Fatal(err)
		}
		commitEpoch(t, db, st, 2)
		rows, err := st.AppendRows(nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := "1/0=v0 1/1=v1 1/2=v2 1/3=v3 1/4=v4 3/0=v0 3/1=v1 3/2=v2 3/3=v3 3/4=v4"
		if got := dump(rows); got != want || stDump(t, st.Iter(nil, false)) != want {
			t.Fatalf("whole %v, after DeletePrefix(2): AppendRows %s, Iter %s", whole, got, stDump(t, st.Iter(nil, false)))
		}
	}
}

// TestCacheCountBatched checks that the cache's count of bytes follows a
// table's entries within usedBatch while the table writes (it passes its
// changes on in batches, so that actors writing at once do not contend
// for the count), and exactly once an epoch is committed and durable.
func TestCacheCountBatched(t *testing.T) {
	db := openMem(t, vfs.NewMem())
	defer db.Close()
	cache := NewCache(256 << 20)
	st := newST(db, cache)
	if err := st.Exclusive(); err != nil {
		t.Fatal(err)
	}
	st.SoleWriter()
	check := func(what string, slack int64) {
		t.Helper()
		if d := st.Bytes() - cache.Used(); d > slack || d < -slack {
			t.Fatalf("%s: table %d bytes, cache %d", what, st.Bytes(), cache.Used())
		}
	}
	for i := range int64(5000) {
		st.Insert(stKey(i%7, i), stRow(i%7, i, "x"))
		check("inserting", usedBatch)
	}
	for i := range int64(2000) {
		st.Delete(stKey(i%7, i))
		check("deleting", usedBatch)
	}
	commitEpoch(t, db, st, 1)
	check("after the commit", 0)
	if !st.DeleteBefore(types.DInt(3)) {
		t.Fatal("DeleteBefore declined")
	}
	check("after a range deletion", 0)
	if st.Bytes() == 0 {
		t.Fatal("the table holds nothing")
	}
}

// TestReadPrefixFromMemory fills a join-side-like table (held whole,
// rows encoded, read by its first key column) past its budget, so that
// some groups' rows leave memory, and checks that AppendRows returns
// every group's rows whether they are all in memory, all gone or split,
// and that groups none of whose rows left memory are read from memory
// alone.
func TestReadPrefixFromMemory(t *testing.T) {
	db := openMem(t, vfs.NewMem())
	defer db.Close()
	cache := NewCache(256 << 10)
	st := NewStateTable(db, 7, stKeyTypes, stRowTypes, cache)
	st.EncodeRows()
	st.SetReadPrefix(1)
	if err := st.Exclusive(); err != nil {
		t.Fatal(err)
	}
	model := map[int64]map[int64]string{}
	rng := rand.New(rand.NewPCG(5, 6))
	epoch := uint64(1)
	fromMemory, fromPebble := 0, 0
	check := func(g int64) {
		t.Helper()
		var want []string
		xs := slices.Sorted(maps.Keys(model[g]))
		for _, x := range xs {
			want = append(want, fmt.Sprintf("%d/%d=%s", g, x, model[g][x]))
		}
		st.sbuf = st.EncodeKey(st.sbuf[:0], stKey(g, 0)[:1])
		if !st.whole {
			if st.prefixInMemory(1) {
				fromMemory++
			} else {
				fromPebble++
			}
		}
		if a, sc := stGroupDump(t, st, g); a != strings.Join(want, " ") || sc != a {
			t.Fatalf("epoch %d group %d:\nAppendRows %s\nScan       %s\nwant       %s", epoch, g, a, sc, strings.Join(want, " "))
		}
	}
	for ; epoch <= 60; epoch++ {
		// New groups keep coming (as auctions do), old ones get a row
		// now and then; a probe of a new group finds nothing.
		for range 100 {
			g := int64(epoch*100) + int64(rng.IntN(100))
			if rng.IntN(4) == 0 {
				g = int64(rng.IntN(int(epoch * 100)))
			}
			check(g)
			x := int64(rng.IntN(8))
			v := fmt.Sprint("v", epoch, strings.Repeat("x", rng.IntN(40)))
			if rng.IntN(8) == 0 {
				st.Delete(stKey(g, x))
				delete(model[g], x)
			} else {
				st.Insert(stKey(g, x), stRow(g, x, v))
				if model[g] == nil {
					model[g] = map[int64]string{}
				}
				model[g][x] = v
			}
			check(g)
		}
		commitEpoch(t, db, st, epoch)
	}
	for g := range model {
		check(g)
	}
	if st.whole || fromMemory == 0 || fromPebble == 0 {
		t.Fatalf("whole %v, %d reads from memory alone and %d through Pebble: want a table past its budget read both ways", st.whole, fromMemory, fromPebble)
	}
	t.Logf("%d reads from memory alone, %d through Pebble", fromMemory, fromPebble)
}

// TestWholeScanAfterEviction: a table held whole that lets rows go, and
// reads by no prefix (SetReadPrefix not called), still finds every row
// in a scan of the whole table, through Pebble.
func TestWholeScanAfterEviction(t *testing.T) {
	db := openMem(t, vfs.NewMem())
	defer db.Close()
	st := NewStateTable(db, 7, stKeyTypes, stRowTypes, NewCache(64<<10))
	st.EncodeRows()
	if err := st.Exclusive(); err != nil {
		t.Fatal(err)
	}
	const n = 2000
	for i := range int64(n) {
		st.Insert(stKey(i/10, i%10), stRow(i/10, i%10, fmt.Sprint("v", i)))
		if i%100 == 99 {
			commitEpoch(t, db, st, uint64(i/100+1))
		}
	}
	if st.whole || st.left == nil {
		t.Fatalf("whole %v, filter %v: want a table that let rows go and remembers them", st.whole, st.left != nil)
	}
	count := 0
	if err := st.Scan(nil, func(string, types.Row) bool { count++; return true }); err != nil {
		t.Fatal(err)
	}
	rows, err := st.AppendRows(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if count != n || len(rows) != n {
		t.Fatalf("Scan found %d rows and AppendRows %d, want %d", count, len(rows), n)
	}
}
