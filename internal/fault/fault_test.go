package fault

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// childEnv makes the test binary act as a child process: instead of
// running tests it calls Hit for each comma-separated point name in the
// variable and prints "passed <name>" after each call that returns.
const childEnv = "WEIR_FAULT_TEST_CHILD"

// concurrentEnv, in a child, runs that many goroutines that each hit the
// armed point 100 times, printing "passed" after each return.
const concurrentEnv = "WEIR_FAULT_TEST_CONCURRENT"

func TestMain(m *testing.M) {
	if seq, ok := os.LookupEnv(childEnv); ok {
		runChild(seq)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func runChild(seq string) {
	if g, _ := strconv.Atoi(os.Getenv(concurrentEnv)); g > 0 {
		var mu sync.Mutex
		var wg sync.WaitGroup
		for range g {
			wg.Go(func() {
				for range 100 {
					Hit(seq)
					mu.Lock()
					os.Stdout.WriteString("passed " + seq + "\n")
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		return
	}
	for _, name := range strings.Split(seq, ",") {
		Hit(name)
		os.Stdout.WriteString("passed " + name + "\n")
	}
}

// result is what a child process did.
type result struct {
	stdout, stderr string
	killed         bool // terminated by SIGKILL
	exitCode       int  // -1 when killed by a signal
}

// child re-executes the test binary as a child with WEIR_FAULT set to
// fault (unset when empty) and the given hit sequence.
func child(t *testing.T, fault, seq string, concurrent int) result {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	env := []string{childEnv + "=" + seq, concurrentEnv + "=" + strconv.Itoa(concurrent)}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, EnvVar+"=") {
			env = append(env, kv)
		}
	}
	if fault != "" {
		env = append(env, EnvVar+"="+fault)
	}
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("running child: %v", err)
	}
	r := result{stdout: out.String(), stderr: errb.String(), exitCode: cmd.ProcessState.ExitCode()}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		r.killed = ws.Signal() == syscall.SIGKILL
	}
	return r
}

func passed(names ...string) string {
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "passed %s\n", n)
	}
	return b.String()
}

// TestHitKillsAtNthHit checks in child processes that the armed point
// kills the process with SIGKILL exactly at its N-th hit, that other
// points do not count, and that a process whose point is not reached N
// times, or with no point armed, exits normally.
func TestHitKillsAtNthHit(t *testing.T) {
	for _, tc := range []struct {
		fault, seq string
		killed     bool
		stdout     string
	}{
		{"", "a,a,a", false, passed("a", "a", "a")},
		{"a", "b,a,a", true, passed("b")},
		{"a:1", "a", true, ""},
		{"a:3", "a,b,a,b,b,a,a", true, passed("a", "b", "a", "b", "b")},
		{"a:4", "a,a,a", false, passed("a", "a", "a")},
		{SinkAfterPrecommit + ":2", SinkBeforePrecommit + "," + SinkAfterPrecommit + "," + SinkBeforePrecommit + "," + SinkAfterPrecommit + "," + CheckpointAfterCommit,
			true, passed(SinkBeforePrecommit, SinkAfterPrecommit, SinkBeforePrecommit)},
		// A malformed value arms nothing and says so.
		{"a:0", "a,a", false, passed("a", "a")},
		{"a:x", "a", false, passed("a")},
	} {
		t.Run(tc.fault+"/"+tc.seq, func(t *testing.T) {
			r := child(t, tc.fault, tc.seq, 0)
			if r.killed != tc.killed {
				t.Fatalf("killed by SIGKILL = %v (exit code %d), want %v\nstderr:\n%s", r.killed, r.exitCode, tc.killed, r.stderr)
			}
			if !tc.killed && r.exitCode != 0 {
				t.Fatalf("exit code %d, want 0\nstderr:\n%s", r.exitCode, r.stderr)
			}
			if r.stdout != tc.stdout {
				t.Fatalf("child passed\n%s\nwant\n%s", r.stdout, tc.stdout)
			}
			if tc.killed {
				name, n, _ := Parse(tc.fault)
				want := fmt.Sprintf("weir: fault point %s reached (hit %d): killing the process with SIGKILL\n", name, n)
				if !strings.Contains(r.stderr, want) {
					t.Fatalf("stderr lacks %q:\n%s", want, r.stderr)
				}
			}
			if strings.Contains(tc.fault, ":0") || strings.Contains(tc.fault, ":x") {
				if !strings.Contains(r.stderr, "ignoring "+EnvVar) {
					t.Fatalf("malformed %s not reported:\n%s", EnvVar, r.stderr)
				}
			}
		})
	}
}

// TestHitConcurrent hits the armed point from several goroutines: the
// process dies, and no more than N-1 calls ever returned.
func TestHitConcurrent(t *testing.T) {
	const n = 150
	r := child(t, "p:"+strconv.Itoa(n), "p", 4)
	if !r.killed {
		t.Fatalf("not killed by SIGKILL (exit code %d)\nstderr:\n%s", r.exitCode, r.stderr)
	}
	if got := strings.Count(r.stdout, "passed p\n"); got > n-1 {
		t.Fatalf("%d calls returned, want at most %d", got, n-1)
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		name string
		n    int
		err  bool
	}{
		{"sink.after_precommit", "sink.after_precommit", 1, false},
		{"sink.after_precommit:7", "sink.after_precommit", 7, false},
		{" p:2 ", "p", 2, false},
		{"", "", 0, true},
		{":3", "", 0, true},
		{"p:", "", 0, true},
		{"p:0", "", 0, true},
		{"p:-1", "", 0, true},
		{"p:1.5", "", 0, true},
	} {
		name, n, err := Parse(tc.in)
		if (err != nil) != tc.err || name != tc.name || n != tc.n {
			t.Errorf("Parse(%q) = %q, %d, %v; want %q, %d, error %v", tc.in, name, n, err, tc.name, tc.n, tc.err)
		}
	}
}

// TestHitUnarmedIsFree checks that an unarmed Hit allocates nothing (the
// test process runs without WEIR_FAULT).
func TestHitUnarmedIsFree(t *testing.T) {
	if _, _, ok := Armed(); ok {
		t.Fatalf("%s is set in the test's environment; run the tests without it", EnvVar)
	}
	if a := testing.AllocsPerRun(1000, func() { Hit(SinkAfterPrecommit) }); a != 0 {
		t.Fatalf("Hit allocates %v times per call when unarmed", a)
	}
}

func BenchmarkHitUnarmed(b *testing.B) {
	for b.Loop() {
		Hit(SinkAfterPrecommit)
	}
}
