package storage

import (
	"fmt"
	"testing"
)

// TestKeyFilter: a key added is always found, through filters of
// growing capacity, and few keys never added are.
func TestKeyFilter(t *testing.T) {
	f := newKeyFilter()
	const first, n = 1000, 100000
	for i := range n {
		if f.full() {
			want := f.nextBytes(first)
			before := f.bytes()
			f.grow(first)
			if f.bytes()-before != want {
				t.Fatalf("grow added %d bytes, nextBytes said %d", f.bytes()-before, want)
			}
		}
		f.add(fmt.Sprint("key", i))
	}
	// 1000, 2000, ..., 64000: seven filters for 100,000 keys.
	if len(f.parts) != 7 {
		t.Fatalf("%d filters for %d keys from %d", len(f.parts), n, first)
	}
	for i := range n {
		if !f.mayContain([]byte(fmt.Sprint("key", i))) {
			t.Fatalf("key%d added and not found", i)
		}
	}
	fp := 0
	for i := range n {
		if f.mayContain([]byte(fmt.Sprint("other", i))) {
			fp++
		}
	}
	// About 0.5 % a full filter, seven filters: 5 % is far above it.
	if fp > n/20 {
		t.Fatalf("%d of %d keys never added found", fp, n)
	}
	t.Logf("%d false positives of %d (%d filters, %d bytes)", fp, n, len(f.parts), f.bytes())
}
