// Package insertbench measures weir's single-session write path against
// PostgreSQL 15 in the same run: one client issuing single-row
// autocommit INSERTs into a table that three materialized views follow,
// against a PostgreSQL table whose three summary tables are kept by an
// AFTER INSERT trigger (the way a PostgreSQL user would keep such
// summaries up to date). Both commit durably: weir fsyncs each
// statement's redo record, PostgreSQL runs with fsync and
// synchronous_commit on. After a warm-up of their own, the two servers
// take turns, a chunk of INSERTs at a time, so that the load of a shared
// machine weighs on both alike.
//
// The figures are benchmarks, never assertions: the machines these tests
// run on are shared, so only the ratio of one run says something. After
// each run the benchmark checks that weir's views and PostgreSQL's
// summaries hold the same rows, so a fast wrong answer cannot pass.
package insertbench
