package testenv

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql" // the "mysql" database/sql driver
)

// MariaDB is a throwaway MariaDB server (Debian's mariadb-server,
// installed by scripts/deps.sh): mariadb-install-db into a fresh
// temporary directory, then a private mariadbd on a free port of
// 127.0.0.1 that checks no passwords (--skip-grant-tables, the
// counterpart of PostgreSQL's trust) and does not flush its log at every
// commit. It is stopped by its PID and removed when the test ends.
type MariaDB struct {
	t       testing.TB
	Dir     string // the server's root; DataDir, its socket and log below it
	DataDir string
	LogPath string
	port    int
	bin     string

	mu   sync.Mutex
	proc *proc
}

// MariaDBBin returns the path of mariadbd, or an error saying how to
// install it.
func MariaDBBin() (string, error) {
	for _, p := range []string{"/usr/sbin/mariadbd", "/usr/sbin/mysqld"} {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	if p, err := exec.LookPath("mariadbd"); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("mariadbd not found: install mariadb-server (scripts/deps.sh: need mariadb)")
}

// StartMariaDB creates and starts a fresh server; it is stopped and
// removed when the test ends.
func StartMariaDB(t testing.TB) *MariaDB {
	t.Helper()
	bin, err := MariaDBBin()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "weir-mariadb-")
	if err != nil {
		t.Fatal(err)
	}
	m := &MariaDB{t: t, Dir: dir, DataDir: filepath.Join(dir, "data"), LogPath: filepath.Join(dir, "mariadb.log")}
	t.Cleanup(func() {
		m.Kill()
		if t.Failed() {
			t.Logf("mariadb log (%s), last lines:\n%s", m.LogPath, tail(m.LogPath, 3000))
		}
		os.RemoveAll(dir)
	})
	install := exec.Command("mariadb-install-db", "--no-defaults", "--datadir="+m.DataDir,
		"--auth-root-authentication-method=normal", "--skip-test-db", "--user="+m.osUser())
	install.Env = []string{"PATH=" + os.Getenv("PATH"), "LC_ALL=C", "TZ=UTC", "HOME=" + dir}
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("mariadb-install-db: %v\n%s", err, out)
	}
	if m.port, err = FreePort(); err != nil {
		t.Fatal(err)
	}
	m.bin = bin
	if err := m.start(bin); err != nil {
		t.Fatalf("starting mariadbd: %v\nlog:\n%s", err, tail(m.LogPath, 3000))
	}
	return m
}

// osUser is the system user mariadbd runs as: root when the test runs
// as root (mariadbd refuses root unless told so), else the current one.
func (m *MariaDB) osUser() string {
	if os.Geteuid() == 0 {
		return "root"
	}
	return strconv.Itoa(os.Geteuid())
}

func (m *MariaDB) start(bin string) error {
	args := []string{"--no-defaults",
		"--datadir=" + m.DataDir,
		"--port=" + strconv.Itoa(m.port),
		"--bind-address=127.0.0.1",
		"--socket=" + filepath.Join(m.Dir, "mysqld.sock"),
		"--pid-file=" + filepath.Join(m.Dir, "mysqld.pid"),
		"--skip-grant-tables",
		"--skip-name-resolve",
		"--innodb-buffer-pool-size=32M",
		"--innodb-flush-log-at-trx-commit=2",
		"--default-time-zone=+00:00",
		"--character-set-server=utf8mb4",
		"--max-connections=100",
	}
	if os.Geteuid() == 0 {
		args = append(args, "--user=root")
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "LC_ALL=C", "TZ=UTC", "HOME=" + m.Dir}
	cmd.Dir = m.Dir
	p, err := startProc(cmd, m.LogPath)
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.proc = p
	m.mu.Unlock()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if p.exited() {
			return fmt.Errorf("mariadbd exited before accepting connections")
		}
		err := m.ping()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			p.kill()
			return fmt.Errorf("mariadbd not ready after 60s: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (m *MariaDB) ping() error {
	db, err := sql.Open("mysql", m.DSN(""))
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return db.PingContext(ctx)
}

// Pid returns mariadbd's process id (0 when it is not running).
func (m *MariaDB) Pid() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.proc == nil {
		return 0
	}
	return m.proc.cmd.Process.Pid
}

// Addr returns host:port.
func (m *MariaDB) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(m.port)) }

// Port returns the TCP port.
func (m *MariaDB) Port() int { return m.port }

// DSN returns a go-sql-driver DSN for root on database db ("" for none).
func (m *MariaDB) DSN(db string) string { return "root@tcp(" + m.Addr() + ")/" + db }

// Exec runs statements as root with no database selected.
func (m *MariaDB) Exec(t testing.TB, stmts ...string) {
	t.Helper()
	db, err := sql.Open("mysql", m.DSN(""))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, s := range stmts {
		if _, err := db.ExecContext(ctx, s); err != nil {
			t.Fatalf("mariadb: %s: %v", s, err)
		}
	}
}

// Kill sends SIGKILL to mariadbd and waits for it to exit.
func (m *MariaDB) Kill() {
	m.mu.Lock()
	p := m.proc
	m.proc = nil
	m.mu.Unlock()
	if p != nil {
		p.kill()
	}
}

// Restart starts mariadbd again on the same data directory and port
// after Kill or Stop (InnoDB recovers after a kill).
func (m *MariaDB) Restart() {
	m.t.Helper()
	m.Stop()
	if err := m.start(m.bin); err != nil {
		m.t.Fatalf("restarting mariadbd: %v\nlog:\n%s", err, tail(m.LogPath, 3000))
	}
}

// Stop shuts mariadbd down (SIGTERM) and waits.
func (m *MariaDB) Stop() {
	m.mu.Lock()
	p := m.proc
	m.proc = nil
	m.mu.Unlock()
	if p == nil {
		return
	}
	if err := p.stop(syscall.SIGTERM, 60*time.Second); err != nil {
		m.t.Errorf("stopping mariadbd: %v", err)
	}
}
