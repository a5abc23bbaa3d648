// Package planner turns parsed queries into typed logical plans.
//
// The binder (Bind) walks the TiDB AST that the sql package produces after
// its dialect bridge and resolves, in Postgres's terms:
//
//   - names: tables, views (expanded from their stored SQL), system tables,
//     CTEs (inlined), derived tables, table functions, the time window
//     functions TUMBLE and HOP (bind_timewindow.go), columns (with
//     correlated references to enclosing queries as OuterRef);
//   - types: literals (int4/int8/numeric by size, strings of unknown type
//     until context decides), operator and function overloads (coerce.go,
//     PostgreSQL 15 manual chapter 10), common types for CASE, COALESCE,
//     UNION, VALUES and IN, assignment casts for INSERT and UPDATE;
//   - named and mixed notation, f(a, name => v) (bind_named.go): the
//     arguments are laid out along functions.NamedParams with the
//     defaults of parameters left out (make_interval(days => 3),
//     make_interval(1)), also for the json set-returning functions
//     (json_each(from_json => ...)); Call.ArgNames keeps the notation for
//     deparsing;
//   - clauses: grouping with Postgres's validation (42803), window
//     functions, DISTINCT, ORDER BY over output names, ordinals or hidden
//     expressions, LIMIT/OFFSET;
//   - row constructors (bind_row.go): (a, b) op (c, d), IS [NOT] NULL,
//     IN lists and quantified comparisons over rows, expanded into
//     comparisons of the fields or bound as a Subquery with a Row; a row
//     or whole-row reference used as a value is a record, allowed only
//     in a query's output;
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
//
// # User functions
//
// A call of a user SQL function (catalog.Function, CREATE FUNCTION ...
// LANGUAGE sql) is inlined (bind_userfunc.go): the function's one-
// expression body is bound over its parameters and the call's
// arguments put in their place, so no plan node or executor knows user
// functions. An argument that must be computed once (a volatile one the
// body reads twice) is bound once in a Let around the body instead. Bound.Funcs lists those the statement's text called, for
// the dependencies of views; the binder remembers each inlined call by
// the root of its body, so that ViewDefinition prints the call and the
// immutability checks of index expressions and generated columns trust
// an IMMUTABLE declaration as PostgreSQL does.
//
// # Accesses
//
// Bound.Access lists every relation and system table the statement
// binds, with the privileges it needs on each (access.go): SELECT for
// what it reads, INSERT, UPDATE or DELETE for a DML target (SELECT too
// when it reads the target's rows), and for the relations a view reads
// the view, whose owner's privileges cover them. The binder resolves
// relations in one place (binder.relation, binder.systemTable), so what
// is checked is what is bound, whatever spelling (a quoted name, a CTE
// named alike, an aliased relation in TUMBLE) led there. A Catalog that
// is an Authorizer has Bind check the list before returning. The list
// ends with the user functions the statement calls (Bound.Funcs), for
// EXECUTE by the role running it, so that a prepared statement run by
// another role is checked for that role's EXECUTE as for its tables.
//
// # Deparsing views
//
// ViewDefinition (viewdef.go) prints a view's query as PostgreSQL's
// pg_get_viewdef does. It binds the stored text without expanding the
// views it reads and without the rewrite rules, so the plan keeps the
// query's shape: [Project dropping ORDER BY's hidden columns] over
// [Limit] over [DISTINCT ON's Distinct] over [Sort] over [Distinct] over
// the select list's Project, over [Window], over [HAVING's Filter over
// the Agg (over grouping sets' Expand and Project)], over [WHERE's
// Filter], over the FROM items (Scans, Joins, TableFuncs, subqueries,
// CTE references); a set operation (a RecursiveUnion for WITH
// RECURSIVE) prints as get_setop_query prints its tree. What the plan
// does not keep of how the query was written the binder notes as it
// binds for deparsing (vdNotes): the windows of OVER and WINDOW, CROSS
// JOIN, column alias lists, grouping sets and GROUPING's arguments,
// VALUES lists and ROWS FROM (which the bridge marks with TiDB's no-op
// SQL_NO_CACHE and SQL_SMALL_RESULT), the columns a USING join merges. Each query level names its FROM items apart from those of
// the levels around it, as set_rtable_names does (t_1). Column
// references print as range variable.column with the names the
// relations have now, which is what makes the definition follow
// renames. For example, after
// ALTER TABLE t RENAME COLUMN a TO aa, a view over
// SELECT a, b FROM t WHERE a > 1 prints (each line here one blank
// short of the real indentation)
//
//	SELECT t.aa AS a,
//	   t.b
//	  FROM t
//	 WHERE (t.aa > 1);
//
// # Stream plans
//
// PlanStream (stream_convert.go) turns the bound query of CREATE
// MATERIALIZED VIEW into a stream plan (stream_plan.go): a dataflow of
// incremental operators over changelogs, rooted at a StreamMaterialize
// that stores the view, in the manner of RisingWave's stream planner.
// ExplainStream prints it for EXPLAIN CREATE MATERIALIZED VIEW. With
// emp(id int primary key, dept text, salary bigint):
//
//	SELECT dept, count(*) AS cnt FROM emp GROUP BY dept
//
//	StreamMaterialize { columns: [dept, cnt], pk: [dept], state: [materialize#100] }
//	└─StreamProject { exprs: [emp.dept, count(*) AS cnt] }
//	  └─StreamHashAgg { group_key: [dept], aggs: [count(*)], state: [agg_state#1001], stream_key: [dept] }
//	    └─StreamExchange { dist: HashShard(dept) }
//	      └─StreamTableScan { table: emp, columns: [id, dept, salary], stream_key: [id], dist: HashShard(id) }
//
// Stream keys. Every node has a stream key: columns whose values identify
// a row of its output over time, so a retraction names the row it takes
// back. A table scan's is the table's primary key (the hidden row id for
// tables without one), read even when the query does not select it; a
// projection that drops a stream key column keeps it as a hidden column
// after its outputs. Conversion keeps one invariant: the first columns
// of a converted node are the logical node's, in order, and hidden
// columns come after them, so parents' column references stay valid. The
// view's primary key is the root's stream key (its distribution key
// first); the hidden key columns are stored as Hidden columns of the view,
// left out of SELECT *. Aggregations are keyed by their group keys (none
// for a global aggregate: one row), joins by both sides' keys (the left's
// only for semi and anti joins; an inner join drops right key columns
// equal to a left key column), unions by the inputs' keys plus the number
// of the input, TopN by its input's key.
//
// Shared subplans (stream_share.go). After conversion, a subtree that
// keeps state and equals one met before it (but for its state tables'
// ids) is replaced by a StreamShare of the first, which the stream
// builder runs once for all its readers. A relation created before
// format version 6 shares nothing (WithPlanFormat "5").
//
// Column pruning (stream_prune.go). Before conversion, the plan below
// every aggregation and projection is narrowed to the columns some node
// above reads: scans read only those, HOP windows copy only those into
// each window and emit only those (with window_start and their input's
// stream key: StreamHopWindow.Emit), joins, top-N and over windows store
// only those. A
// relation created before format version 5 is planned without pruning
// (WithPlanFormat "4"), keeping its state layout.
//
// Operators. Scan, Filter, Project and Values map to their stream nodes
// (VALUES rows get a hidden row number as key). An aggregation computes
// expression group keys in a projection, repartitions by the group keys
// (a global aggregate goes to a single actor) and runs a StreamHashAgg,
// whose Result state table holds one row per group (keys, the encoded
// accumulator states, the row count); DISTINCT aggregates, string_agg,
// and min/max over input that can retract also keep their input values
// in an Extra table, keyed by group keys and values with a count (not
// a max over counts that only grow, stream_grow.go: GrowOnly);
// DISTINCT aggregates over the same input columns (differing in
// function or FILTER) share one such table, with a count per aggregate.
// A group key carrying a watermark leads the state key, so closing the
// groups it passed is a range scan.
// HAVING and the expressions over aggregates are the binder's Filter and
// Project above it. A join repartitions both sides by their join keys
// (a join without equality keys runs on one actor) and keeps each side
// in a state table keyed by join key then stream key; the side whose
// unmatched rows are emitted (outer joins) or whose rows wait for a match
// (semi, anti) also counts its matches, the degree. DISTINCT is an
// aggregation without aggregates over all columns; UNION ALL a
// StreamUnion; UNION adds that DISTINCT; INTERSECT and EXCEPT count each
// row's occurrences per side in one aggregation and filter on the counts;
// their ALL forms compute each row's multiplicity (min(l, r), max(l - r,
// 0)) from the counts instead, and a StreamReplicate emits that many
// copies, numbered by a hidden _copy column that completes the stream
// key. ORDER BY with LIMIT becomes a StreamTopN on one actor;
// DISTINCT ON a TopN of one row per group; a filter `rn <= N` (or `<`,
// or `= 1`) over row_number(), rank() or dense_rank() a group TopN
// partitioned like the window. ORDER BY without LIMIT is dropped: a view
// has no order.
//
// Window functions (stream_over.go). Any other Window becomes
// StreamOverWindow nodes, one per distinct window (PARTITION BY and
// ORDER BY): its calls' partition keys, ORDER BY keys and non-constant
// arguments are computed into columns first, the input is repartitioned
// by the partition keys (a single actor without PARTITION BY), and each
// node appends one column per call; nodes of different windows are
// stacked, and a projection puts the calls' columns back where the
// Window had them. The stream key is the partition keys then the
// input's. In the general mode the node keeps every input row with the
// values it last emitted (over_window) and recomputes the partitions an
// epoch changed at its barrier. In a view created with EMIT ON WINDOW
// CLOSE it runs in the EOWC mode over an append-only input whose first
// ORDER BY key (ascending) carries a watermark: each row is emitted once,
// when it and the rows its frame needs are final, with state for the
// rows still waiting and the last rows later ones need (over_buffer) and
// counters and running aggregates per partition (over_partition); its
// output is append-only. RANGE frames with offsets reach there by time
// (the watermark column is their single ORDER BY key): a row waits
// until the watermark has passed it by its frame's FOLLOWING offset,
// and the emitted rows within a PRECEDING offset of the next row stay
// in over_buffer (over_partition then counts them: _kept). Calls that
// need the partition's end (ntile, percent_rank, cume_dist, UNBOUNDED
// FOLLOWING) and GROUPS frames are 0A000 there.
//
// Time windows. TUMBLE(t, col, size [, offset]) is bound as a projection
// adding window_start = tumble_start(col, size [, offset]) and window_end
// = window_start + size, so it needs no operator of its own. HOP(t, col,
// slide, size [, offset]) is a HopWindow, converted into a
// StreamHopWindow that emits each row once per window holding it; its
// stream key is the input's plus window_start, and it is append-only when
// its input is. Both align windows to 1970-01-01 plus the offset.
// GROUP BY k, SESSION(col, gap) is a grouping (bind_session.go): an Agg
// grouping by k and session_start over a SessionWindow that labels each
// row with its session's start, the end computed from the Agg's
// max(col). The SessionWindow becomes a StreamSessionWindow, stateful,
// whose output retracts and re-inserts a session's rows when its start
// moves; with EMIT ON WINDOW CLOSE it emits each session's rows once, with
// their session_end, which the Agg groups by and closes on.
//
// Watermarks (stream_watermark.go). A table or source created with
// WATERMARK FOR col AS expr keeps the clause in its WITH options; its
// scans carry a watermark on col (RelWatermark binds it; a source node
// generates it, the engine generates a table's). Every node records the
// output columns it emits watermarks on: filters and exchanges keep
// them, a projection derives one for every expression that never
// decreases as one watermark column grows (the column itself, date_bin,
// date_trunc, tumble_start, ± a constant, widening casts), an
// aggregation keeps those of its group keys, a hop window adds
// window_start and window_end, a union the columns watermarked in every
// input. An aggregation drops the state of groups behind a watermark on
// a group key; in a view created with EMIT ON WINDOW CLOSE every
// aggregation must have such a key, runs with StreamHashAgg.EOWC (each
// group emitted once, when the watermark passes it) and is append-only,
// every over window runs in the EOWC mode, and the view's rows must
// never be retracted (so a PLAIN sink may read it).
//
// Interval joins (stream_interval.go). A join whose keys or top-level
// conjuncts bound a column of one side from below by a monotone
// expression of a watermarked column of the other (p.ts >= o.ts, o.ts >=
// p.ts - 30 s from p.ts BETWEEN o.ts AND o.ts + 30 s; a.window_start =
// b.window_start) records the bounds (StreamHashJoin.Bounds). A side with
// a bound has its state cleaned as the other side's watermark passes
// (JoinClean: through its state table when the bounded column leads the
// state key, else through an index table keyed by that column), and
// output columns of sides never padded with NULLs carry the watermark
// min(own watermark, bound at the other side's), so a windowed
// aggregation over an interval join can emit on window close. For an
// equal join key that is the minimum of both sides' watermarks.
//
// Subqueries. EXISTS and `x op ANY (...)` (IN) conjuncts of a WHERE
// become semi joins, NOT EXISTS anti joins, when the subquery is
// correlated only through a filter directly under its select list; an
// uncorrelated scalar subquery that always returns one row (an aggregate
// without GROUP BY) becomes a cross join. An uncorrelated `x NOT IN
// (...)` (also `x <> ALL (...)` and `NOT (x IN (...))`) becomes a
// null-aware anti join on one actor (StreamHashJoin.NullAware), which
// keeps PostgreSQL's NULL rules: every left row while the subquery is
// empty, none while it holds a NULL. Correlated NOT IN, other ALL
// comparisons, correlated scalar subqueries and subqueries elsewhere are
// 0A000.
//
// Distribution and append-only. Each node records how its rows are
// spread over actors; an exchange is inserted where an operator needs
// rows partitioned by its keys (aggregation: a hash over a subset of the
// group keys suffices; joins: exactly the join keys on both sides) and
// before the materialize unless rows are partitioned by a subset of the
// view's key. Nodes over append-only inputs (sources, APPEND ONLY tables,
// VALUES) that never retract are marked append-only; min and max over
// them need no input state.
//
// Grouping sets (bind_grouping.go, stream_window.go). GROUP BY GROUPING
// SETS, ROLLUP and CUBE bind as a projection computing the keys, an
// Expand emitting each row once per set (the keys a set leaves out NULL,
// then the set's number) and an Agg grouping by the keys and the number;
// the stream plan is a StreamExpand (stream key: the input's plus the
// number) under an ordinary StreamHashAgg, whose EmptySets keep the row
// of an empty grouping set even when no row is left, as a global
// aggregate's. grouping(...) is a CASE over the set number.
//
// Set-returning functions of a select list (bind_srf.go:
// generate_series, unnest, regexp_split_to_table, regexp_matches, the json ones of one
// column such as jsonb_array_elements) run in ProjectSets
// below the select list's projection, zipped as in PostgreSQL 10+ (one
// ProjectSet per level of nesting); its
// stream form keys each output row by its input row's key plus the
// row's ordinal, and retracts a row's outputs by computing them again.
//
// Temporal filters (stream_temporal.go): a WHERE conjunct `expr op
// now() [+/- interval ...]` (op one of >, >=, <, <=, either side;
// current_timestamp too; BETWEEN gives two of them) becomes a
// StreamDynamicFilter, now() being the time of the epoch a barrier
// closes, so every committed epoch holds the rows a plain SELECT at that
// time would. Conjuncts of a join's ON clause pushed into one side (an
// inner join's, an outer join's NULL-supplying side's) count as that
// side's WHERE.
//
// Not supported (0A000, naming the construct): volatile and
// time-dependent functions anywhere else (now(): a view's rows must not
// depend on when they are computed; generate_series over timestamptz,
// which depends on the time zone), parameters, system tables, table
// functions in FROM,
// aggregates without retraction (array_agg, jsonb_agg, ...) in GROUP BY.
// State table ids come from the caller's allocator in a deterministic
// order; the view's own table is its relation id.
package planner
