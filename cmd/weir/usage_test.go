package main

import (
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestUsageListsServeFlags checks that weir --help (usage) names every
// flag of weir serve, as `weir serve -h` prints them.
func TestUsageListsServeFlags(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = w
	code := serve([]string{"-h"})
	os.Stderr = saved
	w.Close()
	out, _ := io.ReadAll(r)
	if code != 2 {
		t.Fatalf("weir serve -h exited %d", code)
	}
	names := regexp.MustCompile(`(?m)^  -([a-z-]+)`).FindAllStringSubmatch(string(out), -1)
	if len(names) == 0 {
		t.Fatalf("weir serve -h printed no flags:\n%s", out)
	}
	for _, m := range names {
		if !strings.Contains(usage, "--"+m[1]+" ") {
			t.Errorf("weir --help does not list --%s", m[1])
		}
	}
}

// TestClusterRefusesMetricsListen: a cluster node exports no /metrics,
// so asking it for a metrics listener is an error, not a silent no-op.
func TestClusterRefusesMetricsListen(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = w
	code := serve([]string{"--cluster", "127.0.0.1:1", "--node-id", "1", "--metrics-listen", "127.0.0.1:0"})
	os.Stderr = saved
	w.Close()
	out, _ := io.ReadAll(r)
	if code != 2 || !strings.Contains(string(out), "--metrics-listen is not supported with --cluster") {
		t.Fatalf("exit %d, stderr %q; want 2 and the refusal", code, out)
	}
}
