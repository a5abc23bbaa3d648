package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/weirdb/weir/cluster"
	"github.com/weirdb/weir/wire"
)

// clusterFlags are `weir serve`'s cluster-mode flags.
type clusterFlags struct {
	bootstrap      *string
	nodeID         *int
	name           *string
	sessionTimeout *time.Duration
	txnTimeout     *time.Duration
	epochRecords   *int
}

func (f clusterFlags) set() bool { return *f.bootstrap != "" }

// serveCluster runs a cluster node: no data directory and no single-node
// engine; the node's state is in Kafka (docs/scale-out.md).
func serveCluster(f clusterFlags, listen string, log *slog.Logger) int {
	if *f.nodeID < 0 {
		fmt.Fprintln(os.Stderr, "weir serve: --cluster needs --node-id N (N >= 0)")
		return 2
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		fmt.Fprintf(os.Stderr, "weir: listen on %s: %v\n", listen, err)
		return 1
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); !ok || !tcp.IP.IsLoopback() {
		ln.Close()
		fmt.Fprintln(os.Stderr, "weir serve: cluster mode has no authentication yet and listens on loopback only")
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	node, err := cluster.Open(ctx, cluster.Config{
		Bootstrap: *f.bootstrap, NodeID: *f.nodeID, Name: *f.name, Addr: ln.Addr().String(),
		SessionTimeout: *f.sessionTimeout, TxnTimeout: *f.txnTimeout, EpochRecords: *f.epochRecords, Logger: log,
	})
	cancel()
	if err != nil {
		ln.Close()
		fmt.Fprintf(os.Stderr, "weir: cluster node: %v\n", err)
		return 1
	}
	defer node.Close()
	srv := wire.NewServer(node, wire.Options{Logger: log, Auth: wire.AuthTrust})
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	log.Info("weir listening", "addr", ln.Addr().String(), "cluster", *f.bootstrap, "node_id", *f.nodeID)

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
	sctx, scancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer scancel()
	_ = srv.Shutdown(sctx)
	return 0
}
