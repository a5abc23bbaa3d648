// Package planner turns parsed queries into typed logical plans.
//
// The binder (Bind) walks the TiDB AST that the sql package produces after
// its dialect bridge and resolves, in Postgres's terms:
//
//   - names: tables, views (expanded from their stored SQL), system tables,
//     CTEs (inlined), derived tables, table functions, columns (with
//     correlated references to enclosing queries as OuterRef);
//   - types: literals (int4/int8/numeric by size, strings of unknown type
//     until context decides), operator and function overloads (coerce.go,
//     PostgreSQL 15 manual chapter 10), common types for CASE, COALESCE,
//     UNION, VALUES and IN, assignment casts for INSERT and UPDATE;
//   - clauses: grouping with Postgres's validation (42803), window
//     functions, DISTINCT, ORDER BY over output names, ordinals or hidden
//     expressions, LIMIT/OFFSET;
//   - output column names exactly as Postgres's FigureColname picks them
//     (names.go).
//
// Plan nodes (plan.go) and expressions (expr.go) are plain data. After
// binding, the rewrite rules of rules.go push filters into and below joins
// and extract equi-join keys. Explain prints a plan as an indented tree.
//
// # A worked example
//
// With tables t(a int, b text, ...) and u(a int, x varchar(10), ...):
//
//	SELECT t.b, count(*) FROM t JOIN u ON t.a = u.a
//	WHERE u.x = 'k' GROUP BY t.b ORDER BY 2 DESC
//
// binds as follows. FROM yields a Join whose input row is t's columns then
// u's; `t.a = u.a` resolves the "=" operator for (integer, integer). WHERE
// becomes a Filter over the join; the literal 'k' is of unknown type and
// takes the other operand's type, varchar, which compares as text. GROUP BY
// t.b is bound against the FROM row; the select list is then bound "above"
// the aggregation: count(*) becomes a reference to the Agg's second output
// column and t.b to its group key. ORDER BY 2 is the second output column.
// The rules push the filter into u's side and turn the condition into hash
// keys:
//
//	Sort [count DESC]
//	└─Project [t.b, count(*) AS count]
//	  └─HashAgg [group: t.b; aggs: count(*)]
//	    └─HashJoin [inner, t.a = u.a]
//	      ├─Scan t [a, b, c, d, e]
//	      └─Filter [u.x::text = 'k']
//	        └─Scan u [a, x, ts, n]
//
// The output columns are named "b" and "count", as psql shows them.
//
// # Errors
//
// The binder fails with SQLSTATEs and Postgres's messages: 42P01 unknown
// relation, 42703 unknown column, 42702 ambiguous column, 42883 no such
// operator or function (with Postgres's HINT), 42725 ambiguous overload,
// 42804 type mismatch, 42803 grouping errors, 42P20 misplaced window
// functions, 42P10 bad ORDER BY / GROUP BY references, 42601 statement
// shape errors, 42809 writes to views, 0A000 unsupported features.
// Internally errors travel as panics of *pgerr.Error that Bind recovers; no
// panic leaves the package.
package planner
