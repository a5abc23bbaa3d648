// Package functions is the one home of weir's built-in functions and
// operators: PostgreSQL 15's scalar functions (docs chapter 9), operators
// (pg_operator), aggregates (pg_aggregate) and window functions.
//
// Each function is a list of overloads. An Overload carries its
// signature: argument types, whether the last one repeats (variadic), the
// result type (or a function computing it from the argument types, for
// "same as argument" or a numeric scale), its kind (scalar, aggregate,
// window-only), volatility and strictness. The binder (package planner)
// resolves a call against these signatures with PostgreSQL's rules and
// coerces the arguments to the chosen overload's types.
//
// An aggregate overload carries its implementation too (Overload.Agg): a
// constructor of Accumulators, whose Add, Retract and Result fold a
// group's rows in and out, and whose state, when it is a fixed row of
// values, the streaming aggregation keeps in a state table
// (aggregate_state.go). The batch aggregation, window frames and the
// streaming operators of package executor all run these accumulators.
// The ordered-set aggregates (percentile_cont, percentile_disc, mode:
// aggregate_ordered.go) are aggregates whose last argument is the one
// sorted by WITHIN GROUP (ORDER BY ...), the others being constant
// direct arguments (AggSpec.Direct).
// A window-only function (row_number, rank, lag, first_value, ...)
// carries its implementation as Overload.Window, which computes one value
// per row of a sorted partition (window.go); package executor finds the
// partitions, peer groups and frames.
// A scalar overload carries its implementation as Overload.Fn, a factory
// that returns the row or vector function (Impl) for the coerced
// argument types; overloads that differ only in types may share one (the
// arithmetic operators over every pair of integer widths). Each impl_*.go
// file lists the overloads it implements (stringOverloads,
// mathOverloads, ...), every signature naming its implementation where
// it is declared, so that one entry is a signature and its
// implementation. Lookup, which the executor calls, resolves a call
// through the overloads of its name, the one whose parameter types are
// the call's first. The few functions the binder calls for syntax with
// types it has computed (ARRAY[...], ROW(...), f(a, VARIADIC arr),
// COLLATE, WHERE CURRENT OF, an identity column's next value, ...) have
// an implementation and no signature (syntaxImpl), so no name in user
// text resolves to them. NamedParams (params.go) lists the parameter
// names and defaults PostgreSQL 15 declares for some functions
// (make_interval(days => 3)), which the binder's named notation uses.
//
// The tables are plain Go values, built once on first use (overload.go);
// no init function registers anything and no other package adds
// overloads, so the set of functions is what this package's files say.
//
// Operators are listed under their PostgreSQL names ("+", "||", "~~" for
// LIKE); unary minus is "neg". A few names are the binder's own spelling
// of syntax, never callable by a user: pg_extract (EXTRACT), pg_concat,
// pg_subscript (x[i]), pg_json_* (the jsonb operators; pg_json_contains
// and pg_json_contained are @> and <@ over arrays too), pg_array_overlap
// (&&), pg_starts_with (^@), pg_any_eq (x = ANY(array)) and pg_icase;
// the SQL front end refuses them in user text.
//
// Text functions follow the database's locale, PostgreSQL's
// --locale=C --lc-ctype=C.UTF-8 (ctype.go): collation is C (code point
// order), case mapping and character classes are glibc's C.UTF-8's
// (simple Unicode case mappings; the classes in ctype_tables.go,
// generated from glibc by gen_ctype.go). A call the binder marks as over
// a C collation (planner.Call.CLocale) runs under InCLocale, where they
// are ASCII's.
package functions
