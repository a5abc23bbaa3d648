package engine

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/wire"
)

// TestFetchCancelledStopsQuery: a FETCH whose context ends while the
// cursor's query runs (a cancel request, a timeout, a client gone) stops
// the query with it instead of leaving it running, and the cursor's
// block can still be rolled back and the session used.
func TestFetchCancelledStopsQuery(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE pb (k int PRIMARY KEY, v text)")
	mustRun(t, s, "INSERT INTO pb SELECT g, 'v' || g FROM generate_series(1, 10) g")
	mustRun(t, s, "BEGIN")
	// Ten rows times a billion: the join's first rows come only after
	// it has read the whole series, which no test waits for.
	mustRun(t, s, "DECLARE e CURSOR FOR SELECT k FROM pb, generate_series(1, 1000000000) g WHERE g = 0")
	ctx, cancel := context.WithCancelCause(context.Background())
	p, err := s.Prepare(ctx, "FETCH 2 e", nil)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(200 * time.Millisecond)
		cancel(pgerr.New(pgerr.QueryCanceled, "canceling statement due to user request"))
	}()
	done := make(chan error, 1)
	go func() {
		r, err := p.Execute(ctx, nil, &testIO{})
		if err == nil {
			_, err = r.Next(ctx)
			r.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		var pe *pgerr.Error
		if !errors.As(err, &pe) || pe.Code != pgerr.QueryCanceled {
			t.Fatalf("cancelled FETCH: got %v, want 57014", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the cancelled FETCH still runs")
	}
	mustRun(t, s, "ROLLBACK")
	wantRows(t, s, "SELECT count(*) FROM pb", "10")
}

// cursorModel is a scrollable cursor over rows 1..n as the SQL standard
// defines its moves: pos is 0 before the first row, k on row k, n+1
// after the last.
type cursorModel struct{ n, pos int64 }

// to moves to p (clamped) and returns the row there, or nothing off the
// rows.
func (m *cursorModel) to(p int64) []int64 {
	m.pos = min(max(p, 0), m.n+1)
	if m.pos >= 1 && m.pos <= m.n {
		return []int64{m.pos}
	}
	return nil
}

// step moves count rows one way (count < 0: all of them) and returns the
// rows passed.
func (m *cursorModel) step(forward bool, count int64) []int64 {
	var out []int64
	for i := int64(0); count < 0 || i < count; i++ {
		if forward && m.pos > m.n || !forward && m.pos < 1 {
			break
		}
		if r := m.to(m.pos + map[bool]int64{true: 1, false: -1}[forward]); r != nil {
			out = append(out, r...)
		} else {
			break
		}
	}
	return out
}

// fetch applies the direction dir with count k (the statement's text is
// built by the caller) and returns the rows FETCH returns.
func (m *cursorModel) fetch(dir string, k int64) []int64 {
	switch dir {
	case "ABSOLUTE":
		if k < 0 {
			return m.to(m.n + 1 + k)
		}
		return m.to(k)
	case "RELATIVE":
		return m.to(m.pos + k)
	case "FORWARD", "BACKWARD":
		forward := dir == "FORWARD"
		if k == 0 {
			return m.to(m.pos)
		}
		if k > 0 || k == -1<<62 {
			return m.step(forward, map[bool]int64{true: k, false: -1}[k > 0])
		}
		return m.step(!forward, -k)
	}
	panic(dir)
}

// fetchCursor runs FETCH or MOVE text and returns the first column of
// its rows and its tag.
func fetchCursor(t *testing.T, s wire.Session, text string) ([]int64, string) {
	t.Helper()
	ctx := context.Background()
	p, err := s.Prepare(ctx, text, nil)
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	r, err := p.Execute(ctx, nil, &testIO{})
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	defer r.Close()
	var out []int64
	for {
		row, err := r.Next(ctx)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if row == nil {
			return out, r.Tag()
		}
		out = append(out, row[0].I)
	}
}

// TestCursorMovesMatchModel drives scrollable cursors with random FETCH
// and MOVE sequences and checks every answer against cursorModel. The
// memory budget is small, so most rows of the store live on its tape;
// midway the block writes (the cursor is materialised) and a WITH HOLD
// cursor's block commits (it is materialised and outlives the block).
func TestCursorMovesMatchModel(t *testing.T) {
	e, err := Open(Config{DataDir: "data", Storage: storage.Options{FS: vfs.NewMem()}, MemoryBudgetBytes: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE w (k int PRIMARY KEY)")
	spilled := 0
	for seed := uint64(1); seed <= 150; seed++ {
		rng := rand.New(rand.NewPCG(seed, 17))
		n := int64(rng.IntN(80))
		if seed%5 == 0 {
			n = 0
		}
		hold := seed%3 == 0
		opts := "SCROLL CURSOR"
		if hold {
			opts += " WITH HOLD"
		}
		mustRun(t, s, "BEGIN")
		mustRun(t, s, fmt.Sprintf("INSERT INTO w VALUES (%d)", seed))
		mustRun(t, s, fmt.Sprintf("DECLARE c %s FOR SELECT g, repeat('x', g %% 50) FROM generate_series(1, %d) g", opts, n))
		m := &cursorModel{n: n}
		inBlock := true
		for step := 0; step < 60; step++ {
			if inBlock && step == 20 {
				if hold {
					mustRun(t, s, "COMMIT")
					inBlock = false
				} else {
					mustRun(t, s, fmt.Sprintf("INSERT INTO w VALUES (%d)", 1000+seed))
				}
			}
			k := int64(rng.IntN(int(2*n+7))) - n - 3
			var text, dir string
			arg := k
			switch rng.IntN(12) {
			case 0:
				text, dir, arg = "NEXT", "FORWARD", 1
			case 1:
				text, dir, arg = "PRIOR", "BACKWARD", 1
			case 2:
				text, dir, arg = "FIRST", "ABSOLUTE", 1
			case 3:
				text, dir, arg = "LAST", "ABSOLUTE", -1
			case 4:
				text, dir = fmt.Sprintf("ABSOLUTE %d", k), "ABSOLUTE"
			case 5:
				text, dir = fmt.Sprintf("RELATIVE %d", k), "RELATIVE"
			case 6:
				text, dir = fmt.Sprintf("FORWARD %d", k), "FORWARD"
			case 7:
				text, dir = fmt.Sprintf("BACKWARD %d", k), "BACKWARD"
			case 8:
				text, dir = fmt.Sprint(k), "FORWARD"
			case 9:
				text, dir, arg = "FORWARD ALL", "FORWARD", -1<<62
			case 10:
				text, dir, arg = "BACKWARD ALL", "BACKWARD", -1<<62
			default:
				text, dir, arg = "0", "FORWARD", 0
			}
			verb := "FETCH"
			if rng.IntN(3) == 0 {
				verb = "MOVE"
			}
			stmt := fmt.Sprintf("%s %s FROM c", verb, text)
			want := m.fetch(dir, arg)
			got, tag := fetchCursor(t, s, stmt)
			wantTag := fmt.Sprintf("%s %d", verb, len(want))
			if verb == "MOVE" {
				want = nil
			}
			if fmt.Sprint(got) != fmt.Sprint(want) || tag != wantTag {
				t.Fatalf("seed %d, %d rows, step %d: %s: got %v %q, want %v %q", seed, n, step, stmt, got, tag, want, wantTag)
			}
		}
		if st := s.(*Session).cursors["c"].store; st != nil && st.nTape > 0 {
			spilled++
		}
		if inBlock {
			mustRun(t, s, "ROLLBACK")
		} else {
			mustRun(t, s, "CLOSE c")
		}
	}
	if spilled == 0 {
		t.Fatal("no cursor's store went beyond its memory share onto its tape")
	}
}

// TestHeldCursorTapeRemoved: a WITH HOLD cursor's rows beyond its memory
// share wait on a tape after COMMIT, and the session's end removes it.
func TestHeldCursorTapeRemoved(t *testing.T) {
	fs := vfs.NewMem()
	e, err := Open(Config{DataDir: "data", Storage: storage.Options{FS: fs}, MemoryBudgetBytes: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	tapes := func() int {
		names, err := fs.List(fs.PathJoin("data", "logs"))
		if err != nil {
			t.Fatal(err)
		}
		return len(names)
	}
	s := session(t, e)
	mustRun(t, s, "BEGIN")
	mustRun(t, s, "DECLARE h CURSOR WITH HOLD FOR SELECT g, repeat('y', 100) FROM generate_series(1, 500) g")
	wantRows(t, s, "FETCH 2 FROM h", "1 "+strings.Repeat("y", 100), "2 "+strings.Repeat("y", 100))
	mustRun(t, s, "COMMIT")
	if n := tapes(); n != 1 {
		t.Fatalf("%d files in logs after COMMIT, want the held cursor's tape", n)
	}
	wantRows(t, s, "FETCH ABSOLUTE 498 FROM h", "498 "+strings.Repeat("y", 100))
	s.Close()
	if n := tapes(); n != 0 {
		t.Fatalf("%d files in logs after the session ended, want none", n)
	}
}

// TestHeldCursorClosedByFailedCommit: a block whose COMMIT fails (here
// 40001, another session changed a row it wrote) closes its WITH HOLD
// cursors with it.
func TestHeldCursorClosedByFailedCommit(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s1, s2 := session(t, e), session(t, e)
	mustRun(t, s1, "CREATE TABLE hc (k int PRIMARY KEY, v int)")
	mustRun(t, s1, "INSERT INTO hc VALUES (1, 0)")
	mustRun(t, s1, "BEGIN")
	mustRun(t, s1, "UPDATE hc SET v = 1 WHERE k = 1")
	mustRun(t, s1, "DECLARE h CURSOR WITH HOLD FOR SELECT v FROM hc")
	mustRun(t, s2, "UPDATE hc SET v = 2 WHERE k = 1")
	if _, err := run(t, s1, "COMMIT"); pgerr.CodeOf(err) != pgerr.SerializationFailure {
		t.Fatalf("COMMIT: got %v, want 40001", err)
	}
	if _, err := run(t, s1, "FETCH h"); pgerr.CodeOf(err) != pgerr.InvalidCursorName {
		t.Fatalf("FETCH after the failed COMMIT: got %v, want 34000", err)
	}
	// A block that commits keeps it.
	mustRun(t, s1, "BEGIN")
	mustRun(t, s1, "DECLARE h CURSOR WITH HOLD FOR SELECT v FROM hc")
	mustRun(t, s1, "COMMIT")
	wantRows(t, s1, "FETCH h", "2")
}
