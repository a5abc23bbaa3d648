package sql

import (
	"strings"

	tidb "github.com/pingcap/tidb/pkg/parser"

	"github.com/weirdb/weir/internal/pgerr"
)

// The dialect gate: the TiDB parser reads MySQL, so text that PostgreSQL
// rejects could otherwise slip through it with a MySQL meaning (a
// backtick name, <=>, LIMIT 1, 2, GROUP BY ... WITH ROLLUP, a JOIN
// without ON). checkDialect refuses such text on our own tokens before
// anything is bridged, with the SQLSTATE PostgreSQL gives it; the emitter
// quotes the words TiDB takes as keywords where PostgreSQL sees plain
// names (regexp, straight_join, sql_no_cache, ...), so TiDB reads them as
// names too. Text the bridge wrote itself (a stored column DEFAULT, parsed
// again) is not user text and skips the gate.

// pgKeywords are PostgreSQL 15's keywords (pg_get_keywords()), of every
// category.
var pgKeywords = wordSet(`
	abort absolute access action add admin after aggregate all also alter always analyse analyze and 
	any array as asc asensitive assertion assignment asymmetric at atomic attach attribute 
	authorization backward before begin between bigint binary bit boolean both breadth by cache call 
	called cascade cascaded case cast catalog chain char character characteristics check checkpoint 
	class close cluster coalesce collate collation column columns comment comments commit committed 
	compression concurrently configuration conflict connection constraint constraints content continue 
	conversion copy cost create cross csv cube current current_catalog current_date current_role 
	current_schema current_time current_timestamp current_user cursor cycle data database day 
	deallocate dec decimal declare default defaults deferrable deferred definer delete delimiter 
	delimiters depends depth desc detach dictionary disable discard distinct do document domain double 
	drop each else enable encoding encrypted end enum escape event except exclude excluding exclusive 
	execute exists explain expression extension external extract false family fetch filter finalize 
	first float following for force foreign forward freeze from full function functions generated 
	global grant granted greatest group grouping groups handler having header hold hour identity if 
	ilike immediate immutable implicit import in include including increment index indexes inherit 
	inherits initially inline inner inout input insensitive insert instead int integer intersect 
	interval into invoker is isnull isolation join key label language large last lateral leading 
	leakproof least left level like limit listen load local localtime localtimestamp location lock 
	locked logged mapping match matched materialized maxvalue merge method minute minvalue mode month 
	move name names national natural nchar new next nfc nfd nfkc nfkd no none normalize normalized not 
	nothing notify notnull nowait null nullif nulls numeric object of off offset oids old on only 
	operator option options or order ordinality others out outer over overlaps overlay overriding owned 
	owner parallel parameter parser partial partition passing password placing plans policy position 
	preceding precision prepare prepared preserve primary prior privileges procedural procedure 
	procedures program publication quote range read real reassign recheck recursive ref references 
	referencing refresh reindex relative release rename repeatable replace replica reset restart 
	restrict return returning returns revoke right role rollback rollup routine routines row rows rule 
	savepoint schema schemas scroll search second security select sequence sequences serializable 
	server session session_user set setof sets share show similar simple skip smallint snapshot some 
	sql stable standalone start statement statistics stdin stdout storage stored strict strip 
	subscription substring support symmetric sysid system table tables tablesample tablespace temp 
	template temporary text then ties time timestamp to trailing transaction transform treat trigger 
	trim true truncate trusted type types uescape unbounded uncommitted unencrypted union unique 
	unknown unlisten unlogged until update user using vacuum valid validate validator value values 
	varchar variadic varying verbose version view views volatile when where whitespace window with 
	within without work wrapper write xml xmlattributes xmlconcat xmlelement xmlexists xmlforest 
	xmlnamespaces xmlparse xmlpi xmlroot xmlserialize xmltable year yes zone`)

// tidbOnlyWords are the words TiDB's grammar takes as keywords that are
// not PostgreSQL keywords: in user text they are names, and the emitter
// quotes them (unless a "(" follows: function names such as count are
// TiDB keywords too).
var tidbOnlyWords = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range tidb.Keywords {
		if w := strings.ToLower(k.Word); !pgKeywords[w] {
			m[w] = true
		}
	}
	return m
}()

// mysqlFuncs are function names TiDB's grammar parses into constructs of
// its own (GROUP_CONCAT into an aggregate with a separator, DATE_ADD with
// an INTERVAL unit, ...). PostgreSQL has no such functions; written
// quoted, TiDB takes them as plain calls, which the binder reports as
// undefined functions (42883).
var mysqlFuncs = wordSet(`group_concat date_add date_sub adddate subdate timestampadd timestampdiff
	get_format weight_string std json_arrayagg json_objectagg approx_count_distinct approx_percentile
	curdate curtime sysdate utc_date utc_time utc_timestamp if ifnull nvl`)

// selectOptions are TiDB's SELECT modifiers; PostgreSQL sees names
// (STRAIGHT_JOIN (x) is a call of a function straight_join).
var selectOptions = wordSet(`straight_join sql_no_cache sql_cache sql_calc_found_rows high_priority
	sql_small_result sql_big_result sql_buffer_result distinctrow`)

// mysqlOps are TiDB's word operators; between two operands PostgreSQL
// sees a column label followed by junk, so the emitter quotes them there
// even before a "(" (a MOD (b)).
var mysqlOps = wordSet(`mod div xor rlike regexp`)

// literalStops are keywords after which a string constant is no
// expression PostgreSQL takes.
var literalStops = wordSet(`true false null end`)

// internalFuncs are the function names the bridge writes for the forms
// TiDB lacks (doc.go's rewrite contract), and those the binder calls
// itself (pg_regin, pg_regout: reg* input and output). They are not
// PostgreSQL functions: a call the user writes of one is emitted under
// UserCallPrefix, a user function's name or else 42883 as in PostgreSQL.
var internalFuncs = wordSet(`pg_cast pg_extract pg_nulls_first pg_nulls_last pg_agg_order_by
	pg_agg_distinct pg_array pg_array_subquery pg_any_eq pg_any pg_all pg_subscript pg_slice
	pg_json_get pg_json_get_text pg_json_path pg_json_path_text pg_json_contains pg_json_contained
	pg_json_exists pg_json_exists_any pg_json_exists_all pg_at_time_zone pg_icase pg_concat pg_cardinality pg_distinct_on pg_window_call
	pg_frame_offset pg_frame_bound pg_between_symmetric pg_group_value pg_agg_filter pg_no_columns
	pg_rollup pg_cube pg_grouping_sets pg_empty_set pg_group_distinct pg_json_key pg_array_elem
	pg_within_group pg_row_star pg_row1 pg_current_of pg_star_call pg_with_ties pg_row_to_json pg_array_overlap
	pg_starts_with pg_jsonpath_exists pg_jsonpath_match pg_json_delete_path pg_named_arg pg_field
	pg_like_escape pg_similar_to_escape pg_op pg_collate pg_variadic pg_regin pg_regout pg_sort_using`)

// knownOps are the operators weir binds (after the bridge's rewrites).
// Any other operator PostgreSQL's lexer forms (<=>, !, @-, ||-, `, ...)
// names no operator weir has: the bridge writes it as a pg_op call that
// the binder refuses with 42883, naming the operand types as PostgreSQL
// does for every operator it has not got for them (ops.go).
var knownOps = wordSet(`( ) [ ] , ; . :: : + - * / % ^ < > = <= >= <> != ~ !~ ~* !~* ~~ !~~ ~~* !~~*
	|| & | # << >> |/ ||/ @ -> ->> #> #>> @> <@ ? ?| ?& @? @@ => && ^@ #-`)

// checkDialect refuses the tokens of one query statement (TEOF excluded)
// where PostgreSQL's lexer or grammar would.
func checkDialect(src string, toks []Token) error {
	for i, t := range toks {
		next := Token{Kind: TEOF, Off: len(src)}
		if i+1 < len(toks) {
			next = toks[i+1]
		}
		switch t.Kind {
		case TOp:
			switch {
			case t.Val == ":=" && i >= 2 && (toks[i-1].Kind == TIdent || toks[i-1].Kind == TQIdent) &&
				toks[i-2].Kind == TOp && (toks[i-2].Val == "(" || toks[i-2].Val == ","):
				// A named argument, name := value (the bridge checks it
				// is one).
			case t.Val == ":=" || t.Val == "$":
				return syntaxErrorAt(src, t)
			}
		case TBitString, THexString:
			return pgerr.New(pgerr.FeatureNotSupported, "bit string constants are not supported").WithPosition(charPos(src, t.Off))
		case TIdent, TQIdent:
			if strings.HasPrefix(strings.ToLower(t.Val), "__weir_") {
				return pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", t.Val).WithPosition(charPos(src, t.Off))
			}
			if t.Kind == TIdent && t.Val == "as" && next.Kind == TString {
				return syntaxErrorAt(src, next)
			}
			if t.Kind == TIdent && t.Val == "with" && next.Kind == TIdent && next.Val == "rollup" {
				return syntaxErrorAt(src, t)
			}
			if t.Kind == TIdent && next.Kind == TOp && next.Val == "(" && !(i > 0 && toks[i-1].Kind == TOp && toks[i-1].Val == ".") {
				switch {
				case noParenFuncs[t.Val]:
					// CURRENT_DATE(), USER(): MySQL's calls of what
					// PostgreSQL writes without parentheses.
					return syntaxErrorAt(src, next)
				case precisionFuncs[t.Val] && i+2 < len(toks) && toks[i+2].Kind == TOp && toks[i+2].Val == ")":
					// CURRENT_TIMESTAMP(p) takes a precision, never ().
					return syntaxErrorAt(src, toks[i+2])
				case t.Val == "against" && i > 0 && toks[i-1].Kind == TOp && toks[i-1].Val == ")":
					// MATCH (a) AGAINST (...): AGAINST is a column label
					// in PostgreSQL, and nothing follows a label.
					return syntaxErrorAt(src, next)
				}
			}
			if t.Kind == TIdent && t.Val == "tablesample" {
				if err := tablesample(src, toks, i); err != nil {
					return err
				}
			}
			if t.Kind == TIdent {
				if what := unsupportedForm(toks, i); what != "" {
					return pgerr.New(pgerr.FeatureNotSupported, "%s not supported", what).WithPosition(charPos(src, t.Off))
				}
			}
			if next.Kind == TString {
				if err := typedLiteral(src, toks, i); err != nil {
					return err
				}
			}
		case TString:
			// A string right after a number, a parameter or a closing
			// group is no PostgreSQL expression (MySQL takes it as an
			// alias).
			if i > 0 {
				p := toks[i-1]
				if p.Kind == TOp && p.Val == ")" {
					if ok, err := modifiedType(src, toks, i-1); ok {
						if err != nil {
							return err
						}
						continue
					}
				}
				if p.Kind == TNumber || p.Kind == TParam || p.Kind == TOp && (p.Val == ")" && !afterOperator(toks, i-1) || p.Val == "]") {
					return syntaxErrorAt(src, t)
				}
			}
		}
	}
	return nil
}

// checkShape refuses the MySQL statement forms TiDB accepts at the top
// level of a statement (seq, before any rewrite): UPDATE t, u SET ...,
// UPDATE or DELETE with ORDER BY or LIMIT, DELETE t FROM ..., DELETE FROM
// t, u, INSERT without INTO, INSERT ... SET, INSERT ... VALUE (...).
func (b *bridge) checkShape(seq []*node) error {
	if len(seq) == 0 {
		return nil
	}
	switch seq[0].word() {
	case "select", "with":
		for i, n := range seq {
			if n.isWord("into") && !at(seq, i-1).isWord("insert") {
				return pgerr.New(pgerr.FeatureNotSupported, "SELECT INTO is not supported").
					WithHint("CREATE TABLE ... AS creates a table from a query.").WithPosition(charPos(b.src, n.tok.Off))
			}
		}
	case "update":
		set := false
		for _, n := range seq[1:] {
			switch {
			case n.isWord("set"):
				set = true
			case !set && n.isOp(","):
				return syntaxErrorAt(b.src, n.tok)
			case n.isWord("order") || n.isWord("limit"):
				return syntaxErrorAt(b.src, n.tok)
			}
		}
	case "delete":
		if len(seq) > 1 && !seq[1].isWord("from") {
			return b.syntaxError(seq[1].off)
		}
		for i, n := range seq {
			if i > 1 && n.isOp(",") && !b.inUsing(seq, i) {
				return syntaxErrorAt(b.src, n.tok)
			}
			if n.isWord("order") || n.isWord("limit") {
				return syntaxErrorAt(b.src, n.tok)
			}
		}
	case "insert":
		if len(seq) > 1 && !seq[1].isWord("into") {
			return b.syntaxError(seq[1].off)
		}
		for i, n := range seq {
			if n.isWord("set") && !at(seq, i-1).isWord("update") {
				return syntaxErrorAt(b.src, n.tok)
			}
			if n.isWord("value") && at(seq, i+1).isParen() {
				return syntaxErrorAt(b.src, n.tok)
			}
		}
	}
	return nil
}

// inUsing reports whether seq[i] follows a USING or WHERE of a DELETE.
func (b *bridge) inUsing(seq []*node, i int) bool {
	for k := i - 1; k > 0; k-- {
		if seq[k].isWord("using") || seq[k].isWord("where") || seq[k].isWord("returning") {
			return true
		}
	}
	return false
}

// checkJoins refuses a JOIN without ON or USING (MySQL's cross join) at
// one level of the tree, at the token that ends the FROM item list where
// PostgreSQL's grammar stops. CROSS and NATURAL joins take no condition;
// PostgreSQL lets conditions nest (a JOIN b JOIN c ON x ON y), so the
// conditions owed are counted.
func (b *bridge) checkJoins(seq []*node) error {
	owed := 0
	for i, n := range seq {
		w := n.word()
		switch {
		case w == "join" && n.kind == nLeaf:
			natural := false
			for k := i - 1; k >= 0; k-- {
				pw := seq[k].word()
				if pw == "natural" || pw == "cross" {
					natural = true
				}
				if pw != "left" && pw != "right" && pw != "full" && pw != "outer" && pw != "inner" {
					break
				}
			}
			if !natural {
				owed++
			}
		case (w == "on" || w == "using") && n.kind == nLeaf && owed > 0 && !at(seq, i-1).isWord("distinct"):
			owed--
		case w == "for" && at(seq, i+1).isWord("system_time"):
			// FOR SYSTEM_TIME AS OF: part of the FROM item (fromItems).
		case owed > 0 && (n.isOp(",") || n.isOp(";") || n.kind == nLeaf && n.tok.Kind == TIdent && fromEnd[w] && w != "on" && w != "using"):
			return syntaxErrorAt(b.src, n.tok)
		}
	}
	if owed > 0 {
		if k := seq[len(seq)-1].last + 1; k < len(b.toks) {
			return syntaxErrorAt(b.src, b.toks[k])
		}
		return b.syntaxError(len(b.src) + 1)
	}
	return nil
}

// checkTree runs checkJoins on every level of the tree.
func (b *bridge) checkTree(seq []*node) error {
	for _, n := range seq {
		if n.kind == nGroup {
			if err := b.checkTree(n.kids); err != nil {
				return err
			}
		}
	}
	return b.checkJoins(seq)
}

// modifiedType reports whether the group closing at toks[i] (before a
// string) holds the modifiers of a type name, as in varchar(2) 'ab' or
// numeric(3, 1) '1.25', a constant PostgreSQL takes. A type keyword
// that takes no modifiers there (int, real, boolean, ...) is a syntax
// error at its "(".
func modifiedType(src string, toks []Token, i int) (bool, error) {
	depth, o := 0, -1
	for k := i; k >= 0 && o < 0; k-- {
		switch t := toks[k]; {
		case t.Kind == TOp && t.Val == ")":
			depth++
		case t.Kind == TOp && t.Val == "(":
			if depth--; depth == 0 {
				o = k
			}
		}
	}
	if o < 1 {
		return false, nil
	}
	n := toks[o-1]
	switch {
	case n.Kind != TIdent && n.Kind != TQIdent:
		return false, nil
	case n.Kind == TIdent && (bareTypes[n.Val] || n.Val == "precision" && o > 1 && isWordTok(toks[o-2], "double")):
		return true, syntaxErrorAt(src, toks[o])
	case n.Kind == TIdent && !modifierTypes[n.Val] && pgKeywords[n.Val]:
		return false, nil
	}
	// A type name of its own (func_name '(' ... ')' Sconst) or a type
	// keyword that takes modifiers: the name must be a type.
	_, err := ParseType(src[n.Off:toks[i].End])
	pe, ok := err.(*pgerr.Error)
	switch {
	case err == nil, ok && pe.Code == pgerr.FeatureNotSupported:
		return true, nil // the bridge says which types weir lacks
	case ok && pe.Code == pgerr.UndefinedObject:
		return true, pgerr.New(pgerr.UndefinedObject, "type \"%s\" does not exist", n.Val).WithPosition(charPos(src, n.Off))
	case ok && pe.Position == 0:
		return true, pe.WithPosition(charPos(src, n.Off))
	}
	return true, err
}

// modifierTypes are the type keywords a constant's type may give
// modifiers to; bareTypes those it may not.
var (
	modifierTypes = wordSet(`float decimal dec numeric bit varying character char varchar nchar timestamp time interval`)
	bareTypes     = wordSet(`int integer smallint bigint real boolean`)
)

// afterOperator reports whether the ")" at toks[i] closes OPERATOR(...).
func afterOperator(toks []Token, i int) bool {
	depth := 0
	for k := i; k >= 0; k-- {
		if toks[k].Kind != TOp {
			continue
		}
		switch toks[k].Val {
		case ")":
			depth++
		case "(":
			depth--
			if depth == 0 {
				return k > 0 && toks[k-1].Kind == TIdent && toks[k-1].Val == "operator"
			}
		}
	}
	return false
}

// byteCollations are the collations that order text by its bytes, as
// weir does: COLLATE with one of them is dropped. (The default collation
// is C in the clusters weir is compared with.)
var byteCollations = map[string]bool{"default": true, "C": true, "POSIX": true, "ucs_basic": true, "C.utf8": true}

// checkCollation refuses the name n of a COLLATE clause at byte at of
// src that weir cannot honour: a collation with a linguistic order is
// 0A000; a name PostgreSQL has no collation for (ICU's names end in
// -x-icu) is 42704, as in PostgreSQL, which points at the clause.
func checkCollation(src string, n *node, at int) error {
	name := n.tok.Val // unquoted c is folded, and is no collation
	if byteCollations[name] {
		return nil
	}
	if strings.HasSuffix(name, "-x-icu") || strings.Contains(strings.ToLower(name), "utf") {
		return pgerr.New(pgerr.FeatureNotSupported, "collation \"%s\" is not supported", name).WithPosition(charPos(src, at))
	}
	return pgerr.New(pgerr.UndefinedObject, "collation \"%s\" for encoding \"UTF8\" does not exist", name).WithPosition(charPos(src, at))
}

// typedLiteral checks the name at toks[i] that a string constant follows:
// PostgreSQL reads name 'str' as a constant of the type name, so a name
// that is no type is 42704 (3F000 with a schema that does not exist),
// and a string after TRUE, FALSE, NULL or END, or after a collation
// name, is a syntax error.
func typedLiteral(src string, toks []Token, i int) error {
	t, str := toks[i], toks[i+1]
	if t.Kind == TIdent && literalStops[t.Val] || i > 0 && toks[i-1].Kind == TIdent && toks[i-1].Val == "collate" {
		return syntaxErrorAt(src, str)
	}
	if t.Kind == TIdent && typeFuncNameWords[t.Val] && (i == 0 || !operandEnds(toks[i-1])) {
		// BINARY 'a': PostgreSQL's grammar reads a typed literal of a
		// type no database has.
		return pgerr.New(pgerr.UndefinedObject, "type \"%s\" does not exist", t.Val).WithPosition(charPos(src, t.Off))
	}
	if t.Kind == TIdent && pgKeywords[t.Val] {
		return nil // type keywords (interval, int, ...) and clause words
	}
	if i > 0 {
		// After an operand the name is a column label ('a' regexp 'a'),
		// and the string has no place.
		switch p := toks[i-1]; {
		case p.Kind == TString || p.Kind == TNumber || p.Kind == TParam || p.Kind == TQIdent,
			p.Kind == TIdent && !pgKeywords[p.Val], p.Kind == TOp && (p.Val == ")" || p.Val == "]"):
			return syntaxErrorAt(src, str)
		}
	}
	if i > 1 && toks[i-1].Kind == TOp && toks[i-1].Val == "." {
		q := toks[i-2]
		if q.Val == "pg_catalog" {
			return nil
		}
		if q.Val != "public" {
			return pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", q.Val).WithPosition(charPos(src, q.Off))
		}
		t = q
	}
	if _, err := ParseType(quoteIdent(toks[i].Val)); err != nil {
		if pe, ok := err.(*pgerr.Error); ok && pe.Code == pgerr.UndefinedObject {
			return pgerr.New(pgerr.UndefinedObject, "type \"%s\" does not exist", toks[i].Val).WithPosition(charPos(src, t.Off))
		}
	}
	return nil
}

// noParenFuncs are the SQL value functions PostgreSQL's grammar writes
// without parentheses only (CURRENT_DATE, USER, ...).
var noParenFuncs = wordSet(`current_date current_role current_user session_user user current_catalog`)

// precisionFuncs are the SQL value functions that take an optional
// precision in parentheses (CURRENT_TIMESTAMP(3)) but no empty ones.
var precisionFuncs = wordSet(`current_time current_timestamp localtime localtimestamp`)

// typeFuncNameWords are PostgreSQL keywords of the type_func_name class
// that name no type and no clause a string may follow: before a string
// the grammar takes them as a typed literal's type.
var typeFuncNameWords = wordSet(`binary verbose freeze authorization concurrently`)

// operandEnds reports whether token p can end an operand, so that a word
// after it is a column label.
func operandEnds(p Token) bool {
	return p.Kind == TString || p.Kind == TNumber || p.Kind == TParam || p.Kind == TQIdent ||
		p.Kind == TIdent && !pgKeywords[p.Val] || p.Kind == TOp && (p.Val == ")" || p.Val == "]")
}

// xmlFuncs are PostgreSQL's XML functions; weir has no xml type.
var xmlFuncs = wordSet(`xmlelement xmlforest xmlparse xmlpi xmlroot xmlserialize xmlexists xmlattributes
	xmlconcat xmlagg xmltable xmlcomment xpath xpath_exists xml_is_well_formed`)

// unsupportedForm names the PostgreSQL form weir has not got that starts
// at the word toks[i] ("... is" or "... are", for 0A000), or returns "".
func unsupportedForm(toks []Token, i int) string {
	w := toks[i].Val
	word := func(k int) string {
		if i+k >= 0 && i+k < len(toks) && toks[i+k].Kind == TIdent {
			return toks[i+k].Val
		}
		return ""
	}
	op := func(k int) string {
		if i+k >= 0 && i+k < len(toks) && toks[i+k].Kind == TOp {
			return toks[i+k].Val
		}
		return ""
	}
	switch {
	case xmlFuncs[w] && op(1) == "(":
		return "XML functions are"
	case w == "document" && (word(-1) == "is" || word(-1) == "not" && word(-2) == "is"):
		return "IS DOCUMENT is"
	case w == "normalized" && (word(-1) == "is" || word(-1) == "not" || strings.HasPrefix(word(-1), "nf")):
		return "IS NORMALIZED is"
	case w == "overlaps" && op(-1) == ")" && op(1) == "(":
		return "OVERLAPS is"
	case w == "normalize" && op(1) == "(":
		return "normalize() is"
	}
	return ""
}

// tablesample checks the TABLESAMPLE clause at toks[i] as PostgreSQL's
// grammar and parse analysis do: it follows a relation name (with its
// alias), not a subquery or function call in FROM (a syntax error at
// TABLESAMPLE); it wants method(args): without arguments it is a syntax
// error, a method it has not got is 42704, and bernoulli and system take
// one argument (2202H). The clause then goes to TiDB, whose grammar has
// it (ast.TableSample).
func tablesample(src string, toks []Token, i int) error {
	if !afterRelation(toks, i) {
		return syntaxErrorAt(src, toks[i])
	}
	if i+3 < len(toks) && toks[i+2].Val == "(" && toks[i+3].Val == ")" {
		return syntaxErrorAt(src, toks[i+3])
	}
	if i+1 >= len(toks) {
		return nil
	}
	m := toks[i+1]
	if m.Kind != TIdent && m.Kind != TQIdent {
		return nil
	}
	if m.Kind == TQIdent || m.Val != "bernoulli" && m.Val != "system" {
		return pgerr.New(pgerr.UndefinedObject, "tablesample method %s does not exist", m.Val).WithPosition(charPos(src, m.Off))
	}
	if i+2 < len(toks) && toks[i+2].Kind == TOp && toks[i+2].Val == "(" {
		args, depth := 1, 0
		for k := i + 2; k < len(toks); k++ {
			if toks[k].Kind != TOp {
				continue
			}
			switch toks[k].Val {
			case "(", "[":
				depth++
			case ")", "]":
				depth--
			case ",":
				if depth == 1 {
					args++
				}
			}
			if depth == 0 {
				break
			}
		}
		if args != 1 {
			return pgerr.New(pgerr.InvalidTablesampleArgument, "tablesample method %s requires 1 argument, not %d", m.Val, args).WithPosition(charPos(src, m.Off))
		}
	}
	return nil
}

// afterRelation reports whether the TABLESAMPLE at toks[i] follows a
// relation name and its alias (name [[AS] alias [(cols)]]) rather than a
// parenthesized FROM item or a function call.
func afterRelation(toks []Token, i int) bool {
	j := i - 1
	isOp := func(k int, v string) bool { return k >= 0 && toks[k].Kind == TOp && toks[k].Val == v }
	isName := func(k int) bool { return k >= 0 && (toks[k].Kind == TIdent || toks[k].Kind == TQIdent) }
	if isOp(j, ")") {
		// An alias's column list: the "(" follows the alias, which
		// follows AS or the relation's name.
		depth := 0
		for ; j >= 0; j-- {
			if toks[j].Kind == TOp && toks[j].Val == ")" {
				depth++
			} else if toks[j].Kind == TOp && toks[j].Val == "(" {
				depth--
				if depth == 0 {
					break
				}
			}
		}
		j--
		if !isName(j) || !isName(j-1) || toks[j-1].Kind == TIdent && (toks[j-1].Val == "from" || toks[j-1].Val == "join" || toks[j-1].Val == "lateral") {
			return false
		}
	}
	if !isName(j) {
		return false
	}
	if isOp(j-1, ")") {
		return false
	}
	if j >= 2 && toks[j-1].Kind == TIdent && toks[j-1].Val == "as" && isOp(j-2, ")") {
		return false
	}
	return true
}
