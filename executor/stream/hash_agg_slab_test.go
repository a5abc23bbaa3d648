package stream

import "testing"

// TestSlabReuse checks that a slab hands its blocks out again after a
// reset, zeroed, and keeps only the blocks handed out since the reset
// before, at most as many as the reset is told.
func TestSlabReuse(t *testing.T) {
	var s slab[int]
	var first []*int
	for i := range 10 {
		p := s.take(3, 8)
		if len(p) != 3 || cap(p) != 3 {
			t.Fatalf("piece of %d (capacity %d), want 3", len(p), cap(p))
		}
		for k := range p {
			p[k] = i + 1
		}
		first = append(first, &p[0])
	}
	if len(s.blocks) != 5 {
		t.Fatalf("%d blocks for 10 pieces of 3 in blocks of 8, want 5", len(s.blocks))
	}
	s.reset(100)
	for i := range 4 {
		p := s.take(3, 8)
		if &p[0] != first[i] {
			t.Errorf("piece %d is new memory, want the first round's", i)
		}
		for _, v := range p {
			if v != 0 {
				t.Fatalf("piece %d holds %v after the reset", i, p)
			}
		}
	}
	// A piece larger than the blocks gets a block of its own.
	if p := s.take(20, 8); len(p) != 20 {
		t.Fatalf("piece of %d, want 20", len(p))
	}
	s.reset(100)
	if len(s.blocks) != 3 {
		t.Fatalf("%d blocks kept after a round of 3, want 3", len(s.blocks))
	}
	s.reset(100)
	if len(s.blocks) != 1 {
		t.Fatalf("%d blocks kept after an empty round, want 1", len(s.blocks))
	}
	for range 10 {
		s.take(3, 8)
	}
	s.reset(2)
	if len(s.blocks) != 2 {
		t.Fatalf("%d blocks kept by a reset to 2", len(s.blocks))
	}
}

// TestSlabResetPartialBlock checks that a reset after a round that used
// only part of its last block still hands every piece out zeroed, over
// rounds that use more and less of the block.
func TestSlabResetPartialBlock(t *testing.T) {
	var s slab[int]
	for round, n := range []int{1, 5, 2, 7, 1, 3} {
		for i := range n {
			p := s.take(2, 16)
			for k, v := range p {
				if v != 0 {
					t.Fatalf("round %d, piece %d: element %d is %d after the reset, want 0", round, i, k, v)
				}
				p[k] = round*100 + i + 1
			}
		}
		s.reset(100)
		for _, b := range s.blocks {
			for k, v := range b {
				if v != 0 {
					t.Fatalf("after round %d: block element %d is %d, want 0", round, k, v)
				}
			}
		}
	}
}

// TestSlabEmptyRoundKeepsBlock checks that rounds that hand nothing out
// between rounds of one piece (an aggregation actor that alternately
// sees an epoch's only row and none) take no new memory, and that the
// kept block is handed out zeroed.
func TestSlabEmptyRoundKeepsBlock(t *testing.T) {
	var s slab[int]
	p := s.take(2, 64)
	p[0], p[1] = 7, 8
	s.reset(100)
	allocs := testing.AllocsPerRun(100, func() {
		p := s.take(2, 64)
		if p[0] != 0 || p[1] != 0 {
			t.Fatalf("piece holds %v after the reset, want zeros", p)
		}
		p[0], p[1] = 7, 8
		s.reset(100)
		s.reset(100)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per round of one piece and an empty round, want 0", allocs)
	}
	if s.reset(0); len(s.blocks) != 0 {
		t.Fatalf("%d blocks kept by an empty round told to keep none", len(s.blocks))
	}
}
