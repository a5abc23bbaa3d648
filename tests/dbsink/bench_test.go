package dbsink

import (
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/tests/kafka/kafkatest"
	"github.com/weirdb/weir/tests/testenv"
)

var benchRows = flag.Int("dbsink.rows", 200_000, "rows each mode of BenchmarkDBSink delivers")

// BenchmarkDBSink measures what exactly-once costs a database sink: for
// each target (PostgreSQL, MariaDB) and each guarantee (exactly-once
// through the progress row, at-least-once, and exactly-once with
// two-phase commit as well), a fresh weir
// server whose table holds -dbsink.rows rows (id, k, 24 characters of
// text) gets a FORMAT PLAIN sink of it into an empty target table. The
// clock starts just before CREATE SINK and stops when the target holds
// every row; rows per CPU-second are the rows divided by the utime +
// stime (/proc/PID/stat) weir's process spent meanwhile. The target
// server's own CPU (the postmaster and its backends, or mariadbd) is
// shown beside it. One run gives the whole table:
//
//	go test ./tests/dbsink -run '^$' -bench DBSink -benchtime 1x
func BenchmarkDBSink(b *testing.B) {
	type result struct {
		kind, mode              string
		round                   int
		wall, weirCPU, dbCPU    time.Duration
		rowsPerCPUs, rowsPerSec float64
	}
	var results []result
	modes := []string{"exactly-once", "at-least-once", "two-phase"}
	for range b.N {
		for _, kind := range kinds {
			var srv server
			var dbPid func() int
			if kind == "mysql" {
				m := testenv.StartMariaDB(b)
				srv, dbPid = m, m.Pid
			} else {
				pg := testenv.StartPostgres(b)
				srv, dbPid = pg, pg.Pid
			}
			for round := 1; round <= *benchRounds; round++ {
				for i := range modes {
					// Rounds rotate which mode goes first.
					mode := modes[(i+round-1)%len(modes)]
					r := benchOne(b, kind, mode, srv, dbPid)
					results = append(results, result{kind: kind, mode: mode, round: round, wall: r.wall, weirCPU: r.weirCPU, dbCPU: r.dbCPU,
						rowsPerCPUs: float64(*benchRows) / r.weirCPU.Seconds(), rowsPerSec: float64(*benchRows) / r.wall.Seconds()})
				}
			}
		}
	}
	fmt.Printf("\n%d rows per run, FORMAT PLAIN, default batch.size, %d round(s)\n", *benchRows, *benchRounds)
	fmt.Printf("%-9s %-14s %5s %9s %9s %10s %16s %11s\n", "target", "guarantee", "round", "wall", "weir CPU", "target CPU", "rows/weir CPU-s", "rows/s")
	for _, r := range results {
		fmt.Printf("%-9s %-14s %5d %8.2fs %8.2fs %9.2fs %16.0f %11.0f\n", r.kind, r.mode, r.round, r.wall.Seconds(), r.weirCPU.Seconds(), r.dbCPU.Seconds(), r.rowsPerCPUs, r.rowsPerSec)
	}
	fmt.Printf("medians:\n")
	for _, kind := range kinds {
		for _, mode := range modes {
			var per, dbs []float64
			for _, r := range results {
				if r.kind == kind && r.mode == mode {
					per = append(per, r.rowsPerCPUs)
					dbs = append(dbs, float64(*benchRows)/r.dbCPU.Seconds())
				}
			}
			m, md := median(per), median(dbs)
			fmt.Printf("%-9s %-14s %16.0f rows per weir CPU-second, %9.0f rows per target CPU-second\n", kind, mode, m, md)
			b.ReportMetric(m, kind+"_"+strings.ReplaceAll(mode, "-", "_")+"_rows/cpu-s")
		}
	}
}

var benchRounds = flag.Int("dbsink.rounds", 1, "rounds (every mode each, rotating which goes first) per target")

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	return v[len(v)/2]
}

type benchRun struct{ wall, weirCPU, dbCPU time.Duration }

// benchOne runs one mode against kind: a fresh weir, its table loaded,
// then CREATE SINK timed until the target holds every row.
func benchOne(b *testing.B, kind, mode string, srv server, dbPid func() int) benchRun {
	tg := newTarget(b, kind, srv)
	tg.exec(b, "CREATE TABLE bench_out (id bigint, k integer, v varchar(64))")
	w := testenv.Start(b, testenv.Options{})
	defer w.Stop()
	conn := w.ConnString()
	kafkatest.Exec(b, conn, "CREATE TABLE bench_in (id bigint, k int, v varchar) APPEND ONLY")
	for from := 0; from < *benchRows; from += 10_000 {
		var sb strings.Builder
		sb.WriteString("INSERT INTO bench_in VALUES ")
		for i := from; i < min(from+10_000, *benchRows); i++ {
			if i > from {
				sb.WriteString(", ")
			}
			fmt.Fprintf(&sb, "(%d, %d, 'row-%020d')", i, i%100, i)
		}
		kafkatest.Exec(b, conn, sb.String())
	}
	weir0, _ := testenv.ProcessCPU(w.Pid())
	db0 := testenv.TreeCPU(dbPid())
	start := time.Now()
	opts := "sink.delivery.guarantee = '" + mode + "'"
	if mode == "two-phase" {
		opts = "sink.delivery.guarantee = 'exactly-once', sink.two_phase_commit = 'true'"
	}
	kafkatest.Exec(b, conn, fmt.Sprintf(
		"CREATE SINK bench FROM bench_in WITH (%s, table = 'bench_out', %s) FORMAT PLAIN", tg.with, opts))
	want := strconv.Itoa(*benchRows)
	kafkatest.Eventually(b, 10*time.Minute, "the target holding every row", func() (bool, string) {
		got, err := tg.rows("SELECT count(*) FROM bench_out")
		if err != nil || len(got) != 1 {
			return false, fmt.Sprint(err)
		}
		return got[0] == want, got[0] + " rows"
	})
	wall := time.Since(start)
	weir1, _ := testenv.ProcessCPU(w.Pid())
	db1 := testenv.TreeCPU(dbPid())
	return benchRun{wall: wall, weirCPU: weir1 - weir0, dbCPU: db1 - db0}
}
