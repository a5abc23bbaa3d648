package hostile

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weirdb/weir/tests/testenv"
)

// batchAggRows is how many rows TestBatchAggMemory's table holds.
const batchAggRows = 600_000

// batchAggCases are statements whose operators held their whole input
// in memory until they kept to work_mem: aggregates with DISTINCT or
// ORDER BY in the call, DISTINCT ON over a sort, and a nested-loop join
// whose inner side is the whole table. Each answer is one value,
// computed here from the rows the table holds.
func batchAggCases(n int) []batchHashCase {
	ps := make([]string, n)
	var sumID, nNested, sumNested int64
	for i := 1; i <= n; i++ {
		h := md5.Sum([]byte(strconv.Itoa(i)))
		ps[i-1] = strings.Repeat(hex.EncodeToString(h[:]), 3)
		sumID += int64(i)
		// The nested loop pairs (1, id) when id % 3 = 0 and (2, id)
		// when id % 3 < 2.
		if i%3 == 0 {
			nNested, sumNested = nNested+1, sumNested+int64(i)
		}
		if i%3 < 2 {
			nNested, sumNested = nNested+1, sumNested+int64(i)
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(ps)))
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(p[:4])
	}
	agg := md5.Sum([]byte(b.String()))
	return []batchHashCase{{
		name:  "count-distinct",
		query: "SELECT count(DISTINCT p) || ' ' || count(DISTINCT id % 1000) || ' ' || cardinality(array_agg(DISTINCT id % 50000)) FROM big",
		want:  fmt.Sprintf("%d 1000 50000", n),
	}, {
		name:  "ordered-agg",
		query: "SELECT md5(string_agg(left(p, 4), ',' ORDER BY p DESC, id)) FROM big",
		want:  hex.EncodeToString(agg[:]),
	}, {
		name:  "distinct-on",
		query: "SELECT count(*) || ' ' || sum(id) FROM (SELECT DISTINCT ON (p) id, p FROM big ORDER BY p, id) x",
		want:  fmt.Sprintf("%d %d", n, sumID),
	}, {
		name:  "nested-loop",
		query: "SELECT count(*) || ' ' || sum(b.id) FROM (VALUES (1), (2)) AS v(x) JOIN big b ON b.id % 3 < v.x",
		want:  fmt.Sprintf("%d %d", nNested, sumNested),
	}}
}

// TestBatchAggMemory runs, under a 32 MB --memory-budget and the default
// work_mem (4MB), over a 600,000-row table (96 bytes of text a row):
// count(DISTINCT …) and array_agg(DISTINCT …) of one group, a
// string_agg(… ORDER BY …) of one group, a DISTINCT ON of one row per
// row, and a nested-loop join whose inner side is the table. Each
// statement's peak resident set must stay below 250 MB, as
// TestMemoryBudgetBatchHash's must; the answers must be exact. When
// these held their rows in memory they peaked at 312, 422, 283 and
// 290 MB (docs/memory.md has the figures). WEIR_MEMORY_ROWS sets another
// number of rows.
func TestBatchAggMemory(t *testing.T) {
	t.Parallel() // its own server process: the peak read is its own
	const limit = 250 << 20
	args := []string{"--memory-budget", strconv.Itoa(batchBudgetMB)}
	if a := os.Getenv("WEIR_MEMORY_ARGS"); a != "" {
		args = strings.Fields(a)
	}
	n := batchAggRows
	if v, err := strconv.Atoi(os.Getenv("WEIR_MEMORY_ROWS")); err == nil && v > 0 {
		n = v
	}
	cases := batchAggCases(n)
	peaks := runBatchCases(t, args, n, cases)
	for _, c := range cases {
		if p := peaks[c.name]; p > limit {
			t.Errorf("%s: peak RSS %d MB, over %d MB with --memory-budget %d", c.name, p>>20, limit>>20, batchBudgetMB)
		}
	}
}

// runBatchCases fills table big with n rows on a server started with
// args, then runs each case in a fresh process and returns its peak RSS
// in bytes.
func runBatchCases(t *testing.T, args []string, n int, cases []batchHashCase) map[string]int64 {
	srv := testenv.Start(t, testenv.Options{Args: args, ReadyTimeout: time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	conn, err := pgx.Connect(ctx, srv.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"CREATE TABLE big (id bigint PRIMARY KEY, p text)",
		fmt.Sprintf("INSERT INTO big SELECT i, repeat(md5(i::text), 3) FROM generate_series(1, %d) AS s(i)", n),
	} {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	conn.Close(ctx)
	peaks := map[string]int64{}
	for _, c := range cases {
		// Each statement starts in a fresh process, so that its peak is
		// its own and not what the insert left in the Go heap.
		srv.Restart()
		conn, err := pgx.Connect(ctx, srv.ConnString())
		if err != nil {
			t.Fatal(err)
		}
		resetPeak(t, srv.Pid())
		var got string
		if err := conn.QueryRow(ctx, "SELECT ("+c.query+")::text").Scan(&got); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		peaks[c.name] = procStatus(t, srv.Pid(), "VmHWM")
		conn.Close(ctx)
		if got != c.want {
			t.Errorf("%s: %s = %s, want %s", c.name, c.query, got, c.want)
		}
		t.Logf("%-14s peak RSS %4d MB", c.name, peaks[c.name]>>20)
	}
	return peaks
}
