package sql

import (
	"strings"

	"github.com/weirdb/weir/internal/pgerr"
)

// unsupportedStmts are PostgreSQL statements weir does not have: they are
// valid PostgreSQL, so they are refused as unsupported features (0A000),
// not as syntax errors.
var unsupportedStmts = wordSet(`listen notify unlisten vacuum analyze cluster reindex comment do call checkpoint load import
	merge security reassign`)

// unsupportedAlters are the objects of ALTER statements weir does not
// have (ALTER SYSTEM it has).
var unsupportedAlters = wordSet(`table view materialized index sequence schema source sink function type
	database aggregate collation domain extension operator procedure publication subscription trigger`)

// unsupportedStmt returns the error for a statement weir does not parse
// itself: 0A000 naming the statement when PostgreSQL has it, else the
// syntax error at its first word.
func (p *stmtParser) unsupportedStmt() error {
	w := p.word(0)
	name := strings.ToUpper(w)
	if w == "alter" {
		p.pos++
		err := p.unsupportedObject("ALTER")
		if err == nil && p.word(0) == "group" {
			err = p.unsupported("ALTER GROUP is")
		}
		p.pos--
		if err != nil {
			return err
		}
	}
	switch {
	case w == "security" && p.word(1) == "label":
		// PostgreSQL without a label provider loaded (weir has none).
		return pgerr.New(pgerr.InvalidParameterValue, "no security label providers have been loaded")
	case w == "alter" && unsupportedAlters[p.word(1)]:
		name = "ALTER " + strings.ToUpper(p.word(1))
		if p.word(1) == "materialized" {
			name = "ALTER MATERIALIZED VIEW"
		}
	case unsupportedStmts[w]:
	default:
		return p.errHere()
	}
	return pgerr.New(pgerr.FeatureNotSupported, "%s is not supported", name).WithPosition(charPos(p.src, p.peek().Off))
}

// pgObjectKinds are the kinds of object PostgreSQL 15 creates, alters or
// drops that weir has not got, as the words that name them; a kind
// comes before any kind its words begin with.
var pgObjectKinds = [][]string{
	{"foreign", "data", "wrapper"}, {"foreign", "table"},
	{"text", "search", "configuration"}, {"text", "search", "dictionary"}, {"text", "search", "parser"}, {"text", "search", "template"},
	{"access", "method"}, {"event", "trigger"}, {"constraint", "trigger"}, {"user", "mapping"},
	{"operator", "class"}, {"operator", "family"}, {"operator"},
	{"trusted", "procedural", "language"}, {"trusted", "language"}, {"procedural", "language"}, {"language"},
	{"default", "conversion"}, {"conversion"}, {"large", "object"}, {"default", "privileges"},
	{"domain"}, {"extension"}, {"procedure"}, {"routine"}, {"aggregate"}, {"rule"}, {"policy"},
	{"publication"}, {"subscription"}, {"tablespace"}, {"collation"}, {"cast"}, {"statistics"},
	{"server"}, {"trigger"}, {"transform"}, {"type"}, {"function"}, {"database"}, {"owned"},
}

// unsupportedObject returns 0A000 "VERB KIND is not supported" when the
// words at the cursor name one of pgObjectKinds, positioned at the
// kind, or nil. verb is the statement's leading words as written in the
// message ("CREATE", "CREATE OR REPLACE", "DROP", "ALTER").
func (p *stmtParser) unsupportedObject(verb string) error {
	for _, kind := range pgObjectKinds {
		match := true
		for i, w := range kind {
			if p.word(i) != w {
				match = false
				break
			}
		}
		if match {
			return pgerr.New(pgerr.FeatureNotSupported, "%s %s is not supported", verb, strings.ToUpper(strings.Join(kind, " "))).
				WithPosition(charPos(p.src, p.peek().Off))
		}
	}
	return nil
}

// persistenceWords are the words before TABLE, SEQUENCE or VIEW in
// CREATE that choose how PostgreSQL keeps the relation.
var persistenceWords = map[string]string{"temp": "TEMPORARY", "temporary": "TEMPORARY", "unlogged": "UNLOGGED"}

// persistence reads the [LOCAL | GLOBAL] TEMP[ORARY] | UNLOGGED words of
// CREATE [OR REPLACE] at the cursor. It consumes them and reports true
// for a temporary table, view or sequence; it returns 0A000 for what weir
// does not keep: temporary recursive views, and unlogged sequences.
// CREATE UNLOGGED TABLE is create's (an unlogged table is as durable as
// any other in weir: only pg_class calls it unlogged).
func (p *stmtParser) persistence() (bool, error) {
	k := 0
	if w := p.word(0); (w == "local" || w == "global") && (p.word(1) == "temp" || p.word(1) == "temporary") {
		k = 1
	}
	how, ok := persistenceWords[p.word(k)]
	if !ok {
		return false, nil
	}
	kind := p.word(k + 1)
	switch kind {
	case "table", "sequence", "view":
	case "recursive":
		kind = "view"
	default:
		return false, nil
	}
	if how == "UNLOGGED" && kind != "table" && kind != "sequence" {
		return false, nil
	}
	if how == "UNLOGGED" {
		return false, pgerr.New(pgerr.FeatureNotSupported, "unlogged %ss are not supported", kind).
			WithHint("weir logs every write: a crash never empties a table.").
			WithPosition(charPos(p.src, p.peek().Off))
	}
	if p.word(k+1) == "recursive" {
		return false, pgerr.New(pgerr.FeatureNotSupported, "temporary recursive views are not supported").
			WithPosition(charPos(p.src, p.peek().Off))
	}
	p.pos += k + 1
	return true, nil
}
