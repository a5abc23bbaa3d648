package engine

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/wire"
)

// benchRows is the number of rows of the DML benchmarks
// (WEIR_BENCH_ROWS overrides).
func benchRows() int {
	if v, err := strconv.Atoi(os.Getenv("WEIR_BENCH_ROWS")); err == nil && v > 0 {
		return v
	}
	return 200_000
}

// benchExec runs one statement to completion, failing b on an error.
func benchExec(b *testing.B, s wire.Session, text string) {
	b.Helper()
	ctx := context.Background()
	p, err := s.Prepare(ctx, text, nil)
	if err != nil {
		b.Fatalf("%s: %v", text, err)
	}
	r, err := p.Execute(ctx, nil, &testIO{})
	if err != nil {
		b.Fatalf("%s: %v", text, err)
	}
	defer r.Close()
	for {
		row, err := r.Next(ctx)
		if err != nil {
			b.Fatalf("%s: %v", text, err)
		}
		if row == nil {
			return
		}
	}
}

// openBench opens an engine on disk under a 64 MB memory budget, with
// table uu (a primary key and a unique text column) holding benchRows
// rows when fill is set.
func openBench(b *testing.B, fill bool) (*Engine, wire.Session) {
	b.Helper()
	e, err := Open(Config{DataDir: b.TempDir(), Storage: storage.Options{FS: vfs.Default}, MemoryBudgetBytes: 64 << 20})
	if err != nil {
		b.Fatal(err)
	}
	s, err := e.NewSession(context.Background(), wire.StartupParams{User: "root", Database: "dev"})
	if err != nil {
		b.Fatal(err)
	}
	benchExec(b, s, "CREATE TABLE uu (id bigint PRIMARY KEY, u text UNIQUE, v bigint)")
	if fill {
		benchExec(b, s, fmt.Sprintf("INSERT INTO uu SELECT g, 'key-' || g, g %% 1000 FROM generate_series(1, %d) g", benchRows()))
	}
	return e, s
}

// BenchmarkUniqueUpdate rewrites the unique column of every row of a
// table in one UPDATE (each row gives up its key and takes another).
func BenchmarkUniqueUpdate(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		e, s := openBench(b, true)
		b.StartTimer()
		benchExec(b, s, "UPDATE uu SET u = 'new-' || id, v = v + 1")
		b.StopTimer()
		e.Close()
	}
}

// BenchmarkUniqueInsertSelect inserts as many rows as
// BenchmarkUniqueUpdate rewrites, in ascending key order: the baseline
// the UPDATE is compared with.
func BenchmarkUniqueInsertSelect(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		e, s := openBench(b, false)
		b.StartTimer()
		benchExec(b, s, fmt.Sprintf("INSERT INTO uu SELECT g, 'key-' || g, g %% 1000 FROM generate_series(1, %d) g", benchRows()))
		b.StopTimer()
		e.Close()
	}
}

// BenchmarkUniqueInsertRandom inserts the same rows in random order,
// so that neither the primary key nor the unique key rises.
func BenchmarkUniqueInsertRandom(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		e, s := openBench(b, false)
		b.StartTimer()
		benchExec(b, s, fmt.Sprintf("INSERT INTO uu SELECT g, 'key-' || g, g %% 1000 FROM generate_series(1, %d) g ORDER BY random()", benchRows()))
		b.StopTimer()
		e.Close()
	}
}

// BenchmarkUniqueInsertRandomAmong inserts rows in random order among
// as many stored ones (odd keys between even ones), so that every key
// check of the primary key and of the unique key falls inside the
// stored keys' range.
func BenchmarkUniqueInsertRandomAmong(b *testing.B) {
	n := benchRows()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		e, s := openBench(b, false)
		benchExec(b, s, fmt.Sprintf("INSERT INTO uu SELECT 2 * g, 'key-' || (2 * g), g %% 1000 FROM generate_series(1, %d) g", n))
		b.StartTimer()
		benchExec(b, s, fmt.Sprintf("INSERT INTO uu SELECT 2 * g + 1, 'key-' || (2 * g + 1), g %% 1000 FROM generate_series(1, %d) g ORDER BY random()", n))
		b.StopTimer()
		e.Close()
	}
}
