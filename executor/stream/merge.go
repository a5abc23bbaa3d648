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
//     epochs on two channels are an error.
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

// Next implements Operator.
func (m *Merge) Next(ctx context.Context) (types.Message, error) {
	_, msg, err := m.al.next(ctx)
	return msg, err
}

// Close implements Operator. Channels are not closed by receivers.
func (m *Merge) Close() {}

// aligner reads a set of channels, each belonging to one input (group),
// and aligns barriers across all of them: Merge uses it over one input's
// channels, Union over all its inputs' channels in one group, and a
// two-input operator (a join) can use it over its two inputs' channels in
// two groups through alignInputs, learning each message's side.
// Watermarks are combined per group.
type aligner struct {
	ins     []<-chan types.Message
	group   []int
	ngroups int

	// blocked[i]: channel i delivered the barrier being aligned.
	blocked  []bool
	nblocked int
	barrier  types.Barrier

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
	for side, in := range inputs {
		m, ok := in.(*Merge)
		if !ok {
			return nil, pgerr.New(pgerr.InternalError, "input %d of a multi-input stream operator is %T, not an exchange receiver", side, in)
		}
		for _, ch := range m.al.ins {
			ins = append(ins, ch)
			if perSide {
				group = append(group, side)
			} else {
				group = append(group, 0)
			}
		}
	}
	if !perSide {
		return newAligner(ins, group, 1), nil
	}
	return newAligner(ins, group, len(inputs)), nil
}

// next returns the next message and the group (side) it came from; an
// aligned barrier reports side 0.
func (a *aligner) next(ctx context.Context) (int, types.Message, error) {
	for {
		i, msg, err := a.recv(ctx)
		if err != nil {
			return 0, nil, err
		}
		switch m := msg.(type) {
		case *types.Chunk:
			return a.group[i], m, nil
		case types.Watermark:
			if w, ok := a.watermark(i, m); ok {
				return a.group[i], w, nil
			}
		case types.Barrier:
			if a.nblocked == 0 {
				a.barrier = m
			} else if a.barrier.Epoch != m.Epoch {
				return 0, nil, pgerr.New(pgerr.InternalError, "barrier misalignment: input %d delivered epoch %d while aligning epoch %d", i, m.Epoch.Curr, a.barrier.Epoch.Curr)
			}
			a.blocked[i] = true
			a.nblocked++
			if a.nblocked == len(a.ins) {
				clear(a.blocked)
				a.nblocked = 0
				return 0, a.barrier, nil
			}
		}
	}
}

// recv receives from one of the channels not blocked by alignment.
func (a *aligner) recv(ctx context.Context) (int, types.Message, error) {
	if len(a.ins) == 1 {
		select {
		case m := <-a.ins[0]:
			return 0, m, a.closed(0, m)
		case <-ctx.Done():
			return 0, nil, ctx.Err()
		}
	}
	a.cases = append(a.cases[:0], reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ctx.Done())})
	a.idx = append(a.idx[:0], -1)
	for i, ch := range a.ins {
		if !a.blocked[i] {
			a.cases = append(a.cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ch)})
			a.idx = append(a.idx, i)
		}
	}
	k, v, _ := reflect.Select(a.cases)
	if k == 0 {
		return 0, nil, ctx.Err()
	}
	i := a.idx[k]
	var m types.Message
	if v.IsValid() && !v.IsNil() {
		m = v.Interface().(types.Message)
	}
	return i, m, a.closed(i, m)
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
