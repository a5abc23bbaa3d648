package storage

import "hash/maphash"

// keyFilter is a set of keys that answers "maybe" or "no" and grows with
// what is added to it: a series of blocked Bloom filters, each with twice
// the capacity of the one before, the last one taking the keys added
// until it holds its capacity. A key is in the set when some filter may
// hold it. Each filter has filterBitsPerKey bits per key of its capacity
// and sets filterProbes bits of one 512-bit block (a cache line) per key,
// so a lookup reads one cache line per filter: a full filter answers
// "maybe" for about 0.5 % of the keys it does not hold, and a set of n
// keys has about log2(n / first) filters, first the first one's
// capacity.
//
// A state table no longer held whole in memory remembers in one the keys
// of the rows it let go of (StateTable.gone), so that a lookup of a key
// the filter does not hold needs no Pebble read: the key has no row.
type keyFilter struct {
	seed  maphash.Seed
	parts []filterPart
}

// filterPart is one Bloom filter of a keyFilter.
type filterPart struct {
	blocks [][8]uint64
	// n is the keys added; capacity the most it takes.
	n, capacity int
}

const (
	// filterBitsPerKey: 12 bits a key, about 0.5 % false positives in a
	// blocked filter with filterProbes probes at its capacity.
	filterBitsPerKey = 12
	filterProbes     = 8
)

func newKeyFilter() *keyFilter { return &keyFilter{seed: maphash.MakeSeed()} }

// full reports whether the set's last filter holds its capacity (or
// there is none): the next key needs a new one, of nextBytes.
func (f *keyFilter) full() bool {
	return len(f.parts) == 0 || f.parts[len(f.parts)-1].n >= f.parts[len(f.parts)-1].capacity
}

// nextBytes returns the bytes of the filter grow would add, the first
// one taking first keys.
func (f *keyFilter) nextBytes(first int) int64 {
	return int64(blocksFor(f.nextCapacity(first))) * 64
}

func (f *keyFilter) nextCapacity(first int) int {
	if len(f.parts) == 0 {
		return first
	}
	return 2 * f.parts[len(f.parts)-1].capacity
}

func blocksFor(capacity int) int { return (capacity*filterBitsPerKey + 511) / 512 }

// grow adds a filter for the next keys (see nextBytes).
func (f *keyFilter) grow(first int) {
	c := f.nextCapacity(first)
	f.parts = append(f.parts, filterPart{blocks: make([][8]uint64, blocksFor(c)), capacity: c})
}

// add adds key to the set's last filter, which must not be full.
func (f *keyFilter) add(key string) {
	p := &f.parts[len(f.parts)-1]
	h := maphash.String(f.seed, key)
	b := &p.blocks[blockOf(h, len(p.blocks))]
	for i := range filterProbes {
		bit := probe(h, i)
		b[bit>>6] |= 1 << (bit & 63)
	}
	p.n++
}

// mayContain reports whether key may be in the set (false: it is not).
func (f *keyFilter) mayContain(key []byte) bool {
	h := maphash.Bytes(f.seed, key)
	for pi := range f.parts {
		p := &f.parts[pi]
		b := &p.blocks[blockOf(h, len(p.blocks))]
		hit := true
		for i := range filterProbes {
			bit := probe(h, i)
			if b[bit>>6]&(1<<(bit&63)) == 0 {
				hit = false
				break
			}
		}
		if hit {
			return true
		}
	}
	return false
}

// bytes returns the memory of the set's filters.
func (f *keyFilter) bytes() int64 {
	var n int64
	for _, p := range f.parts {
		n += int64(len(p.blocks)) * 64
	}
	return n
}

// blockOf maps a hash to one of n blocks by its high 32 bits (Lemire's
// multiply-shift, without a division).
func blockOf(h uint64, n int) int {
	return int(((h >> 32) * uint64(n)) >> 32)
}

// probe returns the i-th bit (0-511) of a key's block: double hashing
// over the hash's low 32 bits, mixed (the high ones chose the block).
func probe(h uint64, i int) uint {
	m := uint32(h) * 0x9e3779b1
	a, b := m>>23, (m>>14)|1
	return uint((a + uint32(i)*b) & 511)
}
