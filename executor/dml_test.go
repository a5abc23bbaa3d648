package executor

import (
	"context"
	"strings"
	"testing"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

var testRel = &catalog.Relation{ID: 5, Name: "t", Cols: []catalog.Column{
	{Name: "a", T: types.TInt4, NotNull: true},
	{Name: "b", T: types.TText},
	{Name: "_row_id", T: types.TInt8, Hidden: true},
}, PK: []int{2}}

// runDML drains a DML plan and returns its output and row count.
func runDML(t *testing.T, p planner.Plan, ec *ExecCtx) (*types.Chunk, int64, error) {
	t.Helper()
	op, err := Build(p, ec)
	if err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	c, err := drain(context.Background(), op, p.Schema().Types())
	return c, op.(RowCounter).RowsAffected(), err
}

func TestInsertFillsRowIDsAndReturns(t *testing.T) {
	w := newFakeWriter(2)
	ec := newEC()
	ec.Writer = w
	in := vals(t, "+ 1 x .\n+ 2 . .", tI4, tTxt, tI8)
	p := &planner.Insert{Rel: testRel, Input: in}
	c, n, err := runDML(t, p, ec)
	if err != nil || n != 2 || c.Len() != 0 {
		t.Fatalf("got %v rows, n=%d, err %v", c.Len(), n, err)
	}
	if got := strings.Join(w.log, "; "); got != "insert (1,x,1); insert (2,NULL,2)" {
		t.Fatalf("writes: %s", got)
	}
	ret := &planner.Insert{Rel: testRel, Input: vals(t, "+ 3 y .", tI4, tTxt, tI8),
		Returning: []planner.Expr{col(2, tI8), col(1, tTxt)}, Out: schema(tI8, tTxt)}
	expect(t, ret, ec, "+ 3 y", false)
}

func TestInsertNotNullViolation(t *testing.T) {
	ec := newEC()
	ec.Writer = newFakeWriter(2)
	p := &planner.Insert{Rel: testRel, Input: vals(t, "+ . x .", tI4, tTxt, tI8)}
	pe := expectErr(t, p, ec, pgerr.NotNullViolation, `null value in column "a" of relation "t" violates not-null constraint`)
	if pe.Detail != "Failing row contains (null, x)." {
		t.Fatalf("detail %q", pe.Detail)
	}
}

func TestInsertDuplicateKeyPassesThrough(t *testing.T) {
	rel := &catalog.Relation{ID: 6, Name: "u", Cols: []catalog.Column{{Name: "k", T: tI4, NotNull: true}}, PK: []int{0}}
	ec := newEC()
	ec.Writer = newFakeWriter(0)
	p := &planner.Insert{Rel: rel, Input: vals(t, "+ 1\n+ 1", tI4)}
	expectErr(t, p, ec, pgerr.UniqueViolation, `duplicate key value violates unique constraint "t_pkey"`)
}

func TestUpdateAndDelete(t *testing.T) {
	w := newFakeWriter(2)
	ec := newEC()
	ec.Writer = w
	old := vals(t, "+ 1 x 10\n+ 2 y 11", tI4, tTxt, tI8)
	up := &planner.Update{Rel: testRel, Input: old, Set: []planner.Expr{nil, cnst(types.DString("z"), tTxt), nil},
		Returning: []planner.Expr{col(0, tI4), col(1, tTxt)}, Out: schema(tI4, tTxt)}
	c, n, err := runDML(t, up, ec)
	if err != nil || n != 2 {
		t.Fatalf("n=%d err=%v", n, err)
	}
	if normalizePretty(t, c.String(), []types.T{tI4, tTxt}, false) != normalizePretty(t, "+ 1 z\n+ 2 z", []types.T{tI4, tTxt}, false) {
		t.Fatalf("returning:\n%s", c)
	}
	if got := strings.Join(w.log, "; "); got != "update (1,x,10) -> (1,z,10); update (2,y,11) -> (2,z,11)" {
		t.Fatalf("writes: %s", got)
	}
	bad := &planner.Update{Rel: testRel, Input: old, Set: []planner.Expr{cnst(types.NullDatum, tI4), nil, nil}}
	expectErr(t, bad, ec, pgerr.NotNullViolation, `null value in column "a" of relation "t" violates not-null constraint`)

	w.log = nil
	del := &planner.Delete{Rel: testRel, Input: vals(t, "+ 1 z 10", tI4, tTxt, tI8)}
	c, n, err = runDML(t, del, ec)
	if err != nil || n != 1 || c.Len() != 0 || strings.Join(w.log, ";") != "delete (1,z,10)" {
		t.Fatalf("delete: n=%d err=%v log=%v", n, err, w.log)
	}
}

// UPDATE ... FROM: the input row is the target's row followed by the
// joined table's columns; a target row joined twice is updated once.
func TestUpdateFromJoinedRows(t *testing.T) {
	w := newFakeWriter(2)
	ec := newEC()
	ec.Writer = w
	in := vals(t, "+ 1 x 10 p\n+ 1 x 10 q\n+ 2 y 11 r", tI4, tTxt, tI8, tTxt)
	up := &planner.Update{Rel: testRel, Input: in, Set: []planner.Expr{nil, col(3, tTxt), nil}}
	_, n, err := runDML(t, up, ec)
	if err != nil || n != 2 {
		t.Fatalf("n=%d err=%v", n, err)
	}
	if got := strings.Join(w.log, "; "); got != "update (1,x,10) -> (1,p,10); update (2,y,11) -> (2,r,11)" {
		t.Fatalf("writes: %s", got)
	}
}
