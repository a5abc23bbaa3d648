package executor

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/cockroachdb/apd/v3"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// A test-only expression builder: it parses the small SQL expression
// language of the golden files (literals, typed literals, casts, operators,
// function calls, CASE, AND/OR/NOT, IS NULL) and resolves functions against
// the planner's registry with simplified Postgres rules, producing the
// planner.Expr trees the binder would.

type tparser struct {
	toks []string
	pos  int
}

func tokenize(s string) ([]string, error) {
	var toks []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			i++
		case c == '\'':
			j := i + 1
			var b strings.Builder
			for ; j < len(s); j++ {
				if s[j] == '\'' {
					if j+1 < len(s) && s[j+1] == '\'' {
						b.WriteByte('\'')
						j++
						continue
					}
					break
				}
				b.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, fmt.Errorf("unterminated string in %q", s)
			}
			toks = append(toks, "'"+b.String())
			i = j + 1
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			j := i
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' || s[j] == 'e' ||
				(s[j] == '-' || s[j] == '+') && (s[j-1] == 'e')) {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		case c == '_' || unicode.IsLetter(rune(c)):
			j := i
			for j < len(s) && (s[j] == '_' || unicode.IsLetter(rune(s[j])) || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			toks = append(toks, strings.ToLower(s[i:j]))
			i = j
		default:
			ops := []string{"::", "<=", ">=", "<>", "!=", "||", "!~~*", "!~~", "~~*", "~~", "!~*", "!~", "~*", "->>", "->", "#>>", "#>", "@>", "<@"}
			found := false
			for _, op := range ops {
				if strings.HasPrefix(s[i:], op) {
					toks = append(toks, op)
					i += len(op)
					found = true
					break
				}
			}
			if !found {
				toks = append(toks, string(c))
				i++
			}
		}
	}
	return toks, nil
}

func (p *tparser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return ""
}

func (p *tparser) next() string { t := p.peek(); p.pos++; return t }

func (p *tparser) expect(t string) error {
	if got := p.next(); got != t {
		return fmt.Errorf("expected %q, got %q", t, got)
	}
	return nil
}

// parseTestExpr parses and binds one golden-file expression.
func parseTestExpr(s string) (planner.Expr, error) {
	toks, err := tokenize(s)
	if err != nil {
		return nil, err
	}
	p := &tparser{toks: toks}
	e, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.pos != len(p.toks) {
		return nil, fmt.Errorf("trailing tokens at %q", p.peek())
	}
	return finalize(e), nil
}

// finalize gives a bare unknown literal the type text, as Postgres does.
func finalize(e planner.Expr) planner.Expr {
	if c, ok := e.(*planner.Const); ok && c.T.ID == types.Unknown && !c.V.Null {
		return &planner.Const{V: c.V, T: types.TText}
	}
	return e
}

func (p *tparser) or() (planner.Expr, error) {
	l, err := p.and()
	if err != nil {
		return nil, err
	}
	for p.peek() == "or" {
		p.next()
		r, err := p.and()
		if err != nil {
			return nil, err
		}
		l = &planner.Or{Args: []planner.Expr{l, r}}
	}
	return l, nil
}

func (p *tparser) and() (planner.Expr, error) {
	l, err := p.not()
	if err != nil {
		return nil, err
	}
	for p.peek() == "and" {
		p.next()
		r, err := p.not()
		if err != nil {
			return nil, err
		}
		l = &planner.And{Args: []planner.Expr{l, r}}
	}
	return l, nil
}

func (p *tparser) not() (planner.Expr, error) {
	if p.peek() == "not" {
		p.next()
		a, err := p.not()
		if err != nil {
			return nil, err
		}
		return &planner.Not{Arg: a}, nil
	}
	return p.cmp()
}

var cmpOps = map[string]string{"=": "=", "<>": "<>", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">=",
	"~~": "~~", "!~~": "!~~", "~~*": "~~*", "!~~*": "!~~*", "~": "~", "~*": "~*", "!~": "!~", "!~*": "!~*",
	"like": "~~", "ilike": "~~*", "@>": "pg_json_contains"}

func (p *tparser) cmp() (planner.Expr, error) {
	l, err := p.concat()
	if err != nil {
		return nil, err
	}
	if p.peek() == "is" {
		p.next()
		not := false
		if p.peek() == "not" {
			p.next()
			not = true
		}
		switch w := p.next(); w {
		case "null":
			return &planner.IsNull{Arg: l, Not: not}, nil
		case "true", "false", "unknown":
			return &planner.IsBool{Arg: l, Want: w, Not: not}, nil
		default:
			return nil, fmt.Errorf("bad IS %s", w)
		}
	}
	if p.peek() == "in" || p.peek() == "not" && p.pos+1 < len(p.toks) && p.toks[p.pos+1] == "in" {
		not := p.next() == "not"
		if not {
			p.next()
		}
		if err := p.expect("("); err != nil {
			return nil, err
		}
		var list []planner.Expr
		for {
			e, err := p.or()
			if err != nil {
				return nil, err
			}
			list = append(list, e)
			if p.peek() != "," {
				break
			}
			p.next()
		}
		if err := p.expect(")"); err != nil {
			return nil, err
		}
		for i := range list {
			_, args, err := resolve("=", []planner.Expr{l, list[i]})
			if err != nil {
				return nil, err
			}
			l, list[i] = args[0], args[1]
		}
		return &planner.InList{Arg: l, List: list, Not: not}, nil
	}
	if p.peek() == "not" && p.pos+1 < len(p.toks) && (p.toks[p.pos+1] == "like" || p.toks[p.pos+1] == "ilike") {
		p.next()
		op := map[string]string{"like": "!~~", "ilike": "!~~*"}[p.next()]
		r, err := p.concat()
		if err != nil {
			return nil, err
		}
		return call(op, l, r)
	}
	if op, ok := cmpOps[p.peek()]; ok {
		p.next()
		r, err := p.concat()
		if err != nil {
			return nil, err
		}
		return call(op, l, r)
	}
	return l, nil
}

func (p *tparser) concat() (planner.Expr, error) {
	l, err := p.add()
	if err != nil {
		return nil, err
	}
	for {
		op := p.peek()
		fn := map[string]string{"||": "||", "->": "pg_json_get", "->>": "pg_json_get_text", "#>": "pg_json_path", "#>>": "pg_json_path_text"}[op]
		if fn == "" {
			return l, nil
		}
		p.next()
		r, err := p.add()
		if err != nil {
			return nil, err
		}
		if l, err = call(fn, l, r); err != nil {
			return nil, err
		}
	}
}

func (p *tparser) add() (planner.Expr, error) {
	l, err := p.mul()
	if err != nil {
		return nil, err
	}
	for p.peek() == "+" || p.peek() == "-" {
		op := p.next()
		r, err := p.mul()
		if err != nil {
			return nil, err
		}
		if l, err = call(op, l, r); err != nil {
			return nil, err
		}
	}
	return l, nil
}

func (p *tparser) mul() (planner.Expr, error) {
	l, err := p.pow()
	if err != nil {
		return nil, err
	}
	for p.peek() == "*" || p.peek() == "/" || p.peek() == "%" {
		op := p.next()
		r, err := p.pow()
		if err != nil {
			return nil, err
		}
		if l, err = call(op, l, r); err != nil {
			return nil, err
		}
	}
	return l, nil
}

func (p *tparser) pow() (planner.Expr, error) {
	l, err := p.unary()
	if err != nil {
		return nil, err
	}
	for p.peek() == "^" {
		p.next()
		r, err := p.unary()
		if err != nil {
			return nil, err
		}
		if l, err = call("^", l, r); err != nil {
			return nil, err
		}
	}
	return l, nil
}

func (p *tparser) unary() (planner.Expr, error) {
	if p.peek() == "-" {
		p.next()
		a, err := p.unary()
		if err != nil {
			return nil, err
		}
		if c, ok := a.(*planner.Const); ok && c.T.IsNumeric() {
			// Negative literals are constants in Postgres.
			switch c.T.Family() {
			case types.FamInt:
				if -c.V.I == int64(int32(-c.V.I)) {
					return &planner.Const{V: types.DInt(-c.V.I), T: types.TInt4}, nil
				}
				return &planner.Const{V: types.DInt(-c.V.I), T: c.T}, nil
			case types.FamDecimal:
				return &planner.Const{V: types.DDecimal(new(apd.Decimal).Neg(c.V.D)), T: c.T}, nil
			case types.FamFloat:
				return &planner.Const{V: types.DFloat(-c.V.F), T: c.T}, nil
			}
		}
		return call("neg", a)
	}
	return p.postfix()
}

var typeNames = map[string]types.T{
	"int2": types.TInt2, "smallint": types.TInt2, "int": types.TInt4, "int4": types.TInt4, "integer": types.TInt4,
	"int8": types.TInt8, "bigint": types.TInt8, "float4": types.TFloat4, "real": types.TFloat4,
	"float8": types.TFloat8, "numeric": types.TNumeric, "text": types.TText, "varchar": types.TVarchar,
	"bool": types.TBool, "boolean": types.TBool, "date": types.TDate, "time": types.TTime,
	"timestamp": types.TTimestamp, "timestamptz": types.TTimestamptz, "interval": types.TInterval,
	"bytea": types.TBytea, "jsonb": types.TJsonb, "oid": types.TOid, "name": types.TName,
}

func (p *tparser) postfix() (planner.Expr, error) {
	e, err := p.primary()
	if err != nil {
		return nil, err
	}
	for p.peek() == "::" {
		p.next()
		tn := p.next()
		t, ok := typeNames[tn]
		if ok && p.peek() == "[" {
			p.next()
			p.next()
			t, ok = types.ArrayOf(t)
		}
		if !ok {
			return nil, fmt.Errorf("unknown type %q", tn)
		}
		// A modifier: numeric(p,s) or varchar(n), in pg_attribute.atttypmod
		// encoding (VARHDRSZ = 4 added).
		if p.peek() == "(" {
			p.next()
			var mods []int32
			for {
				v, err := strconv.Atoi(p.next())
				if err != nil {
					return nil, fmt.Errorf("bad type modifier: %v", err)
				}
				mods = append(mods, int32(v))
				if p.peek() != "," {
					break
				}
				p.next()
			}
			if err := p.expect(")"); err != nil {
				return nil, err
			}
			switch {
			case t.ID == types.Numeric && len(mods) == 2:
				t.Mod = mods[0]<<16 | mods[1] + 4
			case t.ID == types.Numeric && len(mods) == 1:
				t.Mod = mods[0]<<16 + 4
			case t.ID == types.Varchar && len(mods) == 1:
				t.Mod = mods[0] + 4
			default:
				return nil, fmt.Errorf("unsupported type modifier for %s", tn)
			}
		}
		if e, err = castTo(e, t); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// castTo casts e to t; unknown literals are parsed at bind time.
func castTo(e planner.Expr, t types.T) (planner.Expr, error) {
	if c, ok := e.(*planner.Const); ok && c.T.ID == types.Unknown {
		if c.V.Null {
			return &planner.Const{V: types.NullDatum, T: t}, nil
		}
		d, err := types.ParseText(c.V.S, t, time.UTC)
		if err != nil {
			return nil, err
		}
		return &planner.Const{V: d, T: t}, nil
	}
	return &planner.Cast{Arg: e, T: t}, nil
}

func (p *tparser) primary() (planner.Expr, error) {
	t := p.next()
	switch {
	case t == "":
		return nil, fmt.Errorf("unexpected end")
	case t == "(":
		e, err := p.or()
		if err != nil {
			return nil, err
		}
		return e, p.expect(")")
	case t[0] == '\'':
		return &planner.Const{V: types.DString(t[1:]), T: types.TUnknown}, nil
	case t[0] >= '0' && t[0] <= '9' || t[0] == '.':
		if strings.ContainsAny(t, ".e") {
			d, _, err := apd.NewFromString(t)
			return &planner.Const{V: types.DDecimal(d), T: types.TNumeric}, err
		}
		n, err := strconv.ParseInt(t, 10, 64)
		if err != nil {
			d, _, err := apd.NewFromString(t)
			return &planner.Const{V: types.DDecimal(d), T: types.TNumeric}, err
		}
		if n == int64(int32(n)) {
			return &planner.Const{V: types.DInt(n), T: types.TInt4}, nil
		}
		return &planner.Const{V: types.DInt(n), T: types.TInt8}, nil
	case t == "null":
		return &planner.Const{V: types.NullDatum, T: types.TUnknown}, nil
	case t == "true" || t == "false":
		return &planner.Const{V: types.DBool(t == "true"), T: types.TBool}, nil
	case t == "case":
		return p.caseExpr()
	}
	if ty, ok := typeNames[t]; ok && strings.HasPrefix(p.peek(), "'") {
		return castTo(&planner.Const{V: types.DString(p.next()[1:]), T: types.TUnknown}, ty)
	}
	if t == "extract" && p.peek() == "(" {
		p.next()
		field := p.next()
		if err := p.expect("from"); err != nil {
			return nil, err
		}
		arg, err := p.or()
		if err != nil {
			return nil, err
		}
		if err := p.expect(")"); err != nil {
			return nil, err
		}
		return call("pg_extract", &planner.Const{V: types.DString(field), T: types.TText}, arg)
	}
	if p.peek() != "(" {
		switch t {
		case "current_user", "session_user", "current_date", "current_timestamp", "localtimestamp":
			return call(t)
		}
		return nil, fmt.Errorf("unexpected %q", t)
	}
	p.next()
	var args []planner.Expr
	for p.peek() != ")" {
		e, err := p.or()
		if err != nil {
			return nil, err
		}
		args = append(args, e)
		if p.peek() == "," {
			p.next()
		}
	}
	p.next()
	switch t {
	case "coalesce":
		args = unify(args)
		return &planner.Coalesce{Args: args, T: args[0].Type()}, nil
	case "concat":
		t = "pg_concat"
	case "greatest", "least":
		args = unify(args)
	}
	return call(t, args...)
}

func (p *tparser) caseExpr() (planner.Expr, error) {
	c := &planner.Case{}
	var results []planner.Expr
	for p.peek() == "when" {
		p.next()
		cond, err := p.or()
		if err != nil {
			return nil, err
		}
		if err := p.expect("then"); err != nil {
			return nil, err
		}
		then, err := p.or()
		if err != nil {
			return nil, err
		}
		c.Whens = append(c.Whens, planner.When{Cond: cond})
		results = append(results, then)
	}
	if p.peek() == "else" {
		p.next()
		e, err := p.or()
		if err != nil {
			return nil, err
		}
		results = append(results, e)
	}
	if err := p.expect("end"); err != nil {
		return nil, err
	}
	results = unify(results)
	for i := range c.Whens {
		c.Whens[i].Then = results[i]
	}
	if len(results) > len(c.Whens) {
		c.Else = results[len(c.Whens)]
	}
	c.T = results[0].Type()
	return c, nil
}

// unify casts expressions to the first non-unknown type among them.
func unify(es []planner.Expr) []planner.Expr {
	t := types.TText
	for _, e := range es {
		if e.Type().ID != types.Unknown {
			t = e.Type()
			break
		}
	}
	for i, e := range es {
		if e.Type().ID != t.ID {
			es[i], _ = castTo(e, t)
		}
	}
	return es
}

// implicitRank orders the numeric types along Postgres's implicit casts.
var implicitRank = map[types.TypeID]int{types.Int2: 1, types.Int4: 2, types.Int8: 3, types.Numeric: 4, types.Float4: 5, types.Float8: 6}

// resolve picks the overload of name for args with simplified Postgres
// rules and returns it with the coerced arguments.
func resolve(name string, args []planner.Expr) (*planner.Overload, []planner.Expr, error) {
	var best *planner.Overload
	bestCost := 1 << 30
	for _, o := range planner.Overloads(name) {
		if o.Kind != planner.Scalar {
			continue
		}
		if len(args) != len(o.Args) && !(o.Variadic && len(args) >= len(o.Args)-1) {
			continue
		}
		cost := 0
		for i, a := range args {
			slot := o.Args[min(i, len(o.Args)-1)]
			at := a.Type().ID
			switch {
			case o.Polymorphic && slot != at:
				cost = 1 << 30 // anyarray || anyelement binds to its arguments' own types
			case o.AnyNonArray && slot == types.Unknown && a.Type().IsArray():
				cost = 1 << 30
			case slot == at:
				cost -= 1000 // prefer the most exact matches
			case slot == types.Unknown:
			case at == types.Unknown:
				cost++
				if slot == types.Text {
					cost-- // prefer the preferred type, as Postgres does
				}
			case at == types.Varchar && slot == types.Text, at == types.Int4 && slot == types.Oid:
				cost++
			case implicitRank[at] > 0 && slot == types.Float8:
				cost += 5 // float8 is the numeric category's preferred type
			case implicitRank[at] > 0 && implicitRank[slot] > implicitRank[at]:
				cost += 10 * (implicitRank[slot] - implicitRank[at])
			case at == types.Date && (slot == types.Timestamp || slot == types.Timestamptz):
				cost += 20
			default:
				cost = 1 << 30
			}
		}
		if cost < bestCost {
			best, bestCost = o, cost
		}
	}
	if best == nil || bestCost >= 1<<30 {
		return nil, nil, fmt.Errorf("no overload %s for %d args", name, len(args))
	}
	out := make([]planner.Expr, len(args))
	for i, a := range args {
		slot := best.Args[min(i, len(best.Args)-1)]
		switch {
		case slot == types.Unknown:
			out[i] = finalize(a)
		case slot != a.Type().ID:
			var err error
			if out[i], err = castTo(a, types.T{ID: slot, Mod: -1}); err != nil {
				return nil, nil, err
			}
		default:
			out[i] = a
		}
	}
	return best, out, nil
}

func call(name string, args ...planner.Expr) (planner.Expr, error) {
	o, args, err := resolve(name, args)
	if err != nil {
		return nil, err
	}
	ts := make([]types.T, len(args))
	for i, a := range args {
		ts[i] = a.Type()
	}
	return &planner.Call{Fn: name, Args: args, T: o.Result(ts)}, nil
}
