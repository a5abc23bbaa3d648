package hostile

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// sortBudgetMB is the --memory-budget of TestBatchSortMemory.
const sortBudgetMB = 32

// TestBatchSortMemory sorts 600,000 rows of about 130 bytes each by a
// text key under a 32 MB --memory-budget and the default work_mem
// (4MB), then computes a window function over them in partitions of
// 600 rows: each statement's peak resident set must stay below 200 MB,
// and the rows must come out complete (and sorted, in order). When the
// sort and the window held their whole input in memory they peaked at
// 380 to 393 MB and 621 MB; spilling sorted runs to tapes and merging
// them keeps both near 150 MB.
func TestBatchSortMemory(t *testing.T) {
	t.Parallel() // its own server process: the peak read is its own
	const n = 600_000
	const limit = 200 << 20
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	srv, conn := loadedServer(t, ctx, []string{"--memory-budget", strconv.Itoa(sortBudgetMB)},
		"CREATE TABLE wide (a bigint, t text)",
		// md5 of a number repeated three times: 96 bytes of text in an
		// order unrelated to a's.
		fmt.Sprintf("INSERT INTO wide SELECT g, repeat(md5(g::text), 3) FROM generate_series(1, %d) g", n))
	defer func() { conn.Close(ctx) }() // the connection to the restarted process below
	rows, err := conn.Query(ctx, "SELECT a, t FROM wide ORDER BY t, a")
	if err != nil {
		t.Fatal(err)
	}
	var count, sum int64
	var prev string
	for rows.Next() {
		var a int64
		var s string
		if err := rows.Scan(&a, &s); err != nil {
			t.Fatal(err)
		}
		if count > 0 && s <= prev {
			t.Fatalf("row %d: %q after %q", count+1, s, prev)
		}
		if len(s) != 96 {
			t.Fatalf("row %d: t has %d bytes, want 96", count+1, len(s))
		}
		prev = s
		count++
		sum += a
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	peak := procStatus(t, srv.Pid(), "VmHWM")
	t.Logf("ORDER BY of %d rows: peak RSS %d MB with --memory-budget %d", n, peak>>20, sortBudgetMB)
	// The keys are distinct (md5 of distinct numbers) and strictly
	// increasing; the count and the sum of a say every row came out once.
	if count != n || sum != int64(n)*(n+1)/2 {
		t.Errorf("%d rows with sum(a) %d, want %d and %d", count, sum, n, int64(n)*(n+1)/2)
	}
	if peak > limit {
		t.Errorf("ORDER BY: peak RSS %d MB, over %d MB with --memory-budget %d", peak>>20, limit>>20, sortBudgetMB)
	}

	// A window function over partitions of 600 rows: its sort spills
	// and it holds one partition at a time.
	conn.Close(ctx)
	srv.Restart()
	if conn, err = pgx.Connect(ctx, srv.ConnString()); err != nil {
		t.Fatal(err)
	}
	resetPeak(t, srv.Pid())
	var wcount, wsum int64
	if err := conn.QueryRow(ctx, "SELECT count(*), sum(rn) FROM (SELECT row_number() OVER (PARTITION BY a % 1000 ORDER BY t) AS rn FROM wide) x").Scan(&wcount, &wsum); err != nil {
		t.Fatal(err)
	}
	peak = procStatus(t, srv.Pid(), "VmHWM")
	t.Logf("window over %d rows: peak RSS %d MB with --memory-budget %d", n, peak>>20, sortBudgetMB)
	const per = n / 1000
	if wcount != n || wsum != 1000*per*(per+1)/2 {
		t.Errorf("window: %d rows with sum(rn) %d, want %d and %d", wcount, wsum, n, 1000*per*(per+1)/2)
	}
	if peak > limit {
		t.Errorf("window: peak RSS %d MB, over %d MB with --memory-budget %d", peak>>20, limit>>20, sortBudgetMB)
	}
}

// TestBatchWindowMemory computes window functions over 300,000 rows of
// about 330 bytes each in one partition under a 32 MB --memory-budget
// and the default work_mem (4MB): a row number, a moving sum over
// eleven rows, lag and lead, and the partition's last value, with the
// wide column passing through the window. The peak resident set must
// stay below 200 MB and every value must be right. When the window held
// its partition in memory the statement peaked at 803 MB; spooling the
// partition to tapes beyond work_mem, at 152 to 165 MB.
func TestBatchWindowMemory(t *testing.T) {
	t.Parallel() // its own server process: the peak read is its own
	const n = 300_000
	const limit = 200 << 20
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	srv, conn := loadedServer(t, ctx, []string{"--memory-budget", strconv.Itoa(sortBudgetMB)},
		"CREATE TABLE wide (a bigint, t text)",
		// md5 of a number repeated ten times: 320 bytes of text.
		fmt.Sprintf("INSERT INTO wide SELECT g, repeat(md5(g::text), 10) FROM generate_series(1, %d) g", n))
	start := time.Now()
	var count, rnSum, sSum, lagSum, leadSum, lenSum, lastSum int64
	err := conn.QueryRow(ctx, `SELECT count(*), sum(rn), sum(s), sum(lg), sum(ld), sum(length(t)), sum(lv) FROM (
		SELECT t, row_number() OVER w AS rn,
			sum(a) OVER (w ROWS BETWEEN 5 PRECEDING AND 5 FOLLOWING) AS s,
			lag(a, 2, 0::bigint) OVER w AS lg, lead(a) OVER w AS ld,
			last_value(a) OVER (w ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS lv
		FROM wide WINDOW w AS (ORDER BY a)) x`).Scan(&count, &rnSum, &sSum, &lagSum, &leadSum, &lenSum, &lastSum)
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	peak := procStatus(t, srv.Pid(), "VmHWM")
	t.Logf("window over one partition of %d rows: peak RSS %d MB with --memory-budget %d, %v", n, peak>>20, sortBudgetMB, elapsed.Round(time.Millisecond))
	// a runs from 1 to n in window order, so every value follows from
	// the row number.
	var want [7]int64
	want[0] = n
	for i := int64(1); i <= n; i++ {
		want[1] += i
		for j := max(i-5, 1); j <= min(i+5, n); j++ {
			want[2] += j
		}
		if i > 2 {
			want[3] += i - 2
		}
		if i < n {
			want[4] += i + 1
		}
		want[5] += 320
		want[6] += n
	}
	if got := [7]int64{count, rnSum, sSum, lagSum, leadSum, lenSum, lastSum}; got != want {
		t.Errorf("count, sum(rn), sum(s), sum(lag), sum(lead), sum(length(t)), sum(last_value) = %v, want %v", got, want)
	}
	if peak > limit {
		t.Errorf("window: peak RSS %d MB, over %d MB with --memory-budget %d", peak>>20, limit>>20, sortBudgetMB)
	}
}
