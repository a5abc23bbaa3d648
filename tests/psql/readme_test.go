package psql

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weirdb/weir/tests/testenv"
)

// The README's event-time session lies between these markers: a ```sql
// block of input, then a ``` block of what psql prints for it.
const (
	readmeSessionStart = "<!-- event time session:"
	readmeSessionEnd   = "<!-- end of event time session -->"
)

// readmeSession returns the README's text, and the offsets of the event
// time session's input and of its output block's contents.
func readmeSession(t *testing.T) (readme string, in, out [2]int) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme = string(b)
	start := strings.Index(readme, readmeSessionStart)
	end := strings.Index(readme, readmeSessionEnd)
	if start < 0 || end < start {
		t.Fatalf("README.md has no event time session between %q and %q", readmeSessionStart, readmeSessionEnd)
	}
	block := func(from int, fence string) [2]int {
		i := strings.Index(readme[from:end], fence)
		if i < 0 {
			t.Fatalf("README.md's event time session lacks a %q block", fence)
		}
		open := from + i + len(fence)
		j := strings.Index(readme[open:end], "```")
		if j < 0 {
			t.Fatalf("README.md's event time session has an unclosed block")
		}
		return [2]int{open, open + j}
	}
	in = block(start, "```sql\n")
	out = block(in[1]+len("```"), "```\n")
	return readme, in, out
}

// TestReadmeEventTime runs the README's event-time session with psql
// against a fresh weir and checks that psql prints what the README says
// (-rewrite writes weir's output into the README).
func TestReadmeEventTime(t *testing.T) {
	if testenv.TargetName() == "postgres" {
		t.Log("the session uses weir's event-time SQL; it has no PostgreSQL form")
		return
	}
	readme, in, out := readmeSession(t)
	w := testenv.Start(t, testenv.Options{})
	got := psql(t, w, t.TempDir(), readme[in[0]:in[1]])
	if *rewrite {
		updated := readme[:out[0]] + string(got) + readme[out[1]:]
		if err := os.WriteFile(filepath.Join("..", "..", "README.md"), []byte(updated), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want := readme[out[0]:out[1]]; !bytes.Equal(got, []byte(want)) {
		t.Errorf("psql prints, for the README's event time session:\n%s\nthe README says:\n%s", got, want)
	}
}
