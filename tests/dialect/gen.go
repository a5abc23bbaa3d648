package dialect

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// schema is created on both servers before any statement runs.
var schema = []string{
	"CREATE TABLE a (id int PRIMARY KEY, x int, y text, n numeric)",
	"CREATE TABLE b (id int PRIMARY KEY, x int, z text)",
	"INSERT INTO a VALUES (1, 10, 'one', 1.5), (2, NULL, 'two', 2), (3, -3, NULL, 0.25), (4, 7, 'four', NULL)",
	"INSERT INTO b VALUES (1, 10, 'uno'), (3, 3, NULL), (5, NULL, 'cinco')",
}

// gen writes random statements from a small grammar. Every production is
// one both servers must agree on: either PostgreSQL accepts it and weir
// must return the same rows, or PostgreSQL rejects it and weir must too.
type gen struct {
	rng *rand.Rand
}

func (g *gen) pick(xs ...string) string { return xs[g.rng.IntN(len(xs))] }

func (g *gen) chance(n int) bool { return g.rng.IntN(n) == 0 }

// intLit returns an integer literal in one of PostgreSQL's forms.
func (g *gen) intLit() string {
	// (No literals near the integer limits: PostgreSQL folds constant
	// overflow at plan time even where no row is computed.)
	return g.pick("0", "1", "2", "3", "7", "42", "-1", "-2", "100", "32767", "007")
}

// numLit returns a numeric literal: the forms .5, 5., 1.e2, exponents.
func (g *gen) numLit() string {
	return g.pick(".5", "5.", "1.e2", "1.5", "0.25", "2.50", "1e3", "1.5e-2", "12.345", "1E2", "0.0")
}

func (g *gen) strLit() string {
	return g.pick("'a'", "'abc'", "''", "'it''s'", "'x%'", "'one'", "E'a\\tb'", "$$d$$", "$q$dq$q$", "U&'\\0041'", "'10'", "'Été'", "'ßΣ'")
}

// col returns a column of table a (qualified or not).
func (g *gen) col() string {
	return g.pick("x", "id", "a.x", "a.id", "n")
}

func (g *gen) textCol() string { return g.pick("y", "a.y") }

// intExpr returns an integer-valued expression (or one PostgreSQL
// rejects in a way weir must too).
func (g *gen) intExpr(d int) string {
	if d <= 0 || g.chance(3) {
		if g.chance(2) {
			return g.intLit()
		}
		return g.pick("x", "id", "a.x", "a.id")
	}
	l, r := g.intExpr(d-1), g.intExpr(d-1)
	switch g.rng.IntN(14) {
	case 0:
		return fmt.Sprintf("%s %s %s", l, g.pick("+", "-", "*"), r)
	case 1:
		return fmt.Sprintf("%s %s %s", l, g.pick("&", "|", "#"), r)
	case 2:
		return fmt.Sprintf("%s %s %s", l, g.pick("<<", ">>"), g.pick("1", "2", "3"))
	case 3:
		return fmt.Sprintf("%s%s", g.pick("~", "- ", "+", "@ ", "~ ", "- "), l)
	case 4:
		return fmt.Sprintf("(%s)", l)
	case 5:
		return fmt.Sprintf("abs(%s)", l)
	case 6:
		return fmt.Sprintf("CASE WHEN %s THEN %s ELSE %s END", g.boolExpr(d-1), l, r)
	case 7:
		return fmt.Sprintf("coalesce(%s, %s)", l, r)
	case 8:
		return fmt.Sprintf("%s::int", l)
	case 9:
		return fmt.Sprintf("%s %% %s", l, g.pick("3", "7", "-2"))
	case 10:
		return fmt.Sprintf("length(%s)", g.textExpr(d-1))
	case 11:
		// MySQL operators and functions PostgreSQL does not have.
		return fmt.Sprintf("%s %s %s", l, g.pick("DIV", "MOD", "XOR", "<=>", "&&", "!", "?"), r)
	case 12:
		return fmt.Sprintf("%s(%s, %s)", g.pick("IF", "IFNULL", "greatest", "least", "nullif"), l, r)
	default:
		return fmt.Sprintf("%s %s %s", l, g.pick("+", "*", "||", "#", "&", "-"), r)
	}
}

func (g *gen) textExpr(d int) string {
	if d <= 0 || g.chance(3) {
		if g.chance(2) {
			return g.strLit()
		}
		return g.textCol()
	}
	l, r := g.textExpr(d-1), g.textExpr(d-1)
	switch g.rng.IntN(8) {
	case 0:
		return fmt.Sprintf("%s || %s", l, r)
	case 1:
		return fmt.Sprintf("upper(%s)", l)
	case 2:
		return fmt.Sprintf("%s || %s", l, g.intExpr(d-1))
	case 3:
		return fmt.Sprintf("coalesce(%s, %s)", l, r)
	case 4:
		return fmt.Sprintf("%s::text", g.intExpr(d-1))
	case 5:
		return fmt.Sprintf("substr(%s, %s)", l, g.pick("1", "2"))
	case 6:
		return fmt.Sprintf("(%s) %s", l, g.pick("COLLATE \"C\"", "COLLATE \"nosuch\""))
	default:
		return fmt.Sprintf("concat(%s, %s)", l, r)
	}
}

func (g *gen) numExpr(d int) string {
	if d <= 0 || g.chance(3) {
		if g.chance(2) {
			return g.numLit()
		}
		return g.pick("n", "a.n")
	}
	l, r := g.numExpr(d-1), g.numExpr(d-1)
	switch g.rng.IntN(7) {
	case 0:
		return fmt.Sprintf("%s %s %s", l, g.pick("+", "-", "*"), r)
	case 1:
		return fmt.Sprintf("%s ^ %s", g.pick("2", "-2", "2.0", "- 2", "(-2)", "3"), g.pick("2", "3", "-1"))
	case 2:
		return fmt.Sprintf("%s %s", g.pick("|/", "||/", "@", "-"), g.pick("16", "27", "2", "16.0", "0.25"))
	case 3:
		return fmt.Sprintf("round(%s, %s)", l, g.pick("0", "1", "2"))
	case 4:
		return fmt.Sprintf("%s::numeric(10,%s)", l, g.pick("0", "2"))
	case 5:
		return fmt.Sprintf("%s / %s", l, g.pick("2", "4.0", "3"))
	default:
		return fmt.Sprintf("- %s", l)
	}
}

func (g *gen) boolExpr(d int) string {
	if d <= 0 || g.chance(4) {
		return g.pick("true", "false", "x > 0", "y IS NULL", "id = 1", "n IS NOT NULL")
	}
	switch g.rng.IntN(10) {
	case 0:
		return fmt.Sprintf("%s %s %s", g.intExpr(d-1), g.pick("=", "<>", "!=", "<", ">=", "<="), g.intExpr(d-1))
	case 1:
		return fmt.Sprintf("%s %s %s", g.boolExpr(d-1), g.pick("AND", "OR"), g.boolExpr(d-1))
	case 2:
		return fmt.Sprintf("NOT %s", g.boolExpr(d-1))
	case 3:
		return fmt.Sprintf("%s IS %sDISTINCT FROM %s", g.intExpr(d-1), g.pick("", "NOT "), g.intExpr(d-1))
	case 4:
		return fmt.Sprintf("%s BETWEEN %s AND %s", g.intExpr(d-1), g.intLit(), g.intLit())
	case 5:
		return fmt.Sprintf("%s IN (%s, %s)", g.intExpr(d-1), g.intLit(), g.intLit())
	case 6:
		return fmt.Sprintf("%s %s %s", g.textExpr(d-1), g.pick("LIKE", "~", "!~", "~~", "ILIKE", "REGEXP", "RLIKE"), g.pick("'o%'", "'^t'", "'e$'", "'é%'", "'^\\w'", "'[[:upper:]]'"))
	case 7:
		return fmt.Sprintf("%s IS %s", g.intExpr(d-1), g.pick("NULL", "NOT NULL", "TRUE"))
	case 8:
		return fmt.Sprintf("%s %s %s", g.textExpr(d-1), g.pick("=", "<", ">"), g.textExpr(d-1))
	default:
		return fmt.Sprintf("(%s)", g.boolExpr(d-1))
	}
}

// anyExpr returns an expression of any type.
func (g *gen) anyExpr(d int) string {
	switch g.rng.IntN(4) {
	case 0:
		return g.textExpr(d)
	case 1:
		return g.numExpr(d)
	case 2:
		return g.boolExpr(d)
	}
	return g.intExpr(d)
}

// alias returns an optional column label, sometimes in a MySQL form.
func (g *gen) alias(i int) string {
	switch g.rng.IntN(8) {
	case 0:
		return fmt.Sprintf(" AS c%d", i)
	case 1:
		return fmt.Sprintf(" c%d", i)
	case 2:
		return fmt.Sprintf(" AS \"C%d\"", i)
	case 3:
		return g.pick(" AS 'x'", " AS `x`", " AS order", " AS select", " AS regexp")
	}
	return ""
}

func (g *gen) selectList(d int) (string, int) {
	n := 1 + g.rng.IntN(3)
	var fs []string
	for i := 0; i < n; i++ {
		fs = append(fs, g.anyExpr(d)+g.alias(i))
	}
	return strings.Join(fs, ", "), n
}

// from returns a FROM clause over a and b.
func (g *gen) from() string {
	switch g.rng.IntN(14) {
	case 0:
		return " FROM a JOIN b ON a.id = b.id"
	case 1:
		return " FROM a LEFT JOIN b ON a.id = b.id"
	case 2:
		return " FROM a FULL JOIN b ON a.x = b.x"
	case 3:
		return " FROM a CROSS JOIN b"
	case 4:
		return " FROM a JOIN b USING (id)"
	case 5:
		return g.pick(" FROM a JOIN b", " FROM a STRAIGHT_JOIN b ON a.id = b.id", " FROM a JOIN b WHERE true",
			" FROM a, b", " FROM a NATURAL JOIN b", " FROM `a`", " FROM a USE INDEX (x)",
			" FROM a TABLESAMPLE REGIONS()", " FROM a AS t(p, q)", " FROM a FULL OUTER JOIN b ON a.id = b.id")
	}
	return " FROM a"
}

func (g *gen) query(d int) string {
	var s strings.Builder
	s.WriteString("SELECT ")
	if g.chance(8) {
		s.WriteString(g.pick("DISTINCT ", "ALL ", "SQL_NO_CACHE ", "STRAIGHT_JOIN ", "HIGH_PRIORITY "))
	}
	grouped := g.chance(5)
	n := 2
	if grouped {
		s.WriteString(g.pick("x, count(*)", "y, sum(x)", "x % 2, max(y)", "x, group_concat(y)", "x, string_agg(y, ',')"))
	} else {
		var list string
		list, n = g.selectList(d)
		s.WriteString(list)
	}
	from := g.from()
	s.WriteString(from)
	if g.chance(2) {
		s.WriteString(" WHERE " + g.boolExpr(d))
	}
	if grouped {
		s.WriteString(" GROUP BY " + g.pick("1", "1", "ROLLUP (1)", "CUBE (1)", "GROUPING SETS ((1), ())", "GROUPING SETS (1, 1)", "DISTINCT ROLLUP (1), ()"))
		if g.chance(4) {
			s.WriteString(g.pick(" WITH ROLLUP", " HAVING count(*) > 0", " HAVING true"))
		}
	}
	// LIMIT and OFFSET pick rows by an order of every output column, so
	// that both servers pick the same ones.
	if limit := g.rng.IntN(8); limit < 3 {
		s.WriteString(" ORDER BY 1")
		for i := 2; i <= n; i++ {
			fmt.Fprintf(&s, ", %d", i)
		}
		s.WriteString([]string{" LIMIT " + g.pick("1", "2", "ALL", "1, 2", "0"), " LIMIT 2 OFFSET 1", " OFFSET 1"}[limit])
	}
	return s.String()
}

// setOp returns a set operation over small constant queries.
func (g *gen) setOp() string {
	term := func() string { return "SELECT " + g.pick("1", "2", "3", "NULL::int") }
	var s strings.Builder
	s.WriteString(term())
	for i := 0; i < 1+g.rng.IntN(3); i++ {
		s.WriteString(" " + g.pick("UNION", "UNION ALL", "INTERSECT", "EXCEPT", "INTERSECT ALL", "EXCEPT ALL") + " " + term())
	}
	if g.chance(3) {
		s.WriteString(" ORDER BY 1")
	}
	return s.String()
}

// dml returns a data-changing statement (run inside BEGIN ... ROLLBACK).
func (g *gen) dml() string {
	switch g.rng.IntN(12) {
	case 0:
		return fmt.Sprintf("UPDATE a SET x = %s WHERE %s", g.intExpr(1), g.boolExpr(1))
	case 1:
		return fmt.Sprintf("DELETE FROM a WHERE %s", g.boolExpr(1))
	case 2:
		return "INSERT INTO a VALUES (" + fmt.Sprint(10+g.rng.IntN(5)) + ", " + g.intLit() + ", " + g.strLit() + ", " + g.numLit() + ")"
	case 3:
		return "UPDATE a SET x = b.x FROM b WHERE a.id = b.id"
	case 4:
		return fmt.Sprintf("INSERT INTO a SELECT id + 10, x, y, n FROM a WHERE %s", g.boolExpr(1))
	case 5:
		return fmt.Sprintf("DELETE FROM a USING b WHERE a.id = b.id AND b.x %s 3", g.pick("=", "<", ">"))
	}
	return g.pick(
		"UPDATE a, b SET a.x = 1 WHERE a.id = b.id",
		"DELETE FROM a LIMIT 1",
		"DELETE FROM a ORDER BY id",
		"UPDATE a SET x = 1 LIMIT 1",
		"INSERT INTO a VALUE (20, 1, 'v', 1)",
		"INSERT IGNORE INTO a VALUES (1, 1, 'i', 1)",
		"INSERT INTO a VALUES (1, 1, 'd', 1) ON DUPLICATE KEY UPDATE x = 2",
		"INSERT INTO a SET id = 21, x = 1",
		"INSERT a VALUES (22, 1, 'n', 1)",
		"DELETE a FROM a WHERE id = 1",
		"DELETE FROM a, b WHERE a.id = 1",
		"REPLACE INTO a VALUES (1, 1, 'r', 1)",
		"UPDATE a SET x = 1 WHERE id = 1 RETURNING id, x",
		"DELETE FROM a WHERE id = 2 RETURNING *",
		"DELETE FROM a USING b WHERE a.id = b.id RETURNING a.id, b.z",
		"DELETE FROM a t USING b AS u, a AS v WHERE t.id = u.id AND v.id = u.id RETURNING *",
	)
}

// internal returns a call of a name the bridge uses internally, which
// PostgreSQL does not have.
func (g *gen) internal() string {
	name := g.pick("pg_cast", "pg_extract", "pg_array", "pg_any_eq", "pg_distinct_on", "pg_nulls_first",
		"pg_slice", "pg_subscript", "pg_concat", "pg_icase", "pg_json_get", "pg_at_time_zone", "pg_window_call",
		"pg_frame_offset", "pg_agg_distinct", "pg_agg_order_by", "pg_between_symmetric", "\"pg_cast\"", "pg_catalog.pg_cast")
	return fmt.Sprintf("SELECT %s(%s, %s)", name, g.intLit(), g.strLit())
}

// stmt returns one statement and whether it changes data.
// pgForm writes one of the PostgreSQL statement forms weir either runs
// as PostgreSQL does (WITH ORDINALITY, FROM ONLY, whole-row JSON, ...) or
// refuses as unsupported (0A000), never as a syntax error: the forms of
// PostgreSQL's command list a user might type. The statements that
// would create something run inside BEGIN ... ROLLBACK.
func (g *gen) pgForm() (string, bool) {
	t := g.pick("a", "b")
	c := g.pick("id", "x")
	if g.rng.IntN(2) == 0 {
		return g.pick(
			fmt.Sprintf("CREATE TEMP TABLE tt (%s int)", c),
			"CREATE LOCAL TEMPORARY TABLE tt (x int) ON COMMIT DROP",
			"CREATE UNLOGGED TABLE ul (x int)",
			fmt.Sprintf("CREATE TABLE p (%s int) PARTITION BY %s (%s)", c, g.pick("RANGE", "LIST", "HASH"), c),
			fmt.Sprintf("CREATE TABLE i (w int) INHERITS (%s)", t),
			"CREATE DOMAIN d AS int CHECK (VALUE > 0)",
			"CREATE EXTENSION IF NOT EXISTS pgcrypto",
			fmt.Sprintf("CREATE TABLE lk (LIKE %s INCLUDING %s)", t, g.pick("ALL", "INDEXES", "CONSTRAINTS", "IDENTITY")),
			fmt.Sprintf("CREATE VIEW v AS SELECT id FROM %s WITH %sCHECK OPTION", t, g.pick("", "LOCAL ", "CASCADED ")),
			fmt.Sprintf("CREATE MATERIALIZED VIEW mv AS SELECT id FROM %s WITH NO DATA", t),
			fmt.Sprintf("CREATE TABLE ct (p, q) AS SELECT id, x FROM %s", t),
			fmt.Sprintf("SELECT %s INTO sx FROM %s", c, t),
			fmt.Sprintf("CREATE POLICY pol ON %s USING (true)", t),
			"CREATE TYPE e AS ENUM ('x', 'y')",
			"DROP DOMAIN IF EXISTS d",
			"DROP FUNCTION IF EXISTS f(int)",
			"ALTER DEFAULT PRIVILEGES GRANT SELECT ON TABLES TO PUBLIC",
		), true
	}
	return g.pick(
		fmt.Sprintf("SELECT * FROM unnest(ARRAY[%d, %d, NULL]) WITH ORDINALITY AS u(v, n)", g.rng.IntN(9), g.rng.IntN(9)),
		fmt.Sprintf("SELECT * FROM generate_series(%d, 4) WITH ORDINALITY", g.rng.IntN(6)),
		"SELECT * FROM json_each('{\"k\": [1], \"j\": null}') WITH ORDINALITY AS e(k, v, n)",
		fmt.Sprintf("SELECT * FROM ONLY %s", t),
		fmt.Sprintf("SELECT row_to_json(%s) FROM %s", t, t),
		fmt.Sprintf("SELECT to_jsonb(%s), to_json(%s) FROM %s", t, t, t),
		fmt.Sprintf("SELECT %s::text, %s.*::text FROM %s", t, t, t),
		fmt.Sprintf("SELECT (%s).%s FROM %s", t, c, t),
		fmt.Sprintf("SELECT %s FROM %s ORDER BY %s USING %s", c, t, c, g.pick("<", ">")),
		fmt.Sprintf("SELECT id FROM %s FOR %s", t, g.pick("NO KEY UPDATE", "KEY SHARE", "UPDATE", "SHARE")),
		fmt.Sprintf("SELECT * FROM %s CROSS JOIN LATERAL generate_series(1, 2) g", t),
		fmt.Sprintf("SELECT * FROM %s, LATERAL generate_series(1, %s.id) g", t, t),
		"SELECT * FROM ROWS FROM (generate_series(1, 2), unnest(ARRAY['a'])) AS r(x, y)",
		"SELECT xmlelement(name e)",
		"SELECT gen_random_uuid() IS NULL",
		fmt.Sprintf("SELECT id FROM %s ORDER BY id FETCH FIRST 1 ROW WITH TIES", t),
		"SET CONSTRAINTS ALL IMMEDIATE",
		"SET ROLE NONE",
		"SHOW SESSION AUTHORIZATION",
	), false
}

// fetchCount returns the count of a FETCH FIRST or OFFSET ... ROWS
// clause: PostgreSQL takes a c_expr or + / - before a number there, and
// an expression with an operator only in parentheses.
func (g *gen) fetchCount() string {
	return g.pick("", "1", "2", "0", "+ 1", "- 1", "+ 1.5", "2.5", "1 + 1", "(1 + 1)", "1::int", "(1)", "NULL",
		"abs(-1)", "int '1'", "'1'", "CASE WHEN true THEN 1 END", "(SELECT 1)", "- x", "- (1)", "1 * 2", "NOT true")
}

// limitClauses returns ORDER BY id and one to three of LIMIT, OFFSET and
// FETCH in any order: PostgreSQL takes one LIMIT or FETCH and one OFFSET.
func (g *gen) limitClauses() string {
	var s strings.Builder
	s.WriteString(" ORDER BY id")
	for i := 0; i < 1+g.rng.IntN(3); i++ {
		switch g.rng.IntN(3) {
		case 0:
			s.WriteString(" LIMIT " + g.pick("1", "1 + 1", "ALL", "(2)", "NOT true"))
		case 1:
			if c := g.fetchCount(); c != "" && g.chance(2) {
				s.WriteString(" OFFSET " + c)
			} else {
				s.WriteString(" OFFSET " + g.pick("1", "ALL") + g.pick("", " ROW", " ROWS"))
			}
			if g.chance(2) {
				s.WriteString(g.pick(" ROW", " ROWS"))
			}
		default:
			s.WriteString(" FETCH " + g.pick("FIRST", "NEXT") + " " + g.fetchCount() + g.pick(" ROW", " ROWS", "") +
				g.pick(" ONLY", " ONLY", " WITH TIES", ""))
		}
	}
	return s.String()
}

// bExpr returns a column type and a DEFAULT expression for it: PostgreSQL
// takes a b_expr there, which has arithmetic, comparisons, :: and IS
// [NOT] DISTINCT FROM, but not NOT, AND, OR, IS NULL, LIKE, IN, BETWEEN,
// AT TIME ZONE or ANY without parentheses.
func (g *gen) bExpr() (string, string) {
	switch g.rng.IntN(3) {
	case 0:
		return "int", g.pick("1 + 1", "- 1", "1::int", "2 ^ 3::int", "abs(-1) % 2", "1 NOT true", "1 ISNULL", "1 NOTNULL",
			"CASE WHEN 1 IN (1) THEN 1 END", "(1)", "1 OPERATOR(pg_catalog.+) 1", "1 =", "- NOT 1")
	case 1:
		return "bool", g.pick("NOT true", "true AND false", "(true AND false)", "true OR false", "(true) OR false", "1 IS NULL",
			"1 IS NOT NULL", "(1 IS NULL)", "true IS TRUE", "1 IS DISTINCT FROM 2", "1 IS NOT DISTINCT FROM 2", "1 < 2",
			"1 BETWEEN 0 AND 2", "1 IN (1)", "'a' LIKE 'b'", "'a' NOT LIKE 'b'", "'a' SIMILAR TO 'b'", "'a' ~ 'b'",
			"1 = ANY (ARRAY[1])", "1 = NOT true")
	}
	if g.chance(2) {
		return "timestamptz", g.pick("now() AT TIME ZONE 'UTC'", "(now() AT TIME ZONE 'UTC')", "now()", "now() - interval '1' day")
	}
	return "text", g.pick("'a' || 'b'", "'x' COLLATE \"C\"", "('x' COLLATE \"C\")", "'a'::text", "text 'a'", "'a' NOT LIKE 'b'")
}

// restricted returns a statement with one of the restricted expressions
// of PostgreSQL's grammar: a FETCH FIRST or OFFSET count, a column
// DEFAULT, BETWEEN's lower bound, a CHECK without parentheses. A table
// it creates is dropped in the same query string.
func (g *gen) restricted() string {
	switch g.rng.IntN(5) {
	case 0:
		typ, e := g.bExpr()
		return fmt.Sprintf("CREATE TABLE dt (c %s DEFAULT %s%s); DROP TABLE dt", typ, e,
			g.pick("", "", " NOT NULL", " NULL", " UNIQUE", " DEFAULT NULL", " CHECK (true)"))
	case 2:
		// BETWEEN's lower bound is a b_expr too.
		return fmt.Sprintf("SELECT id FROM a WHERE %s %sBETWEEN %s%s AND %s", g.pick("x", "id", "x > 0", "y"), g.pick("", "NOT "),
			g.pick("", "SYMMETRIC "), g.pick("1", "- 1", "1 + x", "0 = 0", "1 < 2", "'a' COLLATE \"C\"", "1 IS NULL", "NOT true",
				"x IS DISTINCT FROM 1", "CASE WHEN true AND false THEN 1 END", "(1 IN (1))::int", "1 IN (1)", "'a' LIKE 'b'"),
			g.pick("3", "true", "'z'", "x AND true"))
	case 1:
		return g.pick("CREATE TABLE dt (c int CHECK c > 0)", "CREATE TABLE dt (c int, CHECK c > 0)", "CREATE TABLE dt (c int CHECK)",
			"CREATE TABLE dt (c int CONSTRAINT k CHECK (c > 0)); DROP TABLE dt", "ALTER TABLE a ADD CHECK x > 0")
	}
	return "SELECT id FROM a" + g.limitClauses()
}

func (g *gen) stmt() (string, bool) {
	switch g.rng.IntN(22) {
	case 21:
		return g.restricted(), false
	case 20:
		return g.pgForm()
	case 0, 1:
		return g.dml(), true
	case 2:
		return g.setOp(), false
	case 3:
		return g.internal(), false
	case 4:
		list, _ := g.selectList(3)
		return "SELECT " + list, false
	case 5:
		return g.pick("SELECT 1 # comment", "SELECT 5 # 3, 1", "SELECT 1 -- c\n + 1", "SELECT /* a /* b */ c */ 1",
			"SELECT 1 /* open", "SELECT B'101'", "SELECT X'1F'", "SELECT x'FF' FROM a", "SELECT 0x1F",
			"SELECT 1 := 2", "SELECT @x", "SELECT @@version", "SELECT 'a' 'b'", "SELECT 'a'\n'b'",
			"SELECT \"\"", "SELECT $1", "SELECT 1e", "SELECT 1.2.3", "SELECT .5.5", "SELECT 1..2",
			"SELECT ~~5", "SELECT - - 5", "SELECT 5 !", "SELECT !5", "SELECT 1 ^ 2 ^ 3", "SELECT -2 ^ 2",
			"SELECT 2 ^ -1", "SELECT |/ 16 + 9", "SELECT @ -5 + 1", "SELECT 4 | 1 & 2", "SELECT 'a' || 1 + 1",
			"SELECT 1 | 2 << 1", "SELECT 1 << 33", "SELECT 1::int2 << 15", "SELECT ~ 5 + 1",
			"SELECT 1 UNION SELECT 1 INTERSECT SELECT 2"), false
	}
	return g.query(3), false
}
