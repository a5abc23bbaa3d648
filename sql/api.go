package sql

import (
	"context"

	"github.com/weirdb/weir/internal/pgerr"
)

// Piece is one statement of a query string with its byte offset.
type Piece struct {
	Text   string
	Offset int
}

// Split splits text into statements at top-level semicolons, respecting
// quotes ('…', "…", E'…', $tag$…$tag$), comments (-- and nested /* */) and
// parentheses. Empty statements are dropped. It fails with 42601 on an
// unterminated quote or comment.
//
// Each Piece's Text runs from the statement's first token to the end of
// its last token (comments and blanks around it are left out), and Offset
// is the byte offset of that first token in text.
func Split(text string) ([]Piece, error) {
	// A token at a time, as splitTokens groups them, without holding
	// them: a multi-megabyte INSERT would hold a dozen bytes of tokens
	// per byte of its text.
	lx := lexer{s: text}
	var out []Piece
	depth, start, end := 0, -1, 0
	for {
		t, err := lx.next()
		if err != nil {
			return nil, err
		}
		depth = bracketDepth(t, depth)
		if t.Kind == TEOF || (t.Kind == TOp && t.Val == ";" && depth == 0) {
			if start >= 0 {
				out = append(out, Piece{Text: text[start:end], Offset: start})
			}
			if t.Kind == TEOF {
				return out, nil
			}
			start = -1
			continue
		}
		if start < 0 {
			start = t.Off
		}
		end = t.End
	}
}

// Parse parses one statement (no trailing statements; a trailing ';' is
// allowed). Syntax errors are 42601 with a 1-based character Position into
// text.
//
// Statements weir parses itself come back as their own types (CreateTable,
// Set, ...); SELECT, VALUES, TABLE, INSERT, UPDATE and DELETE come back
// as a *Query bridged to the TiDB parser (see doc.go). More than one
// statement is 42601 `cannot insert multiple commands into a prepared
// statement`, as in Postgres's extended protocol.
func Parse(text string) (stmt Stmt, err error) {
	return parse(context.Background(), text, false, false)
}

// ParseContext is Parse that gives up when ctx ends: weir's own stages
// (the lexer, the nesting measure, the bridge's passes) check ctx every
// few thousand tokens and between passes, and fail with 57014 once it
// has ended, so that a huge statement whose statement_timeout came, or
// whose client went, stops holding memory and a core as soon as it is
// out of the TiDB parser (which cannot be interrupted) or earlier.
func ParseContext(ctx context.Context, text string) (Stmt, error) {
	return parse(ctx, text, false, false)
}

// ParseDefinition parses the stored definition of a relation (a view's
// query, a CREATE statement the catalog keeps) as Parse does, but
// without the restrictions the grammar gained since the definition may
// have been stored: a FETCH FIRST or OFFSET ... ROWS count that is more
// than PostgreSQL's select_fetch_first_value is taken whole, as weirs
// before took it, so that a definition an older weir accepted still
// reads after an upgrade.
func ParseDefinition(text string) (Stmt, error) {
	return parse(context.Background(), text, false, true)
}

func parse(ctx context.Context, text string, stored, definition bool) (stmt Stmt, err error) {
	defer func() {
		if r := recover(); r != nil {
			stmt, err = nil, pgerr.New(pgerr.InternalError, "internal error parsing statement: %v", r)
		}
	}()
	toks, err := lexNested(ctx, text)
	if err != nil {
		return nil, err
	}
	if err := canceled(ctx); err != nil {
		return nil, err
	}
	stmts := splitTokens(toks)
	switch len(stmts) {
	case 0:
		return nil, syntaxErrorAt(text, toks[len(toks)-1])
	case 1:
	default:
		return nil, pgerr.New(pgerr.SyntaxError, "cannot insert multiple commands into a prepared statement")
	}
	p := &stmtParser{ctx: ctx, src: text, toks: stmtTokens(stmts[0]), stored: stored, definition: definition}
	return p.stmt()
}

// ParseStored parses one statement the bridge wrote itself (such as a
// SELECT of stored column DEFAULTs): as Parse, without the dialect gate
// that refuses the bridge's own constructs in user text.
func ParseStored(text string) (Stmt, error) { return parse(context.Background(), text, true, false) }

// ParseExpr parses one scalar expression in Postgres syntax (used for
// column DEFAULTs and view options) and returns it as a Query whose Node
// is `SELECT <expr>`.
//
// The returned Query's Rewritten text is "select " followed by the bridged
// expression; errors are positioned in text.
func ParseExpr(text string) (q *Query, err error) { return parseExprMode(text, false) }

// ParseUserExpr is ParseExpr for an expression the user wrote and the
// catalog keeps as written (a CHECK constraint, a generated column, an
// index key or predicate, a domain's CHECK): it passes the dialect gate
// and the rewrites of user text, as the statement that defined it did, so
// that PostgreSQL's operators keep their meaning (a # b is XOR, not a
// comment) and the bridge's internal functions stay out of reach.
func ParseUserExpr(text string) (q *Query, err error) { return parseExprMode(text, true) }

func parseExprMode(text string, strict bool) (q *Query, err error) {
	defer func() {
		if r := recover(); r != nil {
			q, err = nil, pgerr.New(pgerr.InternalError, "internal error parsing expression: %v", r)
		}
	}()
	toks, err := lexNested(context.Background(), text)
	if err != nil {
		return nil, err
	}
	for _, t := range toks {
		if t.Kind == TOp && t.Val == ";" {
			return nil, syntaxErrorAt(text, t)
		}
	}
	if strict {
		return bridgeExpr(text, toks)
	}
	return bridgeStoredExpr(text, toks)
}

// ParseType parses a Postgres type name ("int", "varchar(10)",
// "timestamp with time zone", "double precision", "numeric(10,2)",
// "pg_catalog.int4", "text[]") into a types.T. Unknown names are 42704.
//
// Modelled: smallint/int2, integer/int/int4, bigint/int8, real/float4,
// double precision/float8/float(p), numeric/decimal(p,s), varchar/
// character varying(n), text, bytea, boolean/bool, date, time [(p)]
// [without time zone], timestamp [(p)] [without time zone], timestamptz/
// timestamp with time zone, interval [(p)], jsonb, json,
// oid, name, "char" and text[]. character(n), timetz, the reg* types and
// arrays other than text[] are 0A000.
func ParseType(text string) (TypeName, error) {
	toks, err := Lex(text)
	if err != nil {
		return TypeName{}, err
	}
	if toks[0].Kind == TEOF {
		return TypeName{}, syntaxErrorAt(text, toks[0])
	}
	tn, next, err := parseTypeAt(text, toks, 0)
	if err != nil {
		return TypeName{}, err
	}
	if toks[next].Kind != TEOF {
		return TypeName{}, syntaxErrorAt(text, toks[next])
	}
	if tn.User != nil {
		return TypeName{}, tn.Err
	}
	return tn, nil
}

// UserArrayUnsupported is the error for an array of the user type
// (enum or domain) name, which weir does not support.
func UserArrayUnsupported(name string) error {
	return pgerr.New(pgerr.FeatureNotSupported, "arrays of type %s are not supported", name).
		WithHint("Use text[] and cast its elements to the type where they are read.")
}

// ParseUserTypeName parses a type name as ParseType does but returns a
// name that is no built-in type as TypeName.User (with the 42704 error
// in TypeName.Err) for the caller to look up among user types.
func ParseUserTypeName(text string) (TypeName, error) {
	toks, err := Lex(text)
	if err != nil {
		return TypeName{}, err
	}
	if toks[0].Kind == TEOF {
		return TypeName{}, syntaxErrorAt(text, toks[0])
	}
	tn, next, err := parseTypeAt(text, toks, 0)
	if err != nil {
		return TypeName{}, err
	}
	if toks[next].Kind != TEOF {
		return TypeName{}, syntaxErrorAt(text, toks[next])
	}
	return tn, nil
}

// cancelEvery is how many tokens the lexer and the nesting measure take
// between two looks at their context: a look costs a lock, a token some
// tens of nanoseconds.
const cancelEvery = 4096

// canceled is the error a parse gives up with once ctx has ended, nil
// while it has not.
func canceled(ctx context.Context) error {
	if ctx == nil || ctx.Err() == nil {
		return nil
	}
	return pgerr.Wrap(pgerr.QueryCanceled, context.Cause(ctx), "canceling statement while parsing")
}
