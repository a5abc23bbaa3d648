package testenv

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Postgres is a throwaway PostgreSQL 15 cluster: initdb into a fresh
// temporary directory with trust authentication, UTF8 encoding, the C
// locale but for character classification and case mapping (LC_CTYPE
// C.UTF-8, as weir's) and UTC, then a postmaster on a free port of 127.0.0.1 with
// fsync off. Its superuser is postgres on database postgres; As returns a
// view that connects as another user to another database.
type Postgres struct {
	t       testing.TB
	bindir  string
	Dir     string // the cluster's root; DataDir and the socket live below it
	DataDir string
	LogPath string
	port    int
	cred    *syscall.Credential // set when running as root
	// Settings are extra NAME=VALUE server settings for the next
	// (re)start; they override the defaults.
	Settings []string

	mu   sync.Mutex
	proc *proc
}

var _ Target = (*Postgres)(nil)

// PostgresBinDir returns the directory of PostgreSQL 15's server
// binaries: /usr/lib/postgresql/15/bin when present, else what
// `pg_config --bindir` says.
func PostgresBinDir() (string, error) {
	const debian = "/usr/lib/postgresql/15/bin"
	if _, err := os.Stat(filepath.Join(debian, "postgres")); err == nil {
		return debian, nil
	}
	out, err := exec.Command("pg_config", "--bindir").Output()
	if err != nil {
		return "", fmt.Errorf("PostgreSQL 15 not found in %s and pg_config failed: %v", debian, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// StartPostgres creates and starts a fresh cluster; it is stopped and
// removed when the test ends. Running as root, initdb and postgres run as
// the postgres user and the directory is owned by it.
func StartPostgres(t testing.TB) *Postgres {
	t.Helper()
	bindir, err := PostgresBinDir()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "weir-pg-")
	if err != nil {
		t.Fatal(err)
	}
	pg := &Postgres{t: t, bindir: bindir, Dir: dir, DataDir: filepath.Join(dir, "data"), LogPath: filepath.Join(dir, "postgres.log")}
	t.Cleanup(func() {
		pg.Kill()
		if t.Failed() {
			t.Logf("postgres log (%s), last lines:\n%s", pg.LogPath, tail(pg.LogPath, 3000))
		}
		os.RemoveAll(dir)
	})
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running as root needs a postgres user: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		pg.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	initdb := pg.command(filepath.Join(bindir, "initdb"),
		"-D", pg.DataDir, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "--lc-ctype=C.UTF-8", "--no-sync")
	if out, err := initdb.CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	if pg.port, err = FreePort(); err != nil {
		t.Fatal(err)
	}
	if err := pg.start(); err != nil {
		t.Fatalf("starting postgres: %v\nlog:\n%s", err, tail(pg.LogPath, 3000))
	}
	return pg
}

// command returns a command with a fixed environment, running as the
// postgres user when the test runs as root.
func (pg *Postgres) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "LC_ALL=C", "TZ=UTC", "HOME=" + pg.Dir}
	cmd.Dir = pg.Dir
	if pg.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: pg.cred}
	}
	return cmd
}

func (pg *Postgres) start() error {
	cmd := pg.command(filepath.Join(pg.bindir, "postgres"),
		"-D", pg.DataDir,
		"-p", strconv.Itoa(pg.port),
		"-k", pg.Dir,
		"-c", "listen_addresses=127.0.0.1",
		"-c", "fsync=off",
		"-c", "timezone=UTC",
		"-c", "log_timezone=UTC",
		"-c", "datestyle=ISO, MDY",
		"-c", "lc_messages=C",
		"-c", "max_connections=50",
		"-c", "shared_buffers=16MB",
		// Two-phase commit (the database sinks' sink.two_phase_commit).
		"-c", "max_prepared_transactions=20",
	)
	for _, kv := range pg.Settings {
		cmd.Args = append(cmd.Args, "-c", kv)
	}
	// The log file is created by us; make it writable for the postgres
	// user only through our open descriptor, which the child inherits.
	p, err := startProc(cmd, pg.LogPath)
	if err != nil {
		return err
	}
	pg.mu.Lock()
	pg.proc = p
	pg.mu.Unlock()
	if err := WaitReady(pg.Addr(), "postgres", "postgres", 60*time.Second, p.exited); err != nil {
		p.kill()
		return err
	}
	return nil
}

// Pid returns the postmaster's process id (0 when it is not running).
func (pg *Postgres) Pid() int {
	pg.mu.Lock()
	defer pg.mu.Unlock()
	if pg.proc == nil {
		return 0
	}
	return pg.proc.cmd.Process.Pid
}

// Kind returns "postgres".
func (pg *Postgres) Kind() string { return "postgres" }

// Host returns 127.0.0.1.
func (pg *Postgres) Host() string { return "127.0.0.1" }

// Port returns the TCP port.
func (pg *Postgres) Port() int { return pg.port }

// Addr returns host:port.
func (pg *Postgres) Addr() string { return net.JoinHostPort(pg.Host(), strconv.Itoa(pg.port)) }

// User returns postgres, the cluster's superuser.
func (pg *Postgres) User() string { return "postgres" }

// Database returns postgres.
func (pg *Postgres) Database() string { return "postgres" }

// ConnString returns a postgres:// URL for the superuser.
func (pg *Postgres) ConnString() string { return connString("postgres", pg.Addr(), "postgres") }

func connString(user, addr, db string) string {
	return fmt.Sprintf("postgres://%s@%s/%s?sslmode=disable", user, addr, db)
}

// Stop performs a fast shutdown (SIGINT to the postmaster) and waits.
func (pg *Postgres) Stop() {
	pg.mu.Lock()
	p := pg.proc
	pg.proc = nil
	pg.mu.Unlock()
	if p == nil {
		return
	}
	if err := p.stop(syscall.SIGINT, 30*time.Second); err != nil {
		pg.t.Errorf("stopping postgres: %v", err)
	}
}

// Kill sends SIGKILL to the postmaster and its backends and waits.
func (pg *Postgres) Kill() {
	pg.mu.Lock()
	p := pg.proc
	pg.proc = nil
	pg.mu.Unlock()
	if p != nil {
		p.kill()
	}
}

// Restart stops the cluster if it runs and starts it again; after Kill
// this runs crash recovery.
func (pg *Postgres) Restart() {
	pg.t.Helper()
	pg.Stop()
	if err := pg.start(); err != nil {
		pg.t.Fatalf("restarting postgres: %v\nlog:\n%s", err, tail(pg.LogPath, 3000))
	}
}

// Exec runs statements as the superuser on database postgres.
func (pg *Postgres) Exec(t testing.TB, stmts ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, pg.ConnString())
	if err != nil {
		t.Fatalf("connecting to postgres: %v", err)
	}
	defer conn.Close(ctx)
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s, pgx.QueryExecModeSimpleProtocol); err != nil {
			t.Fatalf("postgres: %s: %v", s, err)
		}
	}
}

// CreateUserDB creates a superuser role and a database it owns, the
// names weir uses (root, dev), so that psql output mentioning the owner is
// the same on both. An existing role is kept.
func (pg *Postgres) CreateUserDB(t testing.TB, user, db string) {
	t.Helper()
	pg.Exec(t,
		fmt.Sprintf(`DO $$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '%s') THEN CREATE ROLE %s SUPERUSER LOGIN; END IF; END$$`, user, quoteIdent(user)),
		fmt.Sprintf(`CREATE DATABASE %s OWNER %s`, quoteIdent(db), quoteIdent(user)),
	)
}

// RecreateDB drops the database (closing its sessions) and creates it
// again owned by owner, giving the next script a clean slate.
func (pg *Postgres) RecreateDB(t testing.TB, db, owner string) {
	t.Helper()
	pg.Exec(t,
		fmt.Sprintf(`DROP DATABASE IF EXISTS %s WITH (FORCE)`, quoteIdent(db)),
		fmt.Sprintf(`CREATE DATABASE %s OWNER %s`, quoteIdent(db), quoteIdent(owner)),
	)
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// As returns a Target for the same cluster that connects as user to db.
func (pg *Postgres) As(user, db string) Target { return &pgAs{Postgres: pg, user: user, db: db} }

type pgAs struct {
	*Postgres
	user, db string
}

func (p *pgAs) User() string       { return p.user }
func (p *pgAs) Database() string   { return p.db }
func (p *pgAs) ConnString() string { return connString(p.user, p.Addr(), p.db) }

// Command returns an unstarted postgres command on this cluster's data
// directory listening on port, for tests that check what a second server
// on the same data directory does.
func (pg *Postgres) Command(port int) *exec.Cmd {
	return pg.command(filepath.Join(pg.bindir, "postgres"),
		"-D", pg.DataDir, "-p", strconv.Itoa(port), "-k", pg.Dir, "-c", "listen_addresses=127.0.0.1")
}
