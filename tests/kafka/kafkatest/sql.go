package kafkatest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// SQLTimeout bounds one statement run by Exec or Query.
const SQLTimeout = 2 * time.Minute

// connect opens a connection in the simple query protocol, so that every
// result column arrives as its text form whatever its type.
func connect(ctx context.Context, connString string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(connString)
	if err != nil {
		return nil, err
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	return pgx.ConnectConfig(ctx, cfg)
}

// Exec runs each statement on a fresh connection to connString; an error
// fails the test with the statement.
func Exec(t testing.TB, connString string, stmts ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), SQLTimeout)
	defer cancel()
	conn, err := connect(ctx, connString)
	if err != nil {
		t.Fatalf("connecting to %s: %v", connString, err)
	}
	defer conn.Close(context.Background())
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// Null is how Query renders SQL NULL.
const Null = "<null>"

// Query runs q on a fresh connection and returns its rows with every
// value in its text form (Null for NULL). An error fails the test.
func Query(t testing.TB, connString, q string) [][]string {
	t.Helper()
	rows, err := QueryErr(connString, q)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// QueryMaps runs q like Query and returns each row as a map from column
// name to text value.
func QueryMaps(t testing.TB, connString, q string) []map[string]string {
	t.Helper()
	cols, rows, err := queryCols(connString, q)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]map[string]string, len(rows))
	for i, r := range rows {
		out[i] = make(map[string]string, len(cols))
		for j, c := range cols {
			out[i][c] = r[j]
		}
	}
	return out
}

// QueryErr is Query returning its error (connection refused, a failed
// statement) instead of failing the test, for polling loops and
// goroutines.
func QueryErr(connString, q string) ([][]string, error) {
	_, rows, err := queryCols(connString, q)
	return rows, err
}

// queryCols runs q and returns its column names and rows as text.
func queryCols(connString, q string) ([]string, [][]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), SQLTimeout)
	defer cancel()
	conn, err := connect(ctx, connString)
	if err != nil {
		return nil, nil, fmt.Errorf("connecting to %s: %w", connString, err)
	}
	defer conn.Close(context.Background())
	rs, err := conn.Query(ctx, q)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", q, err)
	}
	defer rs.Close()
	var out [][]string
	for rs.Next() {
		raw := rs.RawValues()
		row := make([]string, len(raw))
		for i, v := range raw {
			if v == nil {
				row[i] = Null
			} else {
				row[i] = string(v)
			}
		}
		out = append(out, row)
	}
	if err := rs.Err(); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", q, err)
	}
	var cols []string
	for _, f := range rs.FieldDescriptions() {
		cols = append(cols, f.Name)
	}
	return cols, out, nil
}

// Eventually calls cond every 100 ms until it reports done, and fails the
// test with cond's last description when timeout passes first. It waits
// for progress, it does not measure speed: the timeout is a bound on a
// hang, chosen far above the expected time.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() (done bool, state string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		done, state := cond()
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not reached after %v; last state: %s", what, timeout, state)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// FaultLine returns the line internal/fault writes before it kills the
// process at point.
func FaultLine(point string) string { return "weir: fault point " + point + " reached" }

// CountInLog returns how many times s occurs in the file at path (0 when
// it cannot be read).
func CountInLog(path, s string) int { return countInFile(path, s) }

// WaitFault waits up to timeout for the running weir to die at the armed
// fault point and fails the test unless it died by SIGKILL with the
// point's line in its log after the before-th such line (count them with
// CountInLog before starting the process).
func WaitFault(t testing.TB, w *Weir, point string, before int, timeout time.Duration) {
	t.Helper()
	exit, err := w.WaitExit(timeout)
	if err != nil {
		t.Fatalf("weir did not die at fault point %s: %v\nlog:\n%s", point, err, w.Tail(3000))
	}
	if !exit.Killed() || CountInLog(w.LogPath, FaultLine(point)) <= before {
		t.Fatalf("weir ended (%v) without reaching fault point %s\nlog:\n%s", exit, point, w.Tail(3000))
	}
}

// LogSince returns the part of the file at path after its first n bytes.
func LogSince(path string, n int64) string {
	data, err := os.ReadFile(path)
	if err != nil || int64(len(data)) < n {
		return ""
	}
	return string(data[n:])
}

// LogSize returns the size of the file at path in bytes (0 when it does
// not exist).
func LogSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// Lines joins rows for a failure message, one row a line.
func Lines(rows [][]string) string {
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(strings.Join(r, " | "))
		b.WriteByte('\n')
	}
	return b.String()
}

// KeepLogs arranges for the files at paths (server logs) to be copied
// into t.ArtifactDir() when the test fails, so that `go test -artifacts`
// keeps them whole; the failure message shows only their last lines.
func KeepLogs(t *testing.T, paths ...string) {
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		dir := t.ArtifactDir()
		for i, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			dst := filepath.Join(dir, fmt.Sprintf("%d-%s", i, filepath.Base(p)))
			if err := os.WriteFile(dst, data, 0o644); err == nil {
				t.Logf("kept %s as %s", p, dst)
			}
		}
	})
}
