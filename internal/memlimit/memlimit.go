package memlimit

import (
	"math"
	"runtime/debug"
	"sync"
)

// lender is the process's account of outstanding loans.
var lender struct {
	mu sync.Mutex
	// base is the limit in force before the first outstanding loan.
	base int64
	// lent is the sum of outstanding loans.
	lent int64
	// setLimit is debug.SetMemoryLimit; tests replace it.
	setLimit func(int64) int64
}

// Loan is headroom lent above the soft memory limit. Its holders share
// it: Hold adds one, Release takes one away, and the headroom goes back
// when the last holder releases it.
type Loan struct {
	mu    sync.Mutex
	bytes int64
	refs  int
}

// Lend raises the soft memory limit by bytes and returns the loan, held
// once. When no limit is in force (the runtime's default, no limit) it
// changes nothing but is still a valid loan.
func Lend(bytes int64) *Loan {
	l := &Loan{bytes: max(bytes, 0), refs: 1}
	lender.mu.Lock()
	defer lender.mu.Unlock()
	set := setLimitFunc()
	if lender.lent == 0 {
		lender.base = set(-1)
	}
	lender.lent += l.bytes
	apply(set)
	return l
}

// Hold adds a holder to the loan: the headroom stays until this holder
// releases it too.
func (l *Loan) Hold() {
	l.mu.Lock()
	l.refs++
	l.mu.Unlock()
}

// Release ends one holder's share; the last one gives the headroom back.
// Releasing more times than the loan was held is a programming error and
// panics.
func (l *Loan) Release() {
	l.mu.Lock()
	l.refs--
	refs := l.refs
	l.mu.Unlock()
	if refs < 0 {
		panic("memlimit: loan released more often than held")
	}
	if refs > 0 {
		return
	}
	lender.mu.Lock()
	defer lender.mu.Unlock()
	lender.lent -= l.bytes
	apply(setLimitFunc())
}

// apply sets the runtime's limit to the base plus what is lent, or back
// to the base when nothing is; with no limit in force it leaves it so.
func apply(set func(int64) int64) {
	if lender.base == math.MaxInt64 {
		return
	}
	limit := lender.base + lender.lent
	if limit < lender.base { // overflow
		limit = math.MaxInt64
	}
	set(limit)
}

func setLimitFunc() func(int64) int64 {
	if lender.setLimit != nil {
		return lender.setLimit
	}
	return debug.SetMemoryLimit
}
