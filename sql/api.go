package sql

import "github.com/weirdb/weir/internal/pgerr"

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
	toks, err := Lex(text)
	if err != nil {
		return nil, err
	}
	var out []Piece
	for _, st := range splitTokens(toks) {
		off := st[0].Off
		out = append(out, Piece{Text: text[off:st[len(st)-1].End], Offset: off})
	}
	return out, nil
}

// Parse parses one statement (no trailing statements; a trailing ';' is
// allowed). Syntax errors are 42601 with a 1-based character Position into
// text.
func Parse(text string) (Stmt, error) {
	return nil, pgerr.New(pgerr.FeatureNotSupported, "sql.Parse: not implemented")
}

// ParseExpr parses one scalar expression in Postgres syntax (used for
// column DEFAULTs and view options) and returns it as a Query whose Node
// is `SELECT <expr>`.
func ParseExpr(text string) (*Query, error) {
	return nil, pgerr.New(pgerr.FeatureNotSupported, "sql.ParseExpr: not implemented")
}

// ParseType parses a Postgres type name ("int", "varchar(10)",
// "timestamp with time zone", "double precision", "numeric(10,2)",
// "pg_catalog.int4", "text[]") into a types.T. Unknown names are 42704.
func ParseType(text string) (TypeName, error) {
	return TypeName{}, pgerr.New(pgerr.FeatureNotSupported, "sql.ParseType: not implemented")
}
