package fault

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestHold(t *testing.T) {
	defer func(h *holdSpec) { holding = h }(holding)
	release := filepath.Join(t.TempDir(), "release")
	h, err := parseHold(RecoveryBeforeInitialBarrier + "@" + release)
	if err != nil || h == nil {
		t.Fatalf("%v %v", h, err)
	}
	holding = h
	if err := Hold(context.Background(), "other.point"); err != nil {
		t.Fatalf("another point held: %v", err)
	}

	// A hit waits for the file, and for nothing else.
	done := make(chan error, 1)
	go func() { done <- Hold(context.Background(), RecoveryBeforeInitialBarrier) }()
	select {
	case err := <-done:
		t.Fatalf("the hit passed before its release: %v", err)
	case <-time.After(10 * holdPoll):
	}
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// Once released, every hit passes.
	if err := Hold(context.Background(), RecoveryBeforeInitialBarrier); err != nil {
		t.Fatal(err)
	}

	// A held hit ends with its context.
	holding = &holdSpec{name: RecoveryBeforeInitialBarrier, release: release + ".never"}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { done <- Hold(ctx, RecoveryBeforeInitialBarrier) }()
	cancel()
	if err := <-done; err != context.Canceled {
		t.Fatalf("a cancelled hold returned %v", err)
	}

	for _, bad := range []string{RecoveryBeforeInitialBarrier, RecoveryBeforeInitialBarrier + "@"} {
		if _, err := parseHold(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	if h, err := parseHold("sink.after_precommit:2"); h != nil || err != nil {
		t.Errorf("a crash point read as a hold point: %v %v", h, err)
	}
}
