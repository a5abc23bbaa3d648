// Package dialect is a differential test of weir's SQL front end against
// PostgreSQL 15: a grammar-based generator writes statements (expressions
// over the operators and literal forms of PostgreSQL's lexical grammar,
// queries, joins, set operations, DML, and the MySQL forms the TiDB
// parser under weir's bridge would take), and each one runs on weir and
// on a PostgreSQL started by tests/testenv. weir must accept exactly what
// PostgreSQL accepts, failing with an SQLSTATE of the same class, and
// return the same rows where both accept.
//
// Runs use fixed seeds plus one fresh seed, printed with any
// disagreement so the run can be repeated:
//
//	go test ./tests/dialect -run TestDialect -seed N
//
// DML runs inside BEGIN ... ROLLBACK, so every statement sees the same
// tables. Each disagreement found becomes a case in regressions.sql,
// which runs before the generated statements; a case marked "-- exact"
// must fail with PostgreSQL's own SQLSTATE at PostgreSQL's error
// position (the syntax errors of PostgreSQL's restricted expressions:
// FETCH FIRST's count, a column DEFAULT, CHECK without parentheses).
package dialect
