package memlimit

import (
	"math"
	"testing"
)

// fakeLimit stands in for debug.SetMemoryLimit.
func fakeLimit(t *testing.T, start int64) *int64 {
	t.Helper()
	limit := start
	lender.setLimit = func(n int64) int64 {
		old := limit
		if n >= 0 {
			limit = n
		}
		return old
	}
	t.Cleanup(func() { lender.setLimit = nil })
	return &limit
}

// Overlapping loans add up and the limit goes back to what it was when
// the last is released, whatever the order.
func TestLoansRaiseAndRestore(t *testing.T) {
	limit := fakeLimit(t, 400)
	a := Lend(100)
	if *limit != 500 {
		t.Fatalf("one loan of 100: limit %d, want 500", *limit)
	}
	b := Lend(50)
	if *limit != 550 {
		t.Fatalf("two loans: limit %d, want 550", *limit)
	}
	a.Release()
	if *limit != 450 {
		t.Fatalf("after the first release: limit %d, want 450", *limit)
	}
	b.Release()
	if *limit != 400 {
		t.Fatalf("after both: limit %d, want 400", *limit)
	}
}

// A loan held twice keeps its headroom until both holders release it:
// a parse abandoned by its statement outlives the statement.
func TestLoanHeldTwice(t *testing.T) {
	limit := fakeLimit(t, 1000)
	l := Lend(200)
	l.Hold()
	l.Release()
	if *limit != 1200 {
		t.Fatalf("one of two holders released: limit %d, want 1200", *limit)
	}
	l.Release()
	if *limit != 1000 {
		t.Fatalf("both released: limit %d, want 1000", *limit)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("a third release did not panic")
		}
	}()
	l.Release()
}

// Without a limit in force a loan leaves the runtime without one.
func TestNoLimitStaysNone(t *testing.T) {
	limit := fakeLimit(t, math.MaxInt64)
	l := Lend(1 << 30)
	if *limit != math.MaxInt64 {
		t.Fatalf("no limit, a loan: limit %d, want none", *limit)
	}
	l.Release()
	if *limit != math.MaxInt64 {
		t.Fatalf("no limit after release: %d", *limit)
	}
}
