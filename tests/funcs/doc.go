// Package funcs evaluates every scalar and aggregate overload of package
// functions on weir and on PostgreSQL 15 (started by tests/testenv) for
// sample inputs and requires the same answer: the same text, or errors of
// the same SQLSTATE class.
//
// The calls are generated from the overload tables themselves: each
// parameter type has sample literals (written as typed literals, so both
// servers resolve the same overload), some functions have their own
// samples for arguments whose meaning depends on the text (a date_part
// field, a to_char pattern), operators are written as operators and the
// binder's internal names as the syntax they stand for. A function added
// to package functions is therefore compared with PostgreSQL without
// anyone writing a test for it. Functions whose answer depends on the
// server rather than the inputs (the clock, the process, the catalog's
// OIDs) are listed in skip with the reason.
//
// Each aggregate runs over a VALUES list of its parameters' samples,
// over the same rows with one of NULLs added, and over no rows.
package funcs
