package stream

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

func init() { strictChangelog = true }

// rtScript is a mock input yielding scripted messages. The script
// form, one item per line:
//
//	barrier 3          barrier of epoch {2, 3}
//	barrier 1 add      barrier adding the job (MutationAddJob)
//	barrier 4 stop     barrier stopping the job
//	barrier 5 initial  Initial barrier (after a recovery)
//	wm 0 7             watermark on column 0 at 7 (read as column 0 of the types)
//	+ 1 a              a row; consecutive rows form one chunk
//	--                 ends a chunk
type rtScript struct {
	msgs []types.Message
}

func (s *rtScript) Next(ctx context.Context) (types.Message, error) {
	if len(s.msgs) == 0 {
		return nil, fmt.Errorf("script exhausted")
	}
	m := s.msgs[0]
	s.msgs = s.msgs[1:]
	return m, nil
}

func (s *rtScript) Close() {}

const testJob types.JobID = 7

func parseScript(t *testing.T, ts []types.T, script string) []types.Message {
	t.Helper()
	var msgs []types.Message
	var rows []string
	flush := func() {
		if len(rows) == 0 {
			return
		}
		c, err := types.ParseChunk(strings.Join(rows, "\n"), ts)
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, c)
		rows = nil
	}
	for _, line := range strings.Split(script, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "--":
			flush()
		case "barrier":
			flush()
			e, _ := strconv.ParseUint(f[1], 10, 64)
			b := types.Barrier{Epoch: types.Epoch{Prev: e - 1, Curr: e}}
			if len(f) > 2 {
				switch f[2] {
				case "add":
					b.Mutation = types.Mutation{Kind: types.MutationAddJob, Job: types.Job{ID: testJob}}
				case "stop":
					b.Mutation = types.Mutation{Kind: types.MutationStopJob, Job: types.Job{ID: testJob}}
				case "initial":
					b.Kind = types.BarrierInitial
				}
			}
			msgs = append(msgs, b)
		case "wm":
			flush()
			w, err := types.ParseWatermark(line, ts)
			if err != nil {
				t.Fatal(err)
			}
			msgs = append(msgs, w)
		default:
			rows = append(rows, line)
		}
	}
	flush()
	return msgs
}

// render prints a message in the test form: chunks pretty, barriers and
// watermarks as in scripts.
func render(m types.Message) string {
	switch x := m.(type) {
	case *types.Chunk:
		return x.String()
	case types.Barrier:
		return fmt.Sprintf("barrier %d\n", x.Epoch.Curr)
	case types.Watermark:
		return x.String() + "\n"
	}
	return "?\n"
}

// drain pulls from op until it returned n barriers, rendering the
// messages.
func drain(t *testing.T, op Operator, n int) string {
	t.Helper()
	var b strings.Builder
	for n > 0 {
		m, err := op.Next(context.Background())
		if err != nil {
			t.Fatalf("after\n%s: %v", b.String(), err)
		}
		b.WriteString(render(m))
		if _, ok := m.(types.Barrier); ok {
			n--
		}
	}
	return b.String()
}

func checkOutput(t *testing.T, got, want string) {
	t.Helper()
	norm := func(s string) string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			if f := strings.Fields(l); len(f) > 0 {
				out = append(out, strings.Join(f, " "))
			}
		}
		return strings.Join(out, "\n")
	}
	if norm(got) != norm(want) {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func openMemDB(t *testing.T, fs vfs.FS) *storage.DB {
	t.Helper()
	db, err := storage.Open("data", storage.Options{FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

type errList struct {
	mu   sync.Mutex
	errs []string
}

func (e *errList) Record(job types.JobID, op string, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.errs = append(e.errs, op+": "+err.Error())
}

func newTestActx(db *storage.DB) *ActorContext {
	return &ActorContext{
		Job: testJob, Actor: 1, Parallelism: 1, DB: db, Cache: storage.NewCache(1 << 20),
		WriteSet: db.NewBatch(), Errors: &errList{}, Eval: &executor.EvalCtx{Context: functions.Context{Location: time.UTC}},
	}
}

func rtCol(i int, t types.T) *planner.ColRef { return &planner.ColRef{Idx: i, T: t} }

func call(fn string, t types.T, args ...planner.Expr) *planner.Call {
	return &planner.Call{Fn: fn, Args: args, T: t}
}

func cint(v int64) *planner.Const { return &planner.Const{V: types.DInt(v), T: types.TInt8} }

// fakeSink collects acknowledgements per epoch: their number, and the
// write sets of those that carry one.
type fakeSink struct {
	mu     sync.Mutex
	n      map[uint64]int
	acks   map[uint64][]*storage.Batch
	failed []error
	notify chan struct{}
}

func newFakeSink() *fakeSink {
	return &fakeSink{n: map[uint64]int{}, acks: map[uint64][]*storage.Batch{}, notify: make(chan struct{}, 1024)}
}

func (s *fakeSink) Ack(ctx context.Context, epoch uint64, actor types.ActorID, ws *storage.Batch) error {
	s.mu.Lock()
	s.n[epoch]++
	if ws != nil {
		s.acks[epoch] = append(s.acks[epoch], ws)
	}
	s.mu.Unlock()
	s.notify <- struct{}{}
	return nil
}

func (s *fakeSink) ActorFailed(ctx context.Context, actor types.ActorID, err error) error {
	s.mu.Lock()
	s.failed = append(s.failed, err)
	s.mu.Unlock()
	s.notify <- struct{}{}
	return nil
}

// wait blocks until n actors acknowledged epoch, and returns the write
// sets of those that wrote something.
func (s *fakeSink) wait(t *testing.T, epoch uint64, n int) []*storage.Batch {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		s.mu.Lock()
		got, acked, failed := s.acks[epoch], s.n[epoch], s.failed
		s.mu.Unlock()
		if len(failed) > 0 {
			t.Fatalf("actor failed: %v", failed)
		}
		if acked >= n {
			return got
		}
		select {
		case <-s.notify:
		case <-deadline:
			t.Fatalf("epoch %d: %d of %d acks", epoch, acked, n)
		}
	}
}
