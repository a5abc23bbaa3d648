package planner

import (
	"strings"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// This file plans state TTL, the view option WITH (state_ttl = '1 hour')
// that bounds the state of aggregations and joins which no watermark
// cleans, after Flink's table.exec.state.ttl (StateTtlConfig with
// UpdateType.OnCreateAndWrite and NeverReturnExpired): an entry of state
// (a group of an aggregation, a stored row of a join) not written for
// longer than the TTL, in processing time, is forgotten.
//
// Processing time is the time of the checkpoint epochs (types.EpochMillis):
// an entry written in the epoch closed by barrier e counts as written at
// EpochMillis(e), and the barrier whose epoch time is more than the TTL
// after that deletes it. So expiry is part of the checkpoint like any
// other state change, and after a recovery the same entries expire.
//
// What a view shows once state has expired:
//
//   - Nothing is retracted when state expires: the view keeps the rows it
//     holds.
//   - A group of an aggregation whose state expired starts again from
//     nothing with its next row: the view's row of that group is then
//     replaced by the aggregate of the rows since (the view's storage runs
//     in upsert mode, so the replacement reaches the view's readers as an
//     update). A retraction for a group without state is ignored, and a
//     retraction of a row counted only in expired state is applied to the
//     new state.
//   - A stored join row that expired no longer matches rows of the other
//     side that arrive later; the joined rows already emitted stay.
//
// EMIT ON WINDOW CLOSE aggregations and the sides of interval joins that
// a bound cleans are bounded by watermarks: they get no TTL and keep
// their exact results. Every other grouped aggregation does, windowed or
// not (a window the watermark has not closed yet may be forgotten too);
// global aggregations (no GROUP BY) hold one row and have none.

// WithStateTTL is the view option that sets the state TTL, an interval
// ('1 hour', '30 minutes', '90 seconds').
const WithStateTTL = "state_ttl"

// StateTTL returns the state TTL that rel sets with WithStateTTL, in
// milliseconds, or 0 when it sets none. Errors: 22023 for a value that is
// not an interval, has months (no fixed length), or is below 1 ms.
func StateTTL(rel *catalog.Relation) (int64, error) {
	if rel == nil {
		return 0, nil
	}
	v, ok := rel.With[WithStateTTL]
	if !ok {
		return 0, nil
	}
	bad := func() (int64, error) {
		return 0, pgerr.New(pgerr.InvalidParameterValue, "invalid value for %s: \"%s\"", WithStateTTL, v).
			WithHint("An interval of fixed length of at least 1 millisecond is expected, such as '1 hour' or '90 seconds'.")
	}
	iv, err := types.ParseInterval(strings.TrimSpace(v))
	if err != nil || iv.Months != 0 {
		return bad()
	}
	us := int64(iv.Days)*86_400_000_000 + iv.Micros
	if us < 1000 {
		return bad()
	}
	return us / 1000, nil
}

// ttlColumn is the column of a state row that holds the processing time
// (epoch milliseconds) the row was last written at.
var ttlColumn = types.Column{Name: "_write_ms", T: types.TInt8, NotNull: true}

// ttlIndex describes the state table that orders the entries of a state
// table with a TTL by the time they were last written: keyed by that
// time (ttlColumn) then the entry's key columns keyCols, so the entries
// that expired are one range scan. It is allocated by the caller's
// allocation order.
func (sp *streamPlanner) ttlIndex(name string, keyCols types.Schema) StateTableDesc {
	d := StateTableDesc{ID: sp.alloc(), Name: name, Cols: append(types.Schema{ttlColumn}, keyCols...)}
	d.KeyCols = seq(0, len(d.Cols))
	d.OrderDesc = make([]bool, len(d.KeyCols))
	return d
}

// aggTTL gives the aggregation n a state TTL: its Result rows carry
// ttlColumn last and an agg_ttl table indexes them.
func (sp *streamPlanner) aggTTL(n *StreamHashAgg, keyCols types.Schema) {
	n.TTLMs = sp.ttlMs
	n.Result.Cols = append(n.Result.Cols, ttlColumn)
	n.TTL = sp.ttlIndex("agg_ttl", keyCols)
	sp.ttlUsed = true
}

// joinTTL gives the sides of the join n that no bound cleans a state TTL:
// their stored rows carry ttlColumn last and a join_left_ttl /
// join_right_ttl table indexes them by it.
func (sp *streamPlanner) joinTTL(n *StreamHashJoin) {
	for side, c := range []*JoinClean{n.LeftClean, n.RightClean} {
		if c != nil {
			continue
		}
		st, idx, name := &n.LeftState, &n.LeftTTL, "join_left_ttl"
		if side == 1 {
			st, idx, name = &n.RightState, &n.RightTTL, "join_right_ttl"
		}
		var keyCols types.Schema
		for _, k := range st.KeyCols {
			keyCols = append(keyCols, st.Cols[k])
		}
		st.Cols = append(st.Cols, ttlColumn)
		*idx = sp.ttlIndex(name, keyCols)
		n.TTLMs = sp.ttlMs
		sp.ttlUsed = true
	}
}
