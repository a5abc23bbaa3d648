package hostile

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// insertValuesText is INSERT INTO iv VALUES (1, 'row 1'), (2, 'row 2'),
// ... of about size bytes, and its number of rows.
func insertValuesText(size int) (string, int) {
	var b strings.Builder
	b.Grow(size + 64)
	b.WriteString("INSERT INTO iv VALUES ")
	n := 0
	for b.Len() < size {
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		fmt.Fprintf(&b, "(%d, 'row %d')", n, n)
	}
	return b.String(), n
}

// TestMemoryInsertValues sends an 8 MB multi-row INSERT ... VALUES of
// two-column rows, the statement ORMs and pg_dump --inserts send, to a
// server with the default --memory-budget, through the simple protocol
// and then the extended one (Parse with the statement's text), each in a
// fresh process: the peak resident set must stay below the budget plus
// 200 MB. Parsing the statement whole peaked at 669 and 675 MB here (and
// at 3.95 GB for 40 MB of rows); with its rows bound a piece at a time
// it peaks at 183 to 187 MB.
func TestMemoryInsertValues(t *testing.T) {
	t.Parallel() // its own server process: the peak read is its own
	const limit = (defaultBudgetMB + 200) << 20
	text, n := insertValuesText(8 << 20)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	args := []string{"--memory-budget", strconv.Itoa(defaultBudgetMB)}
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeExec} {
		srv, conn := loadedServer(t, ctx, args, "CREATE TABLE iv (a bigint PRIMARY KEY, b text)")
		if _, err := conn.Exec(ctx, text, mode); err != nil {
			t.Fatalf("%v: %v", mode, err)
		}
		peak := procStatus(t, srv.Pid(), "VmHWM")
		var got string
		if err := conn.QueryRow(ctx, "SELECT count(*) || ' ' || sum(a) || ' ' || max(b) FROM iv", pgx.QueryExecModeSimpleProtocol).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("%d %d row %d", n, n*(n+1)/2, maxRowLabel(n)); got != want {
			t.Errorf("%v: got %q, want %q", mode, got, want)
		}
		t.Logf("%v: %d rows, peak RSS %d MB", mode, n, peak>>20)
		if peak > limit {
			t.Errorf("%v: peak RSS %d MB, over %d MB with --memory-budget %d", mode, peak>>20, limit>>20, defaultBudgetMB)
		}
	}
}

// maxRowLabel is the n of the greatest 'row n' in text order among
// 1..n.
func maxRowLabel(n int) int {
	best := 1
	for i := 1; i <= n; i++ {
		if strconv.Itoa(i) > strconv.Itoa(best) {
			best = i
		}
	}
	return best
}
