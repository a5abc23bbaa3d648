package executor

import (
	"bufio"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// evalOne compiles and evaluates a golden-file expression over a one-row
// chunk and returns its text output, or "ERROR: message".
func evalOne(t *testing.T, src string) string {
	t.Helper()
	return evalIn(t, src, time.UTC)
}

// evalIn evaluates src with the session TimeZone loc and prints the
// result as the session would.
func evalIn(t *testing.T, src string, loc *time.Location) string {
	t.Helper()
	e, err := parseTestExpr(src)
	if err != nil {
		t.Fatalf("%s: test parser: %v", src, err)
	}
	ev, err := Compile(e)
	if err != nil {
		return "ERROR: " + pgerr.As(err).Message
	}
	ctx := &EvalCtx{Context: functions.Context{Location: loc, Now: 1700000000123456, Session: fakeSession{}}}
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
	return types.FormatText(d, e.Type(), loc)
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

// TestDatetimeInZone checks local-time arithmetic in a zone with DST
// against what PostgreSQL 15 prints with SET TimeZone =
// 'America/New_York': a wall time in the spring-forward gap takes the
// offset before it, one in the fall-back overlap the offset after it.
func TestDatetimeInZone(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ src, want string }{
		{"timestamptz '2024-03-09 02:30-05' + interval '1 day'", "2024-03-10 03:30:00-04"},
		{"timestamptz '2024-11-02 01:30-04' + interval '1 day'", "2024-11-03 01:30:00-05"},
		{"timestamptz '2024-02-10 02:30-05' + interval '1 month'", "2024-03-10 03:30:00-04"},
		{"timestamptz '2024-03-11 02:30-04' - interval '1 day'", "2024-03-10 03:30:00-04"},
		{"date_trunc('hour', timestamptz '2024-11-03 01:30-05')", "2024-11-03 01:00:00-05"},
		{"date_trunc('hour', timestamptz '2024-11-03 01:30-04')", "2024-11-03 01:00:00-04"},
		{"date_trunc('day', timestamptz '2024-03-10 12:00-04')", "2024-03-10 00:00:00-05"},
		{"make_timestamptz(2024, 3, 10, 2, 30, 0)", "2024-03-10 03:30:00-04"},
		{"make_timestamptz(2024, 11, 3, 1, 30, 0)", "2024-11-03 01:30:00-05"},
		{"timestamp '2024-03-10 02:30' = timestamptz '2024-03-10 03:30-04'", "t"},
		{"timestamp '2024-11-03 01:30' = timestamptz '2024-11-03 01:30-05'", "t"},
		{"timestamp '2024-07-01 12:00' < timestamptz '2024-07-01 12:00-04'", "f"},
		{"date '2024-07-01' = timestamptz '2024-07-01 00:00-04'", "t"},
		{"timestamptz '2024-01-01 00:00+00' - interval '300000 years'", "ERROR: timestamp out of range"},
	} {
		if got := evalIn(t, c.src, ny); got != c.want {
			t.Errorf("%s\n got: %s\nwant: %s", c.src, got, c.want)
		}
	}
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
