package stream

// pairIndex finds the dirty groups of an aggregation grouped by two
// non-NULL integer keys (HashAgg.intPair) by their values: a hash table
// of open addressing from the pair to the group's position in
// HashAgg.order, in place of a Go map[[2]int64]*aggGroup: every input
// row of such an aggregation (Nexmark q5's count per window and
// auction, five rows per bid) looks its group up, and a generic map
// hashes the 16-byte key through memhash and probes its groups of
// slots, where this table multiplies, shifts and compares two words.
// Its slots hold no pointers, so the garbage collector does not scan
// them.
type pairIndex struct {
	// slots has a power-of-two length; a slot with pos 0 is empty,
	// otherwise pos-1 is the group's position in the order.
	slots []pairSlot
	// shift is 64 minus log2(len(slots)): a hash's top bits index it.
	shift uint
	n     int
}

type pairSlot struct {
	k   [2]int64
	pos int32
}

// pairIndexMin is the fewest slots a pairIndex has.
const pairIndexMin = 64

func (p *pairIndex) hash(k [2]int64) uint64 {
	h := uint64(k[0])*0x9e3779b97f4a7c15 ^ uint64(k[1])
	h *= 0xbf58476d1ce4e5b9
	return (h ^ h>>29) >> p.shift
}

// get returns the position of k's group in the order, and false when k
// has none.
func (p *pairIndex) get(k [2]int64) (int, bool) {
	if p.n == 0 {
		return 0, false
	}
	mask := uint64(len(p.slots) - 1)
	for i := p.hash(k); ; i = (i + 1) & mask {
		s := &p.slots[i]
		if s.pos == 0 {
			return 0, false
		}
		if s.k == k {
			return int(s.pos - 1), true
		}
	}
}

// put records that k's group (which has none yet) is at position pos of
// the order.
func (p *pairIndex) put(k [2]int64, pos int) {
	if (p.n+1)*4 > len(p.slots)*3 {
		p.grow()
	}
	p.insert(k, int32(pos+1))
	p.n++
}

func (p *pairIndex) insert(k [2]int64, pos int32) {
	mask := uint64(len(p.slots) - 1)
	i := p.hash(k)
	for p.slots[i].pos != 0 {
		i = (i + 1) & mask
	}
	p.slots[i] = pairSlot{k: k, pos: pos}
}

func (p *pairIndex) grow() {
	old := p.slots
	n := max(2*len(old), pairIndexMin)
	p.slots = make([]pairSlot, n)
	p.shift = 64
	for ; n > 1; n >>= 1 {
		p.shift--
	}
	for _, s := range old {
		if s.pos != 0 {
			p.insert(s.k, s.pos)
		}
	}
}

// pairIndexKeep is the most slots a reset keeps whatever the last use
// filled (1.5 MiB): a flush of this many groups comes again, and
// growing back to it would rehash every group.
const pairIndexKeep = 1 << 16

// reset empties the index. A table grown past pairIndexKeep slots and
// far past what the last use filled is given back, so that one large
// epoch does not make every later reset clear it all.
func (p *pairIndex) reset() {
	if len(p.slots) > pairIndexKeep && p.n*8 < len(p.slots) {
		p.slots, p.shift = nil, 0
	} else {
		clear(p.slots)
	}
	p.n = 0
}
