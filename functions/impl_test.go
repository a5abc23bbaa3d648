package functions

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weirdb/weir/types"
)

// concreteArgs returns argument types that a call of o might have after
// binding: o's own parameter types, with "any" slots given each of a few
// representative types, and a variadic list repeated zero to two times.
func concreteArgs(o *Overload) [][]types.T {
	anyTypes := []types.TypeID{types.Int4, types.Text, types.Numeric, types.Timestamptz, types.Jsonb}
	var out [][]types.T
	reps := []int{1}
	if o.Variadic {
		reps = []int{0, 1, 2}
	}
	for _, rep := range reps {
		var params []types.TypeID
		if o.Variadic {
			if rep == 0 && len(o.Args) == 1 {
				continue
			}
			params = append(params, o.Args[:len(o.Args)-1]...)
			for i := 0; i < rep; i++ {
				params = append(params, o.Args[len(o.Args)-1])
			}
		} else {
			params = o.Args
		}
		for _, at := range anyTypes {
			ts := make([]types.T, len(params))
			hasAny := false
			for i, p := range params {
				if p == types.Unknown {
					p, hasAny = at, true
				}
				ts[i] = types.T{ID: p, Mod: -1}
			}
			out = append(out, ts)
			if !hasAny {
				break
			}
		}
	}
	return out
}

// TestEveryOverloadImplemented checks that every scalar overload the
// binder can choose carries its implementation (Overload.Fn), that the
// implementation runs the overload's own argument types, and that Lookup
// finds an implementation for them, so that no call that binds fails at
// execution with "function does not exist".
func TestEveryOverloadImplemented(t *testing.T) {
	n := 0
	for _, name := range Names() {
		for _, o := range Overloads(name) {
			if o.Kind != Scalar {
				continue
			}
			if o.Fn == nil {
				t.Errorf("%s%v: the overload has no implementation", name, o.Args)
				continue
			}
			for _, args := range concreteArgs(o) {
				n++
				if _, ok := o.Fn(args, o.Result(args)); !ok {
					t.Errorf("%s%v: the overload's implementation refuses its own types", name, args)
				}
				if _, err := Lookup(name, args, o.Result(args)); err != nil {
					t.Errorf("%s%v: %v", name, args, err)
				}
			}
		}
	}
	if n < 500 {
		t.Errorf("only %d scalar signatures checked", n)
	}
	t.Logf("%d scalar signatures implemented", n)
}

// syntaxOnly are implementations the binder calls for syntax, with the
// types it has computed, never by resolving a name: ARRAY[...] ("array")
// has an element type of any kind, ROW(...) ("pg_row") fields of any
// kinds, WHERE CURRENT OF ("pg_current_of") the key columns of any
// table; the binder puts IndeterminateCollationFn in place of an
// operation it has bound; x COLLATE name binds to CollateFn, an
// identity column's value to IdentityNextValFn; f(a, VARIADIC arr)
// binds to VariadicCallFn with f's own result type; a materialized
// view's TABLESAMPLE filters on TableSampleFn over the key columns of
// any table.
var syntaxOnly = []string{"array", "pg_row", "pg_current_of", IndeterminateCollationFn, CollateFn,
	IdentityNextValFn, VariadicCallFn, TableSampleFn}

// TestEveryImplementationHasSignature checks that every implementation
// has one home: a scalar overload's is its Overload.Fn, and the few
// functions the binder calls for syntax (syntaxImpl) have an
// implementation and no signature, so that no name resolution reaches
// them and no name has both.
func TestEveryImplementationHasSignature(t *testing.T) {
	for _, name := range syntaxOnly {
		if syntaxImpl(name) == nil {
			t.Errorf("%s: no syntax implementation", name)
		}
		if len(Overloads(name)) != 0 {
			t.Errorf("%s is called for syntax but has signatures", name)
		}
	}
	for _, name := range Names() {
		if syntaxImpl(name) != nil {
			t.Errorf("%s has signatures and a syntax implementation", name)
		}
	}
}

// TestNoInitFunctions checks that the package's tables are plain values:
// no init function fills or patches them, so the set of functions is what
// the files' table definitions say and no order of initialisation matters.
func TestNoInitFunctions(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "init" {
				t.Errorf("%s: package functions has an init function", fset.Position(fd.Pos()))
			}
		}
	}
}
