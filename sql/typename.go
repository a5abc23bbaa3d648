package sql

import (
	"strconv"
	"strings"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// typeSpec is a type name as scanned from the token tree, before it is
// resolved to a types.T.
type typeSpec struct {
	schema string
	// words are the name's words, lower-cased ("double precision" is two
	// words; a quoted name is one word kept exactly).
	words  []string
	quoted bool
	mods   []string // type modifiers in parentheses, as written
	// modsBad is set when the parentheses held something other than
	// integer literals.
	modsBad bool
	arrays  int // number of [] suffixes
	off     int
}

// written returns the type as written, lower-cased and without a
// pg_catalog qualifier ("int2[]", "regclass", "numeric(10,2)").
func (s typeSpec) written() string {
	var b strings.Builder
	if s.schema != "" && s.schema != "pg_catalog" {
		b.WriteString(s.schema + ".")
	}
	name := strings.Join(s.words, " ")
	if s.quoted {
		name = `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
	}
	b.WriteString(name)
	if len(s.mods) > 0 {
		b.WriteString("(" + strings.Join(s.mods, ",") + ")")
	}
	for i := 0; i < s.arrays; i++ {
		b.WriteString("[]")
	}
	return b.String()
}

// pgReserved are Postgres's reserved key words (Appendix C of the
// manual), which cannot name a type.
var pgReserved = wordSet(`all analyse analyze and any array as asc asymmetric both case cast check collate column
	constraint create current_catalog current_date current_role current_time current_timestamp current_user
	default deferrable desc distinct do else end except false fetch for foreign from grant group having in
	initially intersect into lateral leading limit localtime localtimestamp not null offset on only or order
	placing primary references returning select session_user some symmetric table then to trailing true union
	unique user using variadic when where window with`)

var intervalFields = map[string]bool{"year": true, "month": true, "day": true, "hour": true, "minute": true, "second": true}

// scanType scans a type name starting at seq[i]: an optionally qualified
// name, the multi-word forms (double precision, character varying,
// timestamp [(p)] with[out] time zone, interval fields), modifiers in
// parentheses and [] suffixes. It returns the index after the type and
// false if seq[i] cannot start a type name.
func scanType(seq []*node, i int) (typeSpec, int, bool) {
	n := at(seq, i)
	if !n.isName() || n.tok.Kind == TIdent && pgReserved[n.word()] {
		return typeSpec{}, i, false
	}
	spec := typeSpec{off: n.off}
	if at(seq, i+1).isOp(".") && at(seq, i+2).isName() {
		spec.schema = n.nameVal()
		i += 2
		n = seq[i]
	}
	spec.words = []string{n.nameVal()}
	spec.quoted = n.tok.Kind == TQIdent
	i++
	mods := func() {
		if g := at(seq, i); g.isParen() {
			for _, part := range splitCommas(g.kids) {
				if len(part) == 1 && part[0].kind == nLeaf && part[0].tok.Kind == TNumber {
					spec.mods = append(spec.mods, part[0].tok.Val)
				} else {
					spec.modsBad = true
				}
			}
			i++
		}
	}
	if !spec.quoted {
		switch spec.words[0] {
		case "double":
			if at(seq, i).isWord("precision") {
				spec.words = append(spec.words, "precision")
				i++
			}
		case "character", "char", "national":
			if spec.words[0] == "national" && (at(seq, i).isWord("character") || at(seq, i).isWord("char")) {
				spec.words = append(spec.words, seq[i].word())
				i++
			}
			if at(seq, i).isWord("varying") {
				spec.words = append(spec.words, "varying")
				i++
			}
		case "time", "timestamp":
			mods()
			if (at(seq, i).isWord("with") || at(seq, i).isWord("without")) && at(seq, i+1).isWord("time") && at(seq, i+2).isWord("zone") {
				spec.words = append(spec.words, seq[i].word(), "time", "zone")
				i += 3
			}
		case "interval":
			for intervalFields[at(seq, i).word()] || at(seq, i).isWord("to") {
				spec.words = append(spec.words, seq[i].word())
				i++
			}
		}
	}
	if len(spec.mods) == 0 && !spec.modsBad {
		mods()
	}
	for {
		g := at(seq, i)
		if !g.isBracket() || len(g.kids) > 1 || (len(g.kids) == 1 && g.kids[0].tok.Kind != TNumber) {
			break
		}
		spec.arrays++
		i++
	}
	return spec, i, true
}

// resolveType maps a scanned type to a types.T. Unknown names are 42704
// `type "x" does not exist`; Postgres types weir does not model are 0A000.
func resolveType(spec typeSpec) (types.T, *pgerr.Error) {
	if spec.schema != "" && spec.schema != "pg_catalog" {
		return types.TUnknown, pgerr.New(pgerr.UndefinedObject, "type %q does not exist", spec.written())
	}
	if spec.modsBad {
		return types.TUnknown, pgerr.New(pgerr.SyntaxError, "type modifiers must be simple constants or identifiers")
	}
	name := strings.Join(spec.words, " ")
	if spec.quoted {
		if name == "char" {
			return arrayOf(types.TChar, spec)
		}
		// A quoted name is looked up exactly: "int4" is int4, "INT4" is not.
		if strings.ToLower(name) != name {
			return types.TUnknown, pgerr.New(pgerr.UndefinedObject, "type %q does not exist", name)
		}
	}
	mods := make([]int, len(spec.mods))
	for i, m := range spec.mods {
		v, err := strconv.Atoi(m)
		if err != nil {
			return types.TUnknown, pgerr.New(pgerr.SyntaxError, "type modifiers must be simple constants or identifiers")
		}
		mods[i] = v
	}
	noMods := func(t types.T) (types.T, *pgerr.Error) {
		if len(mods) > 0 {
			return types.TUnknown, pgerr.New(pgerr.SyntaxError, "type modifier is not allowed for type %q", t.ID.Name())
		}
		return arrayOf(t, spec)
	}
	first := spec.words[0]
	if strings.HasPrefix(first, "interval") || first == "interval" {
		name = "interval"
	}
	switch name {
	case "int2", "smallint":
		return noMods(types.TInt2)
	case "int", "int4", "integer":
		return noMods(types.TInt4)
	case "int8", "bigint":
		return noMods(types.TInt8)
	case "float4", "real":
		return noMods(types.TFloat4)
	case "float8", "double precision":
		return noMods(types.TFloat8)
	case "float":
		if len(mods) == 0 {
			return arrayOf(types.TFloat8, spec)
		}
		switch p := mods[0]; {
		case len(mods) > 1:
			return types.TUnknown, pgerr.New(pgerr.SyntaxError, "syntax error at or near \",\"")
		case p < 1:
			return types.TUnknown, pgerr.New(pgerr.InvalidParameterValue, "precision for type float must be at least 1 bit")
		case p <= 24:
			return arrayOf(types.TFloat4, spec)
		case p <= 53:
			return arrayOf(types.TFloat8, spec)
		default:
			return types.TUnknown, pgerr.New(pgerr.InvalidParameterValue, "precision for type float must be less than 54 bits")
		}
	case "numeric", "decimal", "dec":
		t := types.TNumeric
		switch len(mods) {
		case 0:
		case 1, 2:
			p, s := mods[0], 0
			if len(mods) == 2 {
				s = mods[1]
			}
			if p < 1 || p > 1000 {
				return types.TUnknown, pgerr.New(pgerr.InvalidParameterValue, "NUMERIC precision %d must be between 1 and 1000", p)
			}
			if s < 0 || s > p {
				return types.TUnknown, pgerr.New(pgerr.InvalidParameterValue, "NUMERIC scale %d must be between 0 and precision %d", s, p)
			}
			t.Mod = int32(p<<16|s) + 4
		default:
			return types.TUnknown, pgerr.New(pgerr.InvalidParameterValue, "invalid NUMERIC type modifier")
		}
		return arrayOf(t, spec)
	case "varchar", "character varying", "char varying", "national character varying", "national char varying":
		t := types.TVarchar
		switch len(mods) {
		case 0:
		case 1:
			if mods[0] < 1 {
				return types.TUnknown, pgerr.New(pgerr.InvalidParameterValue, "length for type varchar must be at least 1")
			}
			if mods[0] > 10485760 {
				return types.TUnknown, pgerr.New(pgerr.InvalidParameterValue, "length for type varchar cannot exceed 10485760")
			}
			t.Mod = int32(mods[0]) + 4
		default:
			return types.TUnknown, pgerr.New(pgerr.InvalidParameterValue, "invalid type modifier")
		}
		return arrayOf(t, spec)
	case "char", "character", "bpchar", "national character", "national char", "nchar":
		// character(n) is bpchar with n+4; the SQL names without a length
		// mean character(1), bpchar without one has no length limit.
		t := types.TBpchar
		switch len(mods) {
		case 0:
			if name != "bpchar" {
				t.Mod = 1 + 4
			}
		case 1:
			if mods[0] < 1 {
				return types.TUnknown, pgerr.New(pgerr.InvalidParameterValue, "length for type char must be at least 1")
			}
			if mods[0] > 10485760 {
				return types.TUnknown, pgerr.New(pgerr.InvalidParameterValue, "length for type char cannot exceed 10485760")
			}
			t.Mod = int32(mods[0]) + 4
		default:
			return types.TUnknown, pgerr.New(pgerr.InvalidParameterValue, "invalid type modifier")
		}
		return arrayOf(t, spec)
	case "text":
		return noMods(types.TText)
	case "bytea":
		return noMods(types.TBytea)
	case "bool", "boolean":
		return noMods(types.TBool)
	case "date":
		return noMods(types.TDate)
	case "time", "time without time zone":
		return precision(types.TTime, mods, spec)
	case "timestamp", "timestamp without time zone":
		return precision(types.TTimestamp, mods, spec)
	case "timestamptz", "timestamp with time zone":
		return precision(types.TTimestamptz, mods, spec)
	case "timetz", "time with time zone":
		return types.TUnknown, pgerr.New(pgerr.FeatureNotSupported, "type time with time zone is not supported yet")
	case "interval":
		// Interval fields (YEAR TO MONTH, ...) restrict input in Postgres;
		// weir keeps only the seconds precision.
		return precision(types.TInterval, mods, spec)
	case "jsonb":
		return noMods(types.TJsonb)
	case "json":
		return noMods(types.TJson)
	case "oid":
		return noMods(types.TOid)
	case "name":
		return noMods(types.TName)
	case "uuid":
		return noMods(types.TUuid)
	case "jsonpath":
		return noMods(types.TJsonpath)
	case "regclass", "regtype", "regproc", "regprocedure", "regnamespace", "regoper", "regrole", "regconfig", "xid", "cid", "tid", "inet", "cidr", "money", "bit", "varbit", "bit varying", "point", "tsvector", "xml", "int2vector", "oidvector", "aclitem", "pg_node_tree", "record", "void", "anyelement", "anyarray":
		return types.TUnknown, pgerr.New(pgerr.FeatureNotSupported, "type %s is not supported yet", name)
	}
	return types.TUnknown, pgerr.New(pgerr.UndefinedObject, "type %q does not exist", spec.written())
}

// precision applies a time/timestamp/interval precision modifier (0..6;
// Postgres reduces larger values to 6 with a warning).
func precision(t types.T, mods []int, spec typeSpec) (types.T, *pgerr.Error) {
	switch len(mods) {
	case 0:
	case 1:
		if mods[0] < 0 {
			return types.TUnknown, pgerr.New(pgerr.InvalidParameterValue, "%s(%d) precision must not be negative", strings.ToUpper(t.ID.Name()), mods[0])
		}
		t.Mod = int32(min(mods[0], 6))
	default:
		return types.TUnknown, pgerr.New(pgerr.SyntaxError, "invalid type modifier")
	}
	return arrayOf(t, spec)
}

// arrayOf applies the [] suffixes: one-dimensional arrays of the scalar
// types are modelled (types.ArrayOf), without the element's modifier.
// As in PostgreSQL, the number of suffixes and the sizes in them mean
// nothing: int[][] and int[3] are int[].
func arrayOf(t types.T, spec typeSpec) (types.T, *pgerr.Error) {
	if spec.arrays == 0 {
		return t, nil
	}
	if at, ok := types.ArrayOf(t); ok {
		at.Mod = t.Mod // the element's modifier, as Postgres keeps it
		return at, nil
	}
	return types.TUnknown, pgerr.New(pgerr.FeatureNotSupported, "type %s is not supported yet", spec.written())
}

// parseTypeAt parses the type at toks[i] and returns it with the index of
// the token after it. src is the text the tokens came from.
func parseTypeAt(src string, toks []Token, i int) (TypeName, int, error) {
	seq := buildTree(toks[i:])
	spec, end, ok := scanType(seq, 0)
	if !ok {
		return TypeName{}, i, syntaxErrorAt(src, toks[i])
	}
	for _, n := range seq[:end] {
		if n.kind == nGroup && n.close == "" {
			return TypeName{}, i, syntaxErrorAt(src, toks[len(toks)-1])
		}
	}
	next := i + seq[end-1].last + 1
	text := src[toks[i].Off:toks[next-1].End]
	t, err := resolveType(spec)
	if err != nil {
		err = err.WithPosition(charPos(src, toks[i].Off))
		if err.Code == pgerr.UndefinedObject && len(spec.mods) == 0 && !spec.modsBad && len(spec.words) == 1 {
			return TypeName{T: types.TUnknown, Text: text, User: &ObjectName{Schema: spec.schema, Name: spec.words[0]}, UserArray: spec.arrays > 0, Err: err}, next, nil
		}
		return TypeName{}, i, err
	}
	return TypeName{T: t, Text: text}, next, nil
}
