package sql

import (
	"context"

	"github.com/weirdb/weir/internal/pgerr"
)

// MaxNesting is the nesting budget of one statement, in the units
// nestingCost counts. It plays the part of Postgres's max_stack_depth: the
// bridge, the TiDB parser, the binder, the planner and the evaluator all
// recurse over a statement's tree, and a Go stack overflow is fatal to
// the whole server, so a statement nested deeper than this is refused
// before any of them sees it, with Postgres's 54001.
//
// The budget admits 10,000 nested parentheses, function calls, CASEs or
// operators of one chain (a 10,000-term 1+1+...+1), 1,000 nested
// subqueries and 100,000-term AND/OR chains (the binder flattens those
// without recursing).
const MaxNesting = 100_000

// The costs of the constructs nestingCost counts, in MaxNesting's units.
const (
	costGroup    = 10  // ( [ CASE: one more level of the tree
	costOperator = 10  // an operator or a keyword operator (NOT, IS, LIKE, ...)
	costSubquery = 100 // ( SELECT / VALUES / WITH / TABLE: a whole query level
	costLogical  = 1   // AND, OR
)

// checkNesting refuses a statement whose nesting (see MaxNesting) exceeds
// the budget, with Postgres's 54001 positioned at the token where it does.
//
// The measure is an upper bound of the tree's depth computed on tokens in
// one pass: each open group ((, [, CASE) adds its cost, and within a
// group every operator adds its cost until a separator (a comma, WHEN,
// THEN, ELSE or a clause keyword) starts the next sibling expression.
// Operators of one chain nest in the tree (1+1+1 is (1+1)+1), so counting
// all of them bounds the depth of any parse of the chain; an AND or OR
// ends the chain of the tighter-binding operators before it.
func checkNesting(text string, toks []Token) error {
	n := newNesting()
	for i, t := range toks {
		var next Token
		if i+1 < len(toks) {
			next = toks[i+1]
		}
		if err := n.step(text, t, next); err != nil {
			return err
		}
	}
	return nil
}

// streamNestingBytes is the text size from which lexNested measures
// nesting before it holds the statement's tokens.
const streamNestingBytes = 64 << 10

// lexNested is Lex followed by checkNesting, with the errors Lex then
// checkNesting would return. A large statement's nesting is measured
// first, a token at a time without holding them, so that a statement
// nested a million deep is refused after lexing it once rather than
// after holding a token of some sixty bytes per byte of its text (a
// 10 MB one took gigabytes and seconds of the collector's time).
// It gives up once ctx (when not nil) has ended.
func lexNested(ctx context.Context, text string) ([]Token, error) {
	if len(text) < streamNestingBytes {
		toks, err := lexContext(ctx, text, 0)
		if err != nil {
			return nil, err
		}
		return toks, checkNesting(text, toks)
	}
	lx := lexer{s: text, ctx: ctx}
	n := newNesting()
	var deep error
	count := 1 // the tokens, TEOF included, for lexContext's allocation
	t, err := lx.next()
	for err == nil && t.Kind != TEOF {
		var next Token
		if next, err = lx.next(); err != nil {
			break
		}
		count++
		if deep == nil {
			deep = n.step(text, t, next)
		}
		t = next
	}
	if err != nil {
		return nil, err // Lex's error comes first
	}
	if deep != nil {
		return nil, deep
	}
	return lexContext(ctx, text, count)
}

// nestGroup is one open (, [ or CASE of a nesting measure.
type nestGroup struct {
	cost    int // what the group and its operators add to depth
	ops     int // the operators' part of cost, AND and OR aside
	logical int // the AND and OR part of cost
}

// nesting measures a statement's nesting a token at a time.
type nesting struct {
	stack []nestGroup
	depth int
	// dots counts the names of a dotted chain so far (a.b.c is 3).
	dots int
}

func newNesting() *nesting { return &nesting{stack: []nestGroup{{}}} }

// step adds token t, followed by next, to the measure and fails once
// the depth exceeds MaxNesting.
func (n *nesting) step(text string, t, next Token) error {
	top := &n.stack[len(n.stack)-1]
	add := 0
	switch t.Kind {
	case TOp:
		switch t.Val {
		case "(", "[":
			c := costGroup
			if t.Val == "(" && next.Kind == TIdent {
				switch next.Val {
				case "select", "values", "with", "table":
					c = costSubquery
				}
			}
			n.stack = append(n.stack, nestGroup{cost: c})
			n.depth += c
		case ")", "]":
			if len(n.stack) > 1 {
				n.depth -= top.cost
				n.stack = n.stack[:len(n.stack)-1]
				if t.Val == "]" {
					// A subscript applies to what it follows: a chain of
					// them (a[1][1]...) nests like one of operators.
					add = costOperator
					top = &n.stack[len(n.stack)-1]
				}
			}
		case ",", ";":
			n.depth -= top.ops + top.logical
			top.cost -= top.ops + top.logical
			top.ops, top.logical = 0, 0
		case ".":
			// A qualified name has at most three dots; past four in a
			// row is a chain of field selections, which nests like one
			// of operators.
			if n.dots++; n.dots > 4 {
				add = costOperator
			}
		default:
			add = costOperator
		}
	case TIdent:
		switch t.Val {
		case "case":
			n.stack = append(n.stack, nestGroup{cost: costGroup})
			n.depth += costGroup
		case "end":
			if len(n.stack) > 1 {
				n.depth -= top.cost
				n.stack = n.stack[:len(n.stack)-1]
			}
		case "when", "then", "else", "select", "from", "where", "group", "having",
			"order", "limit", "offset", "on", "using", "set", "returning", "window", "over":
			n.depth -= top.ops + top.logical
			top.cost -= top.ops + top.logical
			top.ops, top.logical = 0, 0
		case "and", "or":
			// The operators since the last AND or OR bind tighter:
			// they nest inside one term of the chain, not below it.
			n.depth -= top.ops
			top.cost -= top.ops
			top.ops = 0
			top.logical += costLogical
			top.cost += costLogical
			n.depth += costLogical
		case "not", "is", "like", "ilike", "similar", "between", "in", "collate", "at", "escape":
			add = costOperator
		}
	}
	if t.Kind != TIdent && t.Kind != TQIdent && !(t.Kind == TOp && t.Val == ".") {
		n.dots = 0
	}
	if add > 0 {
		top.ops += add
		top.cost += add
		n.depth += add
	}
	if n.depth > MaxNesting {
		return pgerr.New(pgerr.StatementTooComplex, "stack depth limit exceeded").
			WithDetail("The statement nests expressions deeper than weir's limit (10,000 nested expressions, operators in one chain or function calls; 1,000 nested subqueries).").
			WithPosition(charPos(text, t.Off))
	}
	return nil
}
