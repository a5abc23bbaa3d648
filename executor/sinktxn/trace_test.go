package sinktxn

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
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of testdata/*.trace")

// A trace file is a sequence of blocks: one or more event lines, a line
// "----", and the actions those events produced (one per line), ended by
// a blank line. Lines starting with # before a block are comments. Times
// are milliseconds since 1970-01-01; a transaction is written id@epoch.
//
// Events:
//
//	new [committed=<epoch>] [log=<epoch>:<rows>:<bytes>,...] [recorded=<id>@<epoch>,...]
//	    [max=<bytes>] [retry=<ms>] [retrymax=<ms>]
//	tick <ms>
//	append <epoch> <rows> <bytes>
//	checkpoint <epoch>                 (CheckpointCommitted)
//	connected
//	flushed <epoch> <id> | flushed <epoch> empty
//	recorded <epoch>
//	committed <epoch>
//	aborted <epoch>
//	truncated <epoch>
//	failed <word>
//	state
//	settled <epoch>                    (prints settled=<bool>)
func TestTraces(t *testing.T) {
	files, err := filepath.Glob("testdata/*.trace")
	if err != nil || len(files) == 0 {
		t.Fatalf("no trace files: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			h := &harness{t: t}
			var sb strings.Builder
			lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
			var cmds, want []string
			start := 0
			for i := 0; i < len(lines); i++ {
				l := lines[i]
				switch {
				case len(cmds) == 0 && (l == "" || strings.HasPrefix(l, "#")):
					sb.WriteString(l + "\n")
				case l == "----":
					if len(cmds) == 0 {
						t.Fatalf("%s:%d: ---- without events", path, i+1)
					}
					want = nil
					for i++; i < len(lines) && lines[i] != ""; i++ {
						want = append(want, lines[i])
					}
					var got []string
					for _, c := range cmds {
						got = append(got, h.run(c)...)
						sb.WriteString(c + "\n")
					}
					sb.WriteString("----\n")
					for _, l := range got {
						sb.WriteString(l + "\n")
					}
					sb.WriteString("\n")
					if !*rewrite && !slices.Equal(got, want) {
						t.Errorf("%s:%d: %s\n got:\n%s\nwant:\n%s", path, start, strings.Join(cmds, " / "),
							strings.Join(got, "\n"), strings.Join(want, "\n"))
					}
					cmds = nil
				default:
					if len(cmds) == 0 {
						start = i + 1
					}
					cmds = append(cmds, l)
				}
			}
			if len(cmds) > 0 {
				t.Fatalf("%s:%d: events without ----", path, start)
			}
			if *rewrite {
				out := strings.TrimRight(sb.String(), "\n") + "\n"
				if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

type harness struct {
	t *testing.T
	d *Delivery
}

func (h *harness) run(line string) []string {
	f := strings.Fields(line)
	cmd, args := f[0], f[1:]
	kv := map[string]string{}
	for _, a := range args {
		if k, v, ok := strings.Cut(a, "="); ok {
			kv[k] = v
		}
	}
	if cmd != "new" && h.d == nil {
		h.t.Fatalf("%q before new", line)
	}
	var out []string
	step := func(ev Event) {
		if err := h.d.Step(ev); err != nil {
			out = append(out, "error: "+err.Error())
		}
		out = append(out, h.ready()...)
	}
	arg := func(i int) string {
		if i >= len(args) {
			h.t.Fatalf("%q: argument %d missing", line, i+1)
		}
		return args[i]
	}
	switch cmd {
	case "new":
		cfg := Config{Committed: h.u64(kv["committed"]), MaxBytes: int64(h.u64(kv["max"])),
			RetryInitial: h.ms(kv["retry"]), RetryMax: h.ms(kv["retrymax"])}
		for _, e := range h.list(kv["log"]) {
			p := strings.Split(e, ":")
			if len(p) != 3 {
				h.t.Fatalf("bad log entry %q", e)
			}
			cfg.Log = append(cfg.Log, Entry{Epoch: h.u64(p[0]), Rows: int64(h.u64(p[1])), Bytes: int64(h.u64(p[2]))})
		}
		for _, r := range h.list(kv["recorded"]) {
			cfg.Recorded = append(cfg.Recorded, h.txn(r))
		}
		h.d = New(cfg)
		out = append(out, h.ready()...)
	case "tick":
		step(Tick{Now: time.UnixMilli(int64(h.u64(arg(0))))})
	case "append":
		step(Appended{Entry{Epoch: h.u64(arg(0)), Rows: int64(h.u64(arg(1))), Bytes: int64(h.u64(arg(2)))}})
	case "checkpoint":
		step(CheckpointCommitted{Epoch: h.u64(arg(0))})
	case "connected":
		step(Connected{})
	case "flushed":
		e := h.u64(arg(0))
		if arg(1) == "empty" {
			step(Flushed{Epoch: e, Empty: true})
		} else {
			step(Flushed{Epoch: e, Txn: Txn{ID: arg(1), Epoch: e}})
		}
	case "recorded":
		step(Recorded{Epoch: h.u64(arg(0))})
	case "committed":
		step(Committed{Epoch: h.u64(arg(0))})
	case "aborted":
		step(Aborted{Epoch: h.u64(arg(0)), Err: errors.New("INVALID_TXN_STATE")})
	case "truncated":
		step(Truncated{Epoch: h.u64(arg(0))})
	case "failed":
		step(Failed{Err: errors.New(arg(0))})
	case "state":
		out = append(out, h.d.String())
	case "settled":
		out = append(out, fmt.Sprintf("settled=%v", h.d.Settled(h.u64(arg(0)))))
	default:
		h.t.Fatalf("unknown trace event %q", line)
	}
	return out
}

func (h *harness) ready() []string {
	var out []string
	for _, a := range h.d.Ready() {
		out = append(out, formatAction(a))
	}
	return out
}

func formatAction(a Action) string {
	switch a := a.(type) {
	case Connect:
		return "connect"
	case Deliver:
		return fmt.Sprintf("deliver %d", a.Epoch)
	case Record:
		s := "record " + a.Txn.String()
		if len(a.Replaces) > 0 {
			s += fmt.Sprintf(" replaces=%v", a.Replaces)
		}
		return s
	case Commit:
		return "commit " + a.Txn.String()
	case Resolve:
		return "resolve " + a.Txn.String()
	case Truncate:
		return fmt.Sprintf("truncate %d records=%v", a.Epoch, a.Records)
	case Retry:
		return fmt.Sprintf("retry %s attempt=%d delay=%s err=%v", a.Step, a.Attempt, a.Delay, a.Err)
	case Lost:
		return fmt.Sprintf("lost %s err=%v", a.Txn, a.Err)
	}
	return fmt.Sprintf("unknown action %T", a)
}

func (h *harness) list(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

func (h *harness) txn(s string) Txn {
	id, e, ok := strings.Cut(s, "@")
	if !ok {
		h.t.Fatalf("bad transaction %q: want id@epoch", s)
	}
	return Txn{ID: id, Epoch: h.u64(e)}
}

func (h *harness) u64(s string) uint64 {
	if s == "" {
		return 0
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		h.t.Fatalf("bad number %q", s)
	}
	return n
}

func (h *harness) ms(s string) time.Duration { return time.Duration(h.u64(s)) * time.Millisecond }
