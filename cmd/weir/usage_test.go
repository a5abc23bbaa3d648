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
	if code != 0 {
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

// TestSubcommandUsage checks that -h on weir kafka, backup and replay
// prints the written usage, naming every flag the command's source
// defines, and exits 0, while an unknown flag exits 2.
func TestSubcommandUsage(t *testing.T) {
	capture := func(f func() int) (int, string) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		saved := os.Stderr
		os.Stderr = w
		code := f()
		os.Stderr = saved
		w.Close()
		out, _ := io.ReadAll(r)
		return code, string(out)
	}
	defined := regexp.MustCompile(`fs\.(?:String|Bool|Int|Int64|Uint64|Duration|Float64)\("([a-z-]+)"`)
	for _, c := range []struct {
		name, file string
		run        func([]string) int
	}{
		{"kafka", "kafka.go", kafkaCmd},
		{"backup", "backup.go", backupCmd},
		{"replay", "replay.go", replay},
	} {
		code, out := capture(func() int { return c.run([]string{"-h"}) })
		if code != 0 || !strings.HasPrefix(out, "Usage: weir "+c.name) && !strings.HasPrefix(out, "weir "+c.name+" flags:") {
			t.Errorf("weir %s -h: exit %d, usage:\n%s", c.name, code, out)
		}
		src, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		flags := defined.FindAllStringSubmatch(string(src), -1)
		if len(flags) == 0 {
			t.Fatalf("%s defines no flags the test can see", c.file)
		}
		for _, m := range flags {
			if !strings.Contains(out, "--"+m[1]+" ") {
				t.Errorf("weir %s -h does not list --%s", c.name, m[1])
			}
		}
		if code, _ := capture(func() int { return c.run([]string{"--no-such-flag"}) }); code != 2 {
			t.Errorf("weir %s --no-such-flag: exit %d, want 2", c.name, code)
		}
	}
}
