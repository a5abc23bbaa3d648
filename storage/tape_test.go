package storage

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestTapeBothWays writes records of many sizes (some larger than the
// read block) and reads them forward, backward and skipping, interleaved
// with further appends.
func TestTapeBothWays(t *testing.T) {
	db := openMem(t, vfs.NewMem())
	defer db.Close()
	tp, err := db.NewTape()
	if err != nil {
		t.Fatal(err)
	}
	defer tp.Discard()
	rng := rand.New(rand.NewPCG(1, 2))
	var recs [][]byte
	var offs []int64 // the boundary before each record
	add := func(n int) {
		for range n {
			size := rng.IntN(300)
			if rng.IntN(50) == 0 {
				size = tapeBlock + rng.IntN(3*tapeBlock)
			}
			r := bytes.Repeat([]byte{byte(len(recs))}, size)
			offs = append(offs, tp.Size())
			recs = append(recs, r)
			if err := tp.Append(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	check := func() {
		off := int64(0)
		for i, want := range recs {
			got, next, err := tp.Next(off, nil)
			if err != nil || !bytes.Equal(got, want) || off != offs[i] {
				t.Fatalf("record %d forward at %d: %v, %d bytes, want %d", i, off, err, len(got), len(want))
			}
			off = next
		}
		if off != tp.Size() {
			t.Fatalf("ended at %d, size %d", off, tp.Size())
		}
		for i := len(recs) - 1; i >= 0; i-- {
			prev, err := tp.Prev(off)
			if err != nil || prev != offs[i] {
				t.Fatalf("record %d backward: %v, at %d, want %d", i, err, prev, offs[i])
			}
			off = prev
		}
		for i := range recs {
			next, err := tp.Skip(offs[i])
			want := tp.Size()
			if i+1 < len(recs) {
				want = offs[i+1]
			}
			if err != nil || next != want {
				t.Fatalf("skip %d: %v, %d, want %d", i, err, next, want)
			}
		}
	}
	add(500)
	check()
	// Read the last record (its block is the file's partial last one),
	// append, and read the new records from there on.
	last := len(recs) - 1
	if _, _, err := tp.Next(offs[last], nil); err != nil {
		t.Fatal(err)
	}
	add(300)
	for i := last; i < last+5; i++ {
		got, _, err := tp.Next(offs[i], nil)
		if err != nil || !bytes.Equal(got, recs[i]) {
			t.Fatalf("record %d after more appends: %v, %d bytes, want %d", i, err, len(got), len(recs[i]))
		}
	}
	check()
}

// TestTapeSeal seals a tape after writing: its records are in the file
// and its write buffer is gone; reading works, and so does appending
// again, which takes a new buffer.
func TestTapeSeal(t *testing.T) {
	fs := vfs.NewMem()
	db := openMem(t, fs)
	defer db.Close()
	tp, err := db.NewTape()
	if err != nil {
		t.Fatal(err)
	}
	defer tp.Discard()
	for i := range 100 {
		if err := tp.Append(bytes.Repeat([]byte{byte(i)}, 10)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tp.Seal(); err != nil {
		t.Fatal(err)
	}
	if tp.w != nil {
		t.Fatal("the write buffer is still held after Seal")
	}
	st, err := fs.Stat(tp.path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() != tp.Size() {
		t.Fatalf("file holds %d bytes after Seal, want %d", st.Size(), tp.Size())
	}
	if err := tp.Append([]byte("more")); err != nil {
		t.Fatal(err)
	}
	var off int64
	for i := range 101 {
		rec, next, err := tp.Next(off, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := bytes.Repeat([]byte{byte(i)}, 10)
		if i == 100 {
			want = []byte("more")
		}
		if !bytes.Equal(rec, want) {
			t.Fatalf("record %d: %q, want %q", i, rec, want)
		}
		off = next
	}
}

// TestTapeReaders reads one tape through two TapeReaders at places many
// blocks apart, in turn, and through the tape itself, with appends in
// between: each reads its records right whatever the others read.
func TestTapeReaders(t *testing.T) {
	db := openMem(t, vfs.NewMem())
	defer db.Close()
	tp, err := db.NewTape()
	if err != nil {
		t.Fatal(err)
	}
	defer tp.Discard()
	var offs []int64
	rec := func(i int) []byte { return bytes.Repeat([]byte{byte(i)}, 100+i%200) }
	add := func(n int) {
		for range n {
			offs = append(offs, tp.Size())
			if err := tp.Append(rec(len(offs) - 1)); err != nil {
				t.Fatal(err)
			}
		}
	}
	add(3000)
	a, b := tp.NewReader(), tp.NewReader()
	read := func(next func(int64, []byte) ([]byte, int64, error), i int) {
		t.Helper()
		got, _, err := next(offs[i], nil)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, rec(i)) {
			t.Fatalf("record %d: got %d bytes of %d", i, len(got), got[0])
		}
	}
	for i := 0; i < 1000; i++ {
		read(a.Next, i)
		read(b.Next, 2000+i)
		read(tp.Next, 1000+i)
		if i == 500 {
			add(10)
			read(a.Next, len(offs)-1)
		}
		if i%100 == 0 {
			if next, err := b.Skip(offs[2000+i]); err != nil || next != offs[2001+i] {
				t.Fatalf("Skip from record %d: %d, %v; want %d", 2000+i, next, err, offs[2001+i])
			}
			if prev, err := a.Prev(offs[2000+i]); err != nil || prev != offs[1999+i] {
				t.Fatalf("Prev from record %d: %d, %v; want %d", 2000+i, prev, err, offs[1999+i])
			}
		}
	}
}

// TestTapeReadRecords reads ranges of records between boundaries, the
// last ones still in the write buffer, and splits them.
func TestTapeReadRecords(t *testing.T) {
	db := openMem(t, vfs.NewMem())
	defer db.Close()
	tp, err := db.NewTape()
	if err != nil {
		t.Fatal(err)
	}
	defer tp.Discard()
	var offs []int64
	for i := range 100 {
		offs = append(offs, tp.Size())
		if err := tp.Append(bytes.Repeat([]byte{byte(i)}, i*7)); err != nil {
			t.Fatal(err)
		}
	}
	offs = append(offs, tp.Size())
	for _, r := range [][2]int{{0, 100}, {10, 11}, {37, 64}, {99, 100}, {5, 5}} {
		b, err := tp.ReadRecords(offs[r[0]], offs[r[1]], nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := r[0]; i < r[1]; i++ {
			var rec []byte
			if rec, b, err = SplitRecord(b); err != nil {
				t.Fatalf("records %v, record %d: %v", r, i, err)
			}
			if !bytes.Equal(rec, bytes.Repeat([]byte{byte(i)}, i*7)) {
				t.Fatalf("records %v, record %d: %d bytes, want %d of %d", r, i, len(rec), i*7, i)
			}
		}
		if len(b) != 0 {
			t.Fatalf("records %v: %d bytes left", r, len(b))
		}
	}
	if _, _, err := SplitRecord([]byte{0, 0, 0, 9, 1}); err == nil {
		t.Error("a cut record split")
	}
	if _, err := tp.ReadRecords(0, tp.Size()+1, nil); err == nil {
		t.Error("a range past the end read")
	}
}
