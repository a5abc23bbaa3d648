package admin

import (
	"errors"
	"net"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/weirdb/weir/tests/testenv"
)

// TestFailedStartLeavesNoDataDir: weir serve on a port that is taken
// fails naming the address and leaves no data directory behind (it
// binds before it creates one, so no root role without a password is
// left to find); a start failing after it created the directory (the
// embedded broker's port taken) removes it again, parents included; a
// data directory that existed before the start stays, whatever fails.
func TestFailedStartLeavesNoDataDir(t *testing.T) {
	bin := testenv.Binary(t)
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	taken := held.Addr().String()
	port, err := testenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	free := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	dir := t.TempDir()
	existing := filepath.Join(dir, "existing")
	if err := os.Mkdir(existing, 0o755); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(existing, "keep")
	if err := os.WriteFile(marker, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		args    []string
		dataDir string
		// gone is the path that must not exist afterwards ("": the
		// data directory must still hold the marker).
		gone string
		want string
	}{
		{"wire port taken", []string{"--listen", taken}, filepath.Join(dir, "a", "b"), filepath.Join(dir, "a"), "listen on " + taken},
		{"broker port taken", []string{"--listen", free, "--embedded-kafka", taken}, filepath.Join(dir, "c"), filepath.Join(dir, "c"), "embedded kafka"},
		{"existing directory, wire port taken", []string{"--listen", taken}, existing, "", "listen on " + taken},
		{"existing directory, broker port taken", []string{"--listen", free, "--embedded-kafka", taken}, existing, "", "embedded kafka"},
	} {
		args := append([]string{"serve", "--metrics-listen", "", "--data-dir", c.dataDir}, c.args...)
		out, err := osexec.Command(bin, args...).CombinedOutput()
		var exit *osexec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(string(out), c.want) {
			t.Errorf("%s: %v\n%s\nwant exit 1 and %q", c.name, err, out, c.want)
			continue
		}
		if c.gone != "" {
			if _, err := os.Stat(c.gone); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s: %s is left behind (%v)\n%s", c.name, c.gone, err, out)
			}
			continue
		}
		if b, err := os.ReadFile(marker); err != nil || string(b) != "x" {
			t.Errorf("%s: the existing data directory lost its file: %v\n%s", c.name, err, out)
		}
	}
}
