package types

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
	"github.com/weirdb/weir/internal/pgerr"
)

// JSONKind is the kind of a JSON value.
type JSONKind uint8

// JSON value kinds, in Postgres's jsonb btree order from lowest to highest
// (PostgreSQL 15 docs §8.14.4: Object > Array > Boolean > Number > String > Null).
const (
	JSONNull JSONKind = iota
	JSONString
	JSONNumber
	JSONBool
	JSONArray
	JSONObject
)

// JSONValue is a parsed jsonb value. Object pairs are kept as jsonb stores
// them: keys unique (the last duplicate wins) and sorted by length, then
// bytewise.
type JSONValue struct {
	Kind  JSONKind
	Str   string       // JSONString
	Num   *apd.Decimal // JSONNumber, normalised as numeric_in does
	Bool  bool         // JSONBool
	Elems []*JSONValue // JSONArray
	Keys  []string     // JSONObject, sorted
	Vals  []*JSONValue // JSONObject, parallel to Keys
}

// ParseJSONB parses JSON text (RFC 8259, as Postgres's json parser accepts
// it) into a jsonb value. Errors are 22P02 `invalid input syntax for type
// json` with a Postgres-style detail, and 22P05 for \u0000.
func ParseJSONB(s string) (*JSONValue, error) {
	p := &jsonParser{s: s}
	p.skipWS()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skipWS()
	if p.pos < len(s) {
		return nil, p.expected("end of input")
	}
	return v, nil
}

// CanonicalJSONB parses s and returns it as Postgres prints jsonb.
func CanonicalJSONB(s string) (string, error) {
	v, err := ParseJSONB(s)
	if err != nil {
		return "", err
	}
	return v.String(), nil
}

// String prints v as Postgres's jsonb_out does: `{"a": 1, "b": [1, 2]}`.
func (v *JSONValue) String() string {
	var b strings.Builder
	v.write(&b)
	return b.String()
}

func (v *JSONValue) write(b *strings.Builder) {
	switch v.Kind {
	case JSONNull:
		b.WriteString("null")
	case JSONBool:
		if v.Bool {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case JSONNumber:
		b.WriteString(FormatNumeric(v.Num))
	case JSONString:
		WriteJSONString(b, v.Str)
	case JSONArray:
		b.WriteByte('[')
		for i, e := range v.Elems {
			if i > 0 {
				b.WriteString(", ")
			}
			e.write(b)
		}
		b.WriteByte(']')
	case JSONObject:
		b.WriteByte('{')
		for i, k := range v.Keys {
			if i > 0 {
				b.WriteString(", ")
			}
			WriteJSONString(b, k)
			b.WriteString(": ")
			v.Vals[i].write(b)
		}
		b.WriteByte('}')
	}
}

// WriteJSONString writes s as a JSON string literal the way Postgres's
// escape_json does: \" \\ \b \f \n \r \t, other control characters as
// \u00XX, everything else verbatim.
func WriteJSONString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte("0123456789abcdef"[c>>4])
				b.WriteByte("0123456789abcdef"[c&15])
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
}

// jsonKeyLess orders object keys as jsonb stores them: shorter first, then bytewise.
func jsonKeyLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// CompareJSONB orders two jsonb values as Postgres's jsonb btree opclass
// does (compareJsonbContainers): by kind, then arrays and objects by
// element/pair count, then element by element (object key, then value).
func CompareJSONB(a, b *JSONValue) int {
	// A top-level scalar is stored as a one-element raw-scalar array in
	// Postgres; comparing kinds directly gives the same order except for
	// Postgres's quirk that an empty top-level array sorts below every
	// scalar, which we reproduce.
	return compareJSON(a, b, true)
}

func compareJSON(a, b *JSONValue, top bool) int {
	if a.Kind != b.Kind {
		if top {
			aEmpty := a.Kind == JSONArray && len(a.Elems) == 0
			bEmpty := b.Kind == JSONArray && len(b.Elems) == 0
			if aEmpty && b.Kind < JSONArray {
				return -1
			}
			if bEmpty && a.Kind < JSONArray {
				return 1
			}
		}
		return cmpInt(int64(a.Kind), int64(b.Kind))
	}
	switch a.Kind {
	case JSONNull:
		return 0
	case JSONBool:
		return cmpInt(b2i(a.Bool), b2i(b.Bool))
	case JSONNumber:
		return compareDecimal(a.Num, b.Num)
	case JSONString:
		return strings.Compare(a.Str, b.Str)
	case JSONArray:
		if len(a.Elems) != len(b.Elems) {
			return cmpInt(int64(len(a.Elems)), int64(len(b.Elems)))
		}
		for i := range a.Elems {
			if c := compareJSON(a.Elems[i], b.Elems[i], false); c != 0 {
				return c
			}
		}
		return 0
	default:
		if len(a.Keys) != len(b.Keys) {
			return cmpInt(int64(len(a.Keys)), int64(len(b.Keys)))
		}
		for i := range a.Keys {
			// Pairs are visited in storage order, but keys compare as
			// strings (compareJsonbScalarValue), bytewise in C collation.
			if c := strings.Compare(a.Keys[i], b.Keys[i]); c != 0 {
				return c
			}
			if c := compareJSON(a.Vals[i], b.Vals[i], false); c != 0 {
				return c
			}
		}
		return 0
	}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

type jsonParser struct {
	s   string
	pos int
	// text: only checking json text, which may hold \u0000 (it is
	// refused only when a string is converted to text, as in jsonb).
	text bool
}

// ValidateJSON checks that s is valid json input (the json type's
// input function): the errors of ParseJSONB, except that \u0000 is
// accepted, as PostgreSQL's json keeps its text unconverted.
func ValidateJSON(s string) error {
	p := &jsonParser{s: s, text: true}
	p.skipWS()
	if _, err := p.value(0); err != nil {
		return err
	}
	p.skipWS()
	if p.pos < len(s) {
		return p.expected("end of input")
	}
	return nil
}

const maxJSONDepth = 6400

func (p *jsonParser) skipWS() {
	for p.pos < len(p.s) {
		switch p.s[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *jsonParser) syntaxError(detail string, end int) error {
	return pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type json").WithDetail("%s", detail).
		WithWhere("%s", p.context(end))
}

// context is the CONTEXT line of a JSON syntax error, as
// report_json_context (jsonfuncs.c) builds it: the current line from its
// start (or from at most 50 bytes back, after "...") to end, the end of
// the offending token, followed by "..." when input follows on the line.
func (p *jsonParser) context(end int) string {
	end = min(max(end, 0), len(p.s))
	at := min(p.pos, end)
	lineStart := strings.LastIndexByte(p.s[:at], '\n') + 1
	line := 1 + strings.Count(p.s[:lineStart], "\n")
	start := lineStart
	for end-start >= 50 {
		_, size := utf8.DecodeRuneInString(p.s[start:])
		start += size
	}
	if start-lineStart <= 3 {
		start = lineStart
	}
	prefix, suffix := "", ""
	if start > lineStart {
		prefix = "..."
	}
	if end < len(p.s) && p.s[end] != '\n' && p.s[end] != '\r' {
		suffix = "..."
	}
	return fmt.Sprintf("JSON data, line %d: %s%s%s", line, prefix, p.s[start:end], suffix)
}

// tokenError reports the token at the current position as Postgres does:
// `Token "x" is invalid.` or the end of input.
func (p *jsonParser) tokenError() error {
	if p.pos >= len(p.s) {
		return p.syntaxError("The input string ended unexpectedly.", len(p.s))
	}
	end := p.pos + 1
	for end < len(p.s) && isJSONTokenChar(p.s[end]) && isJSONTokenChar(p.s[p.pos]) {
		end++
	}
	return p.syntaxError("Token \""+p.s[p.pos:end]+"\" is invalid.", end)
}

// expected reports a grammatically misplaced token as Postgres does:
// `Expected ":", but found "}".`
func (p *jsonParser) expected(what string) error {
	if p.pos >= len(p.s) {
		return p.syntaxError("The input string ended unexpectedly.", len(p.s))
	}
	end := p.pos + 1
	if isJSONTokenChar(p.s[p.pos]) {
		for end < len(p.s) && isJSONTokenChar(p.s[end]) {
			end++
		}
		switch tok := p.s[p.pos:end]; {
		case tok == "true" || tok == "false" || tok == "null":
		case tok[0] == '-' || isDigit(tok[0]):
		default:
			return p.syntaxError("Token \""+tok+"\" is invalid.", end)
		}
	}
	return p.syntaxError("Expected "+what+", but found \""+p.s[p.pos:end]+"\".", end)
}

func isJSONTokenChar(c byte) bool {
	return !(c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ':' ||
		c == '[' || c == ']' || c == '{' || c == '}' || c == '"')
}

func (p *jsonParser) value(depth int) (*JSONValue, error) {
	if depth > maxJSONDepth {
		return nil, pgerr.New(pgerr.StatementTooComplex, "stack depth limit exceeded")
	}
	if p.pos >= len(p.s) {
		return nil, p.tokenError()
	}
	switch c := p.s[p.pos]; {
	case c == '{':
		p.pos++
		obj := map[string]*JSONValue{}
		p.skipWS()
		if p.pos < len(p.s) && p.s[p.pos] == '}' {
			p.pos++
			return &JSONValue{Kind: JSONObject}, nil
		}
		for first := true; ; first = false {
			p.skipWS()
			if p.pos >= len(p.s) || p.s[p.pos] != '"' {
				if first {
					return nil, p.expected("string or \"}\"")
				}
				return nil, p.expected("string")
			}
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			p.skipWS()
			if p.pos >= len(p.s) || p.s[p.pos] != ':' {
				return nil, p.expected("\":\"")
			}
			p.pos++
			p.skipWS()
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			obj[k] = v
			p.skipWS()
			if p.pos < len(p.s) && p.s[p.pos] == ',' {
				p.pos++
				continue
			}
			if p.pos < len(p.s) && p.s[p.pos] == '}' {
				p.pos++
				break
			}
			return nil, p.expected("\",\" or \"}\"")
		}
		out := &JSONValue{Kind: JSONObject, Keys: make([]string, 0, len(obj))}
		for k := range obj {
			out.Keys = append(out.Keys, k)
		}
		sort.Slice(out.Keys, func(i, j int) bool { return jsonKeyLess(out.Keys[i], out.Keys[j]) })
		out.Vals = make([]*JSONValue, len(out.Keys))
		for i, k := range out.Keys {
			out.Vals[i] = obj[k]
		}
		return out, nil
	case c == '[':
		p.pos++
		out := &JSONValue{Kind: JSONArray}
		p.skipWS()
		if p.pos < len(p.s) && p.s[p.pos] == ']' {
			p.pos++
			return out, nil
		}
		for {
			p.skipWS()
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			out.Elems = append(out.Elems, v)
			p.skipWS()
			if p.pos < len(p.s) && p.s[p.pos] == ',' {
				p.pos++
				continue
			}
			if p.pos < len(p.s) && p.s[p.pos] == ']' {
				p.pos++
				return out, nil
			}
			return nil, p.expected("\",\" or \"]\"")
		}
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return &JSONValue{Kind: JSONString, Str: s}, nil
	case c == '-' || isDigit(c):
		start := p.pos
		i := p.pos
		if p.s[i] == '-' {
			i++
		}
		ok := false
		if i < len(p.s) && p.s[i] == '0' {
			i++
			ok = true
		} else {
			for i < len(p.s) && isDigit(p.s[i]) {
				i++
				ok = true
			}
		}
		if ok && i < len(p.s) && p.s[i] == '.' {
			i++
			n := 0
			for i < len(p.s) && isDigit(p.s[i]) {
				i++
				n++
			}
			ok = n > 0
		}
		if ok && i < len(p.s) && (p.s[i] == 'e' || p.s[i] == 'E') {
			i++
			if i < len(p.s) && (p.s[i] == '+' || p.s[i] == '-') {
				i++
			}
			n := 0
			for i < len(p.s) && isDigit(p.s[i]) {
				i++
				n++
			}
			ok = n > 0
		}
		if !ok || (i < len(p.s) && isJSONTokenChar(p.s[i])) {
			return nil, p.tokenError()
		}
		d, err := NumericFromText(p.s[start:i])
		if err != nil {
			return nil, err
		}
		p.pos = i
		return &JSONValue{Kind: JSONNumber, Num: d}, nil
	case c == ']' || c == '}' || c == ',' || c == ':':
		return nil, p.expected("JSON value")
	default:
		end := p.pos
		for end < len(p.s) && isJSONTokenChar(p.s[end]) {
			end++
		}
		switch p.s[p.pos:end] {
		case "true":
			p.pos = end
			return &JSONValue{Kind: JSONBool, Bool: true}, nil
		case "false":
			p.pos = end
			return &JSONValue{Kind: JSONBool}, nil
		case "null":
			p.pos = end
			return &JSONValue{Kind: JSONNull}, nil
		}
		return nil, p.tokenError()
	}
}

// str parses a string literal at p.pos (which is '"').
func (p *jsonParser) str() (string, error) {
	start := p.pos
	p.pos++
	var b strings.Builder
	for {
		if p.pos >= len(p.s) {
			return "", p.syntaxError("Token \""+p.s[start:]+"\" is invalid.", len(p.s))
		}
		c := p.s[p.pos]
		switch {
		case c == '"':
			p.pos++
			return b.String(), nil
		case c < 0x20:
			return "", p.syntaxError("Character with value 0x"+strconv.FormatInt(int64(c)+0x100, 16)[1:]+" must be escaped.", p.pos+1)
		case c == '\\':
			if p.pos+1 >= len(p.s) {
				return "", p.syntaxError("The input string ended unexpectedly.", len(p.s))
			}
			e := p.s[p.pos+1]
			p.pos += 2
			switch e {
			case '"', '\\', '/':
				b.WriteByte(e)
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
			case 'u':
				r, ok := p.hex4()
				if !ok {
					return "", p.syntaxError("\"\\u\" must be followed by four hexadecimal digits.", p.hexEnd())
				}
				if r == 0 && !p.text {
					return "", pgerr.New(pgerr.UntranslatableCharacter, "unsupported Unicode escape sequence").
						WithDetail("\\u0000 cannot be converted to text.").WithWhere("%s", p.context(p.pos))
				}
				if utf16.IsSurrogate(r) {
					if r >= 0xdc00 {
						return "", p.syntaxError("Unicode low surrogate must follow a high surrogate.", p.pos)
					}
					if p.pos+1 < len(p.s) && p.s[p.pos] == '\\' && p.s[p.pos+1] == 'u' {
						p.pos += 2
						r2, ok := p.hex4()
						if !ok {
							return "", p.syntaxError("\"\\u\" must be followed by four hexadecimal digits.", p.hexEnd())
						}
						if r2 < 0xdc00 || r2 > 0xdfff {
							return "", p.syntaxError("Unicode high surrogate must not follow a high surrogate.", p.pos)
						}
						r = utf16.DecodeRune(r, r2)
					} else {
						return "", p.syntaxError("Unicode low surrogate must follow a high surrogate.", p.pos)
					}
				}
				b.WriteRune(r)
			default:
				return "", p.syntaxError("Escape sequence \"\\"+string(e)+"\" is invalid.", p.pos)
			}
		default:
			r, size := utf8.DecodeRuneInString(p.s[p.pos:])
			if r == utf8.RuneError && size == 1 {
				return "", pgerr.New(pgerr.CharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\": 0x%02x", c)
			}
			b.WriteString(p.s[p.pos : p.pos+size])
			p.pos += size
		}
	}
}

// hexEnd is where Postgres ends a bad \u escape's token: just past the
// first of the four characters at p.pos that is not a hex digit.
func (p *jsonParser) hexEnd() int {
	for i := p.pos; i < p.pos+4 && i < len(p.s); i++ {
		c := p.s[i]
		if !(isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return i + 1
		}
	}
	return min(p.pos+4, len(p.s))
}

func (p *jsonParser) hex4() (rune, bool) {
	if p.pos+4 > len(p.s) {
		return 0, false
	}
	v, err := strconv.ParseUint(p.s[p.pos:p.pos+4], 16, 32)
	if err != nil {
		return 0, false
	}
	p.pos += 4
	return rune(v), true
}
