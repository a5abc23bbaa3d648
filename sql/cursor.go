package sql

import (
	"strconv"
	"strings"
)

// DeclareCursor is DECLARE name [NO SCROLL] CURSOR [WITHOUT HOLD] FOR
// query. Body is the query's text, which starts BodyAt characters into
// the statement's text; Scroll, Hold and Binary record the options weir
// refuses when the statement runs.
type DeclareCursor struct {
	Name   string
	Body   string
	BodyAt int
	Scroll bool
	Hold   bool
	Binary bool
}

// FetchDir is the direction of a FETCH or MOVE.
type FetchDir uint8

// The directions of FETCH and MOVE: forward by Count rows (NEXT, FORWARD
// n, n) or to the end (ALL, FORWARD ALL); backward (PRIOR, BACKWARD,
// negative counts); or to an absolute or relative position (FIRST, LAST,
// ABSOLUTE n, RELATIVE n).
const (
	FetchForward FetchDir = iota
	FetchAll
	FetchBackward
	FetchAbsolute
)

// Fetch is FETCH [direction] [FROM | IN] name, or MOVE with the same
// form (Move set).
type Fetch struct {
	Name  string
	Move  bool
	Dir   FetchDir
	Count int64
	// What is the direction as written, upper-case ("FIRST", "RELATIVE"),
	// for the error refusing it.
	What string
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
		case p.accept("asensitive"), p.accept("insensitive"):
			continue
		case p.accept("no", "scroll"):
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

// fetch parses FETCH or MOVE [direction] [FROM | IN] name.
func (p *stmtParser) fetch() (Stmt, error) {
	st := &Fetch{Move: p.word(0) == "move", Count: 1}
	p.pos++
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
		v, err := strconv.ParseInt(t.Val, 10, 64)
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
		st.Dir, st.What = FetchBackward, "PRIOR"
	case w == "first" || w == "last":
		p.pos++
		st.Dir, st.What = FetchAbsolute, strings.ToUpper(w)
	case w == "absolute" || w == "relative":
		p.pos++
		if _, ok, err := count(); err != nil || !ok {
			if err == nil {
				err = p.errHere()
			}
			return nil, err
		}
		st.Dir, st.What = FetchAbsolute, strings.ToUpper(w)
	case w == "all":
		p.pos++
		st.Dir = FetchAll
	case w == "forward" || w == "backward":
		p.pos++
		if w == "backward" {
			st.Dir, st.What = FetchBackward, "BACKWARD"
		}
		if p.accept("all") {
			if w == "forward" {
				st.Dir = FetchAll
			}
			break
		}
		v, ok, err := count()
		if err != nil {
			return nil, err
		}
		if ok {
			st.Count = v
			if w == "forward" && v < 0 || w == "backward" && v <= 0 {
				st.Dir, st.What = FetchBackward, "BACKWARD"
			}
			if w == "backward" && v < 0 {
				st.Dir, st.Count = FetchForward, -v
			}
		}
	default:
		v, ok, err := count()
		if err != nil {
			return nil, err
		}
		if ok {
			st.Count = v
			if v < 0 {
				st.Dir, st.What = FetchBackward, "BACKWARD"
			}
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
