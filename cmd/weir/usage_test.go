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
