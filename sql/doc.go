// Package sql is weir's SQL front end: a Postgres lexer (lexer.go), the
// statement splitter (Split), a parser for weir's own statements
// (parser.go, ddl.go: CREATE TABLE/SOURCE/SINK/VIEW/MATERIALIZED
// VIEW/SCHEMA, DROP, SHOW, SET, COPY, EXPLAIN, transactions, ...;
// function.go: CREATE and DROP FUNCTION, the body kept as text),
// Postgres type names (ParseType), and the dialect bridge (bridge.go,
// rewrite.go) that hands queries to the TiDB parser, and the recogniser
// of a multi-row INSERT ... VALUES of literals (bulkinsert.go:
// ScanBulkInsert), which the engine binds a piece of rows at a time
// rather than parse whole. Where PostgreSQL's
// grammar takes a restricted expression (a column DEFAULT's b_expr,
// BETWEEN's lower bound, FETCH FIRST's count), restricted.go finds the
// token where PostgreSQL's parser stops, as TiDB's grammar would take
// more.
//
// # Streaming DDL
//
// The connector statements follow RisingWave's grammar:
//
//	CREATE SOURCE [IF NOT EXISTS] name (cols [, WATERMARK FOR col AS expr])
//	    [INCLUDE partition|offset|timestamp|key [AS alias]]...
//	    WITH (key = value, ...) [FORMAT f ENCODE e [(key = value, ...)]]
//	CREATE TABLE name (cols [, WATERMARK FOR col AS expr]) [APPEND ONLY]
//	    [INCLUDE ...]... [WITH (...)] [FORMAT f ENCODE e [(...)]]
//	CREATE SINK [IF NOT EXISTS] name FROM relation | AS query
//	    WITH (...) [FORMAT f ENCODE e [(...)]]
//
// The clauses after a column list may come in any order. Option keys are
// dotted names folded to lower case (properties.bootstrap.server); values
// are strings, numbers or words, kept as text; ENCODE options join the
// WITH options. WATERMARK and DEFAULT expressions go through the bridge
// like a query's. The query of CREATE SINK ... AS ends at the last WITH
// followed by "(" at the statement's top nesting level (a query's own
// WITH is followed by a CTE name).
//
// # Flow
//
//	text ──Lex──▶ tokens ──split at top-level ';'──▶ statement tokens
//	  ├─ CREATE/DROP/SHOW/SET/COPY/...  ──stmtParser──▶ *CreateTable, *Set, ...
//	  └─ SELECT/WITH/VALUES/TABLE/INSERT/UPDATE/DELETE
//	        ──buildTree (nest at ( ) and [ ])──▶ node tree
//	        ──rewrite passes, innermost group first──▶ bridged text
//	        ──TiDB parser (ANSI_QUOTES, PIPES_AS_CONCAT,
//	          NO_BACKSLASH_ESCAPES, window functions)──▶ *Query{Node, ...}
//
// The TiDB parser speaks MySQL; the bridge rewrites the Postgres forms it
// does not accept into ordinary function calls with reserved pg_* names,
// which the binder interprets. The bridged text keeps a map back to the
// source offsets, so a syntax error TiDB reports is turned into Postgres's
// `syntax error at or near "tok"` (42601) positioned in the original text.
//
// # Rewrite contract
//
// These encodings are a contract with the binder (planner). "x", "y", "a",
// "b" are operands as described; 'T' is a string literal.
//
//	 #  Postgres form                          bridged form (TiDB input)
//	 1  Foo, "Foo"                             foo, "Foo" (unquoted names are folded to lower
//	                                           case; quoted names keep their case; words TiDB
//	                                           reserves but Postgres does not, such as key,
//	                                           status or rank, are written quoted unless a "("
//	                                           follows, which does not change the name (and
//	                                           session, TiDB's keyword, when a "(" does); so are
//	                                           type words left after rewrite 2 (int, real,
//	                                           interval, ...), rows/range/groups unless a
//	                                           frame bound follows, and by unless it follows
//	                                           ORDER, GROUP or PARTITION; after AS every word
//	                                           TiDB reserves is quoted, as Postgres takes any
//	                                           keyword as a label there: AS trailing)
//	    f(args), f a TiDB keyword that          "f"(args) when TiDB's parse fails inside the
//	    Postgres takes as a function name       call as written (split, region, s3, key: TiDB
//	                                           takes only its own functions' keywords before
//	                                           "("), every call of f so written, parsed again
//	                                           while the error moves on (bridge.parse)
//	 2  x::T, CAST(x AS T), T 'str'            pg_cast(x, 'T') where 'T' is types.T.String()
//	                                           of ParseType (e.g. 'integer', 'character
//	                                           varying(10)', 'timestamp with time zone',
//	                                           '"char"', 'text[]'); for types weir does not
//	                                           model it is the name as written, lower-cased,
//	                                           without pg_catalog (e.g. 'regclass', 'int2[]',
//	                                           'int[]', 'character(3)'). :: binds tighter
//	                                           than everything but . and []: -1::int is
//	                                           -(1::int); (a+b)::int, f(x)::t, a.b::t and
//	                                           CASE ... END::t cast the whole primary, as
//	                                           do f(x) OVER w::t, f(x) OVER (...)::t and
//	                                           f(x) WITHIN GROUP (...)::t (a window call
//	                                           with its OVER clause is one primary, also
//	                                           for ^, AT TIME ZONE, COLLATE, ...)
//	 3  INTERVAL 'str'                         pg_cast('str', 'interval')
//	    INTERVAL 'n' UNIT                      pg_cast('n unit', 'interval')
//	    INTERVAL 'n' U1 TO U2                  pg_cast('n u2', 'interval') when 'n' is a bare
//	                                           number (as Postgres reads it), else
//	                                           pg_cast('n', 'interval'): the field restriction
//	                                           is otherwise ignored
//	 4  a IS DISTINCT FROM b                   not ((a) <=> (b))
//	    a IS NOT DISTINCT FROM b               ((a) <=> (b))
//	                                           The operands extend to the nearest boundary at
//	                                           the same depth: , ( ) AND OR NOT WHERE ON WHEN
//	                                           THEN ELSE SELECT HAVING SET FROM BY AS IS ...;
//	                                           comparisons belong to the operands, as IS binds
//	                                           looser than = in Postgres.
//	 5  agg(x, y) FILTER (WHERE c)             pg_agg_filter(agg(x, y), (c)), after the rewrites
//	                                           7b/7c of agg's arguments; the binder makes c
//	                                           the call's per-row filter (AggCall.Filter)
//	    agg(x, y) FILTER (WHERE c) OVER ...    agg(CASE WHEN (c) THEN x END, y) OVER ...,
//	                                           count(*) as count(CASE WHEN (c) THEN 1 END);
//	                                           0A000 for the aggregates that keep NULLs
//	                                           (array_agg, json[b]_agg, json[b]_object_agg)
//	 6  EXTRACT(field FROM x)                  pg_extract('field', x), field lower-cased
//	                                           ('epoch', 'dow', 'year', ...); date_part(...)
//	                                           stays an ordinary call
//	 7  ORDER BY e [ASC|DESC] NULLS FIRST      ORDER BY pg_nulls_first(e) [ASC|DESC]
//	    ORDER BY e [ASC|DESC] NULLS LAST       ORDER BY pg_nulls_last(e) [ASC|DESC]
//	                                           (in SELECT, OVER (...) and aggregate ORDER BY)
//	 7b agg(args ORDER BY k1 DESC, k2)         agg(args, pg_agg_order_by(k1, 'desc', k2, 'asc'))
//	                                           the last argument carries the aggregate's
//	                                           ordering (TiDB only has it for GROUP_CONCAT)
//	 7c agg(DISTINCT args), agg not one of     agg(args, pg_agg_distinct()) (after any
//	    count sum avg min max stddev_pop ...   pg_agg_order_by: the marker is last), as
//	                                           TiDB's grammar has DISTINCT only for its own
//	 7d f(args) WITHIN GROUP (ORDER BY k DESC)  f(args, pg_within_group(k, 'desc')): an
//	                                           ordered-set aggregate's sorted input, keys as
//	                                           in 7b
//	 8  $n                                     ? ; after parsing each *ParamMarker has Order
//	                                           set and Query.Params[Order] = n. Orders count
//	                                           the markers of the TVF arguments first, then
//	                                           the statement, then RETURNING, each in text
//	                                           order
//	 9  E'..', U&'..', $$..$$, $t$..$t$        '...' with the content unescaped and quotes
//	                                           doubled; plain '..' is kept byte for byte
//	                                           (NO_BACKSLASH_ESCAPES); 'a'<newline>'b' is
//	                                           joined, 'a' 'b' on one line is 42601;
//	                                           U&'..' [UESCAPE 'c'] is one string token
//	    U&".." [UESCAPE 'c']                   a quoted identifier with the escapes resolved
//	10  FROM f(args) [AS] a[(c1, c2)]          FROM "__weir_tvf_N" [AS a] and Query.TVFs
//	                                           ["__weir_tvf_N"] = &TVF{Name: "f" (lower-case,
//	                                           schema dropped), Args, ArgText, Alias, Columns};
//	                                           N counts from 1 per statement
//	    FROM f(args) WITH ORDINALITY ...       the same with TVF.Ordinality set
//	    LATERAL f(args)                        LATERAL dropped (a function in FROM sees the
//	                                           items before it anyway), TVF.Lateral set
//	    FROM ONLY t                            FROM t (weir has no inheritance)
//	    FROM ROWS FROM (f(a), g(b)) [AS] r     FROM (SELECT SQL_SMALL_RESULT f(a), g(b)) [AS] r
//	                                           (the no-op SQL_SMALL_RESULT marks it): set-returning
//	    FROM unnest(a, b) [AS] r               calls in a select list run in the same lockstep
//	                                           (unnest(a, b) is ROWS FROM (unnest(a),
//	                                           unnest(b))); the alias is "__weir_rows" when
//	                                           none is given
//	    FROM (query) [AS] t(a, b)              FROM (query) AS t and Query.Aliases["t"] =
//	    FROM (VALUES ...) t(a, b)              ["a", "b"]; the same for tables: FROM x AS
//	    FROM tbl AS t(a, b)                    t(a, b)
//	11  a ~ b, a !~ b                          a REGEXP b, a NOT REGEXP b
//	    a ~* b, a !~* b                        a REGEXP pg_icase(b), a NOT REGEXP pg_icase(b)
//	    a ~~ b, a !~~ b, a ~~* b, a !~~* b     a LIKE b, a NOT LIKE b, a ILIKE b, a NOT ILIKE b
//	    OPERATOR(pg_catalog.op)                op, then the rules above
//	12  x COLLATE name                         pg_collate(x, 'name'), at the COLLATE keyword;
//	                                           x is the primary before it, casts included
//	                                           (when there is none the clause is dropped
//	                                           and Query.Collated set: the binder then
//	                                           skips its checks of conflicting collations)
//	13  ARRAY(subquery)                        pg_array_subquery((subquery))
//	    ARRAY[a, b]                            pg_array(a, b)
//	    x = ANY (expr), expr not a subquery    pg_any_eq(x, (expr)); x extends back to the
//	                                           nearest boundary or comparison operator.
//	                                           x = ANY (subquery) stays native
//	    x op ANY|SOME (expr), op not =         pg_any(x, 'op', (expr)) (op: <> != < > <= >=)
//	    x op ALL (expr)                        pg_all(x, 'op', (expr)) (op: = <> != < > <= >=)
//	    x op ANY|SOME|ALL (expr), op one of    pg_any(x, 'op', (expr)) / pg_all(...), op by its
//	    ~ ~* !~ !~* ~~ !~~ ~~* !~~* [NOT]      operator name (LIKE is ~~, NOT ILIKE !~~*);
//	    LIKE, [NOT] ILIKE                      a subquery expr is pg_array_subquery((expr))
//	    x[i]                                   pg_subscript(x, i); '{0}' stays a string.
//	                                           x is a column, a parameter, a parenthesised
//	                                           expression or a subscripted one: after a
//	                                           call (OVER clause or not), a literal or
//	                                           CASE ... END, [ is 42601 as in PostgreSQL.
//	                                           x[a][b] nests the calls; the binder reads
//	                                           the chain: a jsonb path, 42804 for a type
//	                                           without subscripts
//	    x[lo:hi]                               pg_slice(x, lo, hi), a missing bound is NULL
//	    ARRAY[[1, 2], [3, 4]]                  pg_array(pg_array(1, 2), pg_array(3, 4))
//	14  a FULL [OUTER] JOIN b                  a STRAIGHT_JOIN b (ast.Join.StraightJoin means
//	                                           FULL OUTER JOIN); ON/USING kept
//	    a CROSS JOIN b                         a STRAIGHT_JOIN b: without ON or USING it means
//	                                           CROSS JOIN (TiDB's own CROSS JOIN is a comma),
//	                                           which a view's definition prints as written
//	15  concat(...), pg_catalog.concat(...)    pg_concat(...) (a || b is TiDB's concat)
//	    cardinality(a)                         pg_cardinality(a) (a keyword for TiDB)
//	16  VALUES (1, 'a'), (2, 'b')              SELECT SQL_NO_CACHE 1 AS column1, 'a' AS column2
//	    (statement, derived table, CTE,        UNION ALL SELECT SQL_NO_CACHE 2, 'b' (SQL_NO_CACHE,
//	    set operation operand)                 which changes nothing, marks the rows, so that a
//	                                           view's definition prints them as VALUES)
//	    INSERT ... VALUES                      native
//	    INSERT INTO t DEFAULT VALUES           INSERT INTO t () VALUES ()
//	17  ... RETURNING list                     cut off; Query.Returning holds the fields of
//	                                           SELECT list
//	    INSERT ... ON CONFLICT target DO ...   cut off; Query.OnConflict holds the target and
//	                                           DO UPDATE's SET and WHERE, parsed as
//	                                           UPDATE weir_conflict_target SET ... WHERE ...
//	    INSERT INTO t AS alias                 INSERT INTO t; Query.InsertAlias holds alias
//	    INSERT ... OVERRIDING ... VALUE        INSERT ...; Query.Overriding holds system or user
//	18  LIMIT ALL                              dropped
//	    OFFSET n (no LIMIT)                    LIMIT 18446744073709551615 OFFSET n
//	    OFFSET n LIMIT m                       LIMIT m OFFSET n
//	    OFFSET n ROWS FETCH FIRST m ROWS ONLY  LIMIT m OFFSET n (FETCH without a count: 1)
//	    FETCH FIRST|NEXT m ROW|ROWS WITH TIES  LIMIT e, e the count pg_with_ties(m) parsed
//	                                           apart as below; without ORDER BY at its
//	                                           level 42601 as PostgreSQL's grammar says
//	    LIMIT $1::int, LIMIT (5)               LIMIT ?, LIMIT 5 (TiDB takes only a number or
//	                                           a parameter; the cast is dropped)
//	    LIMIT e, OFFSET e (any other count:    LIMIT 18446744073709550000+k: the k-th such
//	    -1, NULL, 2.5, $1 + 1, (subquery))     count (from 0) is parsed apart as SELECT e and
//	                                           put in place of the sentinel in the AST; its
//	                                           parameter markers come before the statement's
//	                                           and its node offsets are k+1 << 30 past the
//	                                           bridged text's, which Query.Map covers
//	19  x -> y, x ->> y                        pg_json_get(x, y), pg_json_get_text(x, y)
//	    x #> y, x #>> y                        pg_json_path(x, y), pg_json_path_text(x, y)
//	    x @> y, x <@ y                         pg_json_contains(x, y), pg_json_contained(x, y)
//	    x ? y, x ?| y, x ?& y                  pg_json_exists(x, y), pg_json_exists_any(x, y),
//	                                           pg_json_exists_all(x, y)
//	                                           x and y are the adjacent primaries (names,
//	                                           literals, groups, calls, casts)
//	20  current_user, session_user,            current_user(), session_user(),
//	    current_schema, current_catalog,       current_schema(), current_catalog(),
//	    current_role, user                     current_role(), user(); current_date,
//	                                           current_timestamp[(p)], localtimestamp, TRUE,
//	                                           FALSE, NULL are native
//	21  x AT TIME ZONE z                       pg_at_time_zone(x, z) (adjacent primaries,
//	                                           after casts: ts::timestamp AT TIME ZONE 'UTC'
//	                                           converts the cast)
//	22  TABLE t                                SELECT * FROM t
//	23  a ^ b                                  pg_op('^', a, b) (adjacent primaries; TiDB's ^ is
//	                                           XOR): the binder binds power(a, b), labelled
//	                                           ?column? and printed a ^ b as PostgreSQL does
//	24  UPDATE t SET ... FROM u, v WHERE ...   UPDATE t, u, v SET ... WHERE ... (TiDB's
//	                                           multi-table UPDATE; the first table is the
//	                                           target). DELETE FROM t USING u is native.
//	25  1.0e-10, 1e20 (numbers with exponent)  0.00000000010, 100000000000000000000. (plain
//	                                           decimals with Postgres's display scale and a
//	                                           point, so they stay exact numerics)
//	26  stddev(x), variance(x), div(a, b),     "stddev"(x), "variance"(x), "div"(a, b), "mod"(a,
//	    mod(a, b)                              b): plain calls (TiDB reads stddev and variance
//	                                           as the population forms and DIV and MOD as
//	                                           operators)
//	    nextval(s), currval(s), setval(s, n)   "nextval"(s), ...: TiDB's own sequence
//	                                           functions take a bare name
//	27  SELECT DISTINCT ON (k1, k2) list       SELECT DISTINCT pg_distinct_on(k1, k2), list (the
//	                                           first field carries the keys)
//	28  f(args) OVER spec, f a name TiDB       first_value(pg_window_call('f', args)) OVER spec
//	    does not take before OVER (bool_and,   (after #5, #7b, #7c and #26); TiDB takes only
//	    string_agg, "stddev", nosuch, a        its own window functions and aggregates there.
//	    quoted or pg_catalog-qualified name,   The binder binds a window call of f (schema
//	    or lag/lead with an offset other than  dropped; a quoted name keeps its case)
//	    an unsigned integer: '1', -1, n + 1)
//	29  ROWS|RANGE|GROUPS [BETWEEN] e          ... interval pg_frame_offset(e) day PRECEDING
//	    PRECEDING [AND ...] (any offset e: 2,  [AND ...] (TiDB's frame grammar takes
//	    $1, -1, NULL, '1', x::bigint,          only a number, a parameter or INTERVAL expr
//	    INTERVAL '1 hour', (subquery))         unit; its expr is any expression); only a
//	                                           frame clause that ends its group (a window
//	                                           specification) is rewritten. The binder takes
//	                                           e back out of pg_frame_offset and ignores the
//	                                           unit
//	    a frame Postgres's grammar rejects     42P20 as Postgres words it (frame start
//	    (ROWS 1 FOLLOWING, BETWEEN CURRENT     cannot be UNBOUNDED FOLLOWING, frame starting
//	    ROW AND 1 PRECEDING, ...)              from current row cannot have preceding rows,
//	                                           ...), at the bound it names
//	29b frame EXCLUDE CURRENT ROW|GROUP|TIES   the start bound carries it (TiDB has no
//	                                           exclusion): e PRECEDING|FOLLOWING is interval
//	                                           pg_frame_offset(e, 'x') day PRECEDING|FOLLOWING,
//	                                           UNBOUNDED PRECEDING and CURRENT ROW are interval
//	                                           pg_frame_bound('unbounded preceding', 'x') day
//	                                           PRECEDING, 'current row' likewise; 'x' is
//	                                           'current row', 'group' or 'ties'
//	29c frame without BETWEEN (ROWS e          the start bound carries 'single' likewise
//	    PRECEDING, RANGE CURRENT ROW)          ('single' or 'single ties'), so that a
//	                                           view's definition prints it as written
//	    frame EXCLUDE NO OTHERS                the frame (the clause is the default)
//	    EXCLUDE ... not ending the frame's     42601 at the token Postgres's grammar stops at
//	    window specification, or malformed
//	30  x [NOT] BETWEEN SYMMETRIC lo AND hi    x [NOT] BETWEEN pg_between_symmetric(lo) AND hi;
//	    x BETWEEN ASYMMETRIC lo AND hi         x BETWEEN lo AND hi (the binder reads the
//	                                           first as x BETWEEN lo AND hi OR x BETWEEN hi
//	                                           AND lo, as Postgres's grammar does)
//	31  a # b, a || b, a & b, a | b,           ((a) ^ (b)), ((a) || (b)), ...: the operators of
//	    a << b, a >> b                         PostgreSQL's Op precedence (below + and -, above
//	                                           comparisons, left-associative) with their
//	                                           operands grouped; TiDB's ^ is XOR, which the
//	                                           binder binds as #
//	    a ^@ b, a #- b                         pg_starts_with((a), (b)), pg_json_delete_path((a),
//	                                           (b)), at the same precedence
//	    ~ a, @ a, |/ a, ||/ a                  (~ (a)), pg_op('@', (a)), pg_op('|/', (a)),
//	                                           pg_op('||/', (a)): abs, sqrt and cbrt (these
//	                                           two of a double precision a), as #23
//	32  -2 ^ 2                                 power(- 2, 2): a unary sign binds tighter than ^
//	33  A UNION B INTERSECT C                  A UNION (B INTERSECT C): INTERSECT binds tighter
//	34  5., 1e3 (a literal ending in a point)  (5.), (1000.) (TiDB reads 5. AS c as a name)
//	35  a [NOT] SIMILAR TO p [ESCAPE e]        a [NOT] REGEXP pg_similar_to_escape((p)[, (e)]),
//	                                           the call at [NOT] SIMILAR; the binder binds
//	                                           similar_to_escape(p[, e]), its errors naming
//	                                           pg_catalog.similar_to_escape as PostgreSQL's
//	    a [NOT] LIKE|ILIKE p ESCAPE e          a [NOT] LIKE|ILIKE pg_like_escape((p), (e)), the
//	                                           call at [NOT] LIKE; the binder binds a ~~
//	                                           like_escape(p, e) (e any expression, as in
//	                                           PostgreSQL; TiDB takes one byte). After ~~,
//	                                           !~~, ~~*, !~~* ESCAPE is 42601
//	    substring(x SIMILAR p ESCAPE e)        substring(x, p, e)
//	36  overlay(s PLACING r FROM n [FOR m])    overlay(s, r, n[, m])
//	37  SELECT [ALL] (no target list)          SELECT [ALL] pg_no_columns(): no output columns
//	38  GROUP BY ROLLUP (a, (b, c))            GROUP BY pg_rollup(a, (b, c)); CUBE (...) is
//	    GROUP BY GROUPING SETS (a, (), ...)    pg_cube(...), GROUPING SETS (...) is
//	                                           pg_grouping_sets(...) and an empty grouping set
//	                                           () pg_empty_set(), at the top of a GROUP BY list
//	                                           and inside GROUPING SETS; GROUP BY ALL drops
//	                                           ALL and GROUP BY DISTINCT starts the list with
//	                                           pg_group_distinct() (the binder expands the
//	                                           sets, planner/bind_grouping.go)
//	39  ROW(t.*, x)                            ROW(pg_row_star(t), x): the binder expands it
//	                                           into t's columns
//	    ROW(x), ROW()                          pg_row1(x), pg_row1() (TiDB's ROW takes two
//	                                           fields or more)
//	40  UPDATE ... WHERE CURRENT OF c          UPDATE ... WHERE pg_current_of('c'); the same
//	                                           for DELETE
//	41  f(*), f not count, maybe with OVER     pg_star_call('f'), the clause dropped: 42883
//	    or FILTER clause after it              f() does not exist, or 42809 when f() is a
//	                                           plain function
//	    rank(*) OVER ... (the window           rank() OVER ...
//	    functions without arguments)
//	    f(*) WITHIN GROUP (...)                left to #7d's ordered-set rewrite
//	42  FOR NO KEY UPDATE, FOR KEY SHARE       FOR UPDATE, FOR SHARE
//	    ORDER BY x USING <, USING >            ORDER BY x ASC, x DESC
//	    (t).col, (t).*                         t.col, t.* (no composite types: t is a range
//	                                           variable; when it is none the binder reads
//	                                           (x).f as below: Query.FieldRefs; (x).* as
//	                                           the column x: a subquery's row
//	                                           constructor's fields, else 42809:
//	                                           Query.FieldStars)
//	    (expr).f, expr not a bare name         pg_field((expr), 'f'): a row constructor's
//	                                           field, else the functional notation f(expr),
//	                                           else 42809 as PostgreSQL words it; (expr).*
//	                                           is pg_field((expr), '*'): in a select list a
//	                                           row's fields (f1, f2, ...), else 42809 "type
//	                                           T is not composite"
//	    t.*::type                              t::type (the whole row cast)
//	43  f(a, name => v, name2 := w)            f(a, pg_named_arg('name', v), pg_named_arg('name2',
//	                                           w)) in an ordinary call's arguments (not the
//	                                           keyword forms COALESCE, GREATEST, ...); a name
//	                                           keeps its case when quoted. A positional
//	                                           argument after a named one and a name given
//	                                           twice are 42601 as PostgreSQL words them; => or
//	                                           := anywhere else is a syntax error. The binder
//	                                           matches the names with functions.NamedParams
//	                                           (a window or aggregate call with one goes
//	                                           through #28's wrapper, to be refused there)
//	    f(a, VARIADIC x)                       f(a, pg_variadic(x)), and VARIADIC name => x as
//	    f(a, VARIADIC name => x)               pg_named_arg('name', pg_variadic(x)); VARIADIC
//	                                           before a comma is 42601 at the comma, and
//	                                           anywhere else at VARIADIC itself, as in
//	                                           PostgreSQL's grammar. The binder spreads x's
//	                                           elements into f's variadic parameter
//	                                           (functions.VariadicCallFn)
//	44  db.schema.f(args), db.schema.t,        schema.f(args), schema.t, schema.t.col, and
//	    db.schema.t.col                        Query.Catalogs records db, which the binder
//	                                           refuses unless it is the session's database
//	                                           (0A000 "cross-database references are not
//	                                           implemented"); a relation is a name after
//	                                           FROM (a query's), JOIN, INTO, UPDATE, USING,
//	                                           ... A name of more parts is 42601 "improper
//	                                           qualified name (too many dotted names)"
//
// Everything else is passed through: unquoted words lower-cased, strings
// re-quoted, and the words TiDB takes as keywords where PostgreSQL has
// plain names (straight_join, regexp, sql_no_cache, xor, div, source,
// ...) quoted. When TiDB then rejects the text, the error is 42601 at
// the source token the failing bridged token came from.
//
// # The dialect gate
//
// Before anything is bridged, user text passes a gate (dialect.go) that
// refuses, with PostgreSQL's SQLSTATE, what TiDB would otherwise read
// with a MySQL meaning: backtick names, operators PostgreSQL's lexer
// forms but weir has not got (<=>, ?, !, @-, ||-: 42883), :=, bit-string
// constants (no bit type: 0A000), AS 'x', a string after a number or a
// closing parenthesis, name 'str' where name is no type (42704), GROUP
// BY ... WITH ROLLUP, a JOIN without ON or USING, UPDATE t, u, DELETE t
// FROM, INSERT without INTO, INSERT ... SET/VALUE, ORDER BY or LIMIT in
// UPDATE and DELETE, COLLATE with a collation weir does not order by
// (42704 or 0A000), a TABLESAMPLE clause after anything but a relation
// name and alias (42601), with a method other than bernoulli or system
// (42704) or other than one argument (2202H). A call the user writes
// of one of the internal names above (pg_cast, pg_array, ...) is emitted
// as "__weir_fn_pg_cast"(...) (UserCallPrefix): a user function's call
// to the binder, else 42883 naming pg_cast and its argument types. A
// TABLESAMPLE clause it lets through reaches the binder as TiDB's
// ast.TableSample, its expressions taken out of the Literal TiDB's
// grammar wraps them in (tidbParse). Valid
// PostgreSQL that weir cannot run is 0A000 naming the feature, never a
// syntax error: the gate refuses XML functions,
// IS NORMALIZED, OVERLAPS and a SELECT INTO the statement parser did not
// take (SELECT ... INTO name at the outer level is CREATE TABLE name AS
// the query, selectinto.go); the statement parser the
// statements and clauses of unsupported.go (CREATE EXTENSION, RULE,
// ...; unlogged sequences, temporary recursive views; PARTITION BY, INHERITS;
// ...). The lexer
// refuses a number run into a name (123abc, 0x1F, 1e) as PostgreSQL 15
// does. Text the bridge wrote itself (stored DEFAULT and watermark
// expressions, ParseStored) skips the gate and rewrites 31 and 32.
//
// Known gaps: ON CONFLICT is not rewritten (TiDB rejects it: 42601);
// x IS UNKNOWN is read as x IS NULL.
package sql
