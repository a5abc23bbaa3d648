package admin

import (
	"errors"
	"net"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/weirdb/weir/tests/testenv"
)

// defaultMetricsAddr is weir serve's default --metrics-listen.
const defaultMetricsAddr = "127.0.0.1:9249"

// TestMetricsDefaultPortTaken: with the default /metrics address taken
// (another weir on the machine, say), weir serve started without
// --metrics-listen still serves SQL, logging that /metrics is off; the
// same address given with --metrics-listen is an error that stops the
// start, since the user asked for it.
func TestMetricsDefaultPortTaken(t *testing.T) {
	bin := testenv.Binary(t)
	// Hold the default address, unless someone else already does:
	// either way it is taken.
	if ln, err := net.Listen("tcp", defaultMetricsAddr); err == nil {
		defer ln.Close()
	}
	port, err := testenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	cmd := osexec.Command(bin, "serve", "--listen", addr, "--data-dir", filepath.Join(dir, "data"))
	p := testenv.StartProcess(t, cmd, filepath.Join(dir, "weir.log"))
	if err := testenv.WaitReady(addr, "root", "dev", time.Minute, p.Exited); err != nil {
		t.Fatalf("weir serve with the default metrics address taken: %v\n%s", err, p.Tail(2000))
	}
	if log := p.Tail(4000); !strings.Contains(log, "metrics off") {
		t.Errorf("no warning that /metrics is off in the log:\n%s", log)
	}
	if err := p.Stop(syscall.SIGTERM, 30*time.Second); err != nil {
		t.Fatal(err)
	}

	out, err := osexec.Command(bin, "serve", "--listen", addr, "--data-dir", filepath.Join(dir, "data"), "--metrics-listen", defaultMetricsAddr).CombinedOutput()
	var exit *osexec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(string(out), "metrics listen on "+defaultMetricsAddr) {
		t.Fatalf("weir serve --metrics-listen %s with the address taken: %v\n%s\nwant exit 1 naming the address", defaultMetricsAddr, err, out)
	}
}
