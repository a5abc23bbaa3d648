package slt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/weirdb/weir/tests/testenv"
)

// Failure is one record whose outcome differed from the file.
type Failure struct {
	File string
	Line int
	SQL  string
	Msg  string // what differed: expected and actual
}

func (f Failure) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d: %s", f.File, f.Line, f.Msg)
	if f.SQL != "" {
		fmt.Fprintf(&b, "\nSQL:\n    %s", strings.ReplaceAll(f.SQL, "\n", "\n    "))
	}
	return b.String()
}

// Runner executes test files against one Target.
type Runner struct {
	// Target is the server under test.
	Target testenv.Target
	// Rewrite replaces each query's expected rows with the actual ones in
	// the files instead of reporting mismatches.
	Rewrite bool
	// Timeout bounds each record (default 60s).
	Timeout time.Duration
	// MaxFailures stops a file after this many failures (default 20), so
	// that one early mistake does not bury the report.
	MaxFailures int

	conns    map[string]*pgx.Conn
	current  string
	failures []Failure
	halted   bool
	// rewrites holds, per file, the result sections to replace.
	rewrites map[string]map[int]struct {
		to    int
		lines []string
	}
}

// RunFile runs one file (and what it includes) on fresh sessions and
// returns the failures. Errors that are not test outcomes (an unreadable
// or malformed file, a failed rewrite) come back as a Failure too.
func (r *Runner) RunFile(path string) []Failure {
	if r.Timeout == 0 {
		r.Timeout = 60 * time.Second
	}
	if r.MaxFailures == 0 {
		r.MaxFailures = 20
	}
	r.conns = map[string]*pgx.Conn{}
	r.current = "default"
	r.failures = nil
	r.halted = false
	r.rewrites = map[string]map[int]struct {
		to    int
		lines []string
	}{}
	defer r.closeAll()
	r.runFile(path, 0)
	if r.Rewrite {
		for file, repl := range r.rewrites {
			text, err := os.ReadFile(file)
			if err == nil {
				err = os.WriteFile(file, rewriteFile(text, repl), 0o644)
			}
			if err != nil {
				r.fail(Failure{File: file, Msg: fmt.Sprintf("rewrite: %v", err)})
			}
		}
	}
	return r.failures
}

func (r *Runner) fail(f Failure) { r.failures = append(r.failures, f) }

func (r *Runner) runFile(path string, depth int) {
	if depth > 10 {
		r.fail(Failure{File: path, Msg: "include nesting deeper than 10"})
		return
	}
	text, err := os.ReadFile(path)
	if err != nil {
		r.fail(Failure{File: path, Msg: err.Error()})
		return
	}
	recs, err := Parse(path, text)
	if err != nil {
		r.fail(Failure{File: path, Msg: "parse: " + err.Error()})
		return
	}
	for _, rec := range recs {
		if r.halted || len(r.failures) >= r.MaxFailures {
			return
		}
		r.run(rec, depth)
	}
}

func (r *Runner) closeAll() {
	for name, c := range r.conns {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		c.Close(ctx)
		cancel()
		delete(r.conns, name)
	}
}

func (r *Runner) conn(ctx context.Context) (*pgx.Conn, error) {
	if c, ok := r.conns[r.current]; ok && !c.IsClosed() {
		return c, nil
	}
	c, err := pgx.Connect(ctx, r.Target.ConnString())
	if err != nil {
		return nil, fmt.Errorf("connecting session %q: %w", r.current, err)
	}
	r.conns[r.current] = c
	return c, nil
}

func (r *Runner) run(rec Record, depth int) {
	failf := func(format string, args ...any) {
		r.fail(Failure{File: rec.File, Line: rec.Line, SQL: rec.SQL, Msg: fmt.Sprintf(format, args...)})
	}
	switch rec.Kind {
	case Include:
		pattern := rec.Arg
		if !filepath.IsAbs(pattern) {
			pattern = filepath.Join(filepath.Dir(rec.File), pattern)
		}
		matches, err := filepath.Glob(pattern)
		if err != nil || len(matches) == 0 {
			failf("include %s: no file matches", rec.Arg)
			return
		}
		sort.Strings(matches)
		for _, m := range matches {
			r.runFile(m, depth+1)
		}
		return
	case Halt:
		r.halted = true
		return
	case Sleep:
		d, err := time.ParseDuration(rec.Arg)
		if err != nil {
			failf("sleep: %v", err)
			return
		}
		time.Sleep(d)
		return
	case Connection:
		r.current = rec.Arg
		return
	case Restart:
		r.closeAll()
		r.Target.Restart()
		return
	case Kill:
		r.closeAll()
		r.Target.Kill()
		r.Target.Restart()
		return
	}

	ctx, cancel := context.WithTimeout(context.Background(), r.Timeout)
	defer cancel()
	conn, err := r.conn(ctx)
	if err != nil {
		failf("%v", err)
		return
	}
	var (
		rows   [][]string
		ncols  int
		runErr error
	)
	if rec.Kind == Statement {
		runErr = execStatement(ctx, conn, rec)
	} else {
		rows, ncols, runErr = execQuery(ctx, conn, rec)
	}

	if rec.ExpectError {
		if runErr == nil {
			failf("expected an error matching %q, but the %s succeeded", rec.ErrPattern, kindName(rec.Kind))
			return
		}
		if msg := matchError(rec.ErrPattern, runErr); msg != "" {
			failf("%s", msg)
		}
		return
	}
	if runErr != nil {
		failf("unexpected error: %s", describeError(runErr))
		return
	}
	if rec.Kind == Statement {
		return
	}
	if ncols != len(rec.Types) {
		failf("query returned %d columns, the header %q declares %d", ncols, rec.Types, len(rec.Types))
		return
	}
	actual := renderRows(rows, rec.Sort)
	expected := normalizeExpected(rec.Expected, rec.Sort)
	if r.Rewrite {
		if r.rewrites[rec.File] == nil {
			r.rewrites[rec.File] = map[int]struct {
				to    int
				lines []string
			}{}
		}
		r.rewrites[rec.File][rec.resultFrom] = struct {
			to    int
			lines []string
		}{rec.resultTo, append([]string{"----"}, actual...)}
		return
	}
	if !equalLines(expected, actual) {
		failf("query result mismatch\nexpected:\n%s\nactual:\n%s", indent(expected), indent(actual))
	}
}

func kindName(k Kind) string {
	if k == Query {
		return "query"
	}
	return "statement"
}

// execStatement runs a statement record; multi-statement strings are
// allowed through the simple protocol.
func execStatement(ctx context.Context, conn *pgx.Conn, rec Record) error {
	if rec.HasParams {
		_, err := conn.Exec(ctx, rec.SQL, rec.Params...)
		return err
	}
	_, err := conn.Exec(ctx, rec.SQL, pgx.QueryExecModeSimpleProtocol)
	return err
}

// execQuery runs a query record and returns its rows in text format.
func execQuery(ctx context.Context, conn *pgx.Conn, rec Record) ([][]string, int, error) {
	var (
		rows pgx.Rows
		err  error
	)
	if rec.HasParams {
		args := append([]any{pgx.QueryResultFormats{pgx.TextFormatCode}}, rec.Params...)
		rows, err = conn.Query(ctx, rec.SQL, args...)
	} else {
		rows, err = conn.Query(ctx, rec.SQL, pgx.QueryExecModeSimpleProtocol)
	}
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	ncols := len(rows.FieldDescriptions())
	var out [][]string
	for rows.Next() {
		raw := rows.RawValues()
		vals := make([]string, len(raw))
		for i, v := range raw {
			vals[i] = FormatValue(v, v == nil)
		}
		out = append(out, vals)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	return out, ncols, nil
}

// matchError returns "" when err matches pattern, else what differed.
func matchError(pattern string, err error) string {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return fmt.Sprintf("expected a server error matching %q, got a client error: %v", pattern, err)
	}
	switch {
	case pattern == "":
		return ""
	case IsSQLSTATE(pattern):
		if pgErr.Code != pattern {
			return fmt.Sprintf("expected SQLSTATE %s, got %s", pattern, describeError(err))
		}
	default:
		re, rerr := regexp.Compile(pattern)
		if rerr != nil {
			return fmt.Sprintf("bad error pattern %q: %v", pattern, rerr)
		}
		if !re.MatchString(pgErr.Message) {
			return fmt.Sprintf("expected an error matching %q, got %s", pattern, describeError(err))
		}
	}
	return ""
}

func describeError(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return fmt.Sprintf("ERROR: %s (SQLSTATE %s)", pgErr.Message, pgErr.Code)
	}
	return err.Error()
}

// renderRows formats result rows as the files write them, sorted as the
// sort mode asks.
func renderRows(rows [][]string, mode SortMode) []string {
	var out []string
	switch mode {
	case ValueSort:
		for _, r := range rows {
			out = append(out, r...)
		}
		sort.Strings(out)
	default:
		for _, r := range rows {
			out = append(out, strings.Join(r, " "))
		}
		if mode == RowSort {
			sort.Strings(out)
		}
	}
	return out
}

// normalizeExpected sorts expected lines like renderRows sorts actual ones.
func normalizeExpected(lines []string, mode SortMode) []string {
	out := append([]string(nil), lines...)
	switch mode {
	case RowSort:
		sort.Strings(out)
	case ValueSort:
		out = nil
		for _, l := range lines {
			out = append(out, strings.Split(l, " ")...)
		}
		sort.Strings(out)
	}
	return out
}

func equalLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func indent(lines []string) string {
	if len(lines) == 0 {
		return "    (no rows)"
	}
	return "    " + strings.Join(lines, "\n    ")
}
