package sql

import (
	"strings"

	"github.com/weirdb/weir/internal/pgerr"
)

// selectIntoStops are the words that end a SELECT's target list at
// parenthesis depth 0: an INTO after one of them is out of its place.
var selectIntoStops = wordSet(`from where group having window order limit offset fetch for`)

// setOps are the words joining the SELECTs of a set operation.
var setOps = wordSet(`union intersect except`)

// selectInto parses SELECT ... INTO [TEMP | UNLOGGED] [TABLE] name ...
// as PostgreSQL does, as CREATE TABLE name AS the query without the INTO
// clause. It returns nil when the statement at the cursor (a query) has
// no INTO clause of its own at the outer level.
func (p *stmtParser) selectInto() (Stmt, error) {
	start, end := p.pos, p.endIndex()
	// (SELECT ... INTO ...), parenthesized whole.
	for start < end && p.toks[start].Kind == TOp && p.toks[start].Val == "(" && closing(p.toks, start) == end-1 {
		start, end = start+1, end-1
	}
	if w := p.toks[start]; w.Kind != TIdent || w.Val != "select" && w.Val != "with" {
		return nil, nil
	}
	depth, into := 0, -1
	sawSetOp, sawStop := false, false
	for i := start; i < end; i++ {
		t := p.toks[i]
		switch {
		case t.Kind == TOp && (t.Val == "(" || t.Val == "["):
			depth++
		case t.Kind == TOp && (t.Val == ")" || t.Val == "]"):
			depth--
		case depth != 0 || t.Kind != TIdent:
		case t.Val == "into":
			if i > start && p.toks[i-1].Kind == TIdent && (p.toks[i-1].Val == "insert" || p.toks[i-1].Val == "merge") {
				// WITH ... INSERT INTO: no SELECT INTO.
				return nil, nil
			}
			into = i
		case setOps[t.Val]:
			sawSetOp = true
		case selectIntoStops[t.Val]:
			sawStop = true
		}
		if into >= 0 {
			break
		}
	}
	if into < 0 {
		return nil, nil
	}
	at := p.toks[into]
	switch {
	case sawSetOp:
		// PostgreSQL points at the name after INTO.
		return nil, pgerr.New(pgerr.SyntaxError, "INTO is only allowed on first SELECT of UNION/INTERSECT/EXCEPT").
			WithPosition(charPos(p.src, p.toks[intoName(p.toks, into)].Off))
	case sawStop:
		return nil, syntaxErrorAt(p.src, at)
	}
	// INTO [LOCAL | GLOBAL] TEMP[ORARY] | UNLOGGED [TABLE] name.
	save := p.pos
	defer func() { p.pos = save }()
	p.pos = into + 1
	ct := &CreateTable{}
	if p.accept("local") || p.accept("global") {
		if !p.accept("temporary") && !p.accept("temp") {
			return nil, p.errHere()
		}
		ct.Temp = true
	} else if p.accept("temporary") || p.accept("temp") {
		ct.Temp = true
	} else if p.accept("unlogged") {
		ct.Unlogged = true
	}
	p.accept("table")
	if t := p.peek(); t.Kind == TIdent && pgReserved[t.Val] {
		return nil, p.errHere()
	}
	name, err := p.objectName()
	if err != nil {
		return nil, err
	}
	ct.Name = name
	if t := p.peek(); !(t.Kind == TEOF || t.Kind == TOp && (t.Val == ";" || t.Val == ")") ||
		t.Kind == TIdent && (selectIntoStops[t.Val] || setOps[t.Val])) {
		// What follows the name must be able to follow an INTO clause
		// (SELECT a INTO strict t FROM u names a table strict, then
		// fails at t).
		return nil, syntaxErrorAt(p.src, t)
	}
	// The query is the text with the clause blanked out, so that the
	// offsets (and error positions) of everything else stay.
	from, to := at.Off, p.toks[p.pos-1].End
	text := p.src[:from] + strings.Repeat(" ", to-from) + p.src[to:]
	stmt, err := parse(p.ctx, text, p.stored, p.definition)
	if err != nil {
		return nil, err
	}
	q, ok := stmt.(*Query)
	if !ok {
		return nil, syntaxErrorAt(p.src, at)
	}
	ct.AsQuery = q
	return ct, nil
}

// intoName returns the index of the name's first token in the INTO
// clause at toks[into].
func intoName(toks []Token, into int) int {
	i := into + 1
	for i < len(toks)-1 && toks[i].Kind == TIdent {
		switch toks[i].Val {
		case "local", "global", "temporary", "temp", "unlogged", "table":
			i++
			continue
		}
		break
	}
	return i
}

// closing returns the index of the token closing the parenthesis at
// toks[open], or -1.
func closing(toks []Token, open int) int {
	depth := 0
	for i := open; i < len(toks); i++ {
		if toks[i].Kind != TOp {
			continue
		}
		switch toks[i].Val {
		case "(":
			depth++
		case ")":
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}
