package stream

import (
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// joinSide is one input of a HashJoin with its state table. The table's
// layout is the stream planner's (planner.StreamHashJoin LeftState /
// RightState): the stored row is the input row, followed by a _degree
// int8 column when the side's rows are emitted depending on whether they
// match (the outer side of an outer join, the left side of semi and anti
// joins); the key is the join key columns (without repeats) followed by
// the input's stream key columns not already among them. The join key is
// thus a prefix of the state key, and the rows matching a probe are one
// prefix scan.
type joinSide struct {
	st *storage.StateTable
	// states holds st and the side's cleaning index and TTL index, all
	// committed by one call at a barrier.
	states storage.StateTables
	// keys are the join key columns of the input, in the order of the
	// plan's LeftKeys/RightKeys; keys[i] of one side is compared with
	// keys[i] of the other.
	keys []int
	// stateKey are the input columns of the state key; its first
	// len(prefixFrom) columns are the distinct join key columns.
	stateKey []int
	// prefixFrom[j] is the position in keys of the first occurrence of
	// stateKey[j]; dups lists the pairs (i, first occurrence) of key
	// positions naming the same column twice, whose probe values must be
	// equal for a match.
	prefixFrom []int
	dups       [][2]int
	ts         []types.T // input column types
	degree     bool      // stored rows carry a trailing degree column
	// clean is the side's state cleaning by an interval join's bounds
	// (hash_join_clean.go), nil when its state is kept whole; rows are
	// then stored and removed through insert and remove, which keep its
	// index table in step with the state table.
	clean *sideClean
	// ttl is the side's state TTL (hash_join_ttl.go), nil for none;
	// stored rows then end with the time they were stored at.
	ttl *sideTTL
	// prefix is probePrefix's buffer; keyBuf is key's.
	prefix, keyBuf types.Row
	// memo holds the stored rows of the join keys probed since the
	// state table last changed (at its write count memoAt), by encoded
	// key, when the side holds few keys (memoMaxEntries) and stores no
	// degree (see matches); mkey is the probe's encoded key.
	memo map[string][]types.Row
	// memoAt is the table's write count at the last probe.
	memoAt uint64
	mkey   []byte
}

// memoMaxEntries is the most keys a join side's state table may hold in
// memory for its probes to be remembered (joinSide.memo), and the most
// rows of a join key remembered; memoMaxKeys is the most join keys
// remembered at once.
const (
	memoMaxEntries = 64
	memoMaxKeys    = 64
)

func newJoinSide(actx *ActorContext, in planner.StreamNode, keys []int, d planner.StateTableDesc, degree bool, ttl bool) (*joinSide, error) {
	ts := in.Base().Out.Types()
	if d.ID == 0 {
		return nil, pgerr.New(pgerr.InternalError, "hash join: %s has no state table", d.Name)
	}
	want := len(ts)
	if degree {
		want++
	}
	if ttl {
		want++
	}
	if len(d.Cols) != want {
		return nil, pgerr.New(pgerr.InternalError, "hash join: state table %s has %d columns, want %d", d.Name, len(d.Cols), want)
	}
	s := &joinSide{keys: keys, stateKey: d.KeyCols, ts: ts, degree: degree}
	for i, k := range keys {
		if k < 0 || k >= len(ts) {
			return nil, pgerr.New(pgerr.InternalError, "hash join: key column %d out of range", k)
		}
		first := i
		for p := 0; p < i; p++ {
			if keys[p] == k {
				first = p
				break
			}
		}
		if first != i {
			s.dups = append(s.dups, [2]int{i, first})
			continue
		}
		j := len(s.prefixFrom)
		if j >= len(d.KeyCols) || d.KeyCols[j] != k {
			return nil, pgerr.New(pgerr.InternalError, "hash join: state table %s is not keyed by the join key first", d.Name)
		}
		s.prefixFrom = append(s.prefixFrom, i)
	}
	for _, k := range d.KeyCols {
		if k >= len(ts) {
			return nil, pgerr.New(pgerr.InternalError, "hash join: state table %s key column %d is not an input column", d.Name, k)
		}
	}
	vts := d.Cols.Types()
	kts := make([]types.T, len(d.KeyCols))
	for i, k := range d.KeyCols {
		kts[i] = vts[k]
	}
	s.st = s.states.Add(actx.Track(storage.NewStateTable(actx.DB, d.ID, kts, vts, actx.Cache)))
	if len(d.OrderDesc) == len(kts) {
		s.st.SetDesc(d.OrderDesc)
	}
	// Most stored rows are matched seldom or never (a bid whose
	// auction was filtered out, a row past every later probe of its
	// key), so the side keeps them encoded: far smaller than rows of
	// datums, and what the checkpoint writes.
	s.st.EncodeRows()
	// Its probes read the rows of one join key: once its state no
	// longer fits, a key whose rows never left memory is still read
	// from memory alone.
	s.st.SetReadPrefix(len(s.prefixFrom))
	if err := s.st.Exclusive(); err != nil {
		return nil, err
	}
	if actx.Parallelism <= 1 {
		// Cleaning may then delete the rows below its bound by range.
		s.st.SoleWriter()
	}
	return s, nil
}

// joinKeyNull reports whether a join key column of row (an input row of
// s) is NULL: such a row matches nothing.
func (s *joinSide) joinKeyNull(row types.Row) bool {
	for _, k := range s.keys {
		if row[k].Null {
			return true
		}
	}
	return false
}

// probePrefix returns the state-key prefix of s that rows of s matching
// row (an input row of the other side, whose join key columns are
// other.keys) must have, and false when nothing can match: a NULL key,
// or a column of s compared with two probe columns of different values.
func (s *joinSide) probePrefix(other *joinSide, row types.Row) (types.Row, bool) {
	for _, k := range other.keys {
		if row[k].Null {
			return nil, false
		}
	}
	for _, d := range s.dups {
		a, b := other.keys[d[0]], other.keys[d[1]]
		if types.Compare(row[a], row[b], other.ts[a]) != 0 {
			return nil, false
		}
	}
	// The prefix is encoded by the probe that asks for it and kept by
	// nothing: one buffer serves every probe.
	prefix := s.prefix[:0]
	for _, i := range s.prefixFrom {
		prefix = append(prefix, row[other.keys[i]])
	}
	s.prefix = prefix
	return prefix, true
}

// key returns the state key of a row of s (an input row, or a stored row,
// whose leading columns are the input row). The key is valid until the
// next call: the state table encodes it and keeps none (nor does the TTL
// index, which copies it).
func (s *joinSide) key(row types.Row) types.Row {
	k := s.keyBuf[:0]
	for _, c := range s.stateKey {
		k = append(k, row[c])
	}
	s.keyBuf = k
	return k
}

// stored returns the row to store for input row with the given degree
// (and, with a TTL, the time it is stored at).
func (s *joinSide) stored(row types.Row, degree int64) types.Row {
	if !s.degree && s.ttl == nil {
		return row
	}
	out := make(types.Row, len(row), len(row)+2)
	copy(out, row)
	if s.degree {
		out = append(out, types.DInt(degree))
	}
	if s.ttl != nil {
		out = append(out, types.DInt(s.ttl.now))
	}
	return out
}

// withDegree returns stored row m of s with its degree set to degree;
// the time a row with a TTL was stored at stays as it was.
func (s *joinSide) withDegree(m types.Row, degree int64) types.Row {
	out := append(types.Row(nil), m...)
	out[len(s.ts)] = types.DInt(degree)
	return out
}

// degreeOf returns the degree held by a stored row of s.
func (s *joinSide) degreeOf(stored types.Row) int64 {
	return stored[len(s.ts)].I
}

// input returns the input columns of a stored row of s.
func (s *joinSide) input(stored types.Row) types.Row { return stored[:len(s.ts)] }

// matches appends to buf the stored rows of s whose join key equals the
// probe row's (an input row of the other side) and returns it. The rows
// are shared: callers do not change them.
//
// A side of few keys probed by many rows of the other side (the maximum
// of each window, which Nexmark q5 joins every count of the window with)
// remembers the rows each join key matched until its state table next
// changes, so that they are not read and decoded again for each probe;
// it starts remembering at the second probe in a row that finds the
// table unchanged, so that a side written between its probes does not
// pay for a memo it clears at once.
// Only sides without degrees, whose rows the probes do not change, and
// only while the table holds at most memoMaxEntries keys in memory: a
// larger side's probes seldom repeat a key before it changes.
func (s *joinSide) matches(other *joinSide, row types.Row, buf []types.Row) ([]types.Row, error) {
	prefix, ok := s.probePrefix(other, row)
	if !ok {
		return buf, nil
	}
	if s.degree || s.st.Entries() > memoMaxEntries {
		if s.memo != nil {
			s.memo = nil
		}
		return s.st.AppendRows(buf, prefix)
	}
	w := s.st.Writes()
	if s.memoAt != w || s.memo == nil {
		// The table changed since the last probe (or this is the first):
		// a side written between its probes would only fill the memo
		// to clear it, so it is used from the second probe in a row
		// that finds the table as it was.
		if s.memo != nil {
			clear(s.memo)
		}
		fresh := s.memoAt == w
		s.memoAt = w
		if !fresh {
			return s.st.AppendRows(buf, prefix)
		}
		s.memo = make(map[string][]types.Row)
	}
	s.mkey = s.st.EncodeKey(s.mkey[:0], prefix)
	if rows, ok := s.memo[string(s.mkey)]; ok {
		return append(buf, rows...), nil
	}
	n := len(buf)
	buf, err := s.st.AppendRows(buf, prefix)
	if err == nil && len(s.memo) < memoMaxKeys && len(buf)-n <= memoMaxEntries {
		s.memo[string(s.mkey)] = append([]types.Row(nil), buf[n:]...)
	}
	return buf, err
}
