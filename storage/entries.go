package storage

import "hash/maphash"

// A state table's entries live in a slab of fixed chunks, found by key
// through an open-addressing index of integers and linked into the LRU
// list and the overlay's B-tree by entry number. Held as one object per
// entry, reached through a map of pointers, a list of pointers and a
// B-tree of string keys, a table of millions of entries had the garbage
// collector follow a handful of pointers per entry at every cycle, and
// that marking was a third to a half of a stateful query's CPU once the
// state filled its share of the budget. Here an entry costs the
// collector one pointer to follow (its key and value encoding, kept in
// one string) plus its row's in a table that holds rows decoded; the
// chunks, the index and the B-tree's items are pointer-free or scanned
// in order.

// entryChunkBits sets the entries of one slab chunk (1,024).
const entryChunkBits = 10

const entryChunk = 1 << entryChunkBits

// noEntry is the entry number of none (an LRU list's end).
const noEntry int32 = -1

// entrySlab holds a table's entries. A chunk never moves, so a pointer
// to an entry stays valid while the entry is held; a released entry's
// slot is reused by a later one, so a reference kept past its entry's
// release may find another entry there, which the lists that keep such
// references tolerate (see StateTable).
type entrySlab struct {
	chunks []*[entryChunk]stEntry
	free   []int32
	n      int32
}

// at returns the entry numbered id.
func (s *entrySlab) at(id int32) *stEntry {
	return &s.chunks[id>>entryChunkBits][id&(entryChunk-1)]
}

// alloc returns a new, empty entry.
func (s *entrySlab) alloc() *stEntry {
	var id int32
	if n := len(s.free); n > 0 {
		id = s.free[n-1]
		s.free = s.free[:n-1]
	} else {
		id = s.n
		s.n++
		if int(id>>entryChunkBits) == len(s.chunks) {
			s.chunks = append(s.chunks, new([entryChunk]stEntry))
		}
	}
	e := s.at(id)
	*e = stEntry{id: id, prev: noEntry, next: noEntry}
	return e
}

// release gives an entry's slot back: its key and row are let go at
// once, and it stays marked gone until the slot is reused.
func (s *entrySlab) release(e *stEntry) {
	*e = stEntry{id: e.id, prev: noEntry, next: noEntry, gone: true}
	s.free = append(s.free, e.id)
}

// entryIndex finds a table's entries by key: open addressing with
// linear probing over slots holding a 32-bit hash of the key (which
// also gives the slot the probe starts at) and the entry's number plus
// one; 0 is an empty slot. Deletion shifts the probe sequence back, so
// there are no tombstones.
type entryIndex struct {
	slots []uint64
	n     int
	seed  maphash.Seed
}

func newEntryIndex() entryIndex { return entryIndex{seed: maphash.MakeSeed()} }

// tag returns the hash of key the index files it under.
func (x *entryIndex) tag(key string) uint32 { return uint32(maphash.String(x.seed, key) >> 32) }

// len returns the number of entries indexed.
func (x *entryIndex) len() int { return x.n }

// get returns the entry of key (tag its hash), or nil.
func (x *entryIndex) get(s *entrySlab, key string, tag uint32) *stEntry {
	if x.n == 0 {
		return nil
	}
	mask := uint32(len(x.slots) - 1)
	for i := tag & mask; ; i = (i + 1) & mask {
		v := x.slots[i]
		if v == 0 {
			return nil
		}
		if uint32(v>>32) == tag {
			if e := s.at(int32(uint32(v)) - 1); e.key() == key {
				return e
			}
		}
	}
}

// put indexes e, whose key is not indexed, under e.tag.
func (x *entryIndex) put(e *stEntry) {
	if (x.n+1)*4 > len(x.slots)*3 {
		x.grow()
	}
	x.insert(uint64(e.tag)<<32 | uint64(uint32(e.id+1)))
	x.n++
}

func (x *entryIndex) insert(v uint64) {
	mask := uint32(len(x.slots) - 1)
	i := uint32(v>>32) & mask
	for x.slots[i] != 0 {
		i = (i + 1) & mask
	}
	x.slots[i] = v
}

func (x *entryIndex) grow() {
	old := x.slots
	x.slots = make([]uint64, max(2*len(old), 64))
	for _, v := range old {
		if v != 0 {
			x.insert(v)
		}
	}
}

// del removes e, which is indexed, from the index.
func (x *entryIndex) del(e *stEntry) {
	mask := uint32(len(x.slots) - 1)
	want := uint64(e.tag)<<32 | uint64(uint32(e.id+1))
	i := e.tag & mask
	for x.slots[i] != want {
		i = (i + 1) & mask
	}
	for j := i; ; {
		j = (j + 1) & mask
		v := x.slots[j]
		if v == 0 {
			break
		}
		// v may fill the hole at i unless its home lies cyclically in
		// (i, j].
		if home := uint32(v>>32) & mask; (j-home)&mask >= (j-i)&mask {
			x.slots[i] = v
			i = j
		}
	}
	x.slots[i] = 0
	x.n--
}
