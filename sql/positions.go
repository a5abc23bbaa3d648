package sql

import (
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// The TiDB parser records a text offset only for expressions. Postgres
// also positions errors about table names (`relation "x" does not
// exist`), target columns of INSERT and UPDATE and ORDER BY positions, so
// after parsing, positionNodes gives those nodes the offset of the
// bridged token they were parsed from. It walks the AST in text order
// (TiDB's Accept visits clauses in the order they are written) with a
// cursor that never moves back, and matches each node to the next token
// that spells it and follows a word that can introduce it.
func positionNodes(stmt ast.Node, text string) {
	toks, err := Lex(text)
	if err != nil {
		return
	}
	stmt.Accept(&posVisitor{toks: toks})
}

type posVisitor struct {
	toks []Token
	next int // index of the first token not yet passed
}

// Introducers of each kind of node: the token before it must be one of
// these.
var (
	tableIntro  = map[string]bool{"from": true, "join": true, "straight_join": true, "into": true, "update": true, ",": true, "(": true, "only": true, "table": true, "of": true}
	columnIntro = map[string]bool{"(": true, ",": true, "set": true}
	posIntro    = map[string]bool{"by": true, ",": true}
)

func (v *posVisitor) Enter(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.TableName:
		name := x.Name.O
		if x.Schema.O != "" {
			name = x.Schema.O
		}
		v.find(x, tableIntro, func(t Token) bool { return identIs(t, name) })
		return n, true
	case *ast.ColumnNameExpr:
		v.advance(x.OriginTextPosition())
		return n, true
	case *ast.ColumnName:
		v.find(x, columnIntro, func(t Token) bool { return identIs(t, x.Name.O) })
	case *ast.PositionExpr:
		if x.P == nil {
			want := strconv.Itoa(x.N)
			v.find(x, posIntro, func(t Token) bool { return t.Kind == TNumber && t.Val == want })
		}
	case ast.ExprNode:
		v.advance(x.OriginTextPosition())
	}
	return n, false
}

func (v *posVisitor) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// advance moves the cursor to the token at byte offset off (never back).
func (v *posVisitor) advance(off int) {
	for v.next < len(v.toks) && v.toks[v.next].Off < off {
		v.next++
	}
}

// find gives n the offset of the next token that satisfies match and
// follows an introducer, and moves the cursor past it.
func (v *posVisitor) find(n ast.Node, intro map[string]bool, match func(Token) bool) {
	for i := v.next; i < len(v.toks); i++ {
		if i == 0 || !match(v.toks[i]) {
			continue
		}
		prev := v.toks[i-1]
		if (prev.Kind == TIdent || prev.Kind == TOp) && intro[prev.Val] {
			n.SetOriginTextPosition(v.toks[i].Off)
			v.next = i + 1
			return
		}
	}
}

// identIs reports whether t spells the identifier name as TiDB read it
// (the bridge has already folded unquoted names to lower case).
func identIs(t Token, name string) bool {
	switch t.Kind {
	case TIdent:
		return t.Val == strings.ToLower(name)
	case TQIdent:
		return t.Val == name
	}
	return false
}
