package sql

import (
	"context"
	"fmt"
	"strings"

	"github.com/weirdb/weir/internal/pgerr"
)

// stmtParser is weir's recursive-descent parser for its own statements. It
// works on the tokens of one statement, which end with a TEOF token whose
// offset is the statement's end (a terminating ';' or the end of text).
type stmtParser struct {
	// ctx, when set, ends the parse early (ParseContext).
	ctx  context.Context
	src  string
	toks []Token
	pos  int
	// stored is set for text the bridge wrote (ParseStored), which
	// skips the dialect gate.
	stored bool
	// definition is set for a relation's stored definition
	// (ParseDefinition), which skips the grammar's later restrictions.
	definition bool
	// unpositioned is set while an ALTER TABLE or a domain statement is
	// parsed, whose expressions PostgreSQL checks without positions
	// (noParams).
	unpositioned bool
}

// noParams fails with PostgreSQL's 42P02 "there is no parameter $n" at
// the first parameter among toks[from:to], an expression of a utility
// statement (a column DEFAULT, CHECK or generation expression), which
// has no parameters. The error has the parameter's position except in
// ALTER TABLE and domain statements, whose expressions PostgreSQL
// analyses without the statement's text.
func (p *stmtParser) noParams(from, to int) error {
	for _, t := range p.toks[from:to] {
		if t.Kind != TParam {
			continue
		}
		err := pgerr.New(pgerr.UndefinedParameter, "there is no parameter $%d", ParamNumber(t.Val))
		if !p.unpositioned {
			err = err.WithPosition(charPos(p.src, t.Off))
		}
		return err
	}
	return nil
}

// syntaxErrorAt returns Postgres's 42601 `syntax error at or near "tok"`
// (or `at end of input`) positioned at t.
func syntaxErrorAt(src string, t Token) *pgerr.Error {
	if t.Kind == TEOF {
		if t.Off < len(src) && src[t.Off] == ';' {
			return pgerr.New(pgerr.SyntaxError, `syntax error at or near ";"`).WithPosition(charPos(src, t.Off))
		}
		return pgerr.New(pgerr.SyntaxError, "syntax error at end of input").WithPosition(charPos(src, len(src)))
	}
	return pgerr.New(pgerr.SyntaxError, "syntax error at or near \"%s\"", src[t.Off:t.End]).WithPosition(charPos(src, t.Off))
}

// stmtTokens returns one statement's tokens followed by a TEOF token at
// the statement's end, where the next token of the full text (a ';' or
// EOF) starts. st is a statement as splitTokens returns it, a part of
// the full text's tokens followed in them by that next token, which the
// TEOF replaces in place: the caller gives those tokens up. Copying them
// took 170 MB and a second of memmove for a 5 MB IN list.
func stmtTokens(st []Token) []Token {
	out := st[:len(st)+1]
	end := out[len(st)].Off
	out[len(st)] = Token{Kind: TEOF, Off: end, End: end}
	return out
}

func (p *stmtParser) peek() Token { return p.toks[p.pos] }
func (p *stmtParser) peekAt(k int) Token {
	if p.pos+k >= len(p.toks) {
		return p.toks[len(p.toks)-1]
	}
	return p.toks[p.pos+k]
}

// word returns the lower-case word at offset k from the cursor, or "".
func (p *stmtParser) word(k int) string {
	t := p.peekAt(k)
	if t.Kind == TIdent {
		return t.Val
	}
	return ""
}

func (p *stmtParser) errHere() error { return syntaxErrorAt(p.src, p.peek()) }

// accept consumes the given words if they are next.
func (p *stmtParser) accept(words ...string) bool {
	for i, w := range words {
		if p.word(i) != w {
			return false
		}
	}
	p.pos += len(words)
	return true
}

func (p *stmtParser) expect(words ...string) error {
	for _, w := range words {
		if !p.accept(w) {
			return p.errHere()
		}
	}
	return nil
}

func (p *stmtParser) acceptOp(op string) bool {
	if t := p.peek(); t.Kind == TOp && t.Val == op {
		p.pos++
		return true
	}
	return false
}

func (p *stmtParser) expectOp(op string) error {
	if !p.acceptOp(op) {
		return p.errHere()
	}
	return nil
}

func (p *stmtParser) atEnd() bool { return p.peek().Kind == TEOF }

func (p *stmtParser) expectEnd() error {
	if !p.atEnd() {
		return p.errHere()
	}
	return nil
}

// name parses an identifier (quoted or not).
func (p *stmtParser) name() (string, error) {
	t := p.peek()
	if t.Kind != TIdent && t.Kind != TQIdent {
		return "", p.errHere()
	}
	p.pos++
	return t.Val, nil
}

// DatabaseName is the name of weir's one database, the only database a
// name may be qualified with (dev.schema.name).
const DatabaseName = "dev"

// objectName parses name, schema.name or database.schema.name, the name
// of a relation.
func (p *stmtParser) objectName() (ObjectName, error) { return p.qualifiedName(true) }

// qualifiedName parses name, schema.name or database.schema.name: the
// database must be weir's (0A000 "cross-database references are not
// implemented", the name quoted for a relation's as PostgreSQL quotes
// it, not for a function's or a type's), and more parts are 42601.
func (p *stmtParser) qualifiedName(relation bool) (ObjectName, error) {
	start := p.peek()
	a, err := p.name()
	if err != nil {
		return ObjectName{}, err
	}
	if !p.acceptOp(".") {
		return ObjectName{Name: a}, nil
	}
	b, err := p.name()
	if err != nil {
		return ObjectName{}, err
	}
	if p.peek().Kind != TOp || p.peek().Val != "." {
		return ObjectName{Schema: a, Name: b}, nil
	}
	p.pos++
	c, err := p.name()
	if err != nil {
		return ObjectName{}, err
	}
	names := []string{a, b, c}
	for p.peek().Kind == TOp && p.peek().Val == "." && (p.peekAt(1).Kind == TIdent || p.peekAt(1).Kind == TQIdent) {
		names = append(names, p.peekAt(1).Val)
		p.pos += 2
	}
	if len(names) > 3 {
		return ObjectName{}, pgerr.New(pgerr.SyntaxError, "improper qualified name (too many dotted names): %s", strings.Join(names, ".")).
			WithPosition(charPos(p.src, start.Off))
	}
	if a != DatabaseName {
		name := a + "." + b + "." + c
		if relation {
			name = `"` + name + `"`
		}
		return ObjectName{}, pgerr.New(pgerr.FeatureNotSupported, "cross-database references are not implemented: %s", name)
	}
	return ObjectName{Schema: b, Name: c}, nil
}

func (p *stmtParser) objectNames() ([]ObjectName, error) {
	var out []ObjectName
	for {
		n, err := p.objectName()
		if err != nil {
			return nil, err
		}
		out = append(out, n)
		if !p.acceptOp(",") {
			return out, nil
		}
	}
}

// nameList parses ( name, ... ).
func (p *stmtParser) nameList() ([]string, error) {
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	var out []string
	for {
		n, err := p.name()
		if err != nil {
			return nil, err
		}
		out = append(out, n)
		if p.acceptOp(")") {
			return out, nil
		}
		if err := p.expectOp(","); err != nil {
			return nil, err
		}
	}
}

// value parses an option or setting value: a string, a signed number, an
// identifier or keyword (lower-cased), returning its text.
func (p *stmtParser) value() (string, error) {
	t := p.peek()
	switch t.Kind {
	case TString:
		if t.Err != nil {
			return "", t.Err
		}
		p.pos++
		return t.Val, nil
	case TNumber, TIdent, TQIdent:
		p.pos++
		return t.Val, nil
	case TOp:
		if (t.Val == "-" || t.Val == "+") && p.peekAt(1).Kind == TNumber {
			p.pos += 2
			if t.Val == "-" {
				return "-" + p.toks[p.pos-1].Val, nil
			}
			return p.toks[p.pos-1].Val, nil
		}
	}
	return "", p.errHere()
}

// rest returns the statement text from the cursor to its end.
func (p *stmtParser) rest() string {
	return p.src[p.peek().Off:p.toks[len(p.toks)-1].Off]
}

// query bridges the tokens from the cursor to end (exclusive) as a Query.
func (p *stmtParser) query(end int) (*Query, error) {
	if p.pos >= end {
		return nil, p.errHere()
	}
	q, err := bridgeQueryMode(p.ctx, p.src, p.toks[p.pos:end], !p.stored, p.definition)
	if err != nil {
		return nil, err
	}
	p.pos = end
	return q, nil
}

func (p *stmtParser) endIndex() int { return len(p.toks) - 1 }

// endsWithEOWC reports whether the four tokens before p.toks[end] are
// EMIT ON WINDOW CLOSE (after a view's query).
func (p *stmtParser) endsWithEOWC(end int) bool {
	if end-p.pos <= 4 {
		return false
	}
	for i, w := range []string{"emit", "on", "window", "close"} {
		if t := p.toks[end-4+i]; t.Kind != TIdent || t.Val != w {
			return false
		}
	}
	return true
}

var queryStarts = map[string]bool{"select": true, "with": true, "values": true, "table": true, "insert": true, "update": true, "delete": true}

// stmt parses the statement at the cursor, which must run to the end.
func (p *stmtParser) stmt() (Stmt, error) {
	t := p.peek()
	if t.Err != nil {
		return nil, t.Err
	}
	if t.Kind == TOp && t.Val == "(" || queryStarts[p.word(0)] {
		if end := p.endIndex(); p.endsWithEOWC(end) {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "EMIT ON WINDOW CLOSE is only supported for materialized views").
				WithHint("A query returns what its rows hold now; create a materialized view with it to emit each window once it closes.").
				WithPosition(charPos(p.src, p.toks[end-4].Off))
		}
		if ct, err := p.selectInto(); ct != nil || err != nil {
			p.pos = p.endIndex()
			return ct, err
		}
		return p.query(p.endIndex())
	}
	var s Stmt
	var err error
	switch p.word(0) {
	case "create":
		s, err = p.create()
	case "drop":
		s, err = p.drop()
	case "show":
		s, err = p.show()
	case "describe", "desc":
		p.pos++
		var n ObjectName
		n, err = p.objectName()
		s = &Describe{Name: n}
	case "set":
		s, err = p.set()
	case "reset":
		p.pos++
		var n string
		switch {
		case p.accept("time", "zone"):
			n = "timezone"
		case p.accept("all"):
			n = "all"
		case p.accept("session", "authorization"):
			n = "session_authorization"
		default:
			n, err = p.settingName()
		}
		s = &Reset{Name: n}
	case "alter":
		if w := p.word(1); w == "role" || w == "user" {
			p.pos++
			s, err = p.alterRole()
		} else if w == "type" {
			p.pos += 2
			s, err = p.alterType()
		} else if w == "domain" {
			p.pos += 2
			s, err = p.alterDomain()
		} else {
			s, err = p.alter()
		}
	case "grant", "revoke":
		s, err = p.grant()
	case "comment":
		s, err = p.comment()
	case "begin", "start", "commit", "end", "rollback", "abort", "savepoint", "release":
		s, err = p.txn()
	case "declare":
		s, err = p.declare()
	case "fetch", "move":
		s, err = p.fetch()
	case "close":
		s, err = p.closeCursor()
	case "prepare":
		s, err = p.prepare()
	case "execute":
		s, err = p.execute()
	case "deallocate":
		p.pos++
		p.accept("prepare")
		if p.accept("all") {
			s = &Deallocate{All: true}
		} else {
			var n string
			n, err = p.name()
			s = &Deallocate{Name: n}
		}
	case "copy":
		s, err = p.copy()
	case "explain":
		s, err = p.explain()
	case "flush":
		p.pos++
		s = &Flush{}
	case "refresh":
		p.pos++
		if err = p.expect("materialized", "view"); err == nil {
			r := &Refresh{Concurrently: p.accept("concurrently")}
			if r.Name, err = p.objectName(); err == nil {
				r.NoData = p.accept("with", "no", "data")
				_ = r.NoData || p.accept("with", "data")
				s = r
			}
		}
	case "backup":
		s, err = p.backup()
	case "truncate":
		p.pos++
		p.accept("table")
		// weir has no inheritance, so ONLY changes nothing.
		p.accept("only")
		var names []ObjectName
		names, err = p.objectNames()
		if err == nil {
			if p.word(0) == "restart" {
				// Sequences are not reset by TRUNCATE yet: refusing is
				// better than ignoring the clause.
				return nil, pgerr.New(pgerr.FeatureNotSupported, "TRUNCATE ... RESTART IDENTITY is not supported").
					WithHint("TRUNCATE ... CONTINUE IDENTITY (the default) keeps the sequences; setval() resets one.").
					WithPosition(charPos(p.src, p.peek().Off))
			}
			_ = p.accept("continue", "identity")
			cascade := p.accept("cascade")
			_ = cascade || p.accept("restrict")
			s = &Truncate{Names: names, Cascade: cascade}
		}
	case "discard":
		p.pos++
		w := p.word(0)
		switch w {
		case "all", "plans", "sequences", "temp", "temporary":
			p.pos++
			s = &Discard{What: w}
		default:
			err = p.errHere()
		}
	case "lock":
		s, err = p.lock()
	default:
		return nil, p.unsupportedStmt()
	}
	if err != nil {
		return nil, err
	}
	if err := p.expectEnd(); err != nil {
		return nil, err
	}
	return s, nil
}

// settingName parses a configuration parameter name (name or a.b).
func (p *stmtParser) settingName() (string, error) {
	n, err := p.name()
	if err != nil {
		return "", err
	}
	for p.acceptOp(".") {
		m, err := p.name()
		if err != nil {
			return "", err
		}
		n += "." + m
	}
	return strings.ToLower(n), nil
}

func (p *stmtParser) show() (Stmt, error) {
	p.pos++
	switch {
	case p.accept("all"):
		return &Show{Kind: "all"}, nil
	case p.accept("tables"):
		return &Show{Kind: "tables"}, nil
	case p.accept("materialized", "views"):
		return &Show{Kind: "materialized views"}, nil
	case p.accept("views"):
		return &Show{Kind: "views"}, nil
	case p.accept("sources"):
		return &Show{Kind: "sources"}, nil
	case p.accept("sinks"):
		return &Show{Kind: "sinks"}, nil
	case p.accept("jobs"):
		return &Show{Kind: "jobs"}, nil
	case p.accept("parameters"):
		return &Show{Kind: "parameters"}, nil
	case p.word(0) == "columns" && (p.word(1) == "from" || p.word(1) == "in"):
		p.pos += 2
		n, err := p.objectName()
		if err != nil {
			return nil, err
		}
		return &Show{Kind: "columns", Obj: n}, nil
	case p.accept("time", "zone"):
		return &Show{Kind: "variable", Name: "timezone"}, nil
	case p.accept("transaction", "isolation", "level"):
		return &Show{Kind: "variable", Name: "transaction_isolation"}, nil
	case p.accept("session", "authorization"):
		return &Show{Kind: "variable", Name: "session_authorization"}, nil
	case p.word(0) == "create" && p.peekAt(1).Kind == TIdent:
		p.pos++
		var kind string
		switch {
		case p.accept("table"):
			kind = "create table"
		case p.accept("view"):
			kind = "create view"
		case p.accept("materialized", "view"):
			kind = "create materialized view"
		case p.accept("source"):
			kind = "create source"
		case p.accept("sink"):
			kind = "create sink"
		default:
			return nil, p.errHere()
		}
		n, err := p.objectName()
		if err != nil {
			return nil, err
		}
		return &Show{Kind: kind, Obj: n}, nil
	}
	n, err := p.settingName()
	if err != nil {
		return nil, err
	}
	return &Show{Kind: "variable", Name: n}, nil
}

// setConstraints parses what follows SET CONSTRAINTS: ALL or a list of
// (possibly schema-qualified) constraint names, then DEFERRED or
// IMMEDIATE.
func (p *stmtParser) setConstraints() (Stmt, error) {
	st := &SetConstraints{}
	if !p.accept("all") {
		for {
			n, err := p.objectName()
			if err != nil {
				return nil, err
			}
			st.Names = append(st.Names, n)
			if !p.acceptOp(",") {
				break
			}
		}
	}
	switch {
	case p.accept("deferred"):
		st.Deferred = true
	case p.accept("immediate"):
	default:
		return nil, p.errHere()
	}
	return st, p.expectEnd()
}

func (p *stmtParser) set() (Stmt, error) {
	p.pos++
	local, session := false, false
	if p.accept("local") {
		local = true
	} else {
		session = p.accept("session")
	}
	switch {
	case p.accept("characteristics", "as", "transaction"):
		// Accepted: weir runs every transaction the same way.
		s := &Set{Name: "session_characteristics", Value: strings.ToLower(p.rest()), Local: local}
		p.pos = p.endIndex()
		return s, nil
	case p.accept("transaction"):
		s := &Set{Name: "transaction", Value: strings.ToLower(p.rest()), Local: true}
		p.pos = p.endIndex()
		return s, nil
	case p.accept("time", "zone"):
		s := &Set{Name: "timezone", Local: local}
		if p.accept("local") || p.accept("default") {
			s.Default = true
			return s, nil
		}
		if p.word(0) == "interval" {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "SET TIME ZONE INTERVAL is not supported").WithPosition(charPos(p.src, p.peek().Off))
		}
		v, err := p.value()
		s.Value = v
		return s, err
	case p.word(0) == "names" && p.peekAt(1).Kind == TString:
		p.pos++
		v, err := p.value()
		return &Set{Name: "client_encoding", Value: v, Local: local}, err
	case p.word(0) == "schema" && p.peekAt(1).Kind == TString:
		p.pos++
		v, err := p.value()
		return &Set{Name: "search_path", Value: QuoteIdent(v), Local: local}, err
	case p.word(0) == "role" && !(p.peekAt(1).Kind == TOp && p.peekAt(1).Val == "=") && p.word(1) != "to":
		// SET ROLE name | NONE is SET role TO name.
		p.pos++
		v, err := p.value()
		return &Set{Name: "role", Value: v, Local: local}, err
	case p.word(0) == "authorization" && p.word(-1) == "session" || p.word(0) == "session" && p.word(1) == "authorization":
		// SET [SESSION | LOCAL] SESSION AUTHORIZATION name | DEFAULT is
		// SET session_authorization TO name.
		if p.word(0) == "session" {
			p.pos++
		}
		p.pos++
		s := &Set{Name: "session_authorization", Local: local}
		if p.accept("default") {
			s.Default = true
			return s, nil
		}
		v, err := p.value()
		s.Value = v
		return s, err
	case !local && !session && p.accept("constraints"):
		return p.setConstraints()
	case p.word(0) == "xml" && p.word(1) == "option":
		return nil, p.unsupported("SET XML OPTION is")
	}
	name, err := p.settingName()
	if err != nil {
		return nil, err
	}
	if !p.accept("to") && !p.acceptOp("=") {
		return nil, p.errHere()
	}
	s := &Set{Name: name, Local: local}
	if p.accept("default") {
		s.Default = true
		return s, nil
	}
	var vals []string
	for {
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		if name == "search_path" {
			// Each element, a name or a string, is one schema's name,
			// quoted where it needs it, as PostgreSQL's GUC_LIST_QUOTE
			// settings keep it: SET search_path = 'a, b' names one
			// schema, "a, b".
			v = QuoteIdent(v)
		}
		vals = append(vals, v)
		if !p.acceptOp(",") {
			break
		}
	}
	s.Value, s.Args = strings.Join(vals, ", "), len(vals)
	return s, nil
}

func (p *stmtParser) alterSystem() (Stmt, error) {
	p.pos++
	if err := p.expect("system"); err != nil {
		return nil, err
	}
	if p.accept("reset") {
		if p.accept("all") {
			return &AlterSystem{All: true}, nil
		}
		name, err := p.settingName()
		if err != nil {
			return nil, err
		}
		return &AlterSystem{Name: name}, nil
	}
	if err := p.expect("set"); err != nil {
		return nil, err
	}
	name, err := p.settingName()
	if err != nil {
		return nil, err
	}
	if !p.accept("to") && !p.acceptOp("=") {
		return nil, p.errHere()
	}
	if p.accept("default") {
		return &AlterSystem{Name: name}, nil
	}
	var vals []string
	for {
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		vals = append(vals, v)
		if !p.acceptOp(",") {
			break
		}
	}
	return &AlterSystem{Name: name, Value: strings.Join(vals, ", "), Args: len(vals)}, nil
}

func (p *stmtParser) txn() (Stmt, error) {
	w := p.word(0)
	p.pos++
	switch w {
	case "begin", "start":
		if w == "start" {
			if err := p.expect("transaction"); err != nil {
				return nil, err
			}
		} else {
			_ = p.accept("work") || p.accept("transaction")
		}
		// Transaction modes are accepted and ignored: weir runs every
		// transaction at one level.
		for !p.atEnd() {
			switch {
			case p.accept("isolation", "level", "serializable"),
				p.accept("isolation", "level", "repeatable", "read"),
				p.accept("isolation", "level", "read", "committed"),
				p.accept("isolation", "level", "read", "uncommitted"),
				p.accept("read", "only"), p.accept("read", "write"),
				p.accept("not", "deferrable"), p.accept("deferrable"):
				p.acceptOp(",")
			default:
				return nil, p.errHere()
			}
		}
		return &Txn{Kind: TxnBegin}, nil
	case "commit", "end":
		if w == "commit" && p.word(0) == "prepared" {
			return nil, p.noPreparedTxn()
		}
		_ = p.accept("work") || p.accept("transaction")
		if p.word(0) == "and" && p.word(1) == "chain" {
			return nil, p.unsupported("COMMIT AND CHAIN is")
		}
		_ = p.accept("and", "no", "chain")
		return &Txn{Kind: TxnCommit}, nil
	case "savepoint":
		n, err := p.name()
		return &Txn{Kind: TxnSavepoint, Name: n}, err
	case "release":
		_ = p.accept("savepoint")
		n, err := p.name()
		return &Txn{Kind: TxnRelease, Name: n}, err
	default:
		if w == "rollback" && p.word(0) == "prepared" {
			return nil, p.noPreparedTxn()
		}
		_ = p.accept("work") || p.accept("transaction")
		if p.word(0) == "and" && p.word(1) == "chain" {
			return nil, p.unsupported(upper(w) + " AND CHAIN is")
		}
		if w == "rollback" && p.accept("to") {
			_ = p.accept("savepoint")
			n, err := p.name()
			return &Txn{Kind: TxnRollbackTo, Name: n}, err
		}
		_ = p.accept("and", "no", "chain")
		return &Txn{Kind: TxnRollback}, nil
	}
}

// textList parses a parenthesized, comma-separated list of expressions
// or type names, returning each one's text and character offset.
func (p *stmtParser) textList() ([]string, []int, error) {
	if err := p.expectOp("("); err != nil {
		return nil, nil, err
	}
	var texts []string
	var at []int
	for {
		end := p.exprEnd(false)
		if end == p.pos || p.toks[end].Kind == TEOF {
			p.pos = end
			return nil, nil, p.errHere()
		}
		start := p.peek().Off
		texts = append(texts, strings.TrimSpace(p.src[start:p.toks[end].Off]))
		at = append(at, charPos(p.src, start)-1)
		p.pos = end
		if p.acceptOp(")") {
			return texts, at, nil
		}
		if err := p.expectOp(","); err != nil {
			return nil, nil, err
		}
	}
}

// prepare parses PREPARE name [(type, ...)] AS statement; the statement
// is kept as text and parsed when PREPARE runs.
// noPreparedTxn is COMMIT | ROLLBACK PREPARED 'id' (after COMMIT or
// ROLLBACK): weir prepares no transactions (PREPARE TRANSACTION is
// 0A000), so there is none of that identifier.
func (p *stmtParser) noPreparedTxn() error {
	p.pos++
	t := p.peek()
	if t.Kind != TString {
		return p.errHere()
	}
	return pgerr.New(pgerr.UndefinedObject, "prepared transaction with identifier \"%s\" does not exist", t.Val)
}

func (p *stmtParser) prepare() (Stmt, error) {
	p.pos++
	if p.word(0) == "transaction" && p.peekAt(1).Kind == TString {
		return nil, p.unsupported("PREPARE TRANSACTION is")
	}
	n, err := p.name()
	if err != nil {
		return nil, err
	}
	st := &Prepare{Name: n}
	if t := p.peek(); t.Kind == TOp && t.Val == "(" {
		if st.Types, st.TypesAt, err = p.textList(); err != nil {
			return nil, err
		}
	}
	if err := p.expect("as"); err != nil {
		return nil, err
	}
	if p.atEnd() {
		return nil, p.errHere()
	}
	st.Body = p.rest()
	st.BodyAt = charPos(p.src, p.peek().Off) - 1
	p.pos = p.endIndex()
	return st, nil
}

// execute parses EXECUTE name [(arg, ...)].
func (p *stmtParser) execute() (Stmt, error) {
	p.pos++
	n, err := p.name()
	if err != nil {
		return nil, err
	}
	st := &Execute{Name: n}
	if t := p.peek(); t.Kind == TOp && t.Val == "(" {
		if st.Args, st.ArgsAt, err = p.textList(); err != nil {
			return nil, err
		}
	}
	return st, nil
}

func (p *stmtParser) drop() (Stmt, error) {
	p.pos++
	d := &Drop{}
	switch {
	case p.accept("table"):
		d.Kind = "table"
	case p.accept("view"):
		d.Kind = "view"
	case p.accept("materialized", "view"):
		d.Kind = "materialized view"
	case p.accept("source"):
		d.Kind = "source"
	case p.accept("sink"):
		d.Kind = "sink"
	case p.accept("index"):
		d.Kind = "index"
		// CONCURRENTLY only changes which locks PostgreSQL takes.
		p.accept("concurrently")
	case p.accept("schema"):
		d.Kind = "schema"
	case p.accept("sequence"):
		d.Kind = "sequence"
	case p.accept("type"):
		d.Kind = "type"
	case p.accept("domain"):
		d.Kind = "domain"
	case p.accept("function"):
		return p.dropFunction()
	case p.word(0) == "role" || p.word(0) == "user" || p.word(0) == "group":
		return p.dropRole()
	default:
		if err := p.unsupportedObject("DROP"); err != nil {
			return nil, err
		}
		return nil, p.errHere()
	}
	d.IfExists = p.accept("if", "exists")
	names, err := p.objectNames()
	if err != nil {
		return nil, err
	}
	d.Names = names
	if p.accept("cascade") {
		d.Cascade = true
	} else {
		p.accept("restrict")
	}
	return d, nil
}

func (p *stmtParser) explain() (Stmt, error) {
	p.pos++
	e := &Explain{}
	timingSet, summarySet := false, false
	if p.peek().Kind == TOp && p.peek().Val == "(" {
		p.pos++
		for {
			opt := p.word(0)
			if opt == "" {
				return nil, p.errHere()
			}
			p.pos++
			on := true
			switch p.word(0) {
			case "true", "on":
				p.pos++
			case "false", "off":
				p.pos++
				on = false
			default:
				if t := p.peek(); t.Kind == TNumber || t.Kind == TString || (t.Kind == TIdent && opt == "format") {
					on = t.Val != "0"
					p.pos++
				}
			}
			switch opt {
			case "analyze", "analyse":
				e.Analyze = on
			case "verbose":
				e.Verbose = on
			case "timing":
				e.Timing, timingSet = on, true
			case "summary":
				e.Summary, summarySet = on, true
			case "costs", "buffers", "settings", "wal", "format":
			default:
				return nil, pgerr.New(pgerr.SyntaxError, "unrecognized EXPLAIN option %q", opt).WithPosition(charPos(p.src, p.toks[p.pos-1].Off))
			}
			if p.acceptOp(")") {
				break
			}
			if err := p.expectOp(","); err != nil {
				return nil, err
			}
		}
	} else {
		e.Analyze = p.accept("analyze") || p.accept("analyse")
		e.Verbose = p.accept("verbose")
	}
	if !timingSet {
		e.Timing = e.Analyze
	} else if e.Timing && !e.Analyze {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "EXPLAIN option TIMING requires ANALYZE")
	}
	if !summarySet {
		e.Summary = e.Analyze
	}
	// EXPLAIN MATERIALIZED VIEW name / EXPLAIN SINK name: the running
	// job, not a statement.
	if kind := p.word(0); kind == "sink" || kind == "materialized" && p.word(1) == "view" {
		if kind == "materialized" {
			p.pos++
			kind = "materialized view"
		}
		p.pos++
		n, err := p.objectName()
		if err != nil {
			return nil, err
		}
		return &ExplainJob{Kind: kind, Name: n}, nil
	}
	inner, err := p.stmt()
	if err != nil {
		return nil, err
	}
	e.Stmt = inner
	return e, nil
}

// copy parses COPY in both the parenthesised option syntax and the
// pre-9.0 syntax (WITH CSV HEADER DELIMITER ',').
func (p *stmtParser) copy() (Stmt, error) {
	p.pos++
	c := &Copy{Options: map[string]string{}}
	if p.peek().Kind == TOp && p.peek().Val == "(" {
		// COPY (query) TO STDOUT: find the matching parenthesis.
		depth, end := 0, -1
		for i := p.pos; i < len(p.toks); i++ {
			if t := p.toks[i]; t.Kind == TOp {
				if t.Val == "(" {
					depth++
				} else if t.Val == ")" {
					depth--
					if depth == 0 {
						end = i
						break
					}
				}
			}
		}
		if end < 0 {
			p.pos = p.endIndex()
			return nil, p.errHere()
		}
		p.pos++
		q, err := p.query(end)
		if err != nil {
			return nil, err
		}
		p.pos = end + 1
		c.Query = q
	} else {
		n, err := p.objectName()
		if err != nil {
			return nil, err
		}
		c.Table = n
		if p.peek().Kind == TOp && p.peek().Val == "(" {
			cols, err := p.nameList()
			if err != nil {
				return nil, err
			}
			c.Columns = cols
		}
	}
	switch {
	case p.accept("from"):
		c.From = true
		if !p.accept("stdin") {
			if p.peek().Kind == TString || p.word(0) == "program" {
				return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY from a file is not supported; use COPY ... FROM STDIN").WithPosition(charPos(p.src, p.peek().Off))
			}
			return nil, p.errHere()
		}
	case p.accept("to"):
		if !p.accept("stdout") {
			if p.peek().Kind == TString || p.word(0) == "program" {
				return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY to a file is not supported; use COPY ... TO STDOUT").WithPosition(charPos(p.src, p.peek().Off))
			}
			return nil, p.errHere()
		}
	default:
		return nil, p.errHere()
	}
	if c.Query != nil && c.From {
		return nil, syntaxErrorAt(p.src, p.toks[p.pos-2])
	}
	p.accept("with")
	if p.peek().Kind == TOp && p.peek().Val == "(" {
		p.pos++
		for {
			opt := p.word(0)
			if opt == "" {
				return nil, p.errHere()
			}
			p.pos++
			val := ""
			if t := p.peek(); !(t.Kind == TOp && (t.Val == "," || t.Val == ")")) {
				v, err := p.value()
				if err != nil {
					return nil, err
				}
				val = v
			}
			if err := c.setOption(opt, val); err != nil {
				return nil, err.WithPosition(charPos(p.src, p.toks[p.pos-1].Off))
			}
			if p.acceptOp(")") {
				break
			}
			if err := p.expectOp(","); err != nil {
				return nil, err
			}
		}
		return c, nil
	}
	// The old option syntax.
	for !p.atEnd() {
		switch {
		case p.accept("binary"):
			c.Options["format"] = "binary"
		case p.accept("csv"):
			c.Options["format"] = "csv"
		case p.accept("header"):
			c.Options["header"] = "true"
		case p.word(0) == "delimiter" || p.word(0) == "null" || p.word(0) == "quote" || p.word(0) == "escape":
			opt := p.word(0)
			p.pos++
			p.accept("as")
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			c.Options[opt] = v
		default:
			return nil, p.errHere()
		}
	}
	return c, nil
}

// setOption stores one COPY option, normalising FORMAT and HEADER.
func (c *Copy) setOption(opt, val string) *pgerr.Error {
	switch opt {
	case "format":
		v := strings.ToLower(val)
		if v != "text" && v != "csv" && v != "binary" {
			return pgerr.New(pgerr.InvalidParameterValue, "COPY format %q not recognized", val)
		}
		c.Options["format"] = v
	case "header":
		switch strings.ToLower(val) {
		case "", "true", "on", "1":
			c.Options["header"] = "true"
		case "false", "off", "0":
			c.Options["header"] = "false"
		case "match":
			c.Options["header"] = "match"
		default:
			return pgerr.New(pgerr.InvalidParameterValue, "header requires a Boolean value or \"match\"")
		}
	case "delimiter", "null", "quote", "escape", "encoding", "default":
		c.Options[opt] = val
	case "freeze", "force_quote", "force_not_null", "force_null":
		c.Options[opt] = val
	default:
		return pgerr.New(pgerr.SyntaxError, "option %q not recognized", opt)
	}
	return nil
}

// options parses WITH ( key = value, ... ): keys are dotted names, lower-cased.
func (p *stmtParser) options() (map[string]string, error) {
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	m := map[string]string{}
	if p.acceptOp(")") {
		return m, nil
	}
	for {
		at := p.peek().Off
		k, err := p.settingName()
		if err != nil {
			return nil, err
		}
		if _, dup := m[k]; dup {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "parameter \"%s\" specified more than once", k).WithPosition(charPos(p.src, at))
		}
		p.acceptOp("=")
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		m[k] = v
		if p.acceptOp(")") {
			return m, nil
		}
		if err := p.expectOp(","); err != nil {
			return nil, err
		}
	}
}

// unsupported returns 0A000 "<what> not supported yet" at the cursor;
// what ends with "is" or "are".
func (p *stmtParser) unsupported(what string) error {
	return pgerr.New(pgerr.FeatureNotSupported, "%s not supported yet", what).WithPosition(charPos(p.src, p.peek().Off))
}

var _ = fmt.Sprint

// backup parses BACKUP TO 'directory' [WITH (option = value, ...)].
func (p *stmtParser) backup() (Stmt, error) {
	p.pos++
	if err := p.expect("to"); err != nil {
		return nil, err
	}
	t := p.peek()
	if t.Kind != TString {
		return nil, p.errHere()
	}
	if t.Err != nil {
		return nil, t.Err
	}
	p.pos++
	b := &Backup{Dir: t.Val, With: map[string]string{}}
	if p.accept("with") {
		w, err := p.options()
		if err != nil {
			return nil, err
		}
		b.With = w
	}
	return b, nil
}

// lockModes are the lock modes of LOCK TABLE ... IN mode MODE.
var lockModes = [][]string{
	{"access", "share"}, {"row", "share"}, {"row", "exclusive"}, {"share", "update", "exclusive"},
	{"share", "row", "exclusive"}, {"share"}, {"exclusive"}, {"access", "exclusive"},
}

// lock parses LOCK [TABLE] [ONLY] name [*] [, ...] [IN mode MODE]
// [NOWAIT].
func (p *stmtParser) lock() (Stmt, error) {
	p.pos++
	p.accept("table")
	l := &Lock{Mode: "access exclusive"}
	for {
		p.accept("only")
		n, err := p.objectName()
		if err != nil {
			return nil, err
		}
		p.acceptOp("*")
		l.Names = append(l.Names, n)
		if !p.acceptOp(",") {
			break
		}
	}
	if p.accept("in") {
		found := false
		for _, m := range lockModes {
			if p.accept(m...) {
				l.Mode, found = strings.Join(m, " "), true
				break
			}
		}
		if !found {
			return nil, p.errHere()
		}
		if err := p.expect("mode"); err != nil {
			return nil, err
		}
	}
	l.NoWait = p.accept("nowait")
	return l, nil
}
