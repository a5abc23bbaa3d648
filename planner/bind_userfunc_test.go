package planner

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// funcCatalog is the test catalog with user functions of one integer
// parameter x, each of one name.
type funcCatalog struct {
	*fakeCatalog
	fns map[string]*catalog.Function
}

func newFuncCatalog() *funcCatalog {
	return &funcCatalog{fakeCatalog: newFakeCatalog(), fns: map[string]*catalog.Function{}}
}

func (c *funcCatalog) Functions(schema, name string) []*catalog.Function {
	if schema != "" && schema != "public" {
		return nil
	}
	if f, ok := c.fns[name]; ok {
		return []*catalog.Function{f}
	}
	return nil
}

// add makes the function name(x int) RETURNS int RETURN body.
func (c *funcCatalog) add(name, body string) *catalog.Function {
	f := &catalog.Function{OID: uint32(catalog.FirstUserOID + 1000 + len(c.fns)), Schema: "public", Name: name,
		ArgNames: []string{"x"}, ArgTypes: []types.T{types.TInt4}, Ret: types.TInt4, Volatility: catalog.Volatile,
		Src: body, Return: true}
	c.fns[name] = f
	return f
}

// TestInlineBindsEachBodyOnce: k_i calls k_(i-1) twice, once on the
// other's result, and k0 ignores its argument, so the expression stays
// one constant; each body must still be bound once per statement, not
// once per call, which took time exponential in the chain's length.
func TestInlineBindsEachBodyOnce(t *testing.T) {
	useTestFrontEnd()
	cat := newFuncCatalog()
	cat.add("k0", "1")
	const n = 16
	for i := 1; i <= n; i++ {
		cat.add(fmt.Sprintf("k%d", i), fmt.Sprintf("k%d(k%d(x))", i-1, i-1))
	}
	calls := 0
	ctx := WithFuncUse(context.Background(), func(uint32) { calls++ })
	if _, err := CheckFunction(ctx, cat.fns[fmt.Sprintf("k%d", n)], 0, cat); err != nil {
		t.Fatal(err)
	}
	// Two calls in each body.
	if calls != 2*n {
		t.Fatalf("%d calls inlined, want %d", calls, 2*n)
	}
}

// TestInlineSizeLimit: ex_i returns ex_(i-1)(x) + ex_(i-1)(x), doubling
// the expression at each step; past maxInlineNodes the function is
// refused with 54000 naming it, as it is made and as it is called.
func TestInlineSizeLimit(t *testing.T) {
	useTestFrontEnd()
	cat := newFuncCatalog()
	cat.add("ex0", "x + x")
	last := -1
	for i := 1; i <= 16; i++ {
		f := cat.add(fmt.Sprintf("ex%d", i), fmt.Sprintf("ex%d(x) + ex%d(x)", i-1, i-1))
		_, err := CheckFunction(context.Background(), f, 0, cat)
		if err == nil {
			last = i
			continue
		}
		pe := pgerr.As(err)
		if pe.Code != pgerr.ProgramLimitExceeded || !strings.Contains(pe.Message, fmt.Sprintf(`"ex%d"`, i)) {
			t.Fatalf("ex%d: got %v, want 54000 naming ex%d", i, err, i)
		}
		break
	}
	// ex_i has 2^(i+2)-1 nodes.
	if want := 13; last != want {
		t.Fatalf("the last function made is ex%d, want ex%d", last, want)
	}
	// Called, a function in the catalog whose callees grew (by CREATE OR
	// REPLACE, or made before the limit) fails alike.
	for i := last + 2; i <= 16; i++ {
		cat.add(fmt.Sprintf("ex%d", i), fmt.Sprintf("ex%d(x) + ex%d(x)", i-1, i-1))
	}
	q, err := parseBridged("select ex16(1)")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Bind(q, cat, nil)
	if pe := pgerr.As(err); err == nil || pe.Code != pgerr.ProgramLimitExceeded || !strings.Contains(pe.Message, `"ex14"`) {
		t.Fatalf("select ex16(1): got %v, want 54000 naming ex14", err)
	}
}

// TestInlineObservesContext: binding a call of a user function stops
// with the cause of the statement's ended context (a cancel,
// statement_timeout), however small the statement's text.
func TestInlineObservesContext(t *testing.T) {
	useTestFrontEnd()
	cat := newFuncCatalog()
	cat.add("ex0", "x + x")
	cat.add("ex1", "ex0(x) + ex0(x)")
	q, err := parseBridged("select ex1(1)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := BindContext(context.Background(), q, cat, nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(pgerr.New(pgerr.QueryCanceled, "canceling statement due to statement timeout"))
	_, err = BindContext(ctx, q, cat, nil)
	if pe := pgerr.As(err); err == nil || pe.Code != pgerr.QueryCanceled || pe.Message != "canceling statement due to statement timeout" {
		t.Fatalf("got %v, want 57014 canceling statement due to statement timeout", err)
	}
}
