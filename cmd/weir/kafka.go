package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/weirdb/weir/connector/kafka"
)

// kafkaUsage is what `weir kafka -h` prints, in the layout of `weir -h`.
const kafkaUsage = `Usage: weir kafka [flags]

Runs the embedded development Kafka broker (franz-go's kfake) alone, until
SIGINT or SIGTERM, and prints the address it listens on
(kcat -b 127.0.0.1:9092 -L).

Flags:
  --listen ADDR      address of the Kafka listener; port 0 picks a free port
                     (default 127.0.0.1:9092)
  --advertise ADDR   address put into metadata responses (default: the
                     listener's); set it for a wildcard --listen
  --data-dir DIR     directory persisting topics, offsets and transactions,
                     reloaded on start (default: none, in memory)
  --sync-writes      fsync every produced batch, only with --data-dir
                     (default true; --sync-writes=false to turn off)
  --partitions N     partition count of automatically created topics
                     (default 1)
  --log-level LEVEL  debug, info, warn or error (default info)
`

// kafkaCmd runs `weir kafka`: the embedded broker alone, until SIGINT or
// SIGTERM. It prints one line to stdout naming the address it listens on
// (the real port when --listen asks for port 0) and returns the exit code.
func kafkaCmd(args []string) int {
	fs := flag.NewFlagSet("kafka", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(os.Stderr, kafkaUsage) }
	listen := fs.String("listen", "127.0.0.1:9092", "address of the Kafka listener (port 0 picks a free port)")
	advertise := fs.String("advertise", "", "address put into metadata responses (empty: the listener's); set it for a wildcard --listen")
	dataDir := fs.String("data-dir", "", "directory persisting topics, offsets and transactions, reloaded on start (empty: in memory)")
	syncWrites := fs.Bool("sync-writes", true, "fsync every produced batch (only with --data-dir)")
	partitions := fs.Int("partitions", 1, "partition count of automatically created topics")
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn, error")
	if err := fs.Parse(args); err != nil {
		return parseExit(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "weir kafka: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *partitions < 1 {
		fmt.Fprintf(os.Stderr, "weir kafka: --partitions must be at least 1, not %d\n", *partitions)
		return 2
	}
	log, ok := newLogger(*logLevel)
	if !ok {
		return 2
	}

	// Signals are caught before the broker starts so that a SIGTERM sent
	// right after the "listening" line still closes it cleanly.
	sigc := make(chan os.Signal, 2)
	signal.Notify(sigc, syscall.SIGINT, syscall.SIGTERM)

	b, unlock, err := startBroker(kafka.BrokerOptions{
		Listen:            *listen,
		Advertise:         *advertise,
		DataDir:           *dataDir,
		SyncWrites:        *syncWrites,
		DefaultPartitions: *partitions,
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "weir kafka: %v\n", err)
		return 1
	}
	defer unlock()
	storage := "in memory"
	if *dataDir != "" {
		storage = "data dir " + *dataDir
		if *syncWrites {
			storage += ", synced writes"
		}
	}
	if n := b.RestoredTxns(); n > 0 {
		fmt.Printf("weir kafka: kept %d transactions a crash left open, as Kafka does\n", n)
	}
	if n := b.RepairedTxns(); n > 0 {
		fmt.Printf("weir kafka: wrote %d abort markers of transactions a crash left open\n", n)
	}
	fmt.Printf("weir kafka: broker listening on %s (%s)\n", b.Addr(), storage)

	sig := <-sigc
	log.Info("shutting down", "signal", strings.ToUpper(sig.String()))
	b.Close()
	log.Info("broker closed")
	return 0
}

// startBroker starts the embedded broker. With a DataDir it first takes
// an exclusive lock on DataDir/LOCK (created with the directory if
// missing), so that a second broker cannot load and rewrite the files of
// a running one; unlock releases it after the broker is closed.
func startBroker(opts kafka.BrokerOptions) (b *kafka.Broker, unlock func(), err error) {
	unlock = func() {}
	if opts.DataDir != "" {
		l, err := lockDir(opts.DataDir)
		if err != nil {
			return nil, nil, err
		}
		unlock = func() { l.Close() }
	}
	b, err = kafka.StartBroker(opts)
	if err != nil {
		unlock()
		return nil, nil, err
	}
	if opts.DataDir != "" && !opts.DisableAutoCreate {
		durableAutoCreate(b.Cluster())
	}
	return b, unlock, nil
}

// durableAutoCreate makes automatically created topics survive a crash.
// kfake creates a topic named in a Metadata request in memory only and
// writes the topic list to its DataDir on a clean Close, so after a
// SIGKILL the topic is unknown and every record produced to it is lost,
// although the segments are on disk. Topics made by CreateTopics are
// persisted at once. The control function below sees every Metadata
// request before kfake handles it and creates the named topics through
// Cluster.CreateTopic (with the default partition count, as automatic
// creation would), which writes the topic list; the request then finds
// them. For an existing topic CreateTopic fails at once with
// TOPIC_ALREADY_EXISTS and writes nothing. kfake runs control functions
// on their own goroutine while its loop keeps serving admin calls, so
// calling CreateTopic here does not deadlock.
func durableAutoCreate(c *kfake.Cluster) {
	c.ControlKey(int16(kmsg.Metadata), func(r kmsg.Request) (kmsg.Response, error, bool) {
		req, ok := r.(*kmsg.MetadataRequest)
		if !ok || !req.AllowAutoTopicCreation {
			return nil, nil, false
		}
		for _, rt := range req.Topics {
			if rt.Topic != nil && *rt.Topic != "" {
				// Errors (the topic exists, or its name is invalid) are
				// left for the Metadata handler to report.
				_ = c.CreateTopic(*rt.Topic, -1, nil)
			}
		}
		return nil, nil, false // kfake handles the request as usual
	})
}

// lockDir creates dir if needed and takes a non-blocking flock(2) on
// dir/LOCK, writing this process's pid into it for the error message of
// the next one. Closing the returned file releases the lock; so does the
// process's death, however it dies.
func lockDir(dir string) (io.Closer, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating kafka data directory: %w", err)
	}
	path := filepath.Join(dir, "LOCK")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening lock file of kafka data directory: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		pid, _ := io.ReadAll(io.LimitReader(f, 32))
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("kafka data directory %q is in use by another process (pid %s)", dir, strings.TrimSpace(string(pid)))
		}
		return nil, fmt.Errorf("locking kafka data directory %q: %w", dir, err)
	}
	// The pid is only for messages; failing to write it is not an error.
	if f.Truncate(0) == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}

// newLogger returns a text logger on stderr at the named level, or false
// after reporting a bad level.
func newLogger(level string) (*slog.Logger, bool) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		fmt.Fprintf(os.Stderr, "weir: bad --log-level %q: %v\n", level, err)
		return nil, false
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: l})), true
}
