package checkpoint

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weirdb/weir/internal/pgerr"
)

// fakeIO acknowledges every barrier from every target at once (as if the
// dataflow were instantaneous), records commits, and fails the commits it
// is told to.
type fakeIO struct {
	d *Driver

	mu         sync.Mutex
	commits    []uint64
	committed  []uint64
	recoveries int
	failNext   bool
	// failRecover is how many recoveries fail before one succeeds.
	failRecover int
	jobs        []Job
}

func (f *fakeIO) Inject(b InjectBarrier) {
	for _, a := range b.Targets {
		go f.d.Ack(context.Background(), b.Barrier.Epoch.Curr, a, a)
	}
}

func (f *fakeIO) Commit(ctx context.Context, epoch uint64, ws []ActorWriteSet) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failNext {
		f.failNext = false
		return errors.New("injected commit failure")
	}
	f.commits = append(f.commits, epoch)
	return nil
}

func (f *fakeIO) Committed(epoch uint64, m Mutation) {
	f.mu.Lock()
	f.committed = append(f.committed, epoch)
	f.mu.Unlock()
}

func (f *fakeIO) Recover(ctx context.Context, from uint64, cause error) ([]Job, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.recoveries++
	if f.failRecover > 0 {
		f.failRecover--
		return nil, errors.New("injected recovery failure")
	}
	return slices.Clone(f.jobs), nil
}

func startDriver(t *testing.T, cfg Config, f *fakeIO) (*Driver, func()) {
	return startDriverLog(t, cfg, f, io.Discard)
}

func startDriverLog(t *testing.T, cfg Config, f *fakeIO, log io.Writer) (*Driver, func()) {
	d := NewDriver(cfg, f, slog.New(slog.NewTextHandler(log, nil)))
	f.d = d
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	return d, func() {
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("Run = %v", err)
		}
	}
}

func TestDriverGroupCommit(t *testing.T) {
	f := &fakeIO{jobs: []Job{{ID: 1, Actors: []ActorID{1, 2, 3}}}}
	d, stop := startDriver(t, Config{Interval: time.Hour, MinPause: 2 * time.Millisecond}, f)
	defer stop()
	ctx := context.Background()

	// Concurrent writers share barriers: far fewer commits than writers.
	const writers = 50
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- d.Barrier(ctx)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	f.mu.Lock()
	n := len(f.commits)
	ok := slices.IsSorted(f.committed) && slices.Equal(f.commits, f.committed)
	f.mu.Unlock()
	if n == 0 || n > writers/2 || !ok {
		t.Fatalf("%d commits for %d writers (sorted and announced: %v)", n, writers, ok)
	}

	// Adding a job returns once its barrier is committed; adding it
	// again is rejected.
	if err := d.AddJob(ctx, Job{ID: 2, Actors: []ActorID{4}}); err != nil {
		t.Fatal(err)
	}
	if err := d.AddJob(ctx, Job{ID: 2, Actors: []ActorID{5}}); pgerr.CodeOf(err) != pgerr.ObjectNotInPrerequisiteState {
		t.Fatalf("second AddJob = %v", err)
	}
	if err := d.StopJob(ctx, 2); err != nil {
		t.Fatal(err)
	}
}

func TestDriverCommitFailureRecovers(t *testing.T) {
	f := &fakeIO{jobs: []Job{{ID: 1, Actors: []ActorID{1}}}}
	d, stop := startDriver(t, Config{Interval: time.Hour}, f)
	defer stop()
	ctx := context.Background()
	if err := d.Barrier(ctx); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.failNext = true
	f.mu.Unlock()
	if err := d.Barrier(ctx); pgerr.CodeOf(err) != pgerr.IOError {
		t.Fatalf("Barrier over a failing commit = %v", err)
	}
	// Recovery rebuilds the job and the next barrier commits.
	if err := d.Barrier(ctx); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.recoveries != 2 {
		t.Fatalf("%d recoveries, want 2 (start and after the failure)", f.recoveries)
	}
}

// lockedBuffer is a log destination written from several goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A recovery that fails is tried again after the backoff, and its error
// is logged: nothing commits meanwhile, and the log must say why.
func TestDriverRecoveryFailureLogged(t *testing.T) {
	f := &fakeIO{jobs: []Job{{ID: 1, Actors: []ActorID{1}}}, failRecover: 2}
	var log lockedBuffer
	d, stop := startDriverLog(t, Config{Interval: time.Hour, RecoveryBackoff: time.Millisecond}, f, &log)
	defer stop()
	if err := d.Barrier(context.Background()); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	n := f.recoveries
	f.mu.Unlock()
	if n != 3 {
		t.Errorf("%d recoveries, want 3 (two failed)", n)
	}
	if got := strings.Count(log.String(), `msg="recovery failed, trying again"`); got != 2 ||
		!strings.Contains(log.String(), "injected recovery failure") {
		t.Errorf("log says %d failed recoveries, want 2 with their error:\n%s", got, log.String())
	}
}

func TestDriverPeriodicAndShutdown(t *testing.T) {
	f := &fakeIO{jobs: []Job{{ID: 1, Actors: []ActorID{1}}}}
	d, stop := startDriver(t, Config{Interval: 5 * time.Millisecond}, f)
	deadline := time.Now().Add(5 * time.Second)
	for {
		f.mu.Lock()
		n := len(f.committed)
		f.mu.Unlock()
		if n >= 5 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d periodic checkpoints in 5s", n)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := d.SetInterval(context.Background(), 0); pgerr.CodeOf(err) != pgerr.InvalidParameterValue {
		t.Fatalf("SetInterval(0) = %v", err)
	}
	stop()
}

// TestBarrierCancelMessage: a wait for a checkpoint that its context
// ends reports PostgreSQL's message (the statement_timeout cause, or a
// cancel request's), never the Go context's text.
func TestBarrierCancelMessage(t *testing.T) {
	d := NewDriver(Config{Interval: time.Hour}, &fakeIO{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	timeout := pgerr.New(pgerr.QueryCanceled, "canceling statement due to statement timeout")
	ctx, cancel := context.WithTimeoutCause(context.Background(), time.Millisecond, timeout)
	defer cancel()
	if err := d.Barrier(ctx); pgerr.CodeOf(err) != pgerr.QueryCanceled || err.Error() != timeout.Message {
		t.Fatalf("Barrier past statement_timeout = %v, want 57014 %q", err, timeout.Message)
	}
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	if err := d.Barrier(ctx); pgerr.CodeOf(err) != pgerr.QueryCanceled || err.Error() != "canceling statement due to user request" {
		t.Fatalf("cancelled Barrier = %v, want 57014 canceling statement due to user request", err)
	}
}

// heldCommitIO is fakeIO whose commits close committing and then wait
// for release before they report.
type heldCommitIO struct {
	*fakeIO
	committing chan struct{}
	release    chan struct{}
}

func (h *heldCommitIO) Commit(ctx context.Context, epoch uint64, ws []ActorWriteSet) error {
	close(h.committing)
	<-h.release
	return h.fakeIO.Commit(ctx, epoch, ws)
}

// TestDriverBarrierUntil checks that BarrierUntil returns as soon as the
// caller's done channel closes with committed reporting true, before
// the coordinator has learnt of the commit, and that with committed
// reporting false it waits for the waiter's release as Barrier does.
func TestDriverBarrierUntil(t *testing.T) {
	for _, ok := range []bool{true, false} {
		h := &heldCommitIO{fakeIO: &fakeIO{jobs: []Job{{ID: 1, Actors: []ActorID{1, 2}}}},
			committing: make(chan struct{}), release: make(chan struct{})}
		d := NewDriver(Config{Interval: time.Hour}, h, slog.New(slog.NewTextHandler(io.Discard, nil)))
		h.d = d
		ctx, cancel := context.WithCancel(context.Background())
		ran := make(chan error, 1)
		go func() { ran <- d.Run(ctx) }()

		done := make(chan struct{})
		res := make(chan error, 1)
		go func() { res <- d.BarrierUntil(context.Background(), done, func() bool { return ok }) }()
		<-h.committing
		close(done)
		if ok {
			// The commit has not reported yet: only done can end the wait.
			if err := <-res; err != nil {
				t.Errorf("BarrierUntil with done closed = %v, want nil", err)
			}
			close(h.release)
		} else {
			select {
			case err := <-res:
				t.Errorf("BarrierUntil returned %v with committed false before the commit reported", err)
			default:
			}
			close(h.release)
			if err := <-res; err != nil {
				t.Errorf("BarrierUntil after the commit = %v, want nil", err)
			}
		}
		cancel()
		<-ran
	}
}
