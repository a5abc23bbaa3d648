package storage

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// verifyIndex checks that every entry the slab holds (in a table with
// an index) is found by its key, and that the index holds no others.
func (t *StateTable) verifyIndex() error {
	if t.dropClean {
		return nil
	}
	n := 0
	for id := int32(0); id < t.slab.n; id++ {
		e := t.slab.at(id)
		if e.gone {
			continue
		}
		n++
		if got := t.index.get(&t.slab, e.key(), e.tag); got != e {
			return fmt.Errorf("entry %d (key %x) not found by its key", id, e.key())
		}
	}
	if n != t.index.len() {
		return fmt.Errorf("the index holds %d entries, the slab %d", t.index.len(), n)
	}
	return nil
}

// TestEntryIndexModel puts and deletes keys at random, with hashes
// forced into few values so that probe sequences collide and wrap, and
// checks every lookup against a Go map.
func TestEntryIndexModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var s entrySlab
	x := newEntryIndex()
	model := map[string]*stEntry{}
	for step := range 200000 {
		k := fmt.Sprint(rng.IntN(3000))
		// A few hashes only, all near the top of the table's range.
		tag := uint32(rng.IntN(4))*977 + 0xfffffff0
		if old, ok := model[k]; ok {
			tag = old.tag
		}
		got := x.get(&s, k, tag)
		if want := model[k]; got != want {
			t.Fatalf("step %d: get(%s) = %v, want %v", step, k, got, want)
		}
		if got == nil {
			e := s.alloc()
			e.kv, e.klen, e.tag = k, int32(len(k)), tag
			x.put(e)
			model[k] = e
		} else if rng.IntN(2) == 0 {
			x.del(got)
			s.release(got)
			delete(model, k)
		}
		if x.len() != len(model) {
			t.Fatalf("step %d: %d indexed, want %d", step, x.len(), len(model))
		}
	}
	for k, e := range model {
		if got := x.get(&s, k, e.tag); got != e {
			t.Fatalf("at the end: get(%s) = %v, want %v", k, got, e)
		}
	}
}
