package wire

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

const psqlPath = "/usr/bin/psql"

// runPsql runs the real psql against ts with args and stdin, returning its
// stdout, stderr and exit code.
func runPsql(t *testing.T, ts *testServer, stdin string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	base := []string{"-X", "-h", "127.0.0.1", "-p", ts.port(), "-U", "root", "-d", "dev"}
	cmd := exec.CommandContext(ctx, psqlPath, append(base, args...)...)
	cmd.Env = []string{"PGCONNECT_TIMEOUT=5", "LC_ALL=C.UTF-8", "PGCLIENTENCODING=UTF8"}
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("psql: %v", err)
	}
	return out.String(), errb.String(), code
}

func TestPsql(t *testing.T) {
	ts := startServer(t, newFakeHandler(), Options{})
	cases := []struct {
		name       string
		stdin      string
		args       []string
		out, errs  string
		exitStatus int
	}{
		{
			name: "select",
			args: []string{"-c", "select 3"},
			out:  " n \n---\n 1\n 2\n 3\n(3 rows)\n\n",
		},
		{
			name: "multi-statement string",
			args: []string{"-c", "select 1; texts"},
			out:  " n \n---\n 1\n(1 row)\n\n   a   | b | c \n-------+---+---\n héllo |   | \n(1 row)\n\n",
		},
		{
			name:       "error with position",
			args:       []string{"-c", "select bogus"},
			errs:       "ERROR:  syntax error at or near \"bogus\"\nLINE 1: select bogus\n               ^\n",
			exitStatus: 1,
		},
		{
			name:       "error in the second statement",
			args:       []string{"-c", "select 1;\nselect bogus"},
			out:        " n \n---\n 1\n(1 row)\n\n",
			errs:       "ERROR:  syntax error at or near \"bogus\"\nLINE 2: select bogus\n               ^\n",
			exitStatus: 1,
		},
		{
			name: "notice",
			args: []string{"-c", "notice"},
			out:  "DO\n",
			errs: "NOTICE:  hello from the engine\n",
		},
		{
			name:  "copy from stdin",
			stdin: "a\nb\nc\n",
			args:  []string{"-c", `\copy t from stdin`},
			out:   "COPY 3\n",
		},
		{
			name: "copy to stdout",
			args: []string{"-c", `\copy t to stdout`},
			out:  "1\n2\n3\n",
		},
		{
			name:  "script goes on after an error",
			stdin: "select 1;\n  select bogus;\nselect 2;\n",
			args:  []string{"-f", "-"},
			out:   " n \n---\n 1\n(1 row)\n\n n \n---\n 1\n 2\n(2 rows)\n\n",
			errs:  "psql:<stdin>:2: ERROR:  syntax error at or near \"bogus\"\nLINE 1: select bogus;\n               ^\n",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := runPsql(t, ts, tc.stdin, tc.args...)
			if out != tc.out || errs != tc.errs || code != tc.exitStatus {
				t.Errorf("psql %q\nstdout:\n%s\nstderr:\n%s\nexit %d\nwant stdout:\n%s\nwant stderr:\n%s\nwant exit %d",
					tc.args, out, errs, code, tc.out, tc.errs, tc.exitStatus)
			}
		})
	}
}
