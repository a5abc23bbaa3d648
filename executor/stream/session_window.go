package stream

import (
	"context"
	"math"
	"slices"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// SessionWindow labels each row with the start of its session
// (planner.StreamSessionWindow): the input row, then session_start.
//
// Chunk: rows are applied one at a time, in order, and their output is
// emitted after the chunk. An insert (or U+) of time t in partition p
// joins the sessions of p it touches: those whose [start - gap, last +
// gap] holds t, at most two (sessions are more than gap apart). The
// joined session starts at the earliest of t and their starts; the rows
// of every touched session that started elsewhere are retracted with
// their old start and inserted with the new one, and then the row is
// inserted with the joined start. A delete (or U-) retracts the row
// with its session's start and removes it from its session, whose
// remaining rows are then split where consecutive times are more than
// gap apart: the first part keeps the start (if its first row does), the
// others' rows are retracted and inserted with their own starts. U-/U+
// pairs therefore come out as a delete and an insert. Rows whose time is
// NULL pass with a NULL start and are kept nowhere.
//
// State: Events holds every row with a time, keyed by (partition, time,
// event key) with a count of equal rows; Sessions one row per session,
// keyed by (partition, start), holding its last time. Finding the
// sessions a time touches is one reverse range scan of Sessions; a
// session's rows are a range scan of Events. Both live in state tables,
// within the memory budget, and are committed at the barrier.
//
// Watermark: one on the time column (when the plan asks for it, its
// Watermarks naming session_start) is held until the barrier. There the
// sessions it closed (their last time plus gap below it: no later row can
// reach them) are deleted from the state without output, their rows
// already emitted, and a watermark goes out on session_start: the least
// start of the sessions still open, or the held watermark if less (a
// later row starts a session at or after it). A later retraction of a
// deleted row is dropped, as behind the watermark. Other watermarks are
// dropped: a session's start is not bounded by one.
//
// Barrier: pending output was emitted after its chunk; the state goes
// into the epoch's write set and the barrier is forwarded.
//
// In EMIT ON WINDOW CLOSE mode (StreamSessionWindow.EOWC) chunks only
// change the state, and rows whose time is NULL are dropped. The last
// watermark on the time column is held until the barrier; there every
// session whose last time plus gap is below it (a scan of this actor's
// Sessions rows) is closed: its rows are emitted as inserts with its
// start and end, and its rows and its session are deleted. Then the state
// goes into the write set, the watermark is emitted on the session_end
// column and the barrier is forwarded.
type SessionWindow struct {
	actx   *ActorContext
	input  Operator
	plan   *planner.StreamSessionWindow
	states storage.StateTables
	events *storage.StateTable
	wins   *storage.StateTable

	keys     []int
	timeCol  int
	eventKey []int
	// unique: the input has a stream key, so no two rows it holds are
	// equal on an Events key and their count is always 1; an insert then
	// needs no lookup.
	unique bool
	gap    int64
	nIn    int

	out []types.Message
	ob  outBuilder

	// eowc: StreamSessionWindow.EOWC; quiet: state changes emit nothing
	// (in EOWC mode, outside closing); wm is the held watermark (valid
	// when hasWM) and tt the time's type.
	eowc, quiet bool
	// clean: a watermark on the time column closes sessions (in EOWC
	// mode, or when the plan has the output carry a watermark).
	clean bool
	wm    int64
	hasWM bool
	tt    types.T
	// closing is the end of the session being closed (EOWC mode).
	closing int64
}

var _ Operator = (*SessionWindow)(nil)

// session is one row of the Sessions table: its start and last time.
type session struct{ start, last int64 }

// NewSessionWindow returns a SessionWindow over input for n.
func NewSessionWindow(actx *ActorContext, input Operator, n *planner.StreamSessionWindow) (*SessionWindow, error) {
	inTs := n.Input.Base().Out.Types()
	s := &SessionWindow{actx: actx, input: input, plan: n, keys: n.Keys, timeCol: n.TimeCol, eventKey: n.EventKey(), gap: n.Gap, nIn: len(inTs),
		unique: len(n.Input.Base().StreamKey) > 0}
	if n.TimeCol < 0 || n.TimeCol >= len(inTs) || n.Gap <= 0 {
		return nil, pgerr.New(pgerr.InternalError, "session window over column %d of %d with gap %d", n.TimeCol, len(inTs), n.Gap)
	}
	var keyTs []types.T
	for _, k := range n.Keys {
		if k < 0 || k >= len(inTs) {
			return nil, pgerr.New(pgerr.InternalError, "session window partitioned by column %d of %d", k, len(inTs))
		}
		keyTs = append(keyTs, inTs[k])
	}
	tt := inTs[n.TimeCol]
	evKeyTs := append(append([]types.T(nil), keyTs...), tt)
	for _, c := range s.eventKey {
		evKeyTs = append(evKeyTs, inTs[c])
	}
	s.events = s.states.Add(actx.Track(storage.NewStateTable(actx.DB, n.Events.ID, evKeyTs, append(append([]types.T(nil), inTs...), types.TInt8), actx.Cache)))
	winKeyTs := append(append([]types.T(nil), keyTs...), tt)
	s.wins = s.states.Add(actx.Track(storage.NewStateTable(actx.DB, n.Sessions.ID, winKeyTs, append(append([]types.T(nil), winKeyTs...), tt), actx.Cache)))
	// Only this actor writes its partitions' rows, and every scan stays
	// within one partition.
	for _, t := range []*storage.StateTable{s.events, s.wins} {
		if err := t.Exclusive(); err != nil {
			return nil, err
		}
	}
	s.clean = n.EOWC || len(n.Watermarks) > 0
	if s.clean {
		// Closing sessions scans Sessions across partitions.
		keep, err := partitionKeep(actx, n.Input.Base().Dist, func(c int) int { return slices.Index(n.Keys, c) }, append(append([]types.T(nil), winKeyTs...), tt))
		if err != nil {
			return nil, err
		}
		s.wins.SetPartition(keep)
	}
	s.eowc, s.quiet, s.tt = n.EOWC, n.EOWC, tt
	s.ob.ts = n.Out.Types()
	return s, nil
}

// Next implements Operator.
func (s *SessionWindow) Next(ctx context.Context) (types.Message, error) {
	for {
		if len(s.out) > 0 {
			m := s.out[0]
			s.out[0] = nil
			s.out = s.out[1:]
			return m, nil
		}
		msg, err := s.input.Next(ctx)
		if err != nil || msg == nil {
			return msg, err
		}
		switch m := msg.(type) {
		case *types.Chunk:
			if err := s.applyChunk(m); err != nil {
				return nil, err
			}
			s.out = s.ob.take(s.out)
		case types.Watermark:
			if s.clean && m.Col == s.timeCol && !m.Val.Null && (!s.hasWM || m.Val.I > s.wm) {
				s.wm, s.hasWM = m.Val.I, true
			}
		case types.Barrier:
			if err := s.barrier(m); err != nil {
				return nil, err
			}
		}
	}
}

func (s *SessionWindow) barrier(b types.Barrier) error {
	var open int64
	if s.clean && s.hasWM {
		var err error
		if open, err = s.closeSessions(); err != nil {
			return err
		}
		s.out = s.ob.take(s.out)
	}
	if err := s.states.Barrier(s.actx.WriteSet, b.Epoch.Prev, b.Epoch.Curr); err != nil {
		return err
	}
	switch {
	case !s.clean || !s.hasWM:
	case s.eowc:
		s.out = append(s.out, types.Watermark{Col: s.nIn + 1, T: s.tt, Val: types.DInt(s.wm)})
	default:
		s.out = append(s.out, types.Watermark{Col: s.nIn, T: s.tt, Val: types.DInt(open)})
	}
	s.out = append(s.out, b)
	return nil
}

// closeSessions deletes the sessions the held watermark closed, whose
// last time plus the gap is below it: no later row (at or after the
// watermark) can reach them. In EOWC mode it emits their rows first.
// It returns the watermark on session_start that then holds: the least
// start of the sessions still open, or the held watermark when that is
// less (a later row opens a session at or after it).
func (s *SessionWindow) closeSessions() (int64, error) {
	nk := len(s.keys)
	open := s.wm
	wins, err := storage.Collect(s.wins.Iter(nil, false), func(r types.Row) bool {
		if add(r[nk+1].I, s.gap) < s.wm {
			return true
		}
		open = min(open, r[nk].I)
		return false
	})
	if err != nil {
		return 0, err
	}
	if s.eowc {
		s.quiet = false
		defer func() { s.quiet = true }()
	}
	for _, w := range wins {
		p := w[:nk:nk]
		x := session{start: w[nk].I, last: w[nk+1].I}
		s.closing = add(x.last, s.gap)
		rows, err := s.rowsOf(p, x.start, x.last)
		if err != nil {
			return 0, err
		}
		for _, r := range rows {
			if s.eowc {
				s.emit(types.OpInsert, r, x.start, false, r[s.nIn].I)
			}
			s.events.Delete(s.eventKeyOf(p, r))
		}
		s.wins.Delete(with(p, x.start))
	}
	return open, nil
}

func (s *SessionWindow) applyChunk(c *types.Chunk) error {
	for i := 0; i < c.Len(); i++ {
		if !c.Visible(i) {
			continue
		}
		row := c.Row(i)
		for j := range row {
			row[j] = detach(row[j])
		}
		var err error
		switch c.Op(i) {
		case types.OpInsert, types.OpUpdateInsert:
			err = s.insert(row)
		default:
			err = s.remove(row)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// partition returns the partition key values of row.
func (s *SessionWindow) partition(row types.Row) types.Row {
	p := make(types.Row, len(s.keys), len(s.keys)+1)
	for i, k := range s.keys {
		p[i] = row[k]
	}
	return p
}

// eventKeyOf returns row's key in Events.
func (s *SessionWindow) eventKeyOf(p, row types.Row) types.Row {
	k := append(append(make(types.Row, 0, len(p)+1+len(s.eventKey)), p...), row[s.timeCol])
	for _, c := range s.eventKey {
		k = append(k, row[c])
	}
	return k
}

// with returns p followed by the time t.
func with(p types.Row, t int64) types.Row {
	return append(append(make(types.Row, 0, len(p)+1), p...), types.DInt(t))
}

// add returns a+b, saturating at the int64 range (times may be
// infinity).
func add(a, b int64) int64 {
	switch {
	case b > 0 && a > math.MaxInt64-b:
		return math.MaxInt64
	case b < 0 && a < math.MinInt64-b:
		return math.MinInt64
	}
	return a + b
}

// emit adds row, labelled with start (NULL when null), n times with op;
// in EOWC mode, where only closing emits, session_end follows (closing).
func (s *SessionWindow) emit(op types.Op, row types.Row, start int64, null bool, n int64) {
	if s.quiet {
		return
	}
	out := make(types.Row, len(s.ob.ts))
	copy(out, row[:s.nIn])
	out[s.nIn] = types.DInt(start)
	if null {
		out[s.nIn] = types.NullDatum
	}
	if s.eowc {
		out[s.nIn+1] = types.DInt(s.closing)
	}
	for range n {
		s.ob.add(op, out)
	}
}

// touching returns the sessions of partition p whose start is at most
// hi and whose last time is at least lo, latest first. Sessions are
// disjoint, so the scan stops at the first one ending before lo.
func (s *SessionWindow) touching(p types.Row, lo, hi int64) ([]session, error) {
	var it storage.RowIter
	if hi == math.MaxInt64 {
		it = s.wins.Iter(p, true)
	} else {
		it = s.wins.IterRange(p, with(p, hi+1), true)
	}
	defer it.Close()
	var out []session
	n := len(p)
	for {
		r, err := it.Next()
		if err != nil {
			return nil, err
		}
		if r == nil || r[n+1].I < lo {
			return out, nil
		}
		out = append(out, session{start: r[n].I, last: r[n+1].I})
	}
}

// rowsOf returns the Events rows of partition p in [from, to] by time.
func (s *SessionWindow) rowsOf(p types.Row, from, to int64) ([]types.Row, error) {
	if to == math.MaxInt64 {
		return storage.Collect(s.events.Iter(p, false), func(r types.Row) bool { return r[s.timeCol].I >= from })
	}
	return storage.Collect(s.events.IterRange(with(p, from), with(p, to+1), false), nil)
}

// relabel moves the rows of partition p in [from, to] from session start
// old to session start new: each is retracted and inserted again.
func (s *SessionWindow) relabel(p types.Row, from, to, old, new int64) error {
	rows, err := s.rowsOf(p, from, to)
	if err != nil {
		return err
	}
	for _, r := range rows {
		n := r[s.nIn].I
		s.emit(types.OpDelete, r, old, false, n)
		s.emit(types.OpInsert, r, new, false, n)
	}
	return nil
}

func (s *SessionWindow) insert(row types.Row) error {
	td := row[s.timeCol]
	if td.Null {
		s.emit(types.OpInsert, row, 0, true, 1)
		return nil
	}
	t := td.I
	p := s.partition(row)
	ek := s.eventKeyOf(p, row)
	var prev types.Row
	found := false
	if !s.unique {
		var err error
		if prev, found, err = s.events.Get(ek); err != nil {
			return err
		}
	}
	if found {
		// An equal row is in a session already, which holds t.
		ts, err := s.touching(p, t, t)
		if err != nil {
			return err
		}
		if len(ts) == 0 {
			return pgerr.New(pgerr.InternalError, "session window: no session holds a stored row")
		}
		s.events.Update(ek, append(row[:s.nIn:s.nIn], types.DInt(prev[s.nIn].I+1)))
		s.emit(types.OpInsert, row, ts[0].start, false, 1)
		return nil
	}
	ts, err := s.touching(p, add(t, -s.gap), add(t, s.gap))
	if err != nil {
		return err
	}
	joined := session{start: t, last: t}
	for _, x := range ts {
		joined.start = min(joined.start, x.start)
		joined.last = max(joined.last, x.last)
	}
	for _, x := range ts {
		if x.start == joined.start {
			continue
		}
		if err := s.relabel(p, x.start, x.last, x.start, joined.start); err != nil {
			return err
		}
		s.wins.Delete(with(p, x.start))
	}
	k := with(p, joined.start)
	s.wins.Update(k, append(k, types.DInt(joined.last)))
	s.events.Insert(ek, append(row[:s.nIn:s.nIn], types.DInt(1)))
	s.emit(types.OpInsert, row, joined.start, false, 1)
	return nil
}

func (s *SessionWindow) remove(row types.Row) error {
	td := row[s.timeCol]
	if td.Null {
		s.emit(types.OpDelete, row, 0, true, 1)
		return nil
	}
	t := td.I
	p := s.partition(row)
	ek := s.eventKeyOf(p, row)
	prev, found, err := s.events.Get(ek)
	if err != nil {
		return err
	}
	if !found {
		if s.clean {
			// Its session closed: the row is behind the watermark.
			return nil
		}
		return pgerr.New(pgerr.InternalError, "session window: retraction of a row it does not hold")
	}
	ts, err := s.touching(p, t, t)
	if err != nil {
		return err
	}
	if len(ts) == 0 {
		return pgerr.New(pgerr.InternalError, "session window: no session holds a stored row")
	}
	x := ts[0]
	s.emit(types.OpDelete, row, x.start, false, 1)
	if n := prev[s.nIn].I; n > 1 {
		s.events.Update(ek, append(row[:s.nIn:s.nIn], types.DInt(n-1)))
		return nil
	}
	s.events.Delete(ek)
	// Split what is left of the session where it has gaps.
	rows, err := s.rowsOf(p, x.start, x.last)
	if err != nil {
		return err
	}
	s.wins.Delete(with(p, x.start))
	var cur session
	var part []types.Row
	flush := func() {
		if len(part) == 0 {
			return
		}
		if cur.start != x.start {
			for _, r := range part {
				n := r[s.nIn].I
				s.emit(types.OpDelete, r, x.start, false, n)
				s.emit(types.OpInsert, r, cur.start, false, n)
			}
		}
		k := with(p, cur.start)
		s.wins.Insert(k, append(k, types.DInt(cur.last)))
		part = part[:0]
	}
	for _, r := range rows {
		rt := r[s.timeCol].I
		if len(part) > 0 && rt-cur.last > s.gap {
			flush()
		}
		if len(part) == 0 {
			cur = session{start: rt}
		}
		cur.last = rt
		part = append(part, r)
	}
	flush()
	return nil
}

// Close implements Operator.
func (s *SessionWindow) Close() {
	if s.input != nil {
		s.input.Close()
		s.input = nil
	}
}
