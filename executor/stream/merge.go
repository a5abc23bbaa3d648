package stream

import (
	"context"
	"reflect"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// Merge is the receiving end of an exchange: it reads the channels from
// every upstream actor of one input and returns their messages as one
// stream.
//
//   - Chunk: returned as received, in the order the channels deliver them
//     (no order across channels; within a channel order is kept).
//   - Barrier: aligned (DESIGN.md §3). After a channel delivers barrier e,
//     Merge stops reading it and keeps reading the others until every
//     channel delivered e; then it returns e once. Barriers of different
//     epochs on two channels are an error. Without alignment (Env.Unaligned,
//     for at-least-once jobs) a channel that delivered e is read on, so its
//     rows after e may be returned before e and fall into epoch e; e is
//     still returned once, after every channel delivered it.
//   - Watermark: per column, Merge remembers each channel's latest
//     watermark and returns the minimum over the channels whenever every
//     channel has one and the minimum rose.
type Merge struct {
	al *aligner
}

var _ Operator = (*Merge)(nil)

// newMerge returns a Merge over the channels ins (one per upstream
// actor).
func newMerge(ins []<-chan types.Message) *Merge {
	groups := make([]int, len(ins))
	return &Merge{al: newAligner(ins, groups, 1)}
}

// unaligned makes m skip barrier alignment (Env.Unaligned) and returns
// it. Multi-input operators built over unaligned Merges skip it too.
func (m *Merge) unaligned() *Merge {
	m.al.unaligned = true
	return m
}

// Next implements Operator.
func (m *Merge) Next(ctx context.Context) (types.Message, error) {
	_, msg, err := m.al.next(ctx)
	return msg, err
}

// poll implements poller: the next message if the channels have one
// ready (a barrier once every channel delivered it).
func (m *Merge) poll(ctx context.Context) (types.Message, bool, error) {
	_, msg, ok, err := m.al.step(ctx, false)
	return msg, ok, err
}

// Close implements Operator. Channels are not closed by receivers.
func (m *Merge) Close() {}

// aligner reads a set of channels, each belonging to one input (group),
// and aligns barriers across all of them: Merge uses it over one input's
// channels, Union over all its inputs' channels in one group, and a
// two-input operator (a join) can use it over its two inputs' channels in
// two groups through alignInputs, learning each message's side.
// Watermarks are combined per group.
//
// Without alignment (unaligned), a channel that delivered barrier e is
// still read, and e is returned once every channel delivered it, so rows
// that follow e on a channel that is ahead may come before e: they fall
// into epoch e, which at-least-once delivery allows (on recovery they are
// replayed, not lost, since the sources' positions at e precede them). A
// channel is still blocked after delivering a second barrier while the
// first awaits the others (one barrier ahead at most; with one checkpoint
// in flight it never is), and these barriers are always aligned: the
// first one returned (operators must see a barrier before any row), an
// Initial barrier, and a barrier carrying a mutation (adding, stopping,
// pausing jobs happens at one point of every stream).
type aligner struct {
	ins     []<-chan types.Message
	group   []int
	ngroups int

	unaligned bool
	// started: a barrier was returned.
	started bool
	// got[i] counts the barriers channel i delivered that were not yet
	// returned; pend holds them, oldest first (each channel delivers the
	// same sequence, so pend[k] is every channel's k-th). nhave counts
	// the channels with got[i] > 0: pend[0] is complete when it is
	// len(ins).
	got   []int
	pend  []types.Barrier
	nhave int
	// blocked[i]: channel i is not read until pend[0] is returned.
	blocked []bool

	// wms[i][col] is channel i's latest watermark on col; sent[g][col] the
	// last watermark returned for group g.
	wms  []map[int]types.Watermark
	sent []map[int]types.Watermark

	cases []reflect.SelectCase
	idx   []int // cases[k] (k > 0) reads channel idx[k]
}

func newAligner(ins []<-chan types.Message, group []int, ngroups int) *aligner {
	a := &aligner{
		ins: ins, group: group, ngroups: ngroups,
		got:     make([]int, len(ins)),
		blocked: make([]bool, len(ins)),
		wms:     make([]map[int]types.Watermark, len(ins)),
		sent:    make([]map[int]types.Watermark, ngroups),
	}
	for i := range a.wms {
		a.wms[i] = map[int]types.Watermark{}
	}
	for g := range a.sent {
		a.sent[g] = map[int]types.Watermark{}
	}
	return a
}

// alignInputs returns an aligner over the channels of inputs, which must
// be Merges (the builder gives every input of a multi-input operator its
// own actors, so each is a Merge); next reports a message's input as its
// side. This is how a two-input operator reads both sides without
// blocking on one of them while the other has data.
func alignInputs(inputs ...Operator) (*aligner, error) {
	return alignGroups(inputs, true)
}

// alignGroups is alignInputs; with perSide false every channel is in
// group 0, so watermarks are combined over all inputs (Union).
func alignGroups(inputs []Operator, perSide bool) (*aligner, error) {
	var ins []<-chan types.Message
	var group []int
	unaligned := len(inputs) > 0
	for side, in := range inputs {
		m, ok := in.(*Merge)
		if !ok {
			return nil, pgerr.New(pgerr.InternalError, "input %d of a multi-input stream operator is %T, not an exchange receiver", side, in)
		}
		unaligned = unaligned && m.al.unaligned
		for _, ch := range m.al.ins {
			ins = append(ins, ch)
			if perSide {
				group = append(group, side)
			} else {
				group = append(group, 0)
			}
		}
	}
	ngroups := len(inputs)
	if !perSide {
		ngroups = 1
	}
	a := newAligner(ins, group, ngroups)
	a.unaligned = unaligned
	return a, nil
}

// next returns the next message and the group (side) it came from; an
// aligned barrier reports side 0.
func (a *aligner) next(ctx context.Context) (int, types.Message, error) {
	g, msg, _, err := a.step(ctx, true)
	return g, msg, err
}

// step is next, or, with wait false, next without waiting: it reports
// false when no channel it may read has a message ready.
func (a *aligner) step(ctx context.Context, wait bool) (int, types.Message, bool, error) {
	for {
		if len(a.pend) > 0 && a.nhave == len(a.ins) {
			return 0, a.release(), true, nil
		}
		i, msg, ok, err := a.recv(ctx, wait)
		if err != nil || !ok {
			return 0, nil, false, err
		}
		switch m := msg.(type) {
		case *types.Chunk:
			return a.group[i], m, true, nil
		case types.Watermark:
			if w, ok := a.watermark(i, m); ok {
				return a.group[i], w, true, nil
			}
		case types.Barrier:
			if err := a.barrier(i, m); err != nil {
				return 0, nil, false, err
			}
		}
	}
}

// barrier records barrier b delivered by channel i and blocks i when it
// must wait for the others.
func (a *aligner) barrier(i int, b types.Barrier) error {
	k := a.got[i]
	if k < len(a.pend) {
		if want := a.pend[k]; want.Epoch != b.Epoch {
			return pgerr.New(pgerr.InternalError, "barrier misalignment: input %d delivered epoch %d while aligning epoch %d", i, b.Epoch.Curr, want.Epoch.Curr)
		}
	} else {
		a.pend = append(a.pend, b)
	}
	if k == 0 {
		a.nhave++
	}
	a.got[i]++
	a.blocked[i] = a.mustWait(i)
	return nil
}

// mustWait reports whether channel i, which delivered got[i] > 0
// barriers not yet returned, must not be read until pend[0] is.
func (a *aligner) mustWait(i int) bool {
	n := a.got[i]
	if n == 0 {
		return false
	}
	if !a.unaligned || !a.started || n > 1 {
		return true
	}
	b := a.pend[n-1]
	return b.Kind != types.BarrierCheckpoint || b.Mutation.Kind != types.MutationNone
}

// release removes the complete barrier pend[0] and returns it,
// unblocking the channels that have no other barrier pending.
func (a *aligner) release() types.Barrier {
	b := a.pend[0]
	a.pend = append(a.pend[:0], a.pend[1:]...)
	a.started = true
	a.nhave = 0
	for i := range a.got {
		a.got[i]--
		if a.got[i] > 0 {
			a.nhave++
		}
		a.blocked[i] = a.mustWait(i)
	}
	return b
}

// recv receives from one of the channels not blocked by alignment; with
// wait false it reports false at once when none has a message ready.
func (a *aligner) recv(ctx context.Context, wait bool) (int, types.Message, bool, error) {
	if len(a.ins) == 1 {
		if !wait {
			select {
			case m := <-a.ins[0]:
				return 0, m, true, a.closed(0, m)
			default:
				return 0, nil, false, nil
			}
		}
		select {
		case m := <-a.ins[0]:
			return 0, m, true, a.closed(0, m)
		case <-ctx.Done():
			return 0, nil, false, ctx.Err()
		}
	}
	if len(a.ins) == 2 {
		return a.recv2(ctx, wait)
	}
	a.cases = append(a.cases[:0], reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ctx.Done())})
	a.idx = append(a.idx[:0], -1)
	for i, ch := range a.ins {
		if !a.blocked[i] {
			a.cases = append(a.cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ch)})
			a.idx = append(a.idx, i)
		}
	}
	if !wait {
		a.cases = append(a.cases, reflect.SelectCase{Dir: reflect.SelectDefault})
		a.idx = append(a.idx, -1)
	}
	k, v, _ := reflect.Select(a.cases)
	if k == 0 {
		return 0, nil, false, ctx.Err()
	}
	if a.idx[k] < 0 {
		return 0, nil, false, nil
	}
	i := a.idx[k]
	var m types.Message
	if v.IsValid() && !v.IsNil() {
		m = v.Interface().(types.Message)
	}
	return i, m, true, a.closed(i, m)
}

// recv2 is recv over two inputs, the usual number at a parallelism of
// two, with a select statement rather than reflect.Select's allocations
// and slower dispatch: each message and barrier of a two-actor exchange
// passes here. A blocked input is a nil channel, which no case of a
// select receives from.
func (a *aligner) recv2(ctx context.Context, wait bool) (int, types.Message, bool, error) {
	c0, c1 := a.ins[0], a.ins[1]
	if a.blocked[0] {
		c0 = nil
	}
	if a.blocked[1] {
		c1 = nil
	}
	if !wait {
		select {
		case m := <-c0:
			return 0, m, true, a.closed(0, m)
		case m := <-c1:
			return 1, m, true, a.closed(1, m)
		case <-ctx.Done():
			return 0, nil, false, ctx.Err()
		default:
			return 0, nil, false, nil
		}
	}
	select {
	case m := <-c0:
		return 0, m, true, a.closed(0, m)
	case m := <-c1:
		return 1, m, true, a.closed(1, m)
	case <-ctx.Done():
		return 0, nil, false, ctx.Err()
	}
}

func (a *aligner) closed(i int, m types.Message) error {
	if m == nil {
		return pgerr.New(pgerr.InternalError, "exchange channel %d closed by its sender", i)
	}
	return nil
}

// watermark records channel i's watermark w and returns the watermark to
// emit for i's group, if the minimum over the group's channels rose.
func (a *aligner) watermark(i int, w types.Watermark) (types.Watermark, bool) {
	a.wms[i][w.Col] = w
	g := a.group[i]
	var lo types.Watermark
	have := false
	for j := range a.ins {
		if a.group[j] != g {
			continue
		}
		x, ok := a.wms[j][w.Col]
		if !ok {
			return types.Watermark{}, false
		}
		if !have || types.Compare(x.Val, lo.Val, x.T) < 0 {
			lo, have = x, true
		}
	}
	if prev, ok := a.sent[g][w.Col]; ok && types.Compare(lo.Val, prev.Val, lo.T) <= 0 {
		return types.Watermark{}, false
	}
	a.sent[g][w.Col] = lo
	return lo, true
}
