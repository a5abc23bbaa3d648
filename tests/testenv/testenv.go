// Package testenv starts the servers that weir's end-to-end tests talk to:
// weir itself, built once per test process from ./cmd/weir, and a
// throwaway PostgreSQL 15 used as the reference implementation.
//
// Both kinds of server satisfy Target, so a test written against Target
// (the sqllogictest runner, the durability tests) runs unchanged against
// either one. TargetName reports which one the environment asks for:
//
//	WEIR_TEST_TARGET=postgres go test ./tests/...   # validate against PostgreSQL
//	go test ./tests/...                             # run against weir
//
// Every process a test starts is registered with t.Cleanup and killed by
// its process id (the whole process group it leads), so a failing or
// panicking test leaves nothing behind. Test binaries that build weir call
// Main from their TestMain so the build directory is removed at exit.
package testenv

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Target is a running server that speaks the PostgreSQL protocol.
type Target interface {
	// Kind is "weir" or "postgres".
	Kind() string
	// Host and Port are where the server listens (TCP).
	Host() string
	Port() int
	// Addr is Host:Port.
	Addr() string
	// User and Database are the names to connect with.
	User() string
	Database() string
	// ConnString is a libpq-style URL for User and Database.
	ConnString() string
	// Stop shuts the server down cleanly and waits for it to exit.
	Stop()
	// Kill sends SIGKILL to the server and waits for it to exit.
	Kill()
	// Restart stops the server if it is running (cleanly) and starts it
	// again on the same data directory and port, waiting until it accepts
	// connections.
	Restart()
}

// TargetName returns the server kind the tests should run against:
// "postgres" when WEIR_TEST_TARGET (or WEIR_SLT_TARGET, which the
// sqllogictest runner documents) says so, "weir" otherwise.
func TargetName() string {
	for _, k := range []string{"WEIR_SLT_TARGET", "WEIR_TEST_TARGET"} {
		if v := strings.TrimSpace(os.Getenv(k)); v != "" {
			return strings.ToLower(v)
		}
	}
	return "weir"
}

var (
	buildOnce sync.Once
	buildDir  string
	buildPath string
	buildErr  error
)

// ModuleRoot returns the directory holding weir's go.mod.
func ModuleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("not inside a Go module")
	}
	return filepath.Dir(gomod), nil
}

// Binary returns the path of the weir binary, building ./cmd/weir on the
// first call of the process (later calls reuse the result, including a
// build failure). WEIR_BIN names a prebuilt binary instead.
func Binary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("WEIR_BIN"); p != "" {
		return p
	}
	buildOnce.Do(func() {
		root, err := ModuleRoot()
		if err != nil {
			buildErr = err
			return
		}
		buildDir, err = os.MkdirTemp("", "weir-testbin-")
		if err != nil {
			buildErr = err
			return
		}
		buildPath = filepath.Join(buildDir, "weir")
		cmd := exec.CommandContext(context.Background(), "go", "build", "-o", buildPath, "./cmd/weir")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/weir: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatalf("building weir: %v", buildErr)
	}
	return buildPath
}

// Main runs the tests of a package that uses testenv and then removes the
// process-wide build directory. Use it as
//
//	func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
func Main(m *testing.M) int {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	return code
}

// Start returns a running server of the kind TargetName selects: a fresh
// weir server, or a fresh PostgreSQL with the same user and database
// names weir uses (root, dev).
func StartTarget(t testing.TB) Target {
	t.Helper()
	switch TargetName() {
	case "weir":
		return Start(t, Options{})
	case "postgres", "pg":
		pg := StartPostgres(t)
		pg.CreateUserDB(t, "root", "dev")
		return pg.As("root", "dev")
	default:
		t.Fatalf("unknown test target %q (want weir or postgres)", TargetName())
		return nil
	}
}
