package hostile

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// batchBudgetMB is the --memory-budget of TestMemoryBudgetBatchHash.
const batchBudgetMB = 32

// batchHashRows is how many rows the batch hash tests' table holds.
const batchHashRows = 600_000

// batchHashCase is one batch SELECT whose peak RSS is measured and
// whose one-value answer must be want.
type batchHashCase struct {
	name, query, want string
}

// batchHashCases are a GROUP BY with one group per row of the table
// (the key is its 96-byte text column) and a self join of the table on
// that column: with n rows each builds a hash table of n rows.
func batchHashCases(n int) []batchHashCase {
	var sumID int64
	for i := int64(1); i <= int64(n); i++ {
		sumID += i
	}
	return []batchHashCase{{
		name: "group-by",
		query: "SELECT count(*) || ' ' || sum(c) || ' ' || sum(s) || ' ' || sum(l) FROM " +
			"(SELECT p, count(*) AS c, sum(id) AS s, max(length(p)) AS l FROM big GROUP BY p) x",
		want: fmt.Sprintf("%d %d %d %d", n, n, sumID, 96*n),
	}, {
		name: "self-join",
		query: "SELECT count(*) || ' ' || sum(a.id) || ' ' || sum(b.id) || ' ' || count(*) FILTER (WHERE a.id <> b.id) " +
			"FROM big a JOIN big b ON a.p = b.p",
		want: fmt.Sprintf("%d %d %d 0", n, sumID, sumID),
	}}
}

// TestMemoryBudgetBatchHash runs a GROUP BY of 600,000 groups and a
// self join of a 600,000-row table (96 bytes of text a row) as plain
// SELECTs under a 32 MB --memory-budget: each statement's peak resident
// set must stay below 250 MB, room for Pebble's block cache and
// memtables (32 MiB, taken from the Go heap's part of this budget), the
// Go heap's allowance beyond the budget (160 MiB) and the runtime, none of
// which grows with the statement. Hash tables held in
// Go maps whatever their size took 607 MB for the GROUP BY and 404 MB
// for the join; spilling beyond work_mem (4MB) keeps them at 144 and
// 164 MB. The answers (a count and checksums) must be exact.
func TestMemoryBudgetBatchHash(t *testing.T) {
	t.Parallel() // its own server process: the peak read is its own
	const limit = 250 << 20
	args := []string{"--memory-budget", strconv.Itoa(batchBudgetMB)}
	if a := os.Getenv("WEIR_MEMORY_ARGS"); a != "" {
		args = strings.Fields(a)
	}
	cases := batchHashCases(batchHashRows)
	peaks := runBatchCases(t, args, batchHashRows, cases)
	for _, c := range cases {
		if p := peaks[c.name]; p > limit {
			t.Errorf("%s: peak RSS %d MB, over %d MB with --memory-budget %d", c.name, p>>20, limit>>20, batchBudgetMB)
		}
	}
}
