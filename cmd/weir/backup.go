package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/weirdb/weir/engine"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/storage"
)

// backupUsage is what `weir backup -h` prints, in the layout of `weir -h`.
const backupUsage = `Usage: weir backup --data-dir DIR --to DIR2 [flags]

Copies the data directory of a stopped server at its last committed epoch;
weir serve --data-dir DIR2 resumes the copy. (A running server takes the
same copy with the SQL statement BACKUP TO.)

Flags:
  --data-dir DIR       data directory to copy; no server may be running on it
                       (default ./weir-data)
  --to DIR2            new directory for the copy; must not exist, or be empty
                       (required)
  --hand-over-sinks    drop the sinks from --data-dir once copied, so that only
                       the copy continues them (start it with --take-over-sinks)
  --log-level LEVEL    debug, info, warn or error (default warn)
`

// backupCmd is `weir backup --data-dir DIR --to DIR2`: the offline form of
// BACKUP TO, for a data directory no server is running on.
func backupCmd(args []string) int {
	fs := flag.NewFlagSet("backup", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(os.Stderr, backupUsage) }
	dataDir := fs.String("data-dir", "./weir-data", "data directory to copy (no server may be running on it)")
	to := fs.String("to", "", "new directory for the copy (must not exist, or be empty)")
	handOver := fs.Bool("hand-over-sinks", false, "drop the sinks from --data-dir once copied, so that only the copy continues them")
	logLevel := fs.String("log-level", "warn", "log level: debug, info, warn, error")
	if err := fs.Parse(args); err != nil {
		return parseExit(err)
	}
	if fs.NArg() > 0 || *to == "" {
		fmt.Fprint(os.Stderr, backupUsage)
		return 2
	}
	log, ok := newLogger(*logLevel)
	if !ok {
		return 2
	}
	res, err := engine.BackupOffline(*dataDir, *to, *handOver, storage.Options{Logger: log})
	if err != nil {
		fmt.Fprintf(os.Stderr, "weir backup: %s\n", describeErr(err))
		return 1
	}
	fmt.Printf("backup of %s at epoch %d written to %s\n", *dataDir, res.Epoch, res.Dir)
	if *handOver {
		if len(res.HandedOver) == 0 {
			fmt.Println("no sinks to hand over")
		} else {
			fmt.Printf("sinks handed over to the copy and dropped from %s: %s\n", *dataDir, strings.Join(res.HandedOver, ", "))
			fmt.Printf("start the copy with: weir serve --data-dir %s --take-over-sinks\n", res.Dir)
		}
	}
	return 0
}

// describeErr prints err with its SQLSTATE, detail and hint, as psql
// prints a server's error.
func describeErr(err error) string {
	var pe *pgerr.Error
	if !errors.As(err, &pe) {
		return err.Error()
	}
	out := fmt.Sprintf("%v (SQLSTATE %s)", err, pe.Code)
	if pe.Detail != "" {
		out += "\nDETAIL:  " + pe.Detail
	}
	if pe.Hint != "" {
		out += "\nHINT:  " + pe.Hint
	}
	return out
}
