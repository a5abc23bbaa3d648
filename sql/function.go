package sql

import (
	"strings"

	"github.com/weirdb/weir/internal/pgerr"
)

// CreateFunction is CREATE [OR REPLACE] FUNCTION name ([argname] type,
// ...) RETURNS type with its options in any order (LANGUAGE name,
// IMMUTABLE | STABLE | VOLATILE, STRICT | RETURNS NULL ON NULL INPUT |
// CALLED ON NULL INPUT, and the hints PARALLEL, LEAKPROOF, COST and
// SECURITY INVOKER, which change nothing weir does) and its body: AS
// 'text' or the SQL-standard RETURN expr. What the statement may say
// but weir has not built (other argument modes, defaults, RETURNS
// SETOF or TABLE, SECURITY DEFINER, SET, WINDOW, BEGIN ATOMIC) is
// refused here with 0A000; the body itself is checked by the engine.
type CreateFunction struct {
	OrReplace bool
	Name      ObjectName
	Args      []FuncArg
	Returns   TypeName
	// Language is the LANGUAGE name, lower-cased ("" when not given).
	Language string
	// Volatility is 'i', 's' or 'v' (pg_proc.provolatile).
	Volatility byte
	Strict     bool
	// Body is the text of AS '...' or, when Return is set, RETURN's
	// expression as written.
	Body   string
	Return bool
	// BodyPos is the character position (1-based) in the statement
	// where Body starts, which errors in the body are positioned from;
	// 0 when the text of a quoted body does not map one to one.
	BodyPos int
}

// FuncArg is one parameter of CREATE FUNCTION: its name ("" for none)
// and type.
type FuncArg struct {
	Name string
	Type TypeName
}

// DropFunction is DROP FUNCTION [IF EXISTS] name[(argtypes)], ...
// [CASCADE | RESTRICT].
type DropFunction struct {
	Funcs    []FuncRef
	IfExists bool
	Cascade  bool
}

// FuncRef names a function in DROP FUNCTION: Args are its argument
// types when HasArgs (the parameter names written are ignored, as
// PostgreSQL ignores them).
type FuncRef struct {
	Name    ObjectName
	Args    []TypeName
	HasArgs bool
}

func (*CreateFunction) stmt() {}
func (*DropFunction) stmt()   {}

// createFunction parses CREATE [OR REPLACE] FUNCTION after FUNCTION.
func (p *stmtParser) createFunction(orReplace bool) (Stmt, error) {
	f := &CreateFunction{OrReplace: orReplace, Volatility: 'v'}
	n, err := p.qualifiedName(false)
	if err != nil {
		return nil, err
	}
	f.Name = n
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	if !p.acceptOp(")") {
		for {
			a, err := p.funcArg()
			if err != nil {
				return nil, err
			}
			if p.word(0) == "default" || p.peek().Kind == TOp && p.peek().Val == "=" {
				return nil, p.unsupported("CREATE FUNCTION with argument defaults is")
			}
			f.Args = append(f.Args, a)
			if p.acceptOp(")") {
				break
			}
			if err := p.expectOp(","); err != nil {
				return nil, err
			}
		}
	}
	if !p.accept("returns") {
		if p.atEnd() {
			return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "function result type must be specified")
		}
		return nil, p.errHere()
	}
	switch p.word(0) {
	case "setof":
		return nil, p.unsupported("CREATE FUNCTION ... RETURNS SETOF is")
	case "table":
		if p.peekAt(1).Kind == TOp && p.peekAt(1).Val == "(" {
			return nil, p.unsupported("CREATE FUNCTION ... RETURNS TABLE is")
		}
	}
	if p.atEnd() {
		return nil, p.errHere()
	}
	tn, next, err := parseTypeAt(p.src, p.toks, p.pos)
	if err != nil {
		return nil, err
	}
	p.pos = next
	f.Returns = tn
	seenBody := false
	for !p.atEnd() {
		switch {
		case p.accept("language"):
			t := p.peek()
			if t.Kind != TIdent && t.Kind != TQIdent && t.Kind != TString {
				return nil, p.errHere()
			}
			p.pos++
			f.Language = strings.ToLower(t.Val)
		case p.accept("immutable"):
			f.Volatility = 'i'
		case p.accept("stable"):
			f.Volatility = 's'
		case p.accept("volatile"):
			f.Volatility = 'v'
		case p.accept("strict"), p.accept("returns", "null", "on", "null", "input"):
			f.Strict = true
		case p.accept("called", "on", "null", "input"):
			f.Strict = false
		case p.accept("not", "leakproof"), p.accept("leakproof"):
		case p.accept("external", "security", "invoker"), p.accept("security", "invoker"):
		case p.word(0) == "security" || p.word(0) == "external" && p.word(1) == "security":
			return nil, p.unsupported("CREATE FUNCTION ... SECURITY DEFINER is")
		case p.accept("parallel"):
			if w := p.word(0); w != "safe" && w != "restricted" && w != "unsafe" {
				return nil, p.errHere()
			}
			p.pos++
		case p.accept("cost"), p.accept("rows"):
			if p.peek().Kind != TNumber {
				return nil, p.errHere()
			}
			p.pos++
		case p.word(0) == "set" || p.word(0) == "reset":
			return nil, p.unsupported("CREATE FUNCTION ... SET is")
		case p.word(0) == "window":
			return nil, p.unsupported("CREATE FUNCTION ... WINDOW is")
		case p.word(0) == "transform":
			return nil, p.unsupported("CREATE FUNCTION ... TRANSFORM is")
		case p.word(0) == "support":
			return nil, p.unsupported("CREATE FUNCTION ... SUPPORT is")
		case p.word(0) == "begin" && p.word(1) == "atomic":
			return nil, p.unsupported("CREATE FUNCTION ... BEGIN ATOMIC is")
		case !seenBody && p.accept("as"):
			t := p.peek()
			if t.Kind != TString {
				return nil, p.errHere()
			}
			p.pos++
			if p.acceptOp(",") {
				return nil, p.unsupported("CREATE FUNCTION ... AS 'file', 'symbol' is")
			}
			seenBody = true
			f.Body = t.Val
			switch raw := p.src[t.Off:t.End]; {
			case raw[0] == '$':
				f.BodyPos = charPos(p.src, t.Off+strings.IndexByte(raw[1:], '$')+2)
			case raw == "'"+t.Val+"'":
				f.BodyPos = charPos(p.src, t.Off+1)
			}
		case !seenBody && p.accept("return"):
			if p.atEnd() {
				return nil, p.errHere()
			}
			start := p.peek()
			last := p.toks[len(p.toks)-2]
			f.Body = p.src[start.Off:last.End]
			f.BodyPos = charPos(p.src, start.Off)
			f.Return = true
			seenBody = true
			p.pos = len(p.toks) - 1
		default:
			return nil, p.errHere()
		}
	}
	if !seenBody {
		return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "no function body specified")
	}
	if f.Language == "" {
		if !f.Return {
			return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "no language specified")
		}
		f.Language = "sql"
	}
	return f, nil
}

// funcArg parses one parameter: [IN] [name] type. Other modes (OUT,
// INOUT, VARIADIC) are refused with 0A000. A name is told from a type
// by what follows it, as PostgreSQL's grammar does: a parameter whose
// first word is followed by a type's start has a name.
func (p *stmtParser) funcArg() (FuncArg, error) {
	switch p.word(0) {
	case "out", "inout", "variadic":
		if p.peekAt(1).Kind == TIdent || p.peekAt(1).Kind == TQIdent {
			return FuncArg{}, p.unsupported("functions with " + strings.ToUpper(p.word(0)) + " parameters are")
		}
	case "in":
		if t := p.peekAt(1); t.Kind == TIdent || t.Kind == TQIdent {
			p.pos++
		}
	}
	var a FuncArg
	if t, next := p.peek(), p.peekAt(1); (t.Kind == TIdent || t.Kind == TQIdent) && (next.Kind == TIdent || next.Kind == TQIdent) &&
		!typeWordPairs[t.Val+" "+next.Val] {
		a.Name = t.Val
		p.pos++
	}
	tn, next, err := parseTypeAt(p.src, p.toks, p.pos)
	if err != nil {
		return FuncArg{}, err
	}
	p.pos = next
	a.Type = tn
	return a, nil
}

// typeWordPairs are the type names of two words whose first word could
// be mistaken for a parameter's name.
var typeWordPairs = map[string]bool{"double precision": true, "character varying": true, "bit varying": true,
	"timestamp with": true, "timestamp without": true, "time with": true, "time without": true, "national character": true}

// dropFunction parses DROP FUNCTION after FUNCTION.
func (p *stmtParser) dropFunction() (Stmt, error) {
	d := &DropFunction{IfExists: p.accept("if", "exists")}
	for {
		r, err := p.funcRef()
		if err != nil {
			return nil, err
		}
		d.Funcs = append(d.Funcs, r)
		if !p.acceptOp(",") {
			break
		}
	}
	if p.accept("cascade") {
		d.Cascade = true
	} else {
		p.accept("restrict")
	}
	return d, p.expectEnd()
}

// funcRef parses name[(argtypes)], a function named in DROP FUNCTION or
// GRANT ... ON FUNCTION.
func (p *stmtParser) funcRef() (FuncRef, error) {
	n, err := p.qualifiedName(false)
	if err != nil {
		return FuncRef{}, err
	}
	r := FuncRef{Name: n}
	if !p.acceptOp("(") {
		return r, nil
	}
	r.HasArgs = true
	if p.acceptOp(")") {
		return r, nil
	}
	for {
		a, err := p.funcArg()
		if err != nil {
			return FuncRef{}, err
		}
		r.Args = append(r.Args, a.Type)
		if p.acceptOp(")") {
			return r, nil
		}
		if err := p.expectOp(","); err != nil {
			return FuncRef{}, err
		}
	}
}
