package checkpoint

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/internal/pgerr"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of testdata/*.trace")

// A trace file is a sequence of blocks. A block is one or more event
// lines, a line "----", and the actions those events produced (one per
// line), ended by a blank line. Lines starting with # before a block are
// comments. Times are milliseconds since 1970-01-01; epochs are written
// <ms>.<seq>; actors a<n>, jobs j<n>, waiters w<n>.
//
// Events:
//
//	new [committed=<epoch>] [interval=<ms>] [minpause=<ms>] [timeout=<ms>] [backoff=<ms>]
//	    [checkpoint-pause=<ms>] [tolerable=<n>]
//	tick <ms>
//	request <waiter>...
//	ack <epoch> <actor>...             (one Ack per actor, in order)
//	commit-done <epoch> [err=<word>]
//	add-job <job> <actor>... [with=<job>:<actor>,<actor>...;...] [waiter=<waiter>]
//	stop-job <job> [waiter=<waiter>]
//	pause [<waiter>] | resume [<waiter>]
//	interval <ms>
//	timeout <ms> | checkpoint-pause <ms> | tolerable <n>
//	actor-failed <actor>
//	job-failed <job> [<job>...]
//	recovery-done [<job>=<actor>,<actor>...]... [err=<word>]
//	state
type traceBlock struct {
	pre  []string // comments and blank lines before the block
	cmds []string
	out  []string
	line int
}

func parseTrace(t *testing.T, path string) (blocks []traceBlock, trailer []string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	var b traceBlock
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case len(b.cmds) == 0 && (l == "" || strings.HasPrefix(l, "#")):
			b.pre = append(b.pre, l)
		case l == "----":
			if len(b.cmds) == 0 {
				t.Fatalf("%s:%d: ---- without events", path, i+1)
			}
			for i++; i < len(lines) && lines[i] != ""; i++ {
				b.out = append(b.out, lines[i])
			}
			blocks = append(blocks, b)
			b = traceBlock{}
		default:
			if len(b.cmds) == 0 {
				b.line = i + 1
			}
			b.cmds = append(b.cmds, l)
		}
	}
	if len(b.cmds) > 0 {
		t.Fatalf("%s:%d: events without ----", path, b.line)
	}
	return blocks, b.pre
}

func TestTraces(t *testing.T) {
	files, err := filepath.Glob("testdata/*.trace")
	if err != nil || len(files) == 0 {
		t.Fatalf("no trace files: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			blocks, trailer := parseTrace(t, path)
			h := &traceHarness{t: t}
			var sb strings.Builder
			for _, b := range blocks {
				var out []string
				for _, cmd := range b.cmds {
					out = append(out, h.run(cmd)...)
				}
				for _, l := range b.pre {
					sb.WriteString(l + "\n")
				}
				for _, l := range b.cmds {
					sb.WriteString(l + "\n")
				}
				sb.WriteString("----\n")
				for _, l := range out {
					sb.WriteString(l + "\n")
				}
				sb.WriteString("\n")
				if !*rewrite && !slices.Equal(out, b.out) {
					t.Errorf("%s:%d: %s\n got:\n%s\nwant:\n%s", path, b.line, strings.Join(b.cmds, " / "),
						strings.Join(out, "\n"), strings.Join(b.out, "\n"))
				}
			}
			for _, l := range trailer {
				if l != "" {
					sb.WriteString(l + "\n")
				}
			}
			if *rewrite {
				if err := os.WriteFile(path, []byte(strings.TrimRight(sb.String(), "\n")+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// traceHarness runs trace events against a coordinator and prints the
// actions.
type traceHarness struct {
	t *testing.T
	c *Coordinator
}

func (h *traceHarness) run(line string) []string {
	f := strings.Fields(line)
	cmd, args := f[0], f[1:]
	kv := map[string]string{}
	var pos []string
	for _, a := range args {
		if k, v, ok := strings.Cut(a, "="); ok && !strings.HasPrefix(a, "j") {
			kv[k] = v
		} else {
			pos = append(pos, a)
		}
	}
	if cmd != "new" && h.c == nil {
		h.t.Fatalf("%q before new", line)
	}
	var out []string
	step := func(ev Event) {
		if err := h.c.Step(ev); err != nil {
			out = append(out, "error: "+err.Error())
		}
		out = append(out, h.ready()...)
	}
	switch cmd {
	case "new":
		cfg := Config{
			CommittedEpoch:  parseEpoch(h.t, kv["committed"]),
			Interval:        h.ms(kv["interval"]),
			MinPause:        h.ms(kv["minpause"]),
			Timeout:         h.ms(kv["timeout"]),
			RecoveryBackoff: h.ms(kv["backoff"]),

			MinPauseBetweenCheckpoints: h.ms(kv["checkpoint-pause"]),
		}
		if n, ok := kv["tolerable"]; ok {
			cfg.TolerableFailures = int(h.int(n))
		}
		h.c = New(cfg)
		out = append(out, h.ready()...)
	case "tick":
		step(Tick{Now: time.UnixMilli(h.int(pos[0]))})
	case "request":
		for _, w := range pos {
			step(RequestBarrier{Waiter: h.waiter(w)})
		}
	case "ack":
		e := parseEpoch(h.t, pos[0])
		for _, a := range pos[1:] {
			step(Ack{Epoch: e, Actor: h.actor(a), WriteSet: "ws-" + a})
		}
	case "commit-done":
		var err error
		if m, ok := kv["err"]; ok {
			err = errors.New(m)
		}
		step(CommitDone{Epoch: parseEpoch(h.t, pos[0]), Err: err})
	case "add-job":
		j := Job{ID: h.job(pos[0])}
		for _, a := range pos[1:] {
			j.Actors = append(j.Actors, h.actor(a))
		}
		var with []Job
		if kv["with"] != "" {
			for _, g := range strings.Split(kv["with"], ";") {
				js, as, _ := strings.Cut(g, ":")
				wj := Job{ID: h.job(js)}
				for _, a := range strings.Split(as, ",") {
					wj.Actors = append(wj.Actors, h.actor(a))
				}
				with = append(with, wj)
			}
		}
		step(AddJob{Job: j, With: with, Waiter: h.waiter(kv["waiter"])})
	case "stop-job":
		step(StopJob{Job: h.job(pos[0]), Waiter: h.waiter(kv["waiter"])})
	case "pause", "resume":
		var w WaiterID
		if len(pos) > 0 {
			w = h.waiter(pos[0])
		}
		if cmd == "pause" {
			step(Pause{Waiter: w})
		} else {
			step(Resume{Waiter: w})
		}
	case "interval":
		step(SetInterval{Interval: h.ms(pos[0])})
	case "timeout":
		step(SetTimeout{Timeout: h.ms(pos[0])})
	case "checkpoint-pause":
		step(SetMinPause{MinPause: h.ms(pos[0])})
	case "tolerable":
		step(SetTolerableFailures{N: int(h.int(pos[0]))})
	case "actor-failed":
		step(ActorFailed{Actor: h.actor(pos[0]), Err: errors.New("boom")})
	case "job-failed":
		var with []JobID
		for _, p := range pos[1:] {
			with = append(with, h.job(p))
		}
		step(JobFailed{Job: h.job(pos[0]), With: with, Err: errors.New("boom")})
	case "recovery-done":
		var ev RecoveryDone
		if m, ok := kv["err"]; ok {
			ev.Err = errors.New(m)
		}
		for _, p := range pos {
			js, as, _ := strings.Cut(p, "=")
			j := Job{ID: h.job(js)}
			for _, a := range strings.Split(as, ",") {
				j.Actors = append(j.Actors, h.actor(a))
			}
			ev.Jobs = append(ev.Jobs, j)
		}
		step(ev)
	case "state":
		s := h.c.String()
		if d, ok := h.c.NextDeadline(); ok {
			s += fmt.Sprintf(" next=%d", d.UnixMilli())
		}
		out = append(out, s)
	default:
		h.t.Fatalf("unknown trace event %q", line)
	}
	return out
}

func (h *traceHarness) ready() []string {
	var out []string
	for _, a := range h.c.Ready() {
		out = append(out, formatAction(a))
	}
	return out
}

func formatAction(a Action) string {
	switch a := a.(type) {
	case InjectBarrier:
		b := a.Barrier
		s := fmt.Sprintf("inject epoch=%s prev=%s kind=%s targets=%s", epochString(b.Epoch.Curr),
			epochString(b.Epoch.Prev), b.Kind, formatIDs("a", a.Targets))
		if b.Mutation.Kind != MutationNone {
			s += " mutation=" + formatMutation(b.Mutation)
		}
		return s
	case Commit:
		ids := make([]ActorID, len(a.WriteSets))
		for i, w := range a.WriteSets {
			ids[i] = w.Actor
			if w.WriteSet != fmt.Sprintf("ws-a%d", w.Actor) {
				return fmt.Sprintf("commit with actor %d's write set %v", w.Actor, w.WriteSet)
			}
		}
		return fmt.Sprintf("commit epoch=%s writesets=%s", epochString(a.Epoch), formatIDs("a", ids))
	case Committed:
		s := fmt.Sprintf("committed epoch=%s waiters=%s", epochString(a.Epoch), formatIDs("w", a.Waiters))
		if a.Mutation.Kind != MutationNone {
			s += " mutation=" + formatMutation(a.Mutation)
		}
		return s
	case FailWaiters:
		return fmt.Sprintf("fail-waiters waiters=%s err=%s %q", formatIDs("w", a.Waiters), pgerr.CodeOf(a.Err), a.Err)
	case JobRemoved:
		ids := make([]ActorID, len(a.Dropped))
		for i, w := range a.Dropped {
			ids[i] = w.Actor
		}
		return fmt.Sprintf("job-removed j%d epoch=%s dropped=%s", a.Job, epochString(a.Epoch), formatIDs("a", ids))
	case CheckpointTimedOut:
		return fmt.Sprintf("checkpoint-timed-out epoch=%s missing=%s failures=%d/%d timeout=%s",
			epochString(a.Epoch), formatIDs("a", a.Missing), a.Failures, a.Tolerable, a.Timeout)
	case JobsStalled:
		return fmt.Sprintf("jobs-stalled epoch=%s jobs=%s missing=%s err=%s %q", epochString(a.Epoch), formatIDs("j", a.Jobs),
			formatIDs("a", a.Missing), pgerr.CodeOf(a.Err), a.Err)
	case StartRecovery:
		s := "start-recovery from=" + epochString(a.FromEpoch)
		if a.Err != nil {
			s += fmt.Sprintf(" err=%q", a.Err)
		}
		return s
	}
	return fmt.Sprintf("unknown action %T", a)
}

func formatMutation(m Mutation) string {
	switch m.Kind {
	case MutationAddJob, MutationStopJob:
		s := fmt.Sprintf("%s(j%d:%s", m.Kind, m.Job.ID, formatIDs("a", m.Job.Actors))
		for _, j := range m.With {
			s += fmt.Sprintf(" j%d:%s", j.ID, formatIDs("a", j.Actors))
		}
		return s + ")"
	}
	return m.Kind.String()
}

func formatIDs[T ~uint32 | ~uint64](prefix string, ids []T) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprintf("%s%d", prefix, id)
	}
	return "[" + strings.Join(s, " ") + "]"
}

func parseEpoch(t *testing.T, s string) uint64 {
	if s == "" {
		return 0
	}
	ms, seq, _ := strings.Cut(s, ".")
	m, err1 := strconv.ParseUint(ms, 10, 64)
	q, err2 := strconv.ParseUint(seq, 10, 16)
	if err1 != nil || (seq != "" && err2 != nil) {
		t.Fatalf("bad epoch %q", s)
	}
	return m<<EpochSeqBits | q
}

func (h *traceHarness) int(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		h.t.Fatalf("bad number %q", s)
	}
	return n
}

func (h *traceHarness) ms(s string) time.Duration {
	if s == "" {
		return 0
	}
	return time.Duration(h.int(s)) * time.Millisecond
}

func (h *traceHarness) id(prefix, s string) uint64 {
	if !strings.HasPrefix(s, prefix) {
		h.t.Fatalf("%q: want %s<n>", s, prefix)
	}
	return uint64(h.int(s[len(prefix):]))
}

func (h *traceHarness) actor(s string) ActorID { return ActorID(h.id("a", s)) }
func (h *traceHarness) job(s string) JobID     { return JobID(h.id("j", s)) }
func (h *traceHarness) waiter(s string) WaiterID {
	if s == "" {
		return 0
	}
	return WaiterID(h.id("w", s))
}
