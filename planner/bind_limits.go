package planner

import (
	"context"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	"github.com/weirdb/weir/internal/pgerr"
)

// maxExprDepth bounds the binder's recursion over one statement's
// expressions. sql.Parse already refuses statements nested deeper than
// sql.MaxNesting; views expanded inside a query add their own depth, and
// a Go stack overflow would end the whole server, so the binder keeps
// its own count too.
const maxExprDepth = 20_000

// maxQueryDepth bounds how many queries the binder nests: sql.Parse
// admits 1,000 nested subqueries, but a chain of CTEs each reading the
// one before (WITH c1 AS (...), c2 AS (SELECT ... FROM c1), ...) or of
// views each reading the one before nests a query per link, none of
// them nested in the text.
const maxQueryDepth = 4_000

// ctxPollInterval is how many expressions the binder binds between two
// looks at the statement's context.
const ctxPollInterval = 1024

// enter is called before binding each expression: it fails with 54001
// past maxExprDepth and with the context's cause once the statement's
// context has ended.
func (b *binder) enter(n ast.Node) {
	b.depth++
	if b.depth > maxExprDepth {
		fail(pgerr.New(pgerr.StatementTooComplex, "stack depth limit exceeded").
			WithDetail("The statement nests expressions more than %d deep.", maxExprDepth).WithPosition(b.pos(n)))
	}
	b.steps++
	if b.steps%ctxPollInterval == 0 && b.ctx != nil && b.ctx.Err() != nil {
		fail(ctxCause(b.ctx))
	}
}

// enterQuery is called before binding each query: it fails with 54001
// past maxQueryDepth and with the context's cause once the statement's
// context has ended. The caller calls b.queries-- when the query is
// bound.
func (b *binder) enterQuery() {
	b.queries++
	if b.queries > maxQueryDepth {
		fail(pgerr.New(pgerr.StatementTooComplex, "stack depth limit exceeded").
			WithDetail("The statement nests queries (subqueries, CTEs read by CTEs, views read by views) more than %d deep.", maxQueryDepth))
	}
	b.poll()
}

// poll fails with the context's cause once the statement's context has
// ended; loops that bind many things without binding an expression each
// time call it.
func (b *binder) poll() {
	if b.ctx != nil && b.ctx.Err() != nil {
		fail(ctxCause(b.ctx))
	}
}

// ctxCause is the error to report for an ended statement context: its
// cause when that is a Postgres error (statement_timeout), else 57014.
func ctxCause(ctx context.Context) *pgerr.Error {
	if pe, ok := context.Cause(ctx).(*pgerr.Error); ok {
		return pe
	}
	return pgerr.New(pgerr.QueryCanceled, "canceling statement due to user request")
}

// logical binds a chain of AND (or of OR) into one flattened And (Or).
// The TiDB parser builds a chain of n terms as a left-deep tree n deep;
// walking its left spine in a loop keeps long generated conditions
// (WHERE a = 1 OR a = 2 OR ...) from recursing once per term and from
// copying the argument list at every level.
//
// Inside an aggregate context every level goes through expr, which may
// match a sub-chain against a GROUP BY key.
// sameLogical reports whether e, parentheses aside, is an AND or OR of
// operator op.
func sameLogical(e ast.ExprNode, op opcode.Op) bool {
	for {
		p, ok := e.(*ast.ParenthesesExpr)
		if !ok {
			break
		}
		e = p.Expr
	}
	l, ok := e.(*ast.BinaryOperationExpr)
	return ok && l.Op == op
}

func (b *binder) logical(c *exprCtx, n *ast.BinaryOperationExpr) Expr {
	what := "AND"
	if n.Op == opcode.LogicOr {
		what = "OR"
	}
	operands := []ast.ExprNode{n.R}
	left := n.L
	if c.agg == nil {
		for {
			l, ok := left.(*ast.BinaryOperationExpr)
			if !ok || l.Op != n.Op {
				break
			}
			operands = append(operands, l.R)
			left = l.L
		}
	}
	operands = append(operands, left)
	var args []Expr
	for i := len(operands) - 1; i >= 0; i-- {
		x := b.boolArg(b.expr(c, operands[i]), what)
		if b.aliases != nil && !(i == len(operands)-1 && sameLogical(operands[i], n.Op)) {
			// Deparsing: PostgreSQL's grammar merges only a leftmost
			// operand of the same operator into the list (makeAndExpr),
			// so a BETWEEN or a parenthesised right operand stays
			// nested, and prints so.
			args = append(args, x)
		} else if a, ok := x.(*And); ok && n.Op == opcode.LogicAnd {
			args = append(args, a.Args...)
		} else if o, ok := x.(*Or); ok && n.Op == opcode.LogicOr {
			args = append(args, o.Args...)
		} else {
			args = append(args, x)
		}
	}
	if n.Op == opcode.LogicAnd {
		return &And{Args: args}
	}
	return &Or{Args: args}
}
