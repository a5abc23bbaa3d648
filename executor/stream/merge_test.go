package stream

import (
	"context"
	"strings"
	"testing"

	"github.com/weirdb/weir/types"
)

// sendScript parses script (the rtScript form) and sends its messages to
// ch, which must have room for them.
func sendScript(t *testing.T, ch chan<- types.Message, script string) {
	t.Helper()
	for _, m := range parseScript(t, ts2, script) {
		ch <- m
	}
}

// nextN renders the next n messages of op.
func nextN(t *testing.T, op Operator, n int) string {
	t.Helper()
	var b strings.Builder
	for range n {
		b.WriteString(render(mustNext(t, op)))
	}
	return b.String()
}

// TestUnalignedMerge checks a Merge without barrier alignment: a row
// that follows barrier 2 on a channel that is ahead is returned before
// barrier 2, which comes once the other channel delivered it too; a
// channel is blocked when it delivers a second barrier while the first
// still waits.
func TestUnalignedMerge(t *testing.T) {
	a, b := make(chan types.Message, 16), make(chan types.Message, 16)
	m := newMerge([]<-chan types.Message{a, b}).unaligned()

	// The first barrier is aligned (nothing may precede it), whichever
	// channel is read first.
	sendScript(t, a, "barrier 1\n+ 1 a-epoch-2")
	sendScript(t, b, "barrier 1")
	checkOutput(t, nextN(t, m, 2), `
barrier 1
 I T
+ 1 a-epoch-2
`)

	// a runs ahead: its row after barrier 2 passes before barrier 2,
	// while b has not delivered barrier 2 yet. Then a delivers barrier 3
	// and is blocked: its next row waits until barrier 2 is returned.
	sendScript(t, a, "barrier 2\n+ 2 a-after-2\nbarrier 3\n+ 3 a-after-3")
	checkOutput(t, nextN(t, m, 1), `
 I T
+ 2 a-after-2
`)
	sendScript(t, b, "+ 4 b-epoch-2\nbarrier 2")
	checkOutput(t, nextN(t, m, 3), `
 I T
+ 4 b-epoch-2
barrier 2
 I T
+ 3 a-after-3
`)
	sendScript(t, b, "barrier 3")
	checkOutput(t, nextN(t, m, 1), "barrier 3")

	// Barriers of different epochs are still an error.
	sendScript(t, a, "barrier 5")
	sendScript(t, b, "barrier 6")
	if _, err := m.Next(context.Background()); err == nil || !strings.Contains(err.Error(), "misalignment") {
		t.Errorf("misaligned barriers: %v", err)
	}
}

// TestUnalignedMergeAlignsMutations checks that a barrier carrying a
// mutation (here stopping the job) is aligned all the same: the row after
// it on the channel that is ahead comes after it. The channels are read
// in random order, so it runs many times.
func TestUnalignedMergeAlignsMutations(t *testing.T) {
	for _, mut := range []string{"stop", "add"} {
		for range 100 {
			a, b := make(chan types.Message, 16), make(chan types.Message, 16)
			m := newMerge([]<-chan types.Message{a, b}).unaligned()
			sendScript(t, a, "barrier 3")
			sendScript(t, b, "barrier 3")
			checkOutput(t, nextN(t, m, 1), "barrier 3")
			sendScript(t, a, "barrier 4 "+mut+"\n+ 5 a-after-4")
			sendScript(t, b, "+ 6 b-epoch-4\nbarrier 4 "+mut)
			checkOutput(t, nextN(t, m, 3), `
 I T
+ 6 b-epoch-4
barrier 4
 I T
+ 5 a-after-4
`)
			if t.Failed() {
				t.Fatalf("mutation %s", mut)
			}
		}
	}
}

// TestUnalignedMergeFirstBarrier repeats the start of a job many times:
// with both channels ready, the row after the first barrier on one
// channel never comes before that barrier, though the channels are read
// in random order (a Merge that skipped alignment here would return the
// row first about one time in four).
func TestUnalignedMergeFirstBarrier(t *testing.T) {
	for _, first := range []string{"barrier 1", "barrier 1 initial", "barrier 1 add"} {
		for range 100 {
			a, b := make(chan types.Message, 4), make(chan types.Message, 4)
			m := newMerge([]<-chan types.Message{a, b}).unaligned()
			sendScript(t, a, first+"\n+ 1 x")
			sendScript(t, b, first)
			checkOutput(t, nextN(t, m, 2), "barrier 1\n I T\n+ 1 x")
			if t.Failed() {
				t.Fatalf("first barrier: %s", first)
			}
		}
	}
}

// TestAlignedMergeHoldsRowsAfterBarrier is TestUnalignedMerge's second
// step with alignment (the default): a's row after barrier 2 waits for
// barrier 2, so b's row comes first.
// The channels are read in random order, so it runs many times.
func TestAlignedMergeHoldsRowsAfterBarrier(t *testing.T) {
	for range 100 {
		a, b := make(chan types.Message, 16), make(chan types.Message, 16)
		m := newMerge([]<-chan types.Message{a, b})
		sendScript(t, a, "barrier 1")
		sendScript(t, b, "barrier 1")
		checkOutput(t, nextN(t, m, 1), "barrier 1")
		sendScript(t, a, "barrier 2\n+ 2 a-after-2")
		sendScript(t, b, "+ 4 b-epoch-2\nbarrier 2")
		got := nextN(t, m, 3)
		checkOutput(t, got, `
 I T
+ 4 b-epoch-2
barrier 2
 I T
+ 2 a-after-2
`)
		if t.Failed() {
			return
		}
	}
}

// TestUnionInheritsUnalignment checks that a multi-input operator over
// unaligned exchange receivers skips alignment too, and over aligned
// ones aligns.
func TestUnionInheritsUnalignment(t *testing.T) {
	mk := func(unaligned bool) Operator {
		m := newMerge([]<-chan types.Message{make(chan types.Message)})
		if unaligned {
			m.unaligned()
		}
		return m
	}
	for _, un := range []bool{false, true} {
		u, err := NewUnion(nil, []Operator{mk(un), mk(un)})
		if err != nil {
			t.Fatal(err)
		}
		if u.al.unaligned != un {
			t.Errorf("union over unaligned=%v merges: unaligned=%v", un, u.al.unaligned)
		}
	}
}
