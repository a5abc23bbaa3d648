// Package executor runs plans. This file set holds the batch operators: a
// pull-based tree of Operators built from planner plan nodes by Build.
//
// # The batch operator contract
//
//   - Next(ctx) returns the next chunk of output rows, or nil at the end.
//     After the end, or after an error, Next keeps returning nil (or the
//     same error); it never panics on misuse.
//   - A returned chunk is valid until the next call to Next on the same
//     operator: operators may reuse vectors, and evaluators may return
//     their input's columns. An operator that keeps rows across calls
//     (sort, aggregation, join build sides) copies them.
//   - Batch chunks have Ops nil (every row is an insert). A chunk may carry
//     a visibility map (Chunk.Vis): Filter, Limit and Distinct clear
//     entries instead of copying rows, so every operator reads only the
//     rows for which chunk.Visible(i) holds. A returned chunk may have no
//     visible row only at the end (operators skip empty chunks).
//   - Scans, set-returning functions, VALUES and the buffers of sorts,
//     aggregations and windows make chunks of at most ExecCtx.ChunkRows()
//     rows (types.ChunkCap without it): a cursor asks for the rows its
//     FETCH needs, so the expressions above compute no row before it is
//     fetched, as PostgreSQL computes a portal's rows.
//   - Errors are returned, never panicked, and carry a SQLSTATE (pgerr)
//     when they can reach a user.
//   - Every loop checks ctx.Err() once per chunk, so a cancelled query
//     stops promptly with the context's error.
//   - Close releases resources (input iterators, buffered rows), closes the
//     operator's inputs, and is idempotent; it may be called before the
//     end.
//   - A Sort keeps at most ExecCtx.WorkMem bytes of rows in memory
//     (types.RowMemSize) and moves the rest, in sorted runs, to tapes from
//     ExecCtx.Temp (rowTape, spill.go), which it discards when it ends,
//     fails or is closed; Window sorts its partitions through Sorts and
//     spools each partition within WorkMem, the rest on tapes
//     (winSpool), HashAgg sorts the input of its calls with DISTINCT or
//     ORDER BY through aggSorts (the same sorted runs), and
//     RecursiveUnion keeps its working tables in rowSpools and the rows
//     a UNION has seen in a seenSet (work_mem in a hash table, sorted
//     runs on tapes beyond it), as an uncorrelated IN or NOT IN keeps
//     its subquery's values; other subqueries' rows kept for the
//     statement are rowSpools, which ExecCtx.Release removes, and the
//     engine collects RETURNING rows in a RowStore. A
//     Limit right above a Sort passes it its bound (Sort.SetBound); under
//     EXPLAIN ANALYZE, where a wrapper sits between them, it does not.
//   - The hash operators (HashAgg, Distinct, SetOp, HashJoin) keep their
//     tables within ExecCtx.WorkMem and beyond it spill rows by key hash
//     to partitions on tapes from ExecCtx.Temp (hash_spill.go), which
//     they remove at the end, on an error and on Close. A nested-loop
//     join (a HashJoin without keys) puts its inner side beyond WorkMem
//     on a tape and joins it block by block; DISTINCT ON over a sort
//     keeps no table.
//
// # Example
//
// SELECT k, count(*) FROM t WHERE v > 0 GROUP BY k ORDER BY k becomes
//
//	Sort(keys: k)
//	└── HashAgg(group: k; count(*))
//	    └── Filter(v > 0)
//	        └── Scan(t)
//
// When ExecCtx.Analyze is set (EXPLAIN ANALYZE), Build wraps every
// operator it builds in one that counts its loops, rows and time; callers
// must therefore not assert Build's result to a concrete operator type.
//
// DML operators (Insert, Update, Delete) write through ExecCtx.Writer and
// report how many rows they changed through RowCounter; the engine makes
// the statement atomic by committing the Writer's batch after Next
// returned nil. Every row Insert and Update write first passes the
// table's RowRules: stored generated columns computed, then NOT NULL and
// the CHECK constraints checked, in PostgreSQL's order (COPY FROM uses
// the same RowRules).
package executor
