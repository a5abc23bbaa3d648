// Command weir is the weir streaming database: `weir serve` runs the
// server that psql and Postgres drivers connect to; `weir version` prints
// the version.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/weirdb/weir/engine"
	"github.com/weirdb/weir/wire"
)

const usage = `weir: a SQL streaming database that speaks the Postgres protocol.

Usage:
  weir serve [flags]    run the server (psql -h 127.0.0.1 -p 4566 -U root -d dev)
  weir version          print the version

Run 'weir serve -h' for the server's flags.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	switch os.Args[1] {
	case "serve":
		os.Exit(serve(os.Args[2:]))
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
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn, error")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fmt.Fprintf(os.Stderr, "weir: bad --log-level %q: %v\n", *logLevel, err)
		return 2
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	eng, err := engine.Open(engine.Config{DataDir: *dataDir, Logger: log})
	if err != nil {
		fmt.Fprintf(os.Stderr, "weir: %v\n", err)
		return 1
	}
	defer eng.Close()

	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintf(os.Stderr, "weir: listen on %s: %v\n", *listen, err)
		return 1
	}
	srv := wire.NewServer(eng, wire.Options{Logger: log})

	var metricsSrv *http.Server
	if *metricsListen != "" {
		mln, err := net.Listen("tcp", *metricsListen)
		if err != nil {
			fmt.Fprintf(os.Stderr, "weir: metrics listen on %s: %v\n", *metricsListen, err)
			return 1
		}
		mux := http.NewServeMux()
		mux.Handle("/metrics", promhttp.HandlerFor(eng.Metrics().Registry, promhttp.HandlerOpts{}))
		metricsSrv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
		go func() { _ = metricsSrv.Serve(mln) }()
		log.Info("metrics listening", "addr", mln.Addr().String())
	}

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	log.Info("weir listening", "addr", ln.Addr().String(), "data_dir", *dataDir, "version", engine.Version)

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
