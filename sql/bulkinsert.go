package sql

import "unicode/utf8"

// BulkInsert is the shape of statement ORMs, pg_dump --inserts and bulk
// loaders send, recognised by ScanBulkInsert without building a parse
// tree for its rows:
//
//	INSERT INTO t [AS a] [(cols)] [OVERRIDING ... VALUE] VALUES (row), (row), ...
//	    [ON CONFLICT ...] [RETURNING ...]
//
// whose row items are all literals: numbers (signed or not), strings in
// every quoting ('…', E'…', U&'…', N'…', $tag$…$tag$), NULL,
// TRUE, FALSE, DEFAULT, each but DEFAULT optionally cast with ::type,
// and whose rows all have as many items as the first. Parsing such a
// statement whole holds a few hundred bytes per byte of its text; the
// engine instead parses and binds its Template (the statement with its
// first row only) and then each of its Pieces (the statement's head with
// some of the later rows) one after another, each through the ordinary
// parser and binder, so that the rows are read and coerced exactly as
// the whole statement's would be.
type BulkInsert struct {
	text string
	// rowsStart is the offset of the first row's "(", firstEnd the
	// offset just past its ")", and tailStart the offset just past the
	// last row's ")" (where ON CONFLICT or RETURNING starts, if any).
	rowsStart, firstEnd, tailStart int
	// pieces are the later rows in groups of about bulkPieceBytes of
	// text: each from a row's "(" to the end of a row's ")", with the
	// number of characters between the first row's "(" and its start.
	pieces [][3]int
	// rows counts the rows.
	rows int
}

// bulkPieceBytes is about how much row text one piece of a BulkInsert
// holds: parsing it holds a few megabytes.
const bulkPieceBytes = 64 << 10

// ScanBulkInsert reports whether text (one statement, without its
// semicolon) is a BulkInsert of at least two rows, lexing it a token at
// a time without keeping the tokens. A statement that does not match
// (an expression or a parameter among the rows, rows of different
// lengths, a bad escape, anything but ON CONFLICT or RETURNING after the
// rows) is left to the ordinary parser, which reports its errors.
func ScanBulkInsert(text string) (*BulkInsert, bool) {
	sc := bulkScanner{lx: lexer{s: text}}
	b, ok := sc.scan()
	if !ok || b.rows < 2 {
		return nil, false
	}
	b.text = text
	return b, true
}

// bulkScanner reads a statement for ScanBulkInsert a token at a time,
// with one token of lookahead.
type bulkScanner struct {
	lx   lexer
	tok  Token
	peek *Token
	bad  bool
}

// next advances to the next token; a lexing error, a token with a bad
// escape or a parameter marks the statement as not matching.
func (sc *bulkScanner) next() Token {
	if sc.peek != nil {
		sc.tok, sc.peek = *sc.peek, nil
		return sc.tok
	}
	t, err := sc.lx.next()
	if err != nil || t.Err != nil || t.Kind == TParam {
		sc.bad = true
		t = Token{Kind: TEOF, Off: len(sc.lx.s), End: len(sc.lx.s)}
	}
	sc.tok = t
	return t
}

// lookahead returns the token after the current one without advancing.
func (sc *bulkScanner) lookahead() Token {
	if sc.peek == nil {
		cur := sc.tok
		t := sc.next()
		sc.tok, sc.peek = cur, &t
	}
	return *sc.peek
}

func isOp(t Token, op string) bool     { return t.Kind == TOp && t.Val == op }
func isWord(t Token, word string) bool { return t.Kind == TIdent && t.Val == word }

func (sc *bulkScanner) scan() (*BulkInsert, bool) {
	if !isWord(sc.next(), "insert") || !isWord(sc.next(), "into") {
		return nil, false
	}
	// The head: the table, its alias, the column list and OVERRIDING,
	// names and punctuation only, up to VALUES.
	for {
		t := sc.next()
		if sc.bad {
			return nil, false
		}
		if isWord(t, "values") {
			break
		}
		switch {
		case t.Kind == TIdent || t.Kind == TQIdent:
		case isOp(t, ".") || isOp(t, ",") || isOp(t, "(") || isOp(t, ")"):
		default:
			return nil, false
		}
	}
	b := &BulkInsert{}
	width := -1
	pieceStart := -1
	// chars counts the characters from rowsStart to off.
	chars, off := 0, 0
	addPiece := func(end int) {
		chars += utf8.RuneCountInString(sc.lx.s[off:pieceStart])
		off = pieceStart
		b.pieces = append(b.pieces, [3]int{pieceStart, end, chars})
		pieceStart = -1
	}
	for {
		t := sc.next()
		if !isOp(t, "(") {
			return nil, false
		}
		start := t.Off
		n, ok := sc.row()
		if !ok || (width >= 0 && n != width) {
			return nil, false
		}
		end := sc.tok.End
		b.rows++
		if width < 0 {
			width = n
			b.rowsStart, b.firstEnd = start, end
			off = start
		} else {
			if pieceStart < 0 {
				pieceStart = start
			}
			if end-pieceStart >= bulkPieceBytes {
				addPiece(end)
			}
		}
		b.tailStart = end
		t = sc.next()
		if isOp(t, ",") {
			continue
		}
		if pieceStart >= 0 {
			addPiece(end)
		}
		switch {
		case t.Kind == TEOF && !sc.bad:
			return b, true
		case isWord(t, "on") || isWord(t, "returning"):
			// The template's parse checks the rest; only parameters,
			// which a streamed statement cannot take, are refused here.
			for t.Kind != TEOF {
				t = sc.next()
			}
			return b, !sc.bad
		}
		return nil, false
	}
}

// row reads a row's items after its "(" up to and including its ")",
// returning how many there are.
func (sc *bulkScanner) row() (int, bool) {
	n := 0
	for {
		if !sc.item() {
			return 0, false
		}
		n++
		t := sc.next()
		if isOp(t, ")") {
			return n, true
		}
		if !isOp(t, ",") {
			return 0, false
		}
	}
}

// item reads one literal item with its casts.
func (sc *bulkScanner) item() bool {
	t := sc.next()
	switch {
	case t.Kind == TNumber, t.Kind == TString:
	case isWord(t, "null"), isWord(t, "true"), isWord(t, "false"):
	case isWord(t, "default"):
		return !isOp(sc.lookahead(), "::")
	case isOp(t, "-") || isOp(t, "+"):
		if sc.next().Kind != TNumber {
			return false
		}
	default:
		return false
	}
	for isOp(sc.lookahead(), "::") {
		sc.next()
		if !sc.typeName() {
			return false
		}
	}
	return !sc.bad
}

// multiWordTypes are the type names of more than one word a cast may
// name after their first word: the next word, optional when marked so.
var multiWordTypes = map[string]string{
	"double":    "precision",
	"character": "varying?",
	"char":      "varying?",
}

// modifiedTypes are the type names a cast may give a modifier list
// ((n) or (p, s)): PostgreSQL's grammar refuses one after the others
// it spells as keywords (int(3) is a syntax error), which the ordinary
// parser is left to report.
var modifiedTypes = map[string]bool{
	"numeric": true, "decimal": true, "varchar": true, "character": true, "char": true,
	"timestamp": true, "timestamptz": true, "time": true, "timetz": true, "interval": true,
}

// typeName reads a cast's type: a name, possibly schema-qualified, or
// one of PostgreSQL's names of several words, with an optional
// modifier list of numbers and array brackets.
func (sc *bulkScanner) typeName() bool {
	t := sc.next()
	if t.Kind != TIdent && t.Kind != TQIdent {
		return false
	}
	first := t
	if isOp(sc.lookahead(), ".") {
		sc.next()
		if t = sc.next(); t.Kind != TIdent && t.Kind != TQIdent {
			return false
		}
	} else if first.Kind == TIdent {
		if w, ok := multiWordTypes[first.Val]; ok {
			opt := w[len(w)-1] == '?'
			if opt {
				w = w[:len(w)-1]
			}
			if isWord(sc.lookahead(), w) {
				sc.next()
			} else if !opt {
				return false
			}
		}
	}
	if isOp(sc.lookahead(), "(") {
		if first.Kind != TIdent || t != first || !modifiedTypes[first.Val] {
			return false
		}
		sc.next()
		for {
			if sc.next().Kind != TNumber {
				return false
			}
			t = sc.next()
			if isOp(t, ")") {
				break
			}
			if !isOp(t, ",") {
				return false
			}
		}
	}
	if first.Kind == TIdent && (first.Val == "timestamp" || first.Val == "time") {
		if w := sc.lookahead(); isWord(w, "with") || isWord(w, "without") {
			sc.next()
			if !isWord(sc.next(), "time") || !isWord(sc.next(), "zone") {
				return false
			}
		}
	}
	for isOp(sc.lookahead(), "[") {
		sc.next()
		if isOp(sc.lookahead(), "]") {
			sc.next()
			continue
		}
		if sc.next().Kind != TNumber || !isOp(sc.next(), "]") {
			return false
		}
	}
	return !sc.bad
}

// Rows is the number of rows of the statement.
func (b *BulkInsert) Rows() int { return b.rows }

// Template is the statement with its first row only: its head, the first
// row, and what follows the rows (ON CONFLICT, RETURNING).
func (b *BulkInsert) Template() string {
	return b.text[:b.firstEnd] + b.text[b.tailStart:]
}

// TemplatePos maps a 1-based character position in Template to the
// statement's text.
func (b *BulkInsert) TemplatePos(p int) int {
	if p > utf8.RuneCountInString(b.text[:b.firstEnd]) {
		p += utf8.RuneCountInString(b.text[b.firstEnd:b.tailStart])
	}
	return p
}

// Pieces is the number of pieces the rows after the first come in.
func (b *BulkInsert) Pieces() int { return len(b.pieces) }

// Piece returns piece i: the statement's head (up to its first row) with
// the rows of the piece, and the number of characters to add to an
// error position in it beyond the head to place it in the statement.
func (b *BulkInsert) Piece(i int) (text string, shift int) {
	p := b.pieces[i]
	return b.text[:b.rowsStart] + b.text[p[0]:p[1]], p[2]
}

// HeadChars is the number of characters before the first row: positions
// in a Piece up to it need no shift.
func (b *BulkInsert) HeadChars() int { return utf8.RuneCountInString(b.text[:b.rowsStart]) }

// First is the statement's head with its first row only, without what
// follows the rows: an INSERT of that row, every position in it the
// statement's.
func (b *BulkInsert) First() string { return b.text[:b.firstEnd] }
