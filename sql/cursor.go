package sql

import (
	"math"
	"strconv"
)

// DeclareCursor is DECLARE name [BINARY] [ASENSITIVE | INSENSITIVE]
// [[NO] SCROLL] CURSOR [{WITH | WITHOUT} HOLD] FOR query. Body is the
// query's text, which starts BodyAt characters into the statement's text.
// Scroll and NoScroll record SCROLL and NO SCROLL (neither: the cursor
// scrolls when its plan can, as in PostgreSQL); Hold is WITH HOLD;
// Insensitive and Asensitive are the (otherwise meaningless) keywords,
// which PostgreSQL checks.
type DeclareCursor struct {
	Name        string
	Body        string
	BodyAt      int
	Scroll      bool
	NoScroll    bool
	Hold        bool
	Binary      bool
	Insensitive bool
	Asensitive  bool
}

// FetchDir is the direction of a FETCH or MOVE, as PostgreSQL's
// FetchDirection.
type FetchDir uint8

// The directions of FETCH and MOVE. NEXT, n, FORWARD [n] and ALL are
// FetchForward; PRIOR and BACKWARD [n | ALL] FetchBackward; FIRST, LAST
// and ABSOLUTE n FetchAbsolute (FIRST is 1, LAST -1); RELATIVE n
// FetchRelative. A negative count turns forward into backward and back,
// as PostgreSQL does when the statement runs.
const (
	FetchForward FetchDir = iota
	FetchBackward
	FetchAbsolute
	FetchRelative
)

// FetchAll is the count of ALL, FORWARD ALL and BACKWARD ALL: no count
// written can reach it, since counts are 32-bit integers as in
// PostgreSQL's grammar.
const FetchAll = math.MaxInt64

// Fetch is FETCH [direction] [FROM | IN] name, or MOVE with the same
// form (Move set).
type Fetch struct {
	Name  string
	Move  bool
	Dir   FetchDir
	Count int64
}

// CloseCursor is CLOSE name | CLOSE ALL (All set, Name empty).
type CloseCursor struct {
	Name string
	All  bool
}

func (*DeclareCursor) stmt() {}
func (*Fetch) stmt()         {}
func (*CloseCursor) stmt()   {}

// declare parses DECLARE name [BINARY] [ASENSITIVE | INSENSITIVE] [[NO]
// SCROLL] CURSOR [{WITH | WITHOUT} HOLD] FOR query; the query is kept as
// text and parsed when DECLARE runs.
func (p *stmtParser) declare() (Stmt, error) {
	p.pos++
	n, err := p.name()
	if err != nil {
		return nil, err
	}
	st := &DeclareCursor{Name: n}
	for {
		switch {
		case p.accept("binary"):
			st.Binary = true
			continue
		case p.accept("asensitive"):
			st.Asensitive = true
			continue
		case p.accept("insensitive"):
			st.Insensitive = true
			continue
		case p.accept("no", "scroll"):
			st.NoScroll = true
			continue
		case p.accept("scroll"):
			st.Scroll = true
			continue
		}
		break
	}
	if err := p.expect("cursor"); err != nil {
		return nil, err
	}
	switch {
	case p.accept("with", "hold"):
		st.Hold = true
	case p.accept("without", "hold"):
	}
	if err := p.expect("for"); err != nil {
		return nil, err
	}
	if t := p.peek(); !queryStarts[p.word(0)] && !(t.Kind == TOp && t.Val == "(") ||
		p.word(0) == "insert" || p.word(0) == "update" || p.word(0) == "delete" {
		return nil, p.errHere()
	}
	st.Body = p.rest()
	st.BodyAt = charPos(p.src, p.peek().Off) - 1
	p.pos = p.endIndex()
	return st, nil
}

// fetch parses FETCH or MOVE [direction] [FROM | IN] name, the
// fetch_args of PostgreSQL's grammar. Counts are SignedIconst there: an
// integer outside 32 bits is a syntax error at the number.
func (p *stmtParser) fetch() (Stmt, error) {
	st := &Fetch{Move: p.word(0) == "move", Dir: FetchForward, Count: 1}
	p.pos++
	// count parses [+ | -] integer; ok is false when no number follows
	// (a sign without one is an error).
	count := func() (int64, bool, error) {
		neg := p.acceptOp("-")
		if !neg {
			p.acceptOp("+")
		}
		t := p.peek()
		if t.Kind != TNumber {
			if neg {
				return 0, false, p.errHere()
			}
			return 0, false, nil
		}
		v, err := strconv.ParseInt(t.Val, 10, 32)
		if err != nil {
			return 0, false, p.errHere()
		}
		p.pos++
		if neg {
			v = -v
		}
		return v, true, nil
	}
	switch w := p.word(0); {
	case w == "next":
		p.pos++
	case w == "prior":
		p.pos++
		st.Dir = FetchBackward
	case w == "first" || w == "last":
		p.pos++
		st.Dir = FetchAbsolute
		if w == "last" {
			st.Count = -1
		}
	case w == "absolute" || w == "relative":
		p.pos++
		v, ok, err := count()
		if err == nil && !ok {
			err = p.errHere()
		}
		if err != nil {
			return nil, err
		}
		st.Dir, st.Count = FetchAbsolute, v
		if w == "relative" {
			st.Dir = FetchRelative
		}
	case w == "all":
		p.pos++
		st.Count = FetchAll
	case w == "forward" || w == "backward":
		p.pos++
		if w == "backward" {
			st.Dir = FetchBackward
		}
		if p.accept("all") {
			st.Count = FetchAll
			break
		}
		v, ok, err := count()
		if err != nil {
			return nil, err
		}
		if ok {
			st.Count = v
		}
	default:
		v, ok, err := count()
		if err != nil {
			return nil, err
		}
		if ok {
			st.Count = v
		}
	}
	_ = p.accept("from") || p.accept("in")
	n, err := p.name()
	if err != nil {
		return nil, err
	}
	st.Name = n
	return st, p.expectEnd()
}

// closeCursor parses CLOSE name | CLOSE ALL.
func (p *stmtParser) closeCursor() (Stmt, error) {
	p.pos++
	if p.accept("all") {
		return &CloseCursor{All: true}, p.expectEnd()
	}
	n, err := p.name()
	if err != nil {
		return nil, err
	}
	return &CloseCursor{Name: n}, p.expectEnd()
}
