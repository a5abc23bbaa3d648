package stream

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// The HashAgg and TopN tests share this harness: a script of pretty
// chunks separated by "barrier" lines is fed through a scripted input,
// and the operator's output is collected per epoch in the pretty form.
// After every barrier the operator forwards, the actor's write set is
// committed into a storage.DB on vfs.NewMem, as the checkpoint would.

// opEnv is a storage.DB and an actor context over it.
type opEnv struct {
	db   *storage.DB
	actx *ActorContext
	// epoch is the last epoch a barrier was injected for.
	epoch uint64
}

func newOpEnv(t testing.TB) *opEnv {
	t.Helper()
	db, err := storage.Open("/data", storage.Options{FS: vfs.NewMem()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e := &opEnv{db: db}
	e.reset()
	return e
}

// reset gives the environment a fresh actor context (and cache), as a
// restarted job's actor has.
func (e *opEnv) reset() {
	e.actx = &ActorContext{DB: e.db, Cache: storage.NewCache(64 << 20), WriteSet: e.db.NewBatch(), Errors: &opErrors{}}
}

type opErrors struct{ errs []error }

func (r *opErrors) Record(_ types.JobID, _ string, err error) { r.errs = append(r.errs, err) }

// scriptInput yields a fixed list of messages, then nil.
type scriptInput struct {
	msgs   []types.Message
	closed bool
}

func (s *scriptInput) Next(context.Context) (types.Message, error) {
	if len(s.msgs) == 0 {
		return nil, nil
	}
	m := s.msgs[0]
	s.msgs = s.msgs[1:]
	return m, nil
}

func (s *scriptInput) Close() { s.closed = true }

// script turns text into messages: "barrier" lines become barriers (the
// first one Initial) numbered from e.epoch ("barrier @MS" one whose
// epoch time is MS milliseconds), "wm COL VALUE" lines int8
// watermarks, and the pretty rows between them chunks of types ts.
func (e *opEnv) script(t testing.TB, text string, ts []types.T) []types.Message {
	t.Helper()
	var msgs []types.Message
	var rows []string
	first := true
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
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "":
		case line == "barrier" || strings.HasPrefix(line, "barrier @"):
			flush()
			next := e.epoch + 1
			if at, ok := strings.CutPrefix(line, "barrier @"); ok {
				// barrier @MS: the epoch's processing time is MS
				// milliseconds (types.EpochMillis).
				ms, err := strconv.ParseUint(at, 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				next = max(next, ms<<types.EpochSeqBits)
			}
			b := types.Barrier{Epoch: types.Epoch{Prev: e.epoch, Curr: next}}
			if first {
				b.Kind = types.BarrierInitial
				first = false
			}
			e.epoch = next
			msgs = append(msgs, b)
		case strings.HasPrefix(line, "wm "):
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

// drain pulls op until its input is exhausted and returns the pretty
// output of each epoch (the rows emitted before each barrier, without
// header lines; watermarks as "wm COL VALUE"). It commits the write set
// after every barrier.
func (e *opEnv) drain(t testing.TB, op Operator) []string {
	t.Helper()
	var epochs []string
	var cur strings.Builder
	for {
		m, err := op.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if m == nil {
			return epochs
		}
		switch m := m.(type) {
		case *types.Chunk:
			s := m.String()
			cur.WriteString(s[strings.IndexByte(s, '\n')+1:])
		case types.Watermark:
			cur.WriteString(m.String() + "\n")
		case types.Barrier:
			if err := e.actx.WriteSet.Commit(); err != nil {
				t.Fatal(err)
			}
			e.actx.WriteSet = e.db.NewBatch()
			epochs = append(epochs, normPretty(cur.String()))
			cur.Reset()
		}
	}
}

// normPretty collapses the padding of pretty rows so expectations can be
// written without aligning columns.
func normPretty(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			out = append(out, strings.Join(f, " "))
		}
	}
	return strings.Join(out, "\n")
}

// checkEpochs compares drained epochs with want (one string per epoch,
// rows in the form normPretty produces).
func checkEpochs(t testing.TB, got []string, want ...string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d epochs, want %d:\n%s", len(got), len(want), strings.Join(got, "\n----\n"))
	}
	for i := range want {
		if w := normPretty(want[i]); got[i] != w {
			t.Errorf("epoch %d:\ngot:\n%s\nwant:\n%s", i+1, got[i], w)
		}
	}
}

func col(name string, t types.T) types.Column { return types.Column{Name: name, T: t} }

func colRef(i int, t types.T) *planner.ColRef { return &planner.ColRef{Idx: i, T: t} }

// inputNode is a stand-in input plan node with schema s.
func inputNode(appendOnly bool, s ...types.Column) planner.StreamNode {
	return &planner.StreamValues{StreamBase: planner.StreamBase{Out: s, AppendOnly: appendOnly}}
}
