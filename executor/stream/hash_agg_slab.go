package stream

// slab hands out pieces of blocks of E, in order, and hands them out
// again once reset: a hash aggregation cuts its dirty groups (and their
// keys, old rows and values) from slabs, since a group is flushed and
// forgotten by the end of its epoch, so the next epoch's groups can take
// its memory rather than new memory the collector must reclaim.
type slab[E any] struct {
	blocks [][]E
	// next is the number of blocks handed out from; cur the rest of the
	// last one.
	next int
	cur  []E
}

// take returns n zero elements (its capacity is n: an append to it
// copies), from a block of blockLen elements (at least n).
func (s *slab[E]) take(n, blockLen int) []E {
	if len(s.cur) < n {
		if s.next < len(s.blocks) && len(s.blocks[s.next]) >= n {
			s.cur = s.blocks[s.next]
		} else {
			b := make([]E, max(blockLen, n))
			if s.next < len(s.blocks) {
				s.blocks[s.next] = b
			} else {
				s.blocks = append(s.blocks, b)
			}
			s.cur = b
		}
		s.next++
	}
	r := s.cur[:n:n]
	s.cur = s.cur[n:]
	return r
}

// reset makes the blocks available again, zeroed (so that nothing the
// old pieces pointed to stays reachable through them). It keeps at most
// keep of the blocks handed out since the last reset, and none of the
// others: the memory held between uses is at most what the last one
// used, and at most keep blocks. A round that handed nothing out keeps
// its first block (zeroed already): an aggregation at a parallelism of
// two sees an INSERT's row in one of its two actors, so at one-row
// epochs each actor alternates between a round of one group and an
// empty one, and dropping the block at the empty round made the next
// round allocate it anew, tens of kilobytes per INSERT for the
// collector.
func (s *slab[E]) reset(keep int) {
	if s.next == 0 {
		n := min(len(s.blocks), 1, keep)
		clear(s.blocks[n:])
		s.blocks = s.blocks[:n]
		s.cur = nil
		return
	}
	n := min(s.next, keep)
	for i, b := range s.blocks[:n] {
		if i == s.next-1 {
			// The last block handed out from is used up to cur only:
			// an epoch that dirtied one group clears that group, not
			// the whole block.
			b = b[:len(b)-len(s.cur)]
		}
		clear(b)
	}
	clear(s.blocks[n:])
	s.blocks = s.blocks[:n]
	s.next, s.cur = 0, nil
}
