package sql

import "strings"

// QuoteIdent quotes an identifier when Postgres would need it to be read
// back as the same name: anything but a lower-case identifier (letters,
// digits after the first character, underscores) is double-quoted, with
// inner quotes doubled. Key words are not quoted.
func QuoteIdent(s string) string {
	ok := s != ""
	for i, r := range s {
		if !(r == '_' || (r >= 'a' && r <= 'z') || (i > 0 && r >= '0' && r <= '9')) {
			ok = false
		}
	}
	if ok {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// QuoteName quotes an identifier as PostgreSQL's quote_identifier does:
// as QuoteIdent, and also when it is one of PostgreSQL's keywords that
// are not unreserved (pgNameKeywords), so that it reads back as a name
// anywhere.
func QuoteName(s string) string {
	q := QuoteIdent(s)
	if q == s && pgNameKeywords[s] {
		return `"` + s + `"`
	}
	return q
}

// pgNameKeywords are PostgreSQL 15's reserved, column-name and
// type-function-name keywords (kwlist.h): the keywords quote_identifier
// quotes, and the ones a function cannot be called by unquoted.
var pgNameKeywords = wordSet(`all analyse analyze and any array as asc asymmetric both case cast check collate column
	constraint create current_catalog current_date current_role current_time current_timestamp current_user default
	deferrable desc distinct do else end except false fetch for foreign from grant group having in initially intersect
	into lateral leading limit localtime localtimestamp not null offset on only or order placing primary references
	returning select session_user some symmetric table then to trailing true union unique user using variadic when where
	window with authorization binary collation concurrently cross current_schema freeze full ilike inner is isnull join
	left like natural notnull outer overlaps right similar tablesample verbose between bigint bit boolean char character
	coalesce dec decimal exists extract float greatest grouping inout int integer interval least national nchar none
	normalize nullif numeric out overlay position precision real row setof smallint substring time timestamp treat trim
	values varchar xmlattributes xmlconcat xmlelement xmlexists xmlforest xmlnamespaces xmlparse xmlpi xmlroot
	xmlserialize xmltable`)
