package planner

import (
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// StreamNode is a node of a stream plan: the dataflow that keeps a
// materialized view up to date. Stream plans are plain data like batch
// plans; the stream executor (executor/stream) builds actors and operators
// from them, and EXPLAIN CREATE MATERIALIZED VIEW prints them.
//
// Every node produces a changelog (rows with ops +, -, U-, U+) whose rows
// are described by Base.Out. Base.StreamKey holds the columns that
// identify a row of the node's output uniquely over time: a retraction (-
// or U-) always names a row previously inserted with the same stream key
// values. Base.AppendOnly is set when the node never emits retractions.
type StreamNode interface {
	Base() *StreamBase
	StreamInputs() []StreamNode
}

// StreamBase holds the properties every stream node has.
type StreamBase struct {
	Out        types.Schema
	StreamKey  []int
	AppendOnly bool
	// Dist is how the node's output is partitioned across the fragment's
	// actors (set by the planner when inserting exchanges).
	Dist Distribution
	// Watermarks are the output columns on which the node emits
	// watermarks (stream_watermark.go).
	Watermarks []int
}

// DistKind is the kind of a data distribution.
type DistKind uint8

// Distribution kinds.
const (
	// DistAny: rows may be on any actor (no requirement).
	DistAny DistKind = iota
	// DistSingle: all rows go to one actor (parallelism 1).
	DistSingle
	// DistHash: rows are partitioned by a hash of Keys (columns of Out).
	DistHash
	// DistBroadcast: every actor gets every row.
	DistBroadcast
)

// Distribution describes how rows are spread over a fragment's actors.
type Distribution struct {
	Kind DistKind
	Keys []int
}

// StateTableDesc describes one state table of a stateful operator: a
// keyspace `[ID][memcomparable key]` → value row (DESIGN.md §4). KeyCols
// and ValueCols index into Cols; the full stored row is Cols, with the key
// columns at KeyCols. OrderDesc gives per-key-column descending order
// (TopN, min/max keep ordered keys).
type StateTableDesc struct {
	ID        uint32
	Name      string // for EXPLAIN: "agg_state", "join_left", ...
	Cols      types.Schema
	KeyCols   []int
	OrderDesc []bool
	// DistKeyCols are the key columns the data is hash-partitioned by,
	// a prefix of KeyCols in order (for parallel actors).
	DistKeyCols []int
}

// StreamTableScan reads a table (or an upstream materialized view): first
// a backfill of a consistent snapshot, then the change stream of the
// relation's later writes, with no row missed or counted twice at the
// switch. Cols index into Rel.Cols.
type StreamTableScan struct {
	StreamBase
	Rel  *catalog.Relation
	Cols []int
	// State holds the backfill progress, one row per actor of the scan's
	// fragment: key (actor index int4), value (done bool, rows read int8,
	// position bytea = the memcomparable primary key of the last row read
	// from the snapshot), so that a backfill resumes where it stopped
	// after a recovery. With ID 0 the stream builder keeps the progress
	// in metadata entries of the job instead.
	State StateTableDesc
	// SkipSnapshot: no backfill; only changes after the job starts are
	// read (CREATE SINK ... WITH (snapshot = 'false')).
	SkipSnapshot bool
}

// StreamSource reads an external source (a Kafka topic) inside the job,
// as RisingWave's non-shared source: every job reading the source has its
// own reader, so each sees every record exactly once. It runs in one
// actor (DistSingle) reading every partition. Its rows are Rel.Cols (the
// declared columns, the INCLUDE columns, then the hidden _row_id) with
// op Insert, or Delete for an UPSERT tombstone; Cols index into Rel.Cols
// as for StreamTableScan.
//
// State holds the source's position: one row per partition, key
// (partition int4), value (next offset int8), written at every barrier
// so that a recovery resumes exactly after the last checkpointed record.
// A source with a watermark also keeps its watermark in the row of
// partition -1 and each partition p's watermark (the highest value of
// the watermark expression read from it) in the row of partition -2-p
// (values: the watermarks' Datum.I), so that a recovery resumes with
// the watermarks it had: the watermark stays monotonic, and it does not
// wait for a record of every partition before it moves again. Data
// written before partitions' watermarks were kept has no rows below -1;
// its partitions start without watermarks, as they used to.
type StreamSource struct {
	StreamBase
	Rel   *catalog.Relation
	Cols  []int
	State StateTableDesc
	// Watermark is the source's WATERMARK FOR clause (nil when it has
	// none): the source generates watermarks on Watermarks and drops the
	// rows that arrive behind them.
	Watermark *SourceWatermark
}

// StreamValues emits constant rows once (views over VALUES or without
// FROM).
type StreamValues struct {
	StreamBase
	Rows [][]Expr
}

// StreamProject computes expressions over each row; retractions keep
// their op.
type StreamProject struct {
	StreamBase
	Input StreamNode
	Exprs []Expr
}

// StreamFilter keeps the rows for which Cond is true (an update whose old
// and new rows fall on different sides becomes an insert or a delete).
type StreamFilter struct {
	StreamBase
	Input StreamNode
	Cond  Expr
}

// StreamDynamicFilter is a temporal filter (stream_temporal.go): it keeps
// the rows for which `Key Op Bound` holds, where Key is an expression of
// the row and Bound is now() plus or minus constant intervals, now()
// being the time of the epoch the operator is in (the epoch of the last
// barrier it saw). As barriers move the time forward, a `>`/`>=` filter
// retracts the rows that no longer pass and a `<`/`<=` filter inserts the
// rows that now do. State holds the rows whose condition may still
// change (the passing rows of a `>` filter, the waiting ones of a `<`
// filter): columns (Key's value, the input row), key (Key's value, the
// input's stream key), so each barrier's changes are one range scan from
// the start. Rows whose Key is NULL never pass and are not kept.
type StreamDynamicFilter struct {
	StreamBase
	Input StreamNode
	Key   Expr
	Op    string // ">", ">=", "<", "<="
	Bound Expr
	State StateTableDesc
}

// Retracts reports whether rows leave the filter as time passes (Op is
// > or >=); otherwise rows enter it.
func (n *StreamDynamicFilter) Retracts() bool { return n.Op == ">" || n.Op == ">=" }

// Base implements StreamNode.
func (n *StreamDynamicFilter) Base() *StreamBase { return &n.StreamBase }

// StreamInputs implements StreamNode.
func (n *StreamDynamicFilter) StreamInputs() []StreamNode { return []StreamNode{n.Input} }

// StreamHashAgg is an incremental GROUP BY. Output: the group keys then one
// column per aggregate; a stream key of the group keys. Without GroupBy it
// keeps exactly one row (a global aggregate, as Postgres). Changes of an
// epoch are emitted at its barrier, folded into one change per group.
// State: Result holds one row per group (keys, aggregate states, row
// count); each min/max/string_agg/count-distinct call that must be exact
// after deletes has its own state table in Extra, keyed by group keys +
// argument value(s).
type StreamHashAgg struct {
	StreamBase
	Input   StreamNode
	GroupBy []int // input columns (the converter projects expressions first)
	Aggs    []AggCall
	Result  StateTableDesc
	Extra   []StateTableDesc // one per entry in ExtraFor
	// ExtraFor[i] is the index in Aggs of Extra[i]'s aggregate.
	ExtraFor []int
	// EOWC is EMIT ON WINDOW CLOSE: nothing is emitted while a group is
	// open; once a watermark on a group key column passes the group's
	// value, the group's row is emitted once (an insert) and its state
	// deleted. The output is append-only. Without EOWC, groups passed by
	// a watermark have their state deleted without any output.
	EOWC bool
	// TTLMs is the state TTL in milliseconds (stream_ttl.go), 0 for
	// none. With one, Result rows end with the processing time (epoch
	// ms) of their last write, and TTL indexes them: key (that time, the
	// group keys), so the groups not written for TTLMs are one range
	// scan; they are then deleted without output.
	TTLMs int64
	TTL   StateTableDesc
	// EmptySets are Agg.EmptySets: the values of the last group key (a
	// StreamExpand's grouping set number) whose group, its other keys
	// NULL, exists from the first barrier on and is never deleted, as a
	// global aggregate's row.
	EmptySets []int64
	// GrowOnly[i] (nil: all false) marks a max whose input values only
	// grow (stream_grow.go): every retraction it receives is of a value
	// that the same group receives again, or a larger one, before the
	// next barrier. Such a max keeps no table of its values, just its
	// current value in the Result row, and ignores retractions.
	GrowOnly []bool
}

// StreamProjectSet runs the set-returning functions of a select list, as
// ProjectSet does in batch plans: Out is the input's columns (hidden ones
// included), one column per call, then the ordinal of the row among
// those of its input row. Ops are kept: a delete retracts exactly the
// rows its insert produced (the functions are deterministic); an update
// pair becomes the deletes of the old row's rows, then the inserts of the
// new row's. The stream key is the input's plus the ordinal;
// append-only when its input is.
type StreamProjectSet struct {
	StreamBase
	Input StreamNode
	Calls []TableFunc
	// Outer is ProjectSet.Outer: a row whose calls give no rows yields
	// one, the calls' columns NULL, ordinal 1, which its delete retracts.
	Outer bool
	// State holds, at a barrier that passed an expansion midway, the
	// input rows not yet expanded in full: key (actor index, sequence
	// number), value (actor index, sequence number, op, the next
	// ordinal, the input row). Empty whenever no row's expansion spans
	// a barrier.
	State StateTableDesc
}

// Base implements StreamNode.
func (n *StreamProjectSet) Base() *StreamBase { return &n.StreamBase }

// StreamInputs implements StreamNode.
func (n *StreamProjectSet) StreamInputs() []StreamNode { return []StreamNode{n.Input} }

// StreamExpand emits each input row once per grouping set, as Expand
// does in batch plans: copy s is the row with the Keys columns the set
// leaves out NULL, followed by s (bigint). Ops are kept, and an update
// pair stays a pair per set. The stream key is the input's plus the set
// number; stateless, append-only when its input is. Watermarks on Keys
// columns are dropped (their copies are NULL in some sets), others are
// forwarded.
type StreamExpand struct {
	StreamBase
	Input StreamNode
	Keys  []int
	Sets  [][]int
}

// Base implements StreamNode.
func (n *StreamExpand) Base() *StreamBase { return &n.StreamBase }

// StreamInputs implements StreamNode.
func (n *StreamExpand) StreamInputs() []StreamNode { return []StreamNode{n.Input} }

// StreamReplicate emits each input row as many times as its Count column
// (bigint; none when it is NULL or below 1) says, for INTERSECT ALL and
// EXCEPT ALL: the copy is the row without Count, followed by its number
// (1, 2, ...). Inserts and deletes keep their op; an update pair that
// changes only Count adds or retracts the copies between the two
// multiplicities, and otherwise becomes an update pair per copy both rows
// have and inserts or deletes of the rest. The stream key is the input's
// (Count never is in it) plus the copy number; stateless. Watermarks on
// columns other than Count are forwarded.
type StreamReplicate struct {
	StreamBase
	Input StreamNode
	Count int
}

// Base implements StreamNode.
func (n *StreamReplicate) Base() *StreamBase { return &n.StreamBase }

// StreamInputs implements StreamNode.
func (n *StreamReplicate) StreamInputs() []StreamNode { return []StreamNode{n.Input} }

// StreamHashJoin is an incremental equi-join of two changelogs (inner,
// left, right, full; semi/anti for IN/EXISTS). Both sides are kept in
// state tables keyed by join key + stream key; for outer joins each side's
// state also holds the row's degree (its number of matches) so NULL-padded
// rows are emitted and retracted exactly.
//
// An interval join is one whose condition bounds a column of one side
// from below by a column of the other that carries a watermark (Bounds,
// stream_interval.go): then a stored row that the watermark has passed
// can never match again, and LeftClean / RightClean say how the side's
// state drops such rows.
type StreamHashJoin struct {
	StreamBase
	Kind       JoinKind
	Left       StreamNode
	Right      StreamNode
	LeftKeys   []int // input columns of Left
	RightKeys  []int // input columns of Right
	Cond       Expr  // residual over left ++ right columns, nil for none
	LeftState  StateTableDesc
	RightState StateTableDesc
	// Bounds are the lower bounds that the join keys and the top-level
	// conjuncts of Cond put on each side's columns in terms of a
	// watermarked column of the other side.
	Bounds []JoinBound
	// LeftClean and RightClean say which column's bounds clean each
	// side's state, and through which table; nil when the side has no
	// bound and its state is kept whole.
	LeftClean  *JoinClean
	RightClean *JoinClean
	// TTLMs is the state TTL in milliseconds (stream_ttl.go), 0 for none.
	// It applies to the sides that no bound cleans: their stored rows end
	// with the processing time (epoch ms) they were stored at, and
	// LeftTTL / RightTTL (ID 0 for a side without) index them: key (that
	// time, the side's state key), so the rows stored more than TTLMs ago
	// are one range scan; they are then deleted without output.
	TTLMs    int64
	LeftTTL  StateTableDesc
	RightTTL StateTableDesc
	// NullAware marks the anti join of `x NOT IN (subquery)`
	// (Join.NullAware): one key, both inputs and the join on one actor.
	// The left state also holds the rows whose key is NULL, and
	// CountState the right side's number of rows and of rows whose key is
	// NULL: one row (_rows int8, _nulls int8) under the empty key.
	NullAware  bool
	CountState StateTableDesc
	// MaxPrune, when set, lets the join drop on arrival the left rows
	// below the highest value of their window seen so far: the right
	// side is the maximum per window of the left key (stream_maxprune.go).
	MaxPrune *JoinMaxPrune
}

// JoinBound is a lower bound that a join's condition puts on a column of
// one input in terms of a column of the other: every pair of rows that
// matches has Col (an input column of side Side: 0 left, 1 right) >=
// Expr(row of the other side), where Expr reads only the other side's
// input column OtherCol and never decreases as it grows. A bound is
// recorded only when OtherCol carries a watermark on the other input:
// with W its value, no later row of the other side has OtherCol < W, so
// a row of side Side whose Col is below Expr(W) (or NULL) can match no
// later row of the other side.
type JoinBound struct {
	Side     int
	Col      int
	OtherCol int
	// Expr is over the other side's input columns.
	Expr Expr
	// Name names Col for EXPLAIN only.
	Name string
}

// JoinClean is how one join side's state is cleaned: by the bounds on
// its input column Col (the highest of their values at the other side's
// watermarks). When Col is the first column of the side's state key
// (a join key), the state table is already ordered by it and Index has ID
// 0; otherwise Index is a second state table holding, for every stored
// row, its columns IndexCols (Col first, then the state key's columns
// not already there), all of them key, so that the rows below a bound
// are one range scan of it.
type JoinClean struct {
	Col       int
	IndexCols []int // input columns of Index, in order
	Index     StateTableDesc
}

// StreamTopN keeps the rows ranked Offset..Offset+Limit by Order, per
// group of GroupBy (empty: one group). WithTies keeps rows tied with the
// last one (RANK() <= N). Output: the input columns (plus RankCol when the
// query selects the rank).
type StreamTopN struct {
	StreamBase
	Input    StreamNode
	GroupBy  []int
	Order    []SortKey // expressions are ColRefs of Input
	Limit    int64
	Offset   int64
	WithTies bool
	// RankFn is "" (plain ORDER BY LIMIT), "row_number", "rank" or
	// "dense_rank"; RankCol >= 0 when the rank is an output column.
	RankFn  string
	RankCol int
	State   StateTableDesc
}

// StreamUnion merges inputs with identical schemas (UNION ALL; UNION
// DISTINCT is a StreamUnion under a StreamHashAgg on all columns). Barriers
// are aligned across inputs.
type StreamUnion struct {
	StreamBase
	Inputs []StreamNode
}

// StreamExchange repartitions its input for the next fragment: a fragment
// boundary in the dataflow (actors on each side are joined by bounded
// channels).
type StreamExchange struct {
	StreamBase
	Input StreamNode
}

// StreamMaterialize writes the view's rows into the relation's storage
// (keyed by the view's primary key = stream key) and is the job's root.
// Rows whose op is a retraction delete by key.
type StreamMaterialize struct {
	StreamBase
	Input StreamNode
	Rel   *catalog.Relation
	// Cols maps Rel.Cols (in order) to input columns.
	Cols  []int
	State StateTableDesc
	// Upsert makes a keyed input's changes overwrite (RisingWave's
	// conflict behaviour "overwrite", for tables fed FORMAT UPSERT): an
	// insert of a key already stored becomes U-(old row), U+(new row); a
	// delete of a key removes the stored row and emits it as the - row
	// (whatever the input's delete row held besides the key); a delete of
	// a missing key is dropped. The emitted chunk, not the input, is what
	// Next returns, so readers of the relation see an exact changelog.
	Upsert bool
}

// StreamSink writes its input's changelog to an external system (a Kafka
// topic) and is the root of a sink's job. Rel is the sink relation; its
// With holds the connector options. Cols maps the sink's columns
// (Rel.Cols, in order) to input columns; Key indexes Rel.Cols: the sink's
// primary key (UPSERT and DEBEZIUM records are keyed by it).
//
// Format is "plain", "upsert" or "debezium". A PLAIN sink writes inserts
// only: with ForceAppendOnly, deletes and U- rows are dropped and U+ rows
// become inserts (the planner refuses PLAIN over a changelog that can
// retract without it).
//
// Compact makes the sink compact each epoch's changes by Key before
// writing them (executor/stream/sink_compact.go): per stream key of the
// input (Input's StreamKey) the epoch's net change, then per sink key
// the row the key ends the epoch with, or its delete. The planner sets it
// for an UPSERT or DEBEZIUM sink over a retracting input whose stream key
// is not within Key: the rows of one sink key then have several stream
// keys, whose changes reach the sink's actor from different upstream
// actors, so their order within the epoch is lost on the way (a delete
// of one stream key may arrive after the insert of another that replaced
// it). Compaction writes, per sink key, the view's row at the barrier
// whatever the order; it is exact when Key identifies the input's rows at
// every barrier.
//
// State holds the sink's pre-committed transactions, one row per
// transactional id: key (actor index int4, transactional id text), value
// (checkpoint epoch int8, record bytea: the connector's encoded
// transaction record). Recovery commits every row it finds before the
// sink's producers start (DESIGN.md §5).
type StreamSink struct {
	StreamBase
	Input           StreamNode
	Rel             *catalog.Relation
	Cols            []int
	Key             []int
	Format          string
	ForceAppendOnly bool
	Compact         bool
	State           StateTableDesc
}

// StreamBase implementations.
func (n *StreamTableScan) Base() *StreamBase   { return &n.StreamBase }
func (n *StreamValues) Base() *StreamBase      { return &n.StreamBase }
func (n *StreamProject) Base() *StreamBase     { return &n.StreamBase }
func (n *StreamFilter) Base() *StreamBase      { return &n.StreamBase }
func (n *StreamHashAgg) Base() *StreamBase     { return &n.StreamBase }
func (n *StreamHashJoin) Base() *StreamBase    { return &n.StreamBase }
func (n *StreamTopN) Base() *StreamBase        { return &n.StreamBase }
func (n *StreamUnion) Base() *StreamBase       { return &n.StreamBase }
func (n *StreamExchange) Base() *StreamBase    { return &n.StreamBase }
func (n *StreamMaterialize) Base() *StreamBase { return &n.StreamBase }
func (n *StreamSource) Base() *StreamBase      { return &n.StreamBase }
func (n *StreamSink) Base() *StreamBase        { return &n.StreamBase }

func (n *StreamTableScan) StreamInputs() []StreamNode   { return nil }
func (n *StreamValues) StreamInputs() []StreamNode      { return nil }
func (n *StreamProject) StreamInputs() []StreamNode     { return []StreamNode{n.Input} }
func (n *StreamFilter) StreamInputs() []StreamNode      { return []StreamNode{n.Input} }
func (n *StreamHashAgg) StreamInputs() []StreamNode     { return []StreamNode{n.Input} }
func (n *StreamHashJoin) StreamInputs() []StreamNode    { return []StreamNode{n.Left, n.Right} }
func (n *StreamTopN) StreamInputs() []StreamNode        { return []StreamNode{n.Input} }
func (n *StreamUnion) StreamInputs() []StreamNode       { return n.Inputs }
func (n *StreamExchange) StreamInputs() []StreamNode    { return []StreamNode{n.Input} }
func (n *StreamMaterialize) StreamInputs() []StreamNode { return []StreamNode{n.Input} }
func (n *StreamSource) StreamInputs() []StreamNode      { return nil }
func (n *StreamSink) StreamInputs() []StreamNode        { return []StreamNode{n.Input} }

// StreamHopWindow assigns each input row to every hopping window holding
// its time, as HopWindow does in batch plans (same parameters, in
// microseconds): one output row per (input row, window), the input's
// columns followed by window_start and window_end. Ops are kept: an
// insert inserts the row into each of its windows and a delete retracts
// all of them; an update whose time stays in the same windows stays an
// update pair per window, otherwise each pair becomes a delete and an
// insert. Rows whose time is NULL are dropped. The stream key is the
// input's plus window_start; stateless, append-only when its input is.
//
// Emit, when set (column pruning, stream_prune.go), lists the output
// columns as positions in that layout (the input's columns, then
// window_start and window_end): the node emits only those, in that
// order, rather than copying every column into each window. It always
// holds window_start and the input's stream key.
type StreamHopWindow struct {
	StreamBase
	Input   StreamNode
	TimeCol int
	Slide   int64
	Size    int64
	Offset  int64
	Emit    []int
}

// Base implements StreamNode.
func (n *StreamHopWindow) Base() *StreamBase { return &n.StreamBase }

// StreamInputs implements StreamNode.
func (n *StreamHopWindow) StreamInputs() []StreamNode { return []StreamNode{n.Input} }

// StreamOverWindow computes window functions (a Window of a batch plan)
// over a changelog. Its Calls share one window: PartitionBy (columns of
// Input) and OrderBy (ColRefs of Input); each call's PartitionBy and
// OrderBy are the node's, its Args are ColRefs of Input or constant
// expressions, and its Frame is its own (offsets are constants). Calls
// over different windows are separate nodes, stacked. Output: the
// input's columns, then one column per call; the stream key is the
// partition columns then the input's stream key (a row that moves to
// another partition leaves one actor and enters another, and with the
// partition in the key the two changes name different rows, so their
// order downstream does not matter).
//
// Without EOWC (the general mode) the input may retract: Rows holds
// every input row keyed by partition columns, ORDER BY values, then the
// input's stream key, with the window values last emitted for it (the
// output row); at each barrier every partition changed in the epoch is
// computed again and the difference to what was emitted goes out.
//
// With EOWC (EMIT ON WINDOW CLOSE) the input is append-only and the
// first ORDER BY key carries a watermark: a row is final once the
// watermark passes its value, and it is emitted once, as an insert,
// when it and the rows its frame needs are final (for a RANGE frame
// ending n FOLLOWING, once the watermark has passed its value plus n).
// Rows holds the rows not emitted yet and the last emitted rows that
// later rows still need (LAG, n PRECEDING, or those within a RANGE
// frame's offset); Partitions holds one row per partition with what the
// rows to come need of the rows gone: how many were emitted, the last
// rank and dense rank, how many emitted rows Rows keeps when RANGE
// frames make that vary (KeepsByDistance), and the running state of
// frames starting UNBOUNDED PRECEDING. The output is append-only, and carries the
// watermark on the ORDER BY column when no call looks ahead.
type StreamOverWindow struct {
	StreamBase
	Input       StreamNode
	PartitionBy []int
	OrderBy     []SortKey
	Calls       []WindowCall
	EOWC        bool
	Rows        StateTableDesc
	// Partitions is the EOWC mode's per-partition state (ID 0 in the
	// general mode).
	Partitions StateTableDesc
}

// Base implements StreamNode.
func (n *StreamOverWindow) Base() *StreamBase { return &n.StreamBase }

// StreamInputs implements StreamNode.
func (n *StreamOverWindow) StreamInputs() []StreamNode { return []StreamNode{n.Input} }

// States returns the node's state tables: Rows, then Partitions in the
// EOWC mode.
func (n *StreamOverWindow) States() []StateTableDesc {
	if n.EOWC {
		return []StateTableDesc{n.Rows, n.Partitions}
	}
	return []StateTableDesc{n.Rows}
}
