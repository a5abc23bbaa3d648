package types

import (
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/weirdb/weir/internal/pgerr"
)

// The SQL/JSON path language (PostgreSQL 15 docs §9.16.2): a jsonpath
// Datum holds the canonical text ParseJSONPath's result prints, which is
// PostgreSQL's jsonpath_out; package functions parses it again to
// evaluate it.

// JPKind is the kind of a jsonpath item.
type JPKind uint8

// The jsonpath item kinds, in PostgreSQL's JsonPathItemType order.
const (
	JPNull JPKind = iota
	JPString
	JPNumeric
	JPBool
	JPAnd
	JPOr
	JPNot
	JPIsUnknown
	JPEqual
	JPNotEqual
	JPLess
	JPGreater
	JPLessOrEqual
	JPGreaterOrEqual
	JPAdd
	JPSub
	JPMul
	JPDiv
	JPMod
	JPPlus
	JPMinus
	JPAnyArray
	JPAnyKey
	JPIndexArray
	JPAny
	JPKey
	JPCurrent
	JPRoot
	JPVariable
	JPFilter
	JPExists
	JPType
	JPSize
	JPAbs
	JPFloor
	JPCeiling
	JPDouble
	JPDatetime
	JPKeyValue
	JPSubscript
	JPLast
	JPStartsWith
	JPLikeRegex
)

// JPAnyLast is the level bound "last" of .** (PG_UINT32_MAX).
const JPAnyLast = ^uint32(0)

// JPItem is one item of a jsonpath: a primary, an operator over its
// operands, or an accessor; Next is the accessor applied to its results.
type JPItem struct {
	Kind        JPKind
	Left, Right *JPItem // operands; Left is the only one of a unary item, a filter's predicate, exists's path
	Str         string  // key, string literal, variable name, like_regex pattern, datetime template
	Num         *apd.Decimal
	Bool        bool
	Flags       string       // like_regex flags, in PostgreSQL's order (i, s, m, x, q)
	Subs        [][2]*JPItem // subscripts of [...]: from and (for a range) to
	First, Last uint32       // levels of .**
	HasTemplate bool
	Next        *JPItem
}

// JSONPath is a parsed jsonpath: its mode and its expression.
type JSONPath struct {
	Strict bool
	Expr   *JPItem
}

// ParseJSONPath parses the jsonpath input s (jsonpath_in).
func ParseJSONPath(s string) (*JSONPath, error) {
	if strings.TrimLeft(s, " \t\n\r\f") == "" {
		return nil, pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type jsonpath: \"%s\"", s)
	}
	p := &jpParser{src: s}
	if err := p.lex(); err != nil {
		return nil, err
	}
	jp := &JSONPath{}
	if p.peek().isWord("strict") {
		jp.Strict = true
		p.pos++
	} else if p.peek().isWord("lax") {
		p.pos++
	}
	e, err := p.exprOrPred()
	if err != nil {
		return nil, err
	}
	if p.peek().kind != jtEOF {
		return nil, p.syntaxError()
	}
	if err := checkJPRoot(e, false, false, 0); err != nil {
		return nil, err
	}
	jp.Expr = e
	return jp, nil
}

// checkJPRoot refuses @ outside a filter and last outside a subscript,
// and a path deeper than maxJPDepth; depth is how deep it is.
func checkJPRoot(it *JPItem, inFilter, inSub bool, depth int) error {
	for ; it != nil; it = it.Next {
		if depth++; depth > maxJPDepth {
			return pgerr.New(pgerr.StatementTooComplex, "stack depth limit exceeded")
		}
		switch it.Kind {
		case JPCurrent:
			if !inFilter {
				return pgerr.New(pgerr.SyntaxError, "@ is not allowed in root expressions")
			}
		case JPLast:
			if !inSub {
				return pgerr.New(pgerr.SyntaxError, "LAST is allowed only in array subscripts")
			}
		case JPFilter:
			if err := checkJPRoot(it.Left, true, inSub, depth); err != nil {
				return err
			}
			continue
		case JPIndexArray:
			for _, s := range it.Subs {
				for _, e := range s {
					if err := checkJPRoot(e, inFilter, true, depth); err != nil {
						return err
					}
				}
			}
			continue
		}
		if err := checkJPRoot(it.Left, inFilter, inSub, depth); err != nil {
			return err
		}
		if err := checkJPRoot(it.Right, inFilter, inSub, depth); err != nil {
			return err
		}
	}
	return nil
}

// CanonicalJSONPath returns jsonpath_out's text of the jsonpath input s.
func CanonicalJSONPath(s string) (string, error) {
	jp, err := ParseJSONPath(s)
	if err != nil {
		return "", err
	}
	return jp.String(), nil
}

type jtKind uint8

const (
	jtEOF jtKind = iota
	jtOp
	jtIdent
	jtString
	jtNumber
	jtInt
	jtVar
)

type jtok struct {
	kind jtKind
	val  string // operator text, identifier, string value, number text, variable name
	// errText is what a syntax error at this token quotes ("" for the
	// end of the input), as PostgreSQL's scanner leaves yytext.
	errText string
}

func (t jtok) isOp(s string) bool   { return t.kind == jtOp && t.val == s }
func (t jtok) isWord(s string) bool { return t.kind == jtIdent && t.val == s }

type jpParser struct {
	src  string
	toks []jtok
	pos  int
	// depth counts the calls of unary active, through which every
	// recursion of the grammar goes (a parenthesis, a sign, a filter, a
	// subscript, NOT): see maxJPNesting.
	depth int
}

// maxJPNesting is how deep the parser recurses before it refuses the
// input as PostgreSQL's does, whose Bison stack holds 10,000 states: a
// path nested a million deep overflowed the Go stack, which is fatal to
// the whole server.
const maxJPNesting = 10_000

// maxJPDepth is the most items the evaluator, the printer and the
// checks nest on the Go stack for one path: its items chained one after
// the other (.a.b.c) and those below them (the operands of 1 + 1 + ...).
// Deeper paths are refused with 54001, as PostgreSQL's check_stack_depth
// refuses them (it takes 10,000 accessors and refuses 20,000).
const maxJPDepth = 16_384

func (p *jpParser) peek() jtok { return p.toks[p.pos] }
func (p *jpParser) at(i int) jtok {
	if p.pos+i < len(p.toks) {
		return p.toks[p.pos+i]
	}
	return p.toks[len(p.toks)-1]
}

// nestingError is PostgreSQL's error when its parser's stack is full.
func (p *jpParser) nestingError() error {
	t := p.peek()
	if t.errText == "" {
		return pgerr.New(pgerr.SyntaxError, "memory exhausted at end of jsonpath input")
	}
	return pgerr.New(pgerr.SyntaxError, "memory exhausted at or near \"%s\" of jsonpath input", t.errText)
}

func (p *jpParser) syntaxError() error {
	t := p.peek()
	if t.errText == "" {
		return pgerr.New(pgerr.SyntaxError, "syntax error at end of jsonpath input")
	}
	return pgerr.New(pgerr.SyntaxError, "syntax error at or near \"%s\" of jsonpath input", t.errText)
}

// isJPOther reports whether c may be part of an unquoted identifier.
func isJPOther(c byte) bool {
	return !strings.ContainsRune("?%$.[]{}()|&!=<>@#,*:-+/\\\" \t\n\r\f", rune(c))
}

func isJPBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

// lex splits p.src into tokens.
func (p *jpParser) lex() error {
	s := p.src
	i := 0
	// after is what the scanner's yytext is once a token that ends at
	// the first character it does not take (an identifier) is read.
	after := func(j int) string {
		if j >= len(s) {
			return ""
		}
		if isJPBlank(s[j]) {
			k := j
			for k < len(s) && isJPBlank(s[k]) {
				k++
			}
			return s[j:k]
		}
		// The scanner gives back the special character ending the word
		// (yyless(0)), leaving yytext empty: "at end of jsonpath input".
		return ""
	}
	for {
		for i < len(s) && isJPBlank(s[i]) {
			i++
		}
		if i >= len(s) {
			p.toks = append(p.toks, jtok{kind: jtEOF})
			return nil
		}
		c := s[i]
		switch {
		case c == '"':
			v, j, err := jpString(s, i+1)
			if err != nil {
				return err
			}
			p.toks = append(p.toks, jtok{kind: jtString, val: v, errText: "\""})
			i = j
		case c == '$':
			j := i + 1
			if j < len(s) && s[j] == '"' {
				v, k, err := jpString(s, j+1)
				if err != nil {
					return err
				}
				p.toks = append(p.toks, jtok{kind: jtVar, val: v, errText: "\""})
				i = k
			} else if j < len(s) && isJPOther(s[j]) {
				k := j
				for k < len(s) && isJPOther(s[k]) {
					k++
				}
				p.toks = append(p.toks, jtok{kind: jtVar, val: s[j:k], errText: s[i:k]})
				i = k
			} else {
				p.toks = append(p.toks, jtok{kind: jtOp, val: "$", errText: "$"})
				i = j
			}
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' && (len(p.toks) == 0 || !p.toks[len(p.toks)-1].isOp("$") && p.toks[len(p.toks)-1].kind != jtIdent):
			j, kind, err := jpNumber(s, i)
			if err != nil {
				return err
			}
			p.toks = append(p.toks, jtok{kind: kind, val: s[i:j], errText: s[i:j]})
			i = j
		case isJPOther(c):
			j := i
			for j < len(s) && isJPOther(s[j]) {
				j++
			}
			p.toks = append(p.toks, jtok{kind: jtIdent, val: s[i:j], errText: after(j)})
			i = j
		default:
			op := s[i : i+1]
			if i+1 < len(s) {
				switch two := s[i : i+2]; two {
				case "==", "!=", "<>", "<=", ">=", "&&", "||", "**":
					op = two
				}
			}
			p.toks = append(p.toks, jtok{kind: jtOp, val: op, errText: op})
			i += len(op)
		}
	}
}

// jpNumber scans a numeric literal at s[i:], refusing trailing junk.
func jpNumber(s string, i int) (int, jtKind, error) {
	j := i
	digits := func() {
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
	}
	start := j
	digits()
	kind := jtInt
	intEnd := j
	if j < len(s) && s[j] == '.' && j+1 < len(s) && s[j+1] >= '0' && s[j+1] <= '9' {
		j++
		digits()
		kind = jtNumber
	}
	junk := func(k int) (int, jtKind, error) {
		for k < len(s) && (isJPOther(s[k]) || s[k] == '.') {
			k++
		}
		return 0, 0, pgerr.New(pgerr.SyntaxError, "trailing junk after numeric literal at or near \"%s\" of jsonpath input", s[i:k])
	}
	if intEnd-start > 1 && s[start] == '0' {
		return junk(start + 1)
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k >= len(s) || s[k] < '0' || s[k] > '9' {
			return junk(j)
		}
		j = k
		digits()
		kind = jtNumber
	}
	if j < len(s) && isJPOther(s[j]) {
		return junk(j)
	}
	if kind == jtInt && j < len(s) && s[j] == '.' {
		if j+1 < len(s) && isJPOther(s[j+1]) {
			return junk(j)
		}
		if j+1 >= len(s) || s[j+1] != '.' {
			// "1." is the number 1.
			return j + 1, kind, nil
		}
	}
	return j, kind, nil
}

// jpString scans a double-quoted string whose body starts at s[i:].
func jpString(s string, i int) (string, int, error) {
	var b strings.Builder
	for i < len(s) {
		c := s[i]
		switch c {
		case '"':
			return b.String(), i + 1, nil
		case '\\':
			if i+1 >= len(s) {
				return "", 0, pgerr.New(pgerr.SyntaxError, "unexpected end after backslash at end of jsonpath input")
			}
			e := s[i+1]
			i += 2
			switch e {
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'v':
				b.WriteByte('\v')
			case 'x':
				n, k := 0, i
				for k < len(s) && k < i+2 && jpIsHex(s[k]) {
					n = n*16 + jpHexVal(s[k])
					k++
				}
				if k == i {
					return "", 0, pgerr.New(pgerr.SyntaxError, "invalid hex character sequence at or near \"\\x\" of jsonpath input")
				}
				b.WriteRune(rune(n))
				i = k
			case 'u':
				r, k, err := jpUnicode(s, i)
				if err != nil {
					return "", 0, err
				}
				if r >= 0xD800 && r <= 0xDBFF && k+1 < len(s) && s[k] == '\\' && s[k+1] == 'u' {
					if r2, k2, err := jpUnicode(s, k+2); err == nil && r2 >= 0xDC00 && r2 <= 0xDFFF {
						r = (r-0xD800)<<10 + (r2 - 0xDC00) + 0x10000
						k = k2
					}
				}
				if r == 0 {
					return "", 0, pgerr.New(pgerr.UntranslatableCharacter, "unsupported Unicode escape sequence")
				}
				b.WriteRune(r)
				i = k
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
			i++
		}
	}
	return "", 0, pgerr.New(pgerr.SyntaxError, "unexpected end of quoted string at end of jsonpath input")
}

func jpIsHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func jpHexVal(c byte) int {
	switch {
	case c >= 'a':
		return int(c-'a') + 10
	case c >= 'A':
		return int(c-'A') + 10
	}
	return int(c - '0')
}

// jpUnicode reads the XXXX or {X...} of a \u escape at s[i:].
func jpUnicode(s string, i int) (rune, int, error) {
	bad := pgerr.New(pgerr.SyntaxError, "invalid unicode sequence at or near \"\\u\" of jsonpath input")
	if i < len(s) && s[i] == '{' {
		k, n := i+1, 0
		for k < len(s) && jpIsHex(s[k]) && k < i+7 {
			n = n*16 + jpHexVal(s[k])
			k++
		}
		if k == i+1 || k >= len(s) || s[k] != '}' {
			return 0, 0, bad
		}
		return rune(n), k + 1, nil
	}
	if i+4 > len(s) {
		return 0, 0, bad
	}
	n := 0
	for k := i; k < i+4; k++ {
		if !jpIsHex(s[k]) {
			return 0, 0, bad
		}
		n = n*16 + jpHexVal(s[k])
	}
	return rune(n), i + 4, nil
}

// The grammar (PostgreSQL's jsonpath_gram.y), by precedence climbing:
// || < && < ! < comparisons < + - < * / % < unary.

func (p *jpParser) exprOrPred() (*JPItem, error) { return p.or() }

func (p *jpParser) or() (*JPItem, error) { return p.logical("||", JPOr, p.and) }

func (p *jpParser) and() (*JPItem, error) { return p.logical("&&", JPAnd, p.not) }

// logical parses a left-associative chain of operands joined by op
// (|| or &&) into items of kind k; both sides of each must be
// predicates.
func (p *jpParser) logical(op string, k JPKind, operand func() (*JPItem, error)) (*JPItem, error) {
	l, err := operand()
	if err != nil {
		return nil, err
	}
	for p.peek().isOp(op) {
		if !jpIsPredicate(l) {
			return nil, p.syntaxError()
		}
		p.pos++
		r, err := operand()
		if err != nil {
			return nil, err
		}
		if !jpIsPredicate(r) {
			return nil, p.syntaxError()
		}
		l = &JPItem{Kind: k, Left: l, Right: r}
	}
	return l, nil
}

func (p *jpParser) not() (*JPItem, error) {
	if p.peek().isOp("!") {
		p.pos++
		// NOT takes a delimited predicate: ( predicate ) or exists ( ... ).
		if !p.peek().isOp("(") && !(p.peek().isWord("exists") && p.at(1).isOp("(")) {
			return nil, p.syntaxError()
		}
		a, err := p.comparison()
		if err != nil {
			return nil, err
		}
		return &JPItem{Kind: JPNot, Left: a}, nil
	}
	return p.comparison()
}

var jpCompOps = map[string]JPKind{"==": JPEqual, "!=": JPNotEqual, "<>": JPNotEqual, "<": JPLess,
	">": JPGreater, "<=": JPLessOrEqual, ">=": JPGreaterOrEqual}

func (p *jpParser) comparison() (*JPItem, error) {
	l, err := p.additive()
	if err != nil {
		return nil, err
	}
	t := p.peek()
	if k, ok := jpCompOps[t.val]; ok && t.kind == jtOp {
		p.pos++
		r, err := p.additive()
		if err != nil {
			return nil, err
		}
		return &JPItem{Kind: k, Left: l, Right: r}, nil
	}
	if t.isWord("starts") && !p.at(1).isWord("with") {
		// The keyword is taken; the token after it is the error.
		p.pos++
		return nil, p.syntaxError()
	}
	if t.isWord("starts") && p.at(1).isWord("with") {
		p.pos += 2
		r := p.peek()
		switch r.kind {
		case jtString:
			p.pos++
			return &JPItem{Kind: JPStartsWith, Left: l, Right: &JPItem{Kind: JPString, Str: r.val}}, nil
		case jtVar:
			p.pos++
			return &JPItem{Kind: JPStartsWith, Left: l, Right: &JPItem{Kind: JPVariable, Str: r.val}}, nil
		}
		return nil, p.syntaxError()
	}
	if t.isWord("like_regex") {
		p.pos++
		if p.peek().kind != jtString {
			return nil, p.syntaxError()
		}
		it := &JPItem{Kind: JPLikeRegex, Left: l, Str: p.peek().val}
		p.pos++
		if p.peek().isWord("flag") {
			p.pos++
			if p.peek().kind != jtString {
				return nil, p.syntaxError()
			}
			f := p.peek().val
			p.pos++
			var has [5]bool
			for _, c := range f {
				i := strings.IndexRune("ismxq", c)
				if i < 0 {
					return nil, pgerr.New(pgerr.SyntaxError, "invalid input syntax for type jsonpath").
						WithDetail("Unrecognized flag character \"%c\" in LIKE_REGEX predicate.", c)
				}
				has[i] = true
			}
			if has[3] {
				return nil, pgerr.New(pgerr.FeatureNotSupported, "XQuery \"x\" flag (expanded regular expressions) is not implemented")
			}
			for i, c := range "ismxq" {
				if has[i] {
					it.Flags += string(c)
				}
			}
		}
		return it, nil
	}
	return l, nil
}

func (p *jpParser) additive() (*JPItem, error) {
	l, err := p.multiplicative()
	if err != nil {
		return nil, err
	}
	for p.peek().isOp("+") || p.peek().isOp("-") {
		k := JPAdd
		if p.peek().val == "-" {
			k = JPSub
		}
		p.pos++
		r, err := p.multiplicative()
		if err != nil {
			return nil, err
		}
		l = &JPItem{Kind: k, Left: l, Right: r}
	}
	return l, nil
}

func (p *jpParser) multiplicative() (*JPItem, error) {
	l, err := p.unary()
	if err != nil {
		return nil, err
	}
	for p.peek().isOp("*") || p.peek().isOp("/") || p.peek().isOp("%") {
		k := map[string]JPKind{"*": JPMul, "/": JPDiv, "%": JPMod}[p.peek().val]
		p.pos++
		r, err := p.unary()
		if err != nil {
			return nil, err
		}
		l = &JPItem{Kind: k, Left: l, Right: r}
	}
	return l, nil
}

func (p *jpParser) unary() (*JPItem, error) {
	if p.depth++; p.depth > maxJPNesting {
		return nil, p.nestingError()
	}
	defer func() { p.depth-- }()
	if p.peek().isOp("+") || p.peek().isOp("-") {
		minus := p.peek().val == "-"
		p.pos++
		a, err := p.unary()
		if err != nil {
			return nil, err
		}
		// makeItemUnary folds a sign into a numeric literal.
		if a.Kind == JPNumeric && a.Next == nil {
			if minus {
				n := new(apd.Decimal).Neg(a.Num)
				a.Num = n
			}
			return a, nil
		}
		k := JPPlus
		if minus {
			k = JPMinus
		}
		return &JPItem{Kind: k, Left: a}, nil
	}
	return p.accessorExpr()
}

func (p *jpParser) accessorExpr() (*JPItem, error) {
	var head *JPItem
	t := p.peek()
	switch {
	case t.isOp("("):
		p.pos++
		e, err := p.exprOrPred()
		if err != nil {
			return nil, err
		}
		if !p.peek().isOp(")") {
			return nil, p.syntaxError()
		}
		p.pos++
		if p.peek().isWord("is") && p.at(1).isWord("unknown") {
			p.pos += 2
			e = &JPItem{Kind: JPIsUnknown, Left: e}
		}
		// Accessors after a parenthesised expression apply to its
		// results: they join its chain.
		return p.accessors(e)
	case t.isOp("$"):
		head = &JPItem{Kind: JPRoot}
	case t.isOp("@"):
		head = &JPItem{Kind: JPCurrent}
	case t.kind == jtVar:
		head = &JPItem{Kind: JPVariable, Str: t.val}
	case t.kind == jtString:
		head = &JPItem{Kind: JPString, Str: t.val}
	case t.kind == jtInt || t.kind == jtNumber:
		d, _, err := apd.NewFromString(t.val)
		if err != nil {
			return nil, p.syntaxError()
		}
		head = &JPItem{Kind: JPNumeric, Num: d}
	case t.isWord("null"):
		head = &JPItem{Kind: JPNull}
	case t.isWord("true"), t.isWord("false"):
		head = &JPItem{Kind: JPBool, Bool: t.val == "true"}
	case t.isWord("last"):
		head = &JPItem{Kind: JPLast}
	case t.isWord("exists") && p.at(1).isOp("("):
		p.pos += 2
		e, err := p.exprOrPred()
		if err != nil {
			return nil, err
		}
		if !p.peek().isOp(")") {
			return nil, p.syntaxError()
		}
		p.pos++
		return &JPItem{Kind: JPExists, Left: e}, nil
	case t.isWord("exists"):
		// The keyword is taken; the token after it is the error.
		p.pos++
		return nil, p.syntaxError()
	default:
		return nil, p.syntaxError()
	}
	p.pos++
	return p.accessors(head)
}

func jpIsPredicate(e *JPItem) bool {
	switch e.Kind {
	case JPAnd, JPOr, JPNot, JPIsUnknown, JPEqual, JPNotEqual, JPLess, JPGreater, JPLessOrEqual,
		JPGreaterOrEqual, JPStartsWith, JPLikeRegex, JPExists:
		return true
	}
	return false
}

var jpMethods = map[string]JPKind{"type": JPType, "size": JPSize, "abs": JPAbs, "floor": JPFloor,
	"ceiling": JPCeiling, "double": JPDouble, "keyvalue": JPKeyValue, "datetime": JPDatetime}

// accessors parses the accessor operators following head and appends
// them to head's chain.
func (p *jpParser) accessors(head *JPItem) (*JPItem, error) {
	tail := head
	for tail.Next != nil {
		tail = tail.Next
	}
	add := func(it *JPItem) { tail.Next = it; tail = it }
	for {
		t := p.peek()
		switch {
		case t.isOp("."):
			p.pos++
			n := p.peek()
			switch {
			case n.isOp("*"):
				p.pos++
				add(&JPItem{Kind: JPAnyKey})
			case n.isOp("**"):
				p.pos++
				it := &JPItem{Kind: JPAny, First: 0, Last: JPAnyLast}
				if p.peek().isOp("{") {
					p.pos++
					f, err := p.anyLevel()
					if err != nil {
						return nil, err
					}
					it.First, it.Last = f, f
					if p.peek().isWord("to") {
						p.pos++
						if it.Last, err = p.anyLevel(); err != nil {
							return nil, err
						}
					}
					if !p.peek().isOp("}") {
						return nil, p.syntaxError()
					}
					p.pos++
				}
				add(it)
			case n.kind == jtString:
				p.pos++
				add(&JPItem{Kind: JPKey, Str: n.val})
			case n.kind == jtIdent:
				p.pos++
				if p.peek().isOp("(") {
					k, ok := jpMethods[n.val]
					if !ok {
						return nil, p.syntaxError()
					}
					p.pos++
					it := &JPItem{Kind: k}
					if k == JPDatetime && p.peek().kind == jtString {
						it.Str, it.HasTemplate = p.peek().val, true
						p.pos++
					}
					if !p.peek().isOp(")") {
						return nil, p.syntaxError()
					}
					p.pos++
					add(it)
				} else {
					add(&JPItem{Kind: JPKey, Str: n.val})
				}
			default:
				return nil, p.syntaxError()
			}
		case t.isOp("["):
			p.pos++
			if p.peek().isOp("*") {
				if !p.at(1).isOp("]") {
					p.pos++
					return nil, p.syntaxError()
				}
				p.pos += 2
				add(&JPItem{Kind: JPAnyArray})
				continue
			}
			it := &JPItem{Kind: JPIndexArray}
			for {
				f, err := p.additive()
				if err != nil {
					return nil, err
				}
				var sub [2]*JPItem
				sub[0] = f
				if p.peek().isWord("to") {
					p.pos++
					if sub[1], err = p.additive(); err != nil {
						return nil, err
					}
				}
				it.Subs = append(it.Subs, sub)
				if p.peek().isOp(",") {
					p.pos++
					continue
				}
				if !p.peek().isOp("]") {
					return nil, p.syntaxError()
				}
				p.pos++
				break
			}
			add(it)
		case t.isOp("?"):
			p.pos++
			if !p.peek().isOp("(") {
				return nil, p.syntaxError()
			}
			p.pos++
			e, err := p.exprOrPred()
			if err != nil {
				return nil, err
			}
			if !p.peek().isOp(")") || !jpIsPredicate(e) {
				return nil, p.syntaxError()
			}
			p.pos++
			add(&JPItem{Kind: JPFilter, Left: e})
		default:
			return head, nil
		}
	}
}

func (p *jpParser) anyLevel() (uint32, error) {
	t := p.peek()
	if t.isWord("last") {
		p.pos++
		return JPAnyLast, nil
	}
	if t.kind == jtInt {
		n, err := strconv.ParseUint(t.val, 10, 32)
		if err != nil {
			return 0, p.syntaxError()
		}
		p.pos++
		return uint32(n), nil
	}
	return 0, p.syntaxError()
}

// String returns jsonpath_out's text of jp.
func (jp *JSONPath) String() string {
	var b strings.Builder
	if jp.Strict {
		b.WriteString("strict ")
	}
	printJP(&b, jp.Expr, false, true)
	return b.String()
}

func jpPriority(k JPKind) int {
	switch k {
	case JPOr:
		return 0
	case JPAnd:
		return 1
	case JPEqual, JPNotEqual, JPLess, JPGreater, JPLessOrEqual, JPGreaterOrEqual, JPStartsWith:
		return 2
	case JPAdd, JPSub:
		return 3
	case JPMul, JPDiv, JPMod:
		return 4
	case JPPlus, JPMinus:
		return 5
	}
	return 6
}

var jpOpNames = map[JPKind]string{JPAnd: "&&", JPOr: "||", JPEqual: "==", JPNotEqual: "!=", JPLess: "<",
	JPGreater: ">", JPLessOrEqual: "<=", JPGreaterOrEqual: ">=", JPAdd: "+", JPSub: "-", JPMul: "*",
	JPDiv: "/", JPMod: "%", JPStartsWith: "starts with"}

// printJP is PostgreSQL's printJsonPathItem, except that an operator
// followed by accessors is always parenthesised: PostgreSQL 15 prints
// $ ? ((@ + 1).abs() > 1) as $?(@ + 1.abs() > 1), which no longer
// parses, and weir keeps a jsonpath value as its printed text.
func printJP(b *strings.Builder, v *JPItem, inKey, brackets bool) {
	if v.Next != nil {
		brackets = true
	}
	switch v.Kind {
	case JPNull:
		b.WriteString("null")
	case JPString:
		WriteJSONString(b, v.Str)
	case JPNumeric:
		n := v.Num
		if n.IsZero() {
			// -0 prints as 0, and 0e01 as 0 (a zero's positive exponent
			// is no digits, as PostgreSQL's numeric keeps it).
			n = new(apd.Decimal).Abs(n)
			n.Exponent = min(n.Exponent, 0)
		}
		// A number followed by accessors is parenthesised: (1).type().
		if v.Next != nil {
			b.WriteString("(" + n.Text('f') + ")")
		} else {
			b.WriteString(n.Text('f'))
		}
	case JPBool:
		b.WriteString(strconv.FormatBool(v.Bool))
	case JPAnd, JPOr, JPEqual, JPNotEqual, JPLess, JPGreater, JPLessOrEqual, JPGreaterOrEqual,
		JPAdd, JPSub, JPMul, JPDiv, JPMod, JPStartsWith:
		if brackets {
			b.WriteByte('(')
		}
		printJP(b, v.Left, false, jpPriority(v.Left.Kind) <= jpPriority(v.Kind))
		b.WriteString(" " + jpOpNames[v.Kind] + " ")
		printJP(b, v.Right, false, jpPriority(v.Right.Kind) <= jpPriority(v.Kind))
		if brackets {
			b.WriteByte(')')
		}
	case JPLikeRegex:
		if brackets {
			b.WriteByte('(')
		}
		printJP(b, v.Left, false, jpPriority(v.Left.Kind) <= jpPriority(v.Kind))
		b.WriteString(" like_regex ")
		WriteJSONString(b, v.Str)
		if v.Flags != "" {
			b.WriteString(" flag \"" + v.Flags + "\"")
		}
		if brackets {
			b.WriteByte(')')
		}
	case JPPlus, JPMinus:
		if brackets {
			b.WriteByte('(')
		}
		if v.Kind == JPPlus {
			b.WriteByte('+')
		} else {
			b.WriteByte('-')
		}
		printJP(b, v.Left, false, jpPriority(v.Left.Kind) <= jpPriority(v.Kind))
		if brackets {
			b.WriteByte(')')
		}
	case JPFilter:
		b.WriteString("?(")
		printJP(b, v.Left, false, false)
		b.WriteByte(')')
	case JPNot:
		b.WriteString("!(")
		printJP(b, v.Left, false, false)
		b.WriteByte(')')
	case JPIsUnknown:
		b.WriteByte('(')
		printJP(b, v.Left, false, false)
		b.WriteString(") is unknown")
	case JPExists:
		b.WriteString("exists (")
		printJP(b, v.Left, false, false)
		b.WriteByte(')')
	case JPCurrent:
		b.WriteByte('@')
	case JPRoot:
		b.WriteByte('$')
	case JPVariable:
		b.WriteByte('$')
		WriteJSONString(b, v.Str)
	case JPLast:
		b.WriteString("last")
	case JPAnyArray:
		b.WriteString("[*]")
	case JPAnyKey:
		if inKey {
			b.WriteByte('.')
		}
		b.WriteByte('*')
	case JPKey:
		if inKey {
			b.WriteByte('.')
		}
		WriteJSONString(b, v.Str)
	case JPIndexArray:
		b.WriteByte('[')
		for i, s := range v.Subs {
			if i > 0 {
				b.WriteByte(',')
			}
			printJP(b, s[0], false, false)
			if s[1] != nil {
				b.WriteString(" to ")
				printJP(b, s[1], false, false)
			}
		}
		b.WriteByte(']')
	case JPAny:
		if inKey {
			b.WriteByte('.')
		}
		lvl := func(n uint32) string {
			if n == JPAnyLast {
				return "last"
			}
			return strconv.FormatUint(uint64(n), 10)
		}
		switch {
		case v.First == 0 && v.Last == JPAnyLast:
			b.WriteString("**")
		case v.First == v.Last:
			b.WriteString("**{" + lvl(v.First) + "}")
		default:
			b.WriteString("**{" + lvl(v.First) + " to " + lvl(v.Last) + "}")
		}
	case JPType, JPSize, JPAbs, JPFloor, JPCeiling, JPDouble, JPKeyValue, JPDatetime:
		b.WriteString("." + JPMethodName(v.Kind) + "(")
		if v.HasTemplate {
			WriteJSONString(b, v.Str)
		}
		b.WriteByte(')')
	}
	if v.Next != nil {
		printJP(b, v.Next, true, true)
	}
}

// JPMethodName returns the name of an item method kind ("size").
func JPMethodName(k JPKind) string {
	for n, m := range jpMethods {
		if m == k {
			return n
		}
	}
	return "?"
}
