package testenv

import (
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestProcessExit checks that Wait tells a process that killed itself
// with SIGKILL (as a WEIR_FAULT point does) from one that exited.
func TestProcessExit(t *testing.T) {
	dir := t.TempDir()
	p := StartProcess(t, exec.Command("sh", "-c", "echo dying; kill -KILL $$"), filepath.Join(dir, "a.log"))
	e, err := p.Wait(time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if !e.Killed() || e.Code != -1 {
		t.Fatalf("self-SIGKILLed shell: %v (code %d)", e, e.Code)
	}
	if got := p.Tail(100); got != "dying\n" {
		t.Fatalf("log %q", got)
	}

	p = StartProcess(t, exec.Command("sh", "-c", "exit 3"), filepath.Join(dir, "b.log"))
	if e, err = p.Wait(time.Minute); err != nil || e.Killed() || e.Code != 3 {
		t.Fatalf("exit 3: %v, %v", e, err)
	}

	p = StartProcess(t, exec.Command("sleep", "600"), filepath.Join(dir, "c.log"))
	if _, err := p.Wait(10 * time.Millisecond); err == nil {
		t.Fatal("Wait returned for a running process")
	}
	if err := p.Stop(syscall.SIGTERM, time.Minute); err != nil {
		t.Fatal(err)
	}
	if e, err = p.Wait(0); err != nil || e.Signal != syscall.SIGTERM {
		t.Fatalf("after SIGTERM: %v, %v", e, err)
	}
}

// TestServerSpawnWaitExit starts weir, replaces its arguments with a bad
// flag so that the next start exits at once, watches that exit with
// Spawn and WaitExit, and starts it again with the arguments restored.
func TestServerSpawnWaitExit(t *testing.T) {
	s := Start(t, Options{})
	s.Stop()
	s.SetArgs("--no-such-flag")
	s.Spawn()
	e, err := s.WaitExit(time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if e.Code != 2 {
		t.Fatalf("weir serve --no-such-flag: %v, want exit code 2", e)
	}
	if s.Running() {
		t.Fatal("Running after WaitExit")
	}
	s.SetArgs()
	s.SetEnv("WEIR_FAULT=no.such.point")
	s.Spawn()
	if err := s.WaitReady(); err != nil {
		t.Fatal(err)
	}
	if !s.Running() {
		t.Fatal("not Running after WaitReady")
	}
	s.Restart()
}
