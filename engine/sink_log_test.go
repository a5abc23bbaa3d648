package engine

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/executor/sinktxn"
	"github.com/weirdb/weir/internal/pgerr"
)

// TestSinkLogStoreSystemBound checks ALTER SYSTEM SET
// sink_log_store_max_bytes: a positive number of bytes becomes the bound
// of the sinks started afterwards and survives a restart; anything else
// fails with 22023.
func TestSinkLogStoreSystemBound(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	for _, bad := range []string{"0", "-5", "'many'"} {
		_, err := run(t, s, "ALTER SYSTEM SET sink_log_store_max_bytes = "+bad)
		if pgerr.CodeOf(err) != pgerr.InvalidParameterValue {
			t.Errorf("ALTER SYSTEM SET sink_log_store_max_bytes = %s: %v, want 22023", bad, err)
		}
	}
	if got := e.sinkDecoupling().MaxBytes; got != 0 {
		t.Fatalf("the bound before ALTER SYSTEM is %d, want 0 (the executor's default)", got)
	}
	mustRun(t, s, "ALTER SYSTEM SET sink_log_store_max_bytes = 1048576")
	if got := e.sinkDecoupling().MaxBytes; got != 1<<20 {
		t.Fatalf("the bound after ALTER SYSTEM is %d, want 1048576", got)
	}
	e.Close()
	e = openTest(t, fs)
	defer e.Close()
	if got := e.sinkDecoupling().MaxBytes; got != 1<<20 {
		t.Fatalf("the bound after a restart is %d, want 1048576", got)
	}
}

// TestShowSinkLogMaxBytes: the system's log store bound is shown by SHOW,
// SHOW ALL and SHOW PARAMETERS, default or set.
func TestShowSinkLogMaxBytes(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	s := session(t, e)
	wantRows(t, s, "SHOW sink_log_store_max_bytes", strconv.Itoa(256<<20))
	mustRun(t, s, "ALTER SYSTEM SET sink_log_store_max_bytes = 1048576")
	wantRows(t, s, "SHOW sink_log_store_max_bytes", "1048576")
	for _, q := range []string{"SHOW ALL", "SHOW PARAMETERS"} {
		if all := strings.Join(mustRun(t, s, q), "\n"); !strings.Contains(all, "sink_log_store_max_bytes 1048576") {
			t.Errorf("%s lacks the bound:\n%s", q, all)
		}
	}
	mustRun(t, s, "ALTER SYSTEM SET checkpoint_timeout_ms = 300000")
	if all := strings.Join(mustRun(t, s, "SHOW PARAMETERS"), "\n"); !strings.Contains(all, "checkpoint_timeout_ms 300000") {
		t.Errorf("SHOW PARAMETERS does not show the checkpoint timeout set:\n%s", all)
	}
}

// TestSinkRetryMaxDelay checks ALTER SYSTEM SET sink_retry_max_delay_ms:
// it bounds the delivery backoff of the sinks started afterwards, shows
// in SHOW, survives a restart, and refuses values below the first wait
// (22023).
func TestSinkRetryMaxDelay(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	wantRows(t, s, "SHOW sink_retry_max_delay_ms", strconv.FormatInt(sinktxn.DefaultRetryMax.Milliseconds(), 10))
	if got := e.sinkDecoupling().RetryMax; got != 0 {
		t.Fatalf("the retry bound before ALTER SYSTEM is %s, want 0 (sinktxn's default)", got)
	}
	for _, bad := range []string{"0", "99", "'soon'"} {
		_, err := run(t, s, "ALTER SYSTEM SET sink_retry_max_delay_ms = "+bad)
		if pgerr.CodeOf(err) != pgerr.InvalidParameterValue {
			t.Errorf("ALTER SYSTEM SET sink_retry_max_delay_ms = %s: %v, want 22023", bad, err)
		}
	}
	mustRun(t, s, "ALTER SYSTEM SET sink_retry_max_delay_ms = 2000")
	wantRows(t, s, "SHOW sink_retry_max_delay_ms", "2000")
	if got := e.sinkDecoupling().RetryMax; got != 2*time.Second {
		t.Fatalf("the retry bound after ALTER SYSTEM is %s, want 2s", got)
	}
	e.Close()
	e = openTest(t, fs)
	defer e.Close()
	if got := e.sinkDecoupling().RetryMax; got != 2*time.Second {
		t.Fatalf("the retry bound after a restart is %s, want 2s", got)
	}
}
