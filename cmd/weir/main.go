// Command weir is the weir streaming database: `weir serve` runs the
// server that psql and Postgres drivers connect to, `weir kafka` runs the
// embedded development Kafka broker on its own, and `weir version` prints
// the version.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	iofs "io/fs"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/weirdb/weir/connector/kafka"
	"github.com/weirdb/weir/engine"
	"github.com/weirdb/weir/internal/memlimit"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/wire"
)

const usage = `weir: a SQL streaming database that speaks the Postgres protocol.

Usage:
  weir serve [flags]    run the server (psql -h 127.0.0.1 -p 4566 -U root -d dev)
  weir kafka [flags]    run the embedded development Kafka broker alone
                        (kcat -b 127.0.0.1:9092 -L)
  weir replay [flags]   produce a flights file to Kafka in event-time order
                        (examples/flights; weir replay -h for its flags)
  weir bench nexmark [flags]
                        run the Nexmark benchmark in process over the built-in
                        generator (weir bench nexmark -h for its flags)
  weir backup [flags]   copy a stopped server's data directory at its last
                        committed epoch (weir serve --data-dir COPY resumes it)
  weir version          print the version

weir serve flags:
  --listen ADDR          Postgres wire protocol listener (default 127.0.0.1:4566)
  --data-dir DIR         database directory, created if missing (default ./weir-data)
  --metrics-listen ADDR  Prometheus /metrics listener, empty for none
                         (default 127.0.0.1:9249)
  --embedded-kafka ADDR  also serve the embedded Kafka broker on ADDR (for example
                         127.0.0.1:9092), started before the database and stopped
                         after it; its topics live in DIR/kafka, every write
                         fsynced, so they survive restarts and crashes
  --memory-budget N      memory budget in MiB of the whole process (default half
                         of the machine's or its cgroup's memory, at least 256;
                         from 216 up): Pebble's block cache and memtables take an
                         eighth (at least 32 MiB), the Go runtime the rest but
                         a fixed 56 MiB; state entries beyond their share are
                         evicted (clean) or flushed early to disk (dirty,
                         committed only with their checkpoint); a large DML
                         statement flows in pieces
  --state-cache-mb N     older name of --memory-budget
  --disk-reserve-mb N    free space kept on the data directory's file system: below
                         it writes fail with 53100 and reads go on (default 128)
  --take-over-sinks      run the sinks of a database restored from a backup (which
                         refuses to start without it): its Kafka producers take
                         over the sinks' transactional ids, fencing the original's
  --streaming-parallelism N
                         give every materialized view and sink N actors per
                         fragment at start, as ALTER ... SET PARALLELISM does (for
                         a copy restored on a machine of another size); 0 keeps
                         each job's own (default 0)
  --log-level LEVEL      debug, info, warn or error (default info)
  --auth METHOD          trust or password (SCRAM-SHA-256); default trust when the
                         listener is loopback, password otherwise; trust is refused
                         on any other listener
  --init-password-file F password of the superuser root, read on first start only
                         (or the WEIR_PASSWORD environment variable); only its
                         SCRAM-SHA-256 verifier is stored
  --tls-cert FILE        PEM certificate (chain) for TLS; with --tls-key
  --tls-key FILE         PEM private key of --tls-cert
  --tls-required         refuse clients that do not use TLS
  --max-connections N    concurrent sessions; more get 53300 (default 100)
  --superuser-reserved-connections N
                         of those, how many only superusers may take (default 3)
  --cluster ADDR         run as a cluster node over the Kafka cluster at ADDR instead of
                         a single-node database (docs/scale-out.md): Kafka sources,
                         GROUP BY views and exactly-once Kafka sinks only; state is
                         kept in Kafka, --data-dir is not used; loopback only
  --node-id N            this node's id in the cluster (with --cluster)
  --cluster-name NAME    internal topics start with _weir.NAME. (default weir)
  --cluster-session-timeout D
                         how long a dead node keeps its partitions (default 10s)
  --cluster-txn-timeout D
                         how long a dead node's open transaction holds back
                         readers (default 10s)
  --cluster-epoch-records N
                         most records in one epoch's transaction (default 10000)
  --allowed-connector-hosts H,...
                         hosts (or host:port) that sources and sinks may reach;
                         others are refused with 42501 (default: any)

weir backup flags:
  --data-dir DIR         data directory to copy (no server may be running on it)
  --to DIR2              new directory for the copy (must not exist or be empty)
  --hand-over-sinks      drop the sinks from DIR once copied, so that only the copy
                         (started with --take-over-sinks) continues them

weir kafka flags:
  --listen ADDR          broker listener (default 127.0.0.1:9092; port 0 picks one)
  --advertise ADDR       address put into metadata responses, for a wildcard
                         --listen such as 0.0.0.0:9092 (default: the listener's)
  --data-dir DIR         keep topics, offsets and transactions in DIR and reload
                         them on start (default: in memory only)
  --sync-writes          fsync every produced batch (default true; with --data-dir)
  --partitions N         partitions of automatically created topics (default 1)
  --log-level LEVEL      debug, info, warn or error (default info)

The broker is franz-go's kfake: one broker speaking the Kafka protocol,
including transactions; topics are created automatically on first use.
'weir kafka' prints one line with the address it listens on and runs
until SIGINT or SIGTERM.

Fault injection (tests only): WEIR_FAULT=point[:N] kills the process with
SIGKILL at the N-th time it reaches the named point; error and hold points
fail or wait there instead (see internal/fault).
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	switch os.Args[1] {
	case "serve":
		os.Exit(serve(os.Args[2:]))
	case "kafka":
		os.Exit(kafkaCmd(os.Args[2:]))
	case "replay":
		os.Exit(replay(os.Args[2:]))
	case "bench":
		os.Exit(bench(os.Args[2:]))
	case "backup":
		os.Exit(backupCmd(os.Args[2:]))
	case "version", "--version", "-v":
		fmt.Printf("weir %s (Postgres protocol %s)\n", engine.Version, engine.ServerVersion)
	case "help", "-h", "--help":
		fmt.Print(usage)
	default:
		fmt.Fprintf(os.Stderr, "weir: unknown command %q\n\n%s", os.Args[1], usage)
		os.Exit(2)
	}
}

func serve(args []string) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:4566", "address of the Postgres wire protocol listener")
	dataDir := fs.String("data-dir", "./weir-data", "directory of the database (created if missing)")
	metricsListen := fs.String("metrics-listen", "127.0.0.1:9249", "address of the Prometheus /metrics listener (empty: off)")
	embeddedKafka := fs.String("embedded-kafka", "", "also serve the embedded Kafka broker on this address (data in <data-dir>/kafka; empty: off)")
	memoryMB := fs.Int64("memory-budget", 0, "memory budget in MiB of the whole process: Pebble's block cache and memtables take an eighth, at least 32 MiB, the Go runtime the rest but a fixed part; state entries beyond their share are evicted or flushed early, large DML flows in pieces (default: half of the machine's or its cgroup's memory, at least 256)")
	stateCacheMB := fs.Int64("state-cache-mb", 0, "older name of --memory-budget")
	diskReserveMB := fs.Int64("disk-reserve-mb", engine.DefaultDiskReserveBytes>>20, "free space in MiB kept on the data directory's file system: below it writes fail with 53100 (disk full) and reads go on; 0 keeps none")
	takeOverSinks := fs.Bool("take-over-sinks", false, "run the sinks of a database restored from a backup: their producers take over the original's transactional ids, fencing it")
	streamingParallelism := fs.Int("streaming-parallelism", 0, "give every materialized view and sink this many actors per fragment at start (0: keep each job's own)")
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn, error")
	sec := securityFlags(fs)
	cf := clusterFlags{
		bootstrap:      fs.String("cluster", "", "run as a node of a cluster over the Kafka cluster at this bootstrap address (docs/scale-out.md)"),
		nodeID:         fs.Int("node-id", -1, "this node's id in the cluster (each live node its own)"),
		name:           fs.String("cluster-name", "weir", "the cluster's name: internal topics start with _weir.<name>."),
		sessionTimeout: fs.Duration("cluster-session-timeout", 10*time.Second, "group session timeout: how long a dead node keeps its partitions"),
		txnTimeout:     fs.Duration("cluster-txn-timeout", 10*time.Second, "Kafka transaction timeout: how long a dead node's open transaction holds back readers"),
		epochRecords:   fs.Int("cluster-epoch-records", 10000, "most records one cluster epoch (one Kafka transaction) processes"),
	}
	if err := fs.Parse(args); err != nil {
		return parseExit(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "weir serve: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	log, ok := newLogger(*logLevel)
	if !ok {
		return 2
	}
	if cf.set() {
		if flagSet(fs, "metrics-listen") && *metricsListen != "" {
			// Refused rather than ignored: a scrape target that never
			// answers looks like a dead node.
			fmt.Fprintln(os.Stderr, "weir serve: --metrics-listen is not supported with --cluster yet: a cluster node exports no /metrics")
			return 2
		}
		return serveCluster(cf, *listen, log)
	}

	budgetMB, given := defaultBudgetMB(), false
	for _, f := range []struct {
		name string
		mb   int64
	}{{"state-cache-mb", *stateCacheMB}, {"memory-budget", *memoryMB}} {
		// Only a flag given counts; --memory-budget wins over its older name.
		if !flagSet(fs, f.name) {
			continue
		}
		if f.mb <= 0 || f.mb > maxBudgetMB {
			fmt.Fprintf(os.Stderr, "weir serve: --%s must be between 1 and %d (MiB), not %d\n", f.name, maxBudgetMB, f.mb)
			return 2
		}
		budgetMB, given = f.mb, true
	}
	if !given {
		log.Info("memory budget", "mib", budgetMB, "from", "half of the memory the machine (or its cgroup) has; --memory-budget sets it")
	}
	applyMemoryLimit(budgetMB)
	if *streamingParallelism < 0 || *streamingParallelism > engine.MaxStreamingParallelism {
		fmt.Fprintf(os.Stderr, "weir serve: --streaming-parallelism must be between 0 and %d, not %d\n", engine.MaxStreamingParallelism, *streamingParallelism)
		return 2
	}
	wopts, initPassword, err := sec.options(*listen)
	if err != nil {
		fmt.Fprintf(os.Stderr, "weir serve: %v\n", err)
		return 2
	}
	wopts.Logger = log
	reserve := *diskReserveMB << 20
	if reserve == 0 {
		reserve = -1 // none
	}
	// The listeners are bound before anything is written, so a start
	// that cannot serve (its port taken) leaves no data directory
	// behind; a data directory this start creates is removed again if
	// the start fails later (a locked directory, a broker that cannot
	// listen, no role able to log in). One that existed stays.
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintf(os.Stderr, "weir: listen on %s: %v\n", *listen, err)
		return 1
	}
	defer ln.Close()
	var metricsLn net.Listener
	if *metricsListen != "" {
		mln, err := net.Listen("tcp", *metricsListen)
		switch {
		case err != nil && flagSet(fs, "metrics-listen"):
			fmt.Fprintf(os.Stderr, "weir: metrics listen on %s: %v\n", *metricsListen, err)
			return 1
		case err != nil:
			// The default address is taken (another weir on this
			// machine, say): serve without /metrics rather than not at
			// all; an address given on purpose must work.
			log.Warn("metrics off: the default --metrics-listen address is in use; pass --metrics-listen to choose another", "addr", *metricsListen, "err", err)
		default:
			metricsLn = mln
			defer mln.Close()
		}
	}
	created, err := claimDir(*dataDir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "weir: data directory %s: %v\n", *dataDir, err)
		return 1
	}
	serving := false
	if created != "" {
		// Deferred first, so it runs after the engine and the broker
		// closed their files.
		defer func() {
			if serving {
				return
			}
			if err := os.RemoveAll(created); err != nil {
				log.Warn("could not remove the data directory this failed start created", "dir", created, "err", err)
				return
			}
			log.Info("removed the data directory this failed start created", "dir", created)
		}()
	}

	// The broker starts before the engine, whose recovery commits the
	// pending transactions of sinks that may write to it, and stops after
	// the engine (defers run in reverse).
	if *embeddedKafka != "" {
		b, unlock, err := startBroker(kafka.BrokerOptions{
			Listen:     *embeddedKafka,
			DataDir:    filepath.Join(*dataDir, "kafka"),
			SyncWrites: true,
		})
		if err != nil {
			fmt.Fprintf(os.Stderr, "weir: embedded kafka: %v\n", err)
			return 1
		}
		defer unlock()
		defer func() {
			b.Close()
			log.Info("embedded kafka closed")
		}()
		log.Info("embedded kafka listening", "addr", b.Addr(), "data_dir", filepath.Join(*dataDir, "kafka"))
	}

	eng, err := engine.Open(engine.Config{DataDir: *dataDir, Logger: log, MemoryBudgetBytes: budgetMB << 20, InitPassword: initPassword,
		AllowedConnectorHosts: sec.allowedHosts(), MaxConnections: wopts.MaxConnections, SuperuserReservedConnections: reservedSetting(wopts.SuperuserReservedConnections), DiskReserveBytes: reserve, TakeOverSinks: *takeOverSinks,
		StreamingParallelism: *streamingParallelism})
	if err != nil {
		fmt.Fprintf(os.Stderr, "weir: %s\n", describeErr(err))
		return 1
	}
	defer eng.Close()
	if err := checkCanLogIn(eng, wopts.Auth); err != nil {
		fmt.Fprintf(os.Stderr, "weir serve: %v\n", err)
		return 1
	}

	srv := wire.NewServer(eng, wopts)

	var metricsSrv *http.Server
	if metricsLn != nil {
		mln := metricsLn
		mux := http.NewServeMux()
		mux.Handle("/metrics", promhttp.HandlerFor(eng.Metrics().Registry, promhttp.HandlerOpts{}))
		metricsSrv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
		go func() { _ = metricsSrv.Serve(mln) }()
		log.Info("metrics listening", "addr", mln.Addr().String())
	}

	serving = true
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	log.Info("weir listening", "addr", ln.Addr().String(), "data_dir", *dataDir, "version", engine.Version,
		"auth", string(wopts.Auth), "tls", wopts.TLS != nil, "tls_required", wopts.TLSRequired, "max_connections", wopts.MaxConnections)

	sigc := make(chan os.Signal, 2)
	signal.Notify(sigc, syscall.SIGINT, syscall.SIGTERM)
	select {
	case sig := <-sigc:
		log.Info("shutting down", "signal", strings.ToUpper(sig.String()))
	case err := <-errc:
		if err != nil && !errors.Is(err, net.ErrClosed) {
			log.Error("server stopped", "err", err)
			return 1
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		log.Warn("shutdown", "err", err)
	}
	if metricsSrv != nil {
		_ = metricsSrv.Shutdown(ctx)
	}
	return 0
}

// claimDir creates dir and whichever of its parents are missing, and
// returns the topmost directory it created: "" when dir existed, or when
// another process created it meanwhile (it is then not this one's to
// remove).
func claimDir(dir string) (string, error) {
	dir = filepath.Clean(dir)
	switch _, err := os.Stat(dir); {
	case err == nil:
		return "", nil
	case !errors.Is(err, iofs.ErrNotExist):
		return "", err
	}
	top := ""
	if parent := filepath.Dir(dir); parent != dir {
		t, err := claimDir(parent)
		if err != nil {
			return "", err
		}
		top = t
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		if errors.Is(err, iofs.ErrExist) {
			return "", nil
		}
		return "", err
	}
	if top == "" {
		top = dir
	}
	return top, nil
}

// flagSet reports whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// maxBudgetMB is the largest memory budget in MiB (1 PiB): its bytes
// and every share of them fit an int64 with room to spare.
const maxBudgetMB = 1 << 30

// defaultBudgetMB is the memory budget in MiB when none is given: half
// of the memory the machine, or the cgroup the process runs in, has
// (memlimit.DefaultBudgetMB), as RisingWave sizes a node by its memory;
// at least engine.DefaultStateCacheBytes, which is also the budget when
// the memory cannot be read.
func defaultBudgetMB() int64 {
	sys, ok := memlimit.SystemMemory()
	return memlimit.DefaultBudgetMB(sys, ok, engine.DefaultStateCacheBytes>>20)
}

// goMemoryLimit returns the Go runtime's soft memory limit for a memory
// budget of budgetMB MiB: the budget less Pebble's share and the fixed
// part no share controls (storage.BudgetShares), so that the whole
// process holds at most the budget (from storage.MinBudget up).
func goMemoryLimit(budgetMB int64) int64 {
	return storage.BudgetShares(budgetMB << 20).GoLimit
}

// applyMemoryLimit sets the Go runtime's soft memory limit for a memory
// budget of budgetMB MiB (goMemoryLimit), unless GOMEMLIMIT is set: weir
// serve and weir bench nexmark both run their engine under it.
func applyMemoryLimit(budgetMB int64) {
	if os.Getenv("GOMEMLIMIT") == "" {
		// The garbage collector's soft limit is the Go runtime's part of
		// the budget, so that what streaming frees is collected before
		// the process outgrows the budget, however much of the state's
		// share is live. (Twice the budget, as it once was, let the heap
		// double a full budget of live state: 650 MB at the default
		// 256 MiB.)
		debug.SetMemoryLimit(goMemoryLimit(budgetMB))
	}
}

// parseExit is the exit code of a command whose flags did not parse: 0
// when -h or --help asked for the usage (which the flag set has printed),
// 2 for a bad flag.
func parseExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 2
}
