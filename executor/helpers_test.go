package executor

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// TestMain installs stand-ins for the types package's comparison, hash and
// text format while those are still stubs (they return zero values), so
// that the operators can be tested on their own.
func TestMain(m *testing.M) {
	if types.Compare(types.DInt(1), types.DInt(2), types.TInt8) == 0 {
		compareDatum, hashDatum = fallbackCompare, fallbackHash
	}
	if types.FormatText(types.DInt(1), types.TInt4, time.UTC) == "" {
		formatText = func(d types.Datum, t types.T, _ *time.Location) string {
			switch t.Family() {
			case types.FamString:
				return d.S
			case types.FamBool:
				return map[bool]string{true: "t", false: "f"}[d.Bool()]
			}
			return strconv.FormatInt(d.I, 10)
		}
	}
	os.Exit(m.Run())
}

func fallbackCompare(a, b types.Datum, t types.T) int {
	switch t.Family() {
	case types.FamFloat:
		switch {
		case math.IsNaN(a.F) && math.IsNaN(b.F):
			return 0
		case math.IsNaN(a.F):
			return 1
		case math.IsNaN(b.F):
			return -1
		case a.F < b.F:
			return -1
		case a.F > b.F:
			return 1
		}
		return 0
	case types.FamDecimal:
		return a.D.Cmp(b.D)
	case types.FamString:
		return strings.Compare(a.S, b.S)
	case types.FamInterval:
		sa := (int64(a.Iv.Months)*30+int64(a.Iv.Days))*86400e6 + a.Iv.Micros
		sb := (int64(b.Iv.Months)*30+int64(b.Iv.Days))*86400e6 + b.Iv.Micros
		return functions.CmpInt64(sa, sb)
	}
	return functions.CmpInt64(a.I, b.I)
}

func fallbackHash(d types.Datum, t types.T) uint64 {
	h := fnv.New64a()
	switch t.Family() {
	case types.FamFloat:
		f := d.F
		if f == 0 {
			f = 0
		}
		fmt.Fprint(h, f)
	case types.FamDecimal:
		var r apd.Decimal
		r.Reduce(d.D)
		fmt.Fprint(h, r.String())
	case types.FamString:
		h.Write([]byte(d.S))
	case types.FamInterval:
		fmt.Fprint(h, (int64(d.Iv.Months)*30+int64(d.Iv.Days))*86400e6+d.Iv.Micros)
	default:
		// A cheap integer mix keeps benchmarks about the operators.
		x := uint64(d.I) * 0x9e3779b97f4a7c15
		return x ^ x>>32
	}
	return h.Sum64()
}

// fakeSource serves relations and system tables from memory.
type fakeSource struct {
	rels map[uint32][]types.Row
	sys  map[string][]types.Row
}

func (s *fakeSource) ScanRelation(_ context.Context, id uint32, _ []types.T) (RowIter, error) {
	rows, ok := s.rels[id]
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedTable, "no relation %d", id)
	}
	return &sliceIter{rows: rows}, nil
}

func (s *fakeSource) ScanSystem(_ context.Context, schema, name string) ([]types.Row, error) {
	return s.sys[schema+"."+name], nil
}

type sliceIter struct {
	rows   []types.Row
	closed bool
}

func (it *sliceIter) Next() (types.Row, error) {
	if len(it.rows) == 0 {
		return nil, nil
	}
	r := it.rows[0]
	it.rows = it.rows[1:]
	return r, nil
}

func (it *sliceIter) Close() { it.closed = true }

// fakeWriter keeps one table in memory, keyed by the pk columns.
type fakeWriter struct {
	pk    []int
	rows  map[string]types.Row
	log   []string
	rowID int64
}

func newFakeWriter(pk ...int) *fakeWriter {
	return &fakeWriter{pk: pk, rows: map[string]types.Row{}}
}

func (w *fakeWriter) key(r types.Row) string {
	var b strings.Builder
	for _, i := range w.pk {
		fmt.Fprintf(&b, "%v|", r[i])
	}
	return b.String()
}

func (w *fakeWriter) Insert(_ uint32, r types.Row) error {
	k := w.key(r)
	if _, ok := w.rows[k]; ok {
		return pgerr.New(pgerr.UniqueViolation, "duplicate key value violates unique constraint \"t_pkey\"")
	}
	w.rows[k] = r
	w.log = append(w.log, fmt.Sprintf("insert %v", rowText(r)))
	return nil
}

func (w *fakeWriter) Update(_ uint32, old, nw types.Row) error {
	delete(w.rows, w.key(old))
	if _, ok := w.rows[w.key(nw)]; ok {
		return pgerr.New(pgerr.UniqueViolation, "duplicate key value violates unique constraint \"t_pkey\"")
	}
	w.rows[w.key(nw)] = nw
	w.log = append(w.log, fmt.Sprintf("update %v -> %v", rowText(old), rowText(nw)))
	return nil
}

func (w *fakeWriter) Delete(_ uint32, old types.Row) error {
	delete(w.rows, w.key(old))
	w.log = append(w.log, fmt.Sprintf("delete %v", rowText(old)))
	return nil
}

func (w *fakeWriter) Get(_ uint32, r types.Row) (types.Row, bool, error) {
	old, ok := w.rows[w.key(r)]
	return old, ok, nil
}

func (w *fakeWriter) Conflicting(uint32, types.Row, uint32) (types.Row, bool, error) {
	return nil, false, nil
}

func (w *fakeWriter) NextRowID(uint32) (int64, error) {
	w.rowID++
	return w.rowID, nil
}

func rowText(r types.Row) string {
	parts := make([]string, len(r))
	for i, d := range r {
		switch {
		case d.Null:
			parts[i] = "NULL"
		case d.S != "":
			parts[i] = d.S
		default:
			parts[i] = strconv.FormatInt(d.I, 10)
		}
	}
	return "(" + strings.Join(parts, ",") + ")"
}

func newEC() *ExecCtx {
	return &ExecCtx{Eval: EvalCtx{Context: functions.Context{Location: time.UTC}}, Source: &fakeSource{}}
}

func col(i int, t types.T) *planner.ColRef { return &planner.ColRef{Idx: i, T: t} }

func cnst(d types.Datum, t types.T) *planner.Const { return &planner.Const{V: d, T: t} }

func i8(i int64) *planner.Const { return cnst(types.DInt(i), types.TInt8) }

func schema(ts ...types.T) types.Schema {
	s := make(types.Schema, len(ts))
	for i, t := range ts {
		s[i] = types.Column{Name: fmt.Sprintf("c%d", i), T: t}
	}
	return s
}

// vals returns a Values plan with the rows of the pretty form rows.
func vals(t testing.TB, rows string, ts ...types.T) *planner.Values {
	c, err := types.ParseChunk(rows, ts)
	if err != nil {
		t.Fatal(err)
	}
	p := &planner.Values{Out: schema(ts...)}
	for i := 0; i < c.Len(); i++ {
		var r []planner.Expr
		for j, v := range c.Cols {
			r = append(r, cnst(copyDatum(v.Get(i)), ts[j]))
		}
		p.Rows = append(p.Rows, r)
	}
	return p
}

// runPlan builds and drains p, returning all rows as one chunk.
func runPlan(t *testing.T, p planner.Plan, ec *ExecCtx) (*types.Chunk, error) {
	t.Helper()
	op, err := Build(p, ec)
	if err != nil {
		return nil, err
	}
	defer op.Close()
	return drain(context.Background(), op, p.Schema().Types())
}

func drain(ctx context.Context, op Operator, ts []types.T) (*types.Chunk, error) {
	all := types.NewChunk(ts, 0)
	for {
		c, err := op.Next(ctx)
		if err != nil {
			return nil, err
		}
		if c == nil {
			// The end is sticky.
			if c2, err2 := op.Next(ctx); c2 != nil || err2 != nil {
				return nil, fmt.Errorf("Next after the end returned %v, %v", c2, err2)
			}
			return all, nil
		}
		for i := 0; i < c.Len(); i++ {
			if c.Visible(i) {
				all.AppendRow(types.OpInsert, c.Row(i))
			}
		}
	}
}

// normalizePretty re-renders a pretty form so that spacing does not matter; with
// rowsort it also sorts the rows.
func normalizePretty(t *testing.T, s string, ts []types.T, rowsort bool) string {
	t.Helper()
	c, err := types.ParseChunk(s, ts)
	if err != nil {
		t.Fatalf("bad expectation: %v", err)
	}
	out := c.String()
	if rowsort {
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		body := lines[1:]
		sort.Strings(body)
		out = strings.Join(append(lines[:1], body...), "\n") + "\n"
	}
	return out
}

// expect runs p and compares its output with want (pretty form).
func expect(t *testing.T, p planner.Plan, ec *ExecCtx, want string, rowsort bool) {
	t.Helper()
	got, err := runPlan(t, p, ec)
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	ts := p.Schema().Types()
	g, w := normalizePretty(t, got.String(), ts, rowsort), normalizePretty(t, want, ts, rowsort)
	if g != w {
		t.Fatalf("got\n%s\nwant\n%s", g, w)
	}
}

// expectErr runs p and checks the SQLSTATE and message of its error.
func expectErr(t *testing.T, p planner.Plan, ec *ExecCtx, code pgerr.Code, msg string) *pgerr.Error {
	t.Helper()
	_, err := runPlan(t, p, ec)
	if err == nil {
		t.Fatalf("want error %s %q, got none", code, msg)
	}
	pe := pgerr.As(err)
	if pe.Code != code || pe.Message != msg {
		t.Fatalf("got error %s %q, want %s %q", pe.Code, pe.Message, code, msg)
	}
	return pe
}

func dec(s string) types.Datum {
	d, _, err := apd.NewFromString(s)
	if err != nil {
		panic(err)
	}
	return types.DDecimal(d)
}

var (
	tI4  = types.TInt4
	tI8  = types.TInt8
	tTxt = types.TText
	tN   = types.TNumeric
	tF8  = types.TFloat8
	tB   = types.TBool
)
