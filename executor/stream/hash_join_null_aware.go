package stream

import (
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// nullAware is the state of a null-aware anti join, the join of
// `x NOT IN (subquery)` (planner.StreamHashJoin.NullAware). PostgreSQL
// keeps a left row when the right side is empty, and otherwise only when
// x is not NULL, no right key is NULL and no right key equals x: x NOT
// IN (S) is NULL, which a WHERE drops, as soon as x or a member of S is
// NULL. So every left row's presence depends on the right side as a
// whole through two counts, of its rows and of its rows whose key is
// NULL, kept in a state table of one row. The left state holds every
// left row with its degree (the number of right rows of its key), those
// of NULL key too; right rows of NULL key are counted, not stored.
//
// A change on the right that leaves the mode (empty, holds a NULL, or
// neither) as it was is an anti join's: a left row leaves when its degree
// rises from 0 and returns when it falls to 0, in mode "neither" only. A
// change that moves the mode (the first right row, the first NULL, the
// last NULL gone, the last row gone) reads the whole left state once and
// emits the difference for each left row: all of them retracted when the
// first NULL arrives, those of no match and non-NULL key re-emitted when
// it leaves.
type nullAware struct {
	st          *storage.StateTable
	rows, nulls int64
	kbuf        []byte
}

// The modes of the right side of a null-aware anti join.
const (
	naEmpty   = iota // no row: every left row is kept
	naHasNull        // a NULL key: no left row is kept
	naPlain          // rows, none of NULL key: the unmatched non-NULL ones are kept
)

var countKey = types.Row{}

func newNullAware(actx *ActorContext, n *planner.StreamHashJoin, right *joinSide) (*nullAware, error) {
	d := n.CountState
	if n.Kind != planner.AntiJoin || len(n.LeftKeys) != 1 || n.Cond != nil || d.ID == 0 || len(d.Cols) != 2 || len(d.KeyCols) != 0 {
		return nil, pgerr.New(pgerr.InternalError, "hash join: malformed null-aware anti join")
	}
	na := &nullAware{st: right.states.Add(actx.Track(storage.NewStateTable(actx.DB, d.ID, nil, d.Cols.Types(), actx.Cache)))}
	if err := na.st.Exclusive(); err != nil {
		return nil, err
	}
	row, ok, err := na.st.Get(countKey)
	if err != nil {
		return nil, err
	}
	if ok {
		na.rows, na.nulls = row[0].I, row[1].I
	}
	return na, nil
}

func (na *nullAware) mode() int {
	switch {
	case na.rows == 0:
		return naEmpty
	case na.nulls > 0:
		return naHasNull
	}
	return naPlain
}

// kept reports whether a left row whose key is NULL (keyNull) or has deg
// matches is in the output when the right side is in mode m.
func (na *nullAware) kept(m int, keyNull bool, deg int64) bool {
	switch m {
	case naEmpty:
		return true
	case naHasNull:
		return false
	}
	return !keyNull && deg == 0
}

// count adds d to the right side's row count, and to its NULL count
// when the row's key is NULL, and stores them.
func (na *nullAware) count(d int64, keyNull bool) error {
	na.rows += d
	if keyNull {
		na.nulls += d
	}
	if na.rows < 0 || na.nulls < 0 {
		if strictChangelog {
			return pgerr.New(pgerr.InternalError, "hash join: right row count below zero")
		}
		na.rows, na.nulls = max(na.rows, 0), max(na.nulls, 0)
	}
	na.st.Update(countKey, types.Row{types.DInt(na.rows), types.DInt(na.nulls)})
	return nil
}

// applyNullAwareRight inserts (ins) or deletes row of the right side of
// a null-aware anti join and emits the left rows whose presence changes.
func (j *HashJoin) applyNullAwareRight(ins bool, row types.Row) error {
	na := j.na
	me, ot := j.sides[1], j.sides[0]
	keyNull := me.joinKeyNull(row)
	before := na.mode()
	d := int64(-1)
	if ins {
		d = 1
	}
	if err := na.count(d, keyNull); err != nil {
		return err
	}
	after := na.mode()
	var matches []types.Row
	if !keyNull {
		var err error
		if j.mbuf, err = ot.matches(me, row, j.mbuf[:0]); err != nil {
			return err
		}
		matches = j.mbuf
	}
	// oldDeg holds, by encoded state key, the degree before this change
	// of the left rows it changes, for the scan of a mode change.
	var oldDeg map[string]int64
	if before != after && len(matches) > 0 {
		oldDeg = make(map[string]int64, len(matches))
	}
	for _, m := range matches {
		or := ot.input(m)
		deg := ot.degreeOf(m)
		nd := deg + d
		if nd < 0 {
			if strictChangelog && ot.ttl == nil && me.ttl == nil {
				return pgerr.New(pgerr.InternalError, "hash join: degree below zero")
			}
			nd = 0
		}
		key := ot.key(or)
		ot.st.Update(key, ot.withDegree(m, nd))
		if oldDeg != nil {
			na.kbuf = ot.st.EncodeKey(na.kbuf[:0], key)
			oldDeg[string(na.kbuf)] = deg
		}
		if before == naPlain && after == naPlain {
			if ins && deg == 0 {
				j.emit(types.OpDelete, or)
			} else if !ins && nd == 0 {
				j.emit(types.OpInsert, or)
			}
		}
	}
	if before != after {
		if err := j.nullAwareScan(before, after, oldDeg); err != nil {
			return err
		}
	}
	if !keyNull {
		if !ins {
			me.remove(row)
		} else if me.keeps(row) {
			me.insert(row, 0)
		}
	}
	return nil
}

// nullAwareScan emits, for every stored left row, its retraction or its
// insertion when the right side's move from mode before to mode after
// (with the degrees oldDeg held before the change, by encoded state key)
// changes its presence.
func (j *HashJoin) nullAwareScan(before, after int, oldDeg map[string]int64) error {
	na, ls := j.na, j.sides[0]
	it := ls.st.Iter(countKey, false)
	defer it.Close()
	for {
		m, err := it.Next()
		if err != nil {
			return err
		}
		if m == nil {
			return nil
		}
		row := ls.input(m)
		keyNull := ls.joinKeyNull(row)
		deg := ls.degreeOf(m)
		old := deg
		if oldDeg != nil {
			na.kbuf = ls.st.EncodeKey(na.kbuf[:0], ls.key(row))
			if o, ok := oldDeg[string(na.kbuf)]; ok {
				old = o
			}
		}
		was, is := na.kept(before, keyNull, old), na.kept(after, keyNull, deg)
		switch {
		case was && !is:
			j.emit(types.OpDelete, append(types.Row(nil), row...))
		case !was && is:
			j.emit(types.OpInsert, append(types.Row(nil), row...))
		}
	}
}
