package dialect

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/weirdb/weir/tests/testenv"
)

var (
	seedFlag  = flag.Uint64("seed", 0, "run only this seed")
	stmtsFlag = flag.Int("stmts", 400, "generated statements per seed")
)

func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }

// outcome is what one server made of a statement: an SQLSTATE, or the
// result's columns and rows as text.
type outcome struct {
	code string
	msg  string
	pos  int32 // the error's position (1-based characters), 0 for none
	cols int
	rows []string
}

func (o outcome) String() string {
	if o.code != "" {
		if o.pos != 0 {
			return fmt.Sprintf("error %s at %d: %s", o.code, o.pos, o.msg)
		}
		return fmt.Sprintf("error %s: %s", o.code, o.msg)
	}
	return fmt.Sprintf("%d columns, rows %q", o.cols, o.rows)
}

// run executes text with the simple query protocol; a data-changing
// statement runs inside BEGIN ... ROLLBACK.
func run(ctx context.Context, c *pgx.Conn, text string, dml bool) outcome {
	pc := c.PgConn()
	if dml {
		if _, err := pc.Exec(ctx, "BEGIN").ReadAll(); err != nil {
			return outcome{code: "BEGIN", msg: err.Error()}
		}
		defer func() { pc.Exec(ctx, "ROLLBACK").ReadAll() }()
	}
	results, err := pc.Exec(ctx, text).ReadAll()
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			return outcome{code: pe.Code, msg: pe.Message, pos: pe.Position}
		}
		return outcome{code: "conn", msg: err.Error()}
	}
	var o outcome
	for _, r := range results {
		o.cols = len(r.FieldDescriptions)
		for _, row := range r.Rows {
			var f []string
			for _, v := range row {
				if v == nil {
					f = append(f, "NULL")
				} else {
					f = append(f, string(v))
				}
			}
			o.rows = append(o.rows, strings.Join(f, "|"))
		}
	}
	sort.Strings(o.rows)
	return o
}

// agree reports whether weir's outcome w matches PostgreSQL's p: both
// fail with SQLSTATEs of one class, or both return the same rows.
func agree(w, p outcome) bool {
	if w.code != "" || p.code != "" {
		return len(w.code) == 5 && len(p.code) == 5 && w.code[:2] == p.code[:2]
	}
	if w.cols != p.cols || len(w.rows) != len(p.rows) {
		return false
	}
	for i := range w.rows {
		if w.rows[i] != p.rows[i] {
			return false
		}
	}
	return true
}

// counts tally the statements of a run. unsupported counts what
// PostgreSQL accepts and weir refuses as a feature it does not support
// (0A000): a gap, not a disagreement about the language.
type counts struct{ tried, bothOK, bothErr, unsupported, disagree int }

func (c *counts) add(w, p outcome) bool { return c.addExact(w, p, false) }

// addExact is add; exact also requires the same SQLSTATE and error
// position (where PostgreSQL's parser stopped) when both fail.
func (c *counts) addExact(w, p outcome, exact bool) bool {
	c.tried++
	ok := agree(w, p) && (!exact || w.code == p.code && w.pos == p.pos)
	switch {
	case !ok && w.code == "0A000" && p.code == "":
		c.unsupported++
		return true
	case !ok:
		c.disagree++
	case p.code == "":
		c.bothOK++
	default:
		c.bothErr++
	}
	return ok
}

type servers struct {
	weir, pg *pgx.Conn
}

func setup(t *testing.T, ctx context.Context) servers {
	pg := testenv.StartPostgres(t)
	pg.CreateUserDB(t, "root", "dev")
	w := testenv.Start(t, testenv.Options{})
	var s servers
	var err error
	if s.pg, err = pgx.Connect(ctx, pg.As("root", "dev").ConnString()); err != nil {
		t.Fatal(err)
	}
	if s.weir, err = pgx.Connect(ctx, w.ConnString()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.pg.Close(context.Background())
		s.weir.Close(context.Background())
	})
	for _, st := range schema {
		for _, c := range []*pgx.Conn{s.weir, s.pg} {
			if o := run(ctx, c, st, false); o.code != "" {
				t.Fatalf("%s: %s", st, o)
			}
		}
	}
	return s
}

// TestDialect runs the regression cases, then the generated statements of
// the fixed seeds and of one fresh seed.
func TestDialect(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s := setup(t, ctx)
	var total counts
	defer func() {
		t.Logf("statements tried %d, accepted by both %d, rejected by both %d, refused by weir as unsupported %d, disagreements %d",
			total.tried, total.bothOK, total.bothErr, total.unsupported, total.disagree)
	}()
	t.Run("regressions", func(t *testing.T) {
		for _, c := range regressions(t) {
			w, p := run(ctx, s.weir, c.text, c.dml), run(ctx, s.pg, c.text, c.dml)
			if !total.addExact(w, p, c.exact) {
				t.Errorf("%s\n  weir:     %s\n  postgres: %s", c.text, w, p)
			}
		}
	})
	seeds := []uint64{1, 2, 3, uint64(time.Now().UnixNano())}
	if *seedFlag != 0 {
		seeds = []uint64{*seedFlag}
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			g := &gen{rng: rand.New(rand.NewPCG(seed, 0xd1a1ec7))}
			bad := 0
			for i := 0; i < *stmtsFlag; i++ {
				text, dml := g.stmt()
				w, p := run(ctx, s.weir, text, dml), run(ctx, s.pg, text, dml)
				if !total.add(w, p) {
					bad++
					t.Errorf("%s\n  weir:     %s\n  postgres: %s", text, w, p)
				} else if w.code == "0A000" && p.code == "" {
					t.Logf("refused as unsupported: %s: %s", text, w.msg)
				}
			}
			if bad > 0 {
				t.Logf("reproduce with: go test ./tests/dialect -run TestDialect -seed %d", seed)
			}
		})
	}
}

// regression is one statement of regressions.sql.
type regression struct {
	text  string
	dml   bool
	exact bool
}

// regressions reads regressions.sql: statements separated by lines
// holding only "----". A statement may start with flag lines: "-- dml"
// runs it inside BEGIN ... ROLLBACK; "-- exact" requires weir to fail
// with PostgreSQL's SQLSTATE at PostgreSQL's error position.
func regressions(t *testing.T) []regression {
	data, err := os.ReadFile("regressions.sql")
	if err != nil {
		t.Fatal(err)
	}
	var out []regression
	for _, part := range strings.Split(string(data), "\n----\n") {
		text := strings.TrimSpace(part)
		if text == "" {
			continue
		}
		var r regression
		for {
			if rest, ok := strings.CutPrefix(text, "-- dml\n"); ok {
				text, r.dml = rest, true
			} else if rest, ok := strings.CutPrefix(text, "-- exact\n"); ok {
				text, r.exact = rest, true
			} else {
				break
			}
		}
		r.text = text
		out = append(out, r)
	}
	return out
}
