package executor

import (
	"bufio"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// evalOne compiles and evaluates a golden-file expression over a one-row
// chunk and returns its text output, or "ERROR: message".
func evalOne(t *testing.T, src string) string {
	t.Helper()
	e, err := parseTestExpr(src)
	if err != nil {
		t.Fatalf("%s: test parser: %v", src, err)
	}
	ev, err := Compile(e)
	if err != nil {
		return "ERROR: " + pgerr.As(err).Message
	}
	ctx := &EvalCtx{Location: time.UTC, Now: 1700000000123456, Session: fakeSession{}}
	in := types.NewChunk(nil, 1)
	in.SetLen(1)
	v, err := ev.Eval(ctx, in)
	if err != nil {
		return "ERROR: " + pgerr.As(err).Message
	}
	d := v.Get(0)
	if d.Null {
		return ""
	}
	return types.FormatText(d, e.Type(), time.UTC)
}

type fakeSession struct{}

func (fakeSession) User() string     { return "postgres" }
func (fakeSession) Database() string { return "postgres" }
func (fakeSession) Setting(name string) (string, bool) {
	if name == "timezone" {
		return "UTC", true
	}
	return "", false
}

// TestFunctionsGolden evaluates every expression of testdata/functions.txt
// and compares with the output PostgreSQL 15 gave for `SELECT expr`.
func TestFunctionsGolden(t *testing.T) {
	f, err := os.Open("testdata/functions.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		src, want, ok := strings.Cut(line, " → ")
		if !ok {
			t.Fatalf("bad golden line %q", line)
		}
		n++
		if got := evalOne(t, src); got != want {
			t.Errorf("%s\n got: %s\nwant: %s", src, got, want)
		}
	}
	if n == 0 {
		t.Fatal("no golden cases")
	}
}
