package engine

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/weirdb/weir/connector/kafka"
	"github.com/weirdb/weir/connector/sqlsink"
	"github.com/weirdb/weir/executor/stream"
	"github.com/weirdb/weir/internal/fault"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// This file connects sinks into PostgreSQL and MySQL/MariaDB tables
// (connector = 'postgres' | 'mysql', package connector/sqlsink): their
// options, the check of the target table at CREATE SINK, and the
// stream.SinkWriter the decoupled sink delivers its epochs through. A
// database sink is always decoupled: its exactly-once rests on epochs
// that are committed in Pebble before they reach the target, whose
// progress table then tells which of them it holds.

// The connectors and options of database sinks.
const (
	connPostgres = "postgres"
	connMySQL    = "mysql"

	optURL        = "url"
	optHost       = "host"
	optPort       = "port"
	optUser       = "user"
	optPassword   = "password"
	optDatabase   = "database"
	optTable      = "table"
	optBatchSize  = "batch.size"
	optBatchBytes = "batch.bytes"
	optTwoPhase   = "sink.two_phase_commit"
)

// redacted replaces a password in SHOW CREATE SINK and anything else
// that shows a sink's options.
const redacted = "********"

func init() {
	sinkOptions = append(sinkOptions, optURL, optHost, optPort, optUser, optPassword, optDatabase, optTable,
		optBatchSize, optBatchBytes, optTwoPhase)
}

// dbSinkKind returns the target kind of a database sink; ok is false
// for every other sink.
func dbSinkKind(with map[string]string) (k sqlsink.Kind, ok bool) {
	switch strings.ToLower(with[optConnector]) {
	case connPostgres, "postgresql", "jdbc:postgres":
		return sqlsink.Postgres, true
	case connMySQL, "mariadb":
		return sqlsink.MySQL, true
	}
	return 0, false
}

// redactOptions returns with, or a copy of it with the password option
// and the password of a url replaced by asterisks.
func redactOptions(with map[string]string) map[string]string {
	if _, ok := dbSinkKind(with); !ok {
		return with
	}
	out := make(map[string]string, len(with))
	for k, v := range with {
		switch k {
		case optPassword:
			v = redacted
		case optURL:
			v = redactURL(v)
		}
		out[k] = v
	}
	return out
}

// redactURL hides the password of a postgres:// or mysql:// URL, of a
// go-sql-driver DSN (user:password@tcp(host)/db) and of a keyword
// string (password=...).
func redactURL(v string) string {
	if i := strings.Index(v, "password="); i >= 0 {
		j := strings.IndexAny(v[i:], " &")
		if j < 0 {
			j = len(v) - i
		}
		v = v[:i] + "password=" + redacted + v[i+j:]
	}
	at := strings.LastIndex(v, "@")
	if at < 0 {
		return v
	}
	start := 0
	if i := strings.Index(v[:at], "://"); i >= 0 {
		start = i + 3
	}
	if c := strings.Index(v[start:at], ":"); c >= 0 {
		return v[:start+c+1] + redacted + v[at:]
	}
	return v
}

// dbTarget is where a database sink writes: the driver's DSN (with the
// password: never shown) and the host:port it dials.
type dbTarget struct {
	kind  sqlsink.Kind
	dsn   string
	addr  string
	table string
}

// dbSinkTarget reads a database sink's connection options: url, or
// host, port, user, password and database. Errors: 22023 for a missing
// or invalid option, 42501 for a host the server may not reach
// (checkConnectorHosts).
func (e *Engine) dbSinkTarget(with map[string]string) (dbTarget, error) {
	k, _ := dbSinkKind(with)
	t := dbTarget{kind: k, table: strings.TrimSpace(with[optTable])}
	if t.table == "" {
		return t, pgerr.New(pgerr.InvalidParameterValue, "a %s sink needs the option %s", k, optTable)
	}
	if v := strings.TrimSpace(with[optURL]); v != "" {
		for _, o := range []string{optHost, optPort, optUser, optPassword, optDatabase} {
			if _, ok := with[o]; ok {
				return t, pgerr.New(pgerr.InvalidParameterValue, "a %s sink takes either %s or %s, not both", k, optURL, o)
			}
		}
		if err := t.fromURL(v); err != nil {
			return t, err
		}
	} else {
		host := with[optHost]
		if host == "" {
			host = "localhost"
		}
		port := with[optPort]
		if port == "" {
			port = "5432"
			if k == sqlsink.MySQL {
				port = "3306"
			}
		}
		if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
			return t, pgerr.New(pgerr.InvalidParameterValue, "invalid value for %s: \"%s\"", optPort, port)
		}
		t.addr = net.JoinHostPort(host, port)
		if with[optDatabase] == "" {
			return t, pgerr.New(pgerr.InvalidParameterValue, "a %s sink needs the option %s (or %s)", k, optDatabase, optURL)
		}
		if k == sqlsink.MySQL {
			c := mysqlConfig()
			c.User, c.Passwd, c.Addr, c.DBName = with[optUser], with[optPassword], t.addr, with[optDatabase]
			t.dsn = c.FormatDSN()
		} else {
			u := url.URL{Scheme: "postgres", Host: t.addr, Path: "/" + with[optDatabase]}
			if p, ok := with[optPassword]; ok {
				u.User = url.UserPassword(with[optUser], p)
			} else if with[optUser] != "" {
				u.User = url.User(with[optUser])
			}
			t.dsn = u.String()
		}
	}
	if err := e.checkConnectorHosts([]string{t.addr}); err != nil {
		return t, err
	}
	return t, nil
}

// mysqlConfig is the go-sql-driver configuration every MySQL sink
// starts from: the session in UTC (TIMESTAMP columns then store the
// instant of a timestamptz), utf8mb4, and NO_BACKSLASH_ESCAPES added to
// the server's sql_mode, so that a string literal needs only its quotes
// doubled (sqlsink writes text as it is, not twice its size in hex).
func mysqlConfig() *mysql.Config {
	c := mysql.NewConfig()
	c.Net = "tcp"
	c.Params = map[string]string{"time_zone": "'+00:00'", "charset": "utf8mb4",
		"sql_mode": "CONCAT(@@sql_mode, ',NO_BACKSLASH_ESCAPES')"}
	c.Timeout = 10 * time.Second
	return c
}

// fromURL reads url: a postgres:// (or postgresql://) URL or keyword
// string for PostgreSQL, a mysql:// URL or go-sql-driver DSN for MySQL.
func (t *dbTarget) fromURL(v string) error {
	bad := func(err error) error {
		// The message never repeats the URL: it may hold a password.
		return pgerr.New(pgerr.InvalidParameterValue, "invalid value for %s: %s", optURL, err)
	}
	if t.kind == sqlsink.Postgres {
		if strings.HasPrefix(v, "jdbc:") {
			v = strings.TrimPrefix(v, "jdbc:")
		}
		if strings.HasPrefix(v, "postgres://") || strings.HasPrefix(v, "postgresql://") {
			u, err := url.Parse(v)
			if err != nil {
				return bad(errURL)
			}
			port := u.Port()
			if port == "" {
				port = "5432"
			}
			host := u.Hostname()
			if host == "" {
				host = "localhost"
			}
			t.addr = net.JoinHostPort(host, port)
		} else {
			f := map[string]string{}
			for _, kv := range strings.Fields(v) {
				k, val, _ := strings.Cut(kv, "=")
				f[k] = val
			}
			if f["host"] == "" {
				f["host"] = "localhost"
			}
			if f["port"] == "" {
				f["port"] = "5432"
			}
			t.addr = net.JoinHostPort(f["host"], f["port"])
		}
		t.dsn = v
		return nil
	}
	var c *mysql.Config
	if strings.HasPrefix(v, "mysql://") || strings.HasPrefix(v, "mariadb://") || strings.HasPrefix(v, "jdbc:mysql://") {
		u, err := url.Parse(strings.TrimPrefix(v, "jdbc:"))
		if err != nil {
			return bad(errURL)
		}
		c = mysqlConfig()
		c.User = u.User.Username()
		c.Passwd, _ = u.User.Password()
		port := u.Port()
		if port == "" {
			port = "3306"
		}
		c.Addr = net.JoinHostPort(u.Hostname(), port)
		c.DBName = strings.TrimPrefix(u.Path, "/")
	} else {
		parsed, err := mysql.ParseDSN(v)
		if err != nil {
			return bad(errURL)
		}
		c = mysqlConfig()
		c.User, c.Passwd, c.Net, c.Addr, c.DBName = parsed.User, parsed.Passwd, parsed.Net, parsed.Addr, parsed.DBName
	}
	if c.DBName == "" {
		return bad(errNoDatabase)
	}
	t.addr = c.Addr
	t.dsn = c.FormatDSN()
	return nil
}

type urlError string

func (e urlError) Error() string { return string(e) }

const (
	errURL        = urlError("not a URL or DSN of the connector")
	errNoDatabase = urlError("no database")
)

// dbSinkColumns returns the sink's columns for sqlsink.
func dbSinkColumns(n *planner.StreamSink) []sqlsink.Column {
	cols := make([]sqlsink.Column, len(n.Out))
	for i, c := range n.Out {
		cols[i] = sqlsink.Column{Name: c.Name, T: c.T}
	}
	return cols
}

// dbSinkConfig is the writer configuration of actor of sink n.
func (e *Engine) dbSinkConfig(n *planner.StreamSink, actor int) (sqlsink.Config, error) {
	with := n.Rel.With
	t, err := e.dbSinkTarget(with)
	if err != nil {
		return sqlsink.Config{}, err
	}
	g, err := sinkGuarantee(with)
	if err != nil {
		return sqlsink.Config{}, err
	}
	cfg := sqlsink.Config{Kind: t.kind, DSN: t.dsn, Table: t.table, Cols: dbSinkColumns(n), Key: n.Key,
		Upsert: n.Format == "upsert", ExactlyOnce: g == kafka.ExactlyOnce,
		Sink: "weir:" + e.databaseID + ":" + strconv.FormatUint(uint64(n.Rel.ID), 10), Actor: actor}
	two, err := boolOption(with, optTwoPhase, false)
	if err != nil {
		return cfg, err
	}
	if two && !cfg.ExactlyOnce {
		return cfg, pgerr.New(pgerr.InvalidParameterValue, "%s needs sink.delivery.guarantee = 'exactly-once'", optTwoPhase)
	}
	cfg.TwoPhase = two
	for _, o := range []struct {
		key string
		v   *int
	}{{optBatchSize, &cfg.BatchRows}, {optBatchBytes, &cfg.BatchBytes}} {
		if s := with[o.key]; s != "" {
			v, err := strconv.Atoi(s)
			if err != nil || v <= 0 {
				return cfg, pgerr.New(pgerr.InvalidParameterValue, "invalid value for %s: \"%s\"", o.key, s).
					WithHint("A number above zero is expected.")
			}
			*o.v = v
		}
	}
	return cfg, nil
}

// checkDBSink checks a new database sink: its options, its query (it is
// planned), and the target table against the sink's columns
// (sqlsink.CheckTable). Errors: 0A000 for a format or option a database
// sink does not take, 22023 for a bad option, 08001 when the target does
// not answer, the table check's errors.
func (s *Session) checkDBSink(ctx context.Context, st *sql.CreateSink, rel *catalog.Relation) error {
	with := rel.With
	k, _ := dbSinkKind(with)
	switch f := strings.ToLower(with[optFormat]); f {
	case "", "plain", "upsert":
	default:
		return pgerr.New(pgerr.FeatureNotSupported, "FORMAT %s is not supported by %s sinks", strings.ToUpper(f), k).
			WithHint("Use FORMAT PLAIN or FORMAT UPSERT.")
	}
	if enc := with[optEncode]; enc != "" {
		return pgerr.New(pgerr.FeatureNotSupported, "%s sinks take no ENCODE", k)
	}
	if !stream.SinkDecoupled(with) {
		return pgerr.New(pgerr.FeatureNotSupported, "a %s sink cannot be coupled (%s = 'false')", k, stream.OptSinkDecouple).
			WithDetail("Its exactly-once delivery needs each epoch committed in weir before the target sees it.")
	}
	if err := checkSinkLogOptions(with); err != nil {
		return err
	}
	trial := *rel
	var next uint32
	root, _, err := s.planSink(st, &trial, func() uint32 { next++; return next })
	if err != nil {
		return err
	}
	root.Rel = &trial
	cfg, err := s.eng.dbSinkConfig(root, 0)
	if err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, brokerPingTimeout)
	defer cancel()
	db, err := sqlsink.Connect(cctx, k, cfg.DSN)
	if err != nil {
		if pe := pgerr.As(err); pe != nil {
			return pe.WithHint("Check the sink's connection options; the sink was not created.")
		}
		return err
	}
	defer db.Close()
	if err := sqlsink.CheckTable(cctx, db, k, cfg.Table, cfg.Cols); err != nil {
		return err
	}
	if cfg.Upsert {
		key := make([]string, len(cfg.Key))
		for i, c := range cfg.Key {
			key[i] = cfg.Cols[c].Name
		}
		if err := sqlsink.CheckKey(cctx, db, k, cfg.Table, key); err != nil {
			return err
		}
	}
	if cfg.TwoPhase {
		if err := sqlsink.CheckTwoPhase(cctx, db, k); err != nil {
			return err
		}
	}
	if cfg.ExactlyOnce {
		return sqlsink.CreateProgressTable(cctx, db, k)
	}
	return nil
}

// dbSink is a stream.SinkWriter over a sqlsink.Writer. Its PreCommit
// commits the epoch's transaction in the target: a database sink
// records nothing in Pebble (the target's progress table is its
// record), so the delivery truncates the epoch right after.
type dbSink struct {
	// id is the record id of the actor's prepared transactions.
	id   string
	w    *sqlsink.Writer
	info *sinkInfo
	fail func(error)
	last sqlsink.Stats
}

var _ stream.SinkWriter = (*dbSink)(nil)

func (s *dbSink) BeginEpoch(e uint64) error { return s.w.BeginEpoch(e) }

func (s *dbSink) Write(ctx context.Context, c *types.Chunk) error {
	if err := s.w.Write(ctx, c); err != nil {
		s.failed(ctx, err)
		return err
	}
	return nil
}

func (s *dbSink) PreCommit(ctx context.Context) (stream.SinkTxn, bool, error) {
	gid, ok, err := s.w.PreCommit(ctx)
	if err != nil {
		s.failed(ctx, err)
		return stream.SinkTxn{}, false, err
	}
	st := s.w.Stats()
	s.info.written.Add(st.Rows - s.last.Rows)
	if ok {
		s.info.txCommitted.Add(1)
	}
	s.last = st
	if gid != "" {
		// Two-phase: the prepared transaction is recorded, then
		// committed (Commit, or recoverSinkTxn after a restart).
		return stream.SinkTxn{ID: s.id, Data: []byte(gid)}, true, nil
	}
	return stream.SinkTxn{}, false, nil
}

func (s *dbSink) failed(ctx context.Context, err error) {
	if ctx.Err() == nil && s.fail != nil {
		s.fail(err)
	}
}

func (s *dbSink) TakeDone() []stream.SinkTxn { return nil }

// Commit commits a prepared transaction (two-phase mode; with the
// progress row alone PreCommit records nothing, so Commit is never
// called).
func (s *dbSink) Commit(ctx context.Context, txn stream.SinkTxn) error {
	err := s.w.Commit(ctx, string(txn.Data), txn.Epoch)
	if errors.Is(err, sqlsink.ErrPreparedGone) {
		return errors.Join(stream.ErrSinkTxnAborted, err)
	}
	if err != nil {
		s.failed(ctx, err)
		return err
	}
	s.info.txCommitted.Add(1)
	return nil
}

func (s *dbSink) Abort(context.Context) error {
	s.w.Abort()
	return nil
}

func (s *dbSink) Close() { s.w.Close() }

// openDBSink opens the writer of a database sink's actor.
func (e *Engine) openDBSink(ctx context.Context, actx *stream.ActorContext, n *planner.StreamSink) (stream.SinkWriter, error) {
	cfg, err := e.dbSinkConfig(n, actx.Index)
	if err != nil {
		return nil, err
	}
	g, _ := sinkGuarantee(n.Rel.With)
	info := e.conns.sink(n.Rel.ID, g)
	fail := func(err error) {
		// An actor stopped on purpose (a rescale, a restart, DROP)
		// cancels its writes: that is not an error of the sink.
		if !errors.Is(err, context.Canceled) {
			e.st.errs.Record(actx.Job, "sink "+n.Rel.Name, err)
		}
	}
	w, err := sqlsink.Open(ctx, cfg)
	if err != nil {
		if ctx.Err() == nil {
			fail(err)
		}
		return nil, err
	}
	return &dbSink{id: cfg.Sink + ":" + strconv.Itoa(cfg.Actor), w: w, info: info, fail: fail}, nil
}

// recoverDBSinkTxn commits a prepared transaction recorded before a
// restart (two-phase mode), on a connection of its own.
func (e *Engine) recoverDBSinkTxn(ctx context.Context, actx *stream.ActorContext, n *planner.StreamSink, txn stream.SinkTxn) error {
	if len(txn.Data) == 0 {
		return nil
	}
	cfg, err := e.dbSinkConfig(n, actx.Index)
	if err != nil {
		return err
	}
	fault.Hit(fault.RecoveryBeforeSinkCommit)
	cctx, cancel := context.WithTimeout(ctx, sqlsink.DefaultTimeout)
	defer cancel()
	db, err := sqlsink.Connect(cctx, cfg.Kind, cfg.DSN)
	if err != nil {
		return err
	}
	defer db.Close()
	err = sqlsink.CommitPrepared(cctx, db, cfg, string(txn.Data), txn.Epoch)
	if errors.Is(err, sqlsink.ErrPreparedGone) {
		return errors.Join(stream.ErrSinkTxnAborted, err)
	}
	if err == nil {
		e.log.Info("committed a prepared sink transaction recorded before a restart", "sink", n.Rel.Name, "gid", string(txn.Data))
	}
	return err
}
