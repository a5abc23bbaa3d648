package checkpoint

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRestartTraces runs testdata/restart/*.trace against Restarts. The
// blocks are parsed as the coordinator's traces are. Events:
//
//	strategy <kind> [attempts=<n>] [delay=<ms>] [max=<ms>] [multiplier=<f>]
//	         [jitter=<f>] [reset=<ms>] [max-failures=<n>] [interval=<ms>]
//	fail <ms> [rand=<f>]     (a failure at <ms>; rand picks the jitter, 0.5 by default)
//	reset                    (ALTER ... RESUME)
func TestRestartTraces(t *testing.T) {
	files, err := filepath.Glob("testdata/restart/*.trace")
	if err != nil || len(files) == 0 {
		t.Fatalf("no restart traces: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			blocks, trailer := parseTrace(t, path)
			var r *Restarts
			var sb strings.Builder
			for _, b := range blocks {
				var out []string
				for _, cmd := range b.cmds {
					out = append(out, runRestart(t, &r, cmd)...)
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

func runRestart(t *testing.T, r **Restarts, line string) []string {
	f := strings.Fields(line)
	kv := map[string]string{}
	var pos []string
	for _, a := range f[1:] {
		if k, v, ok := strings.Cut(a, "="); ok {
			kv[k] = v
		} else {
			pos = append(pos, a)
		}
	}
	num := func(k string, def float64) float64 {
		v, ok := kv[k]
		if !ok {
			return def
		}
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatalf("%q: bad %s", line, k)
		}
		return n
	}
	ms := func(k string, def time.Duration) time.Duration {
		return time.Duration(num(k, float64(def.Milliseconds()))) * time.Millisecond
	}
	switch f[0] {
	case "strategy":
		kind, err := ParseRestartKind(pos[0])
		if err != nil {
			return []string{"error: " + err.Error()}
		}
		d := RestartDefaults(kind)
		s := RestartStrategy{
			Kind:            kind,
			Attempts:        int(num("attempts", float64(d.Attempts))),
			Delay:           ms("delay", d.Delay),
			MaxDelay:        ms("max", d.MaxDelay),
			Multiplier:      num("multiplier", d.Multiplier),
			Jitter:          num("jitter", d.Jitter),
			ResetAfter:      ms("reset", d.ResetAfter),
			MaxFailures:     int(num("max-failures", float64(d.MaxFailures))),
			FailureInterval: ms("interval", d.FailureInterval),
		}
		if err := s.Validate(); err != nil {
			return []string{"error: " + err.Error()}
		}
		*r = NewRestarts(s)
		return []string{s.String()}
	case "fail":
		if *r == nil {
			t.Fatalf("%q before strategy", line)
		}
		at := time.UnixMilli(int64(num("at", 0)))
		if len(pos) > 0 {
			n, err := strconv.ParseInt(pos[0], 10, 64)
			if err != nil {
				t.Fatalf("%q: bad time", line)
			}
			at = time.UnixMilli(n)
		}
		d := (*r).Failed(at, num("rand", 0.5))
		if !d.Restart {
			return []string{fmt.Sprintf("failed attempt=%d: %s", d.Attempt, d.Reason)}
		}
		return []string{fmt.Sprintf("restart attempt=%d delay=%dms", d.Attempt, d.Delay.Milliseconds())}
	case "reset":
		(*r).Reset()
		return nil
	}
	t.Fatalf("unknown restart event %q", line)
	return nil
}
