package stream

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/weirdb/weir/types"
)

// TestOutputTapShutUntilTapFrom checks that a job's Output taps pass
// only watermarks until TapFrom opens them, and that every tap of the
// job opens at the barrier of TapFrom's epoch, whichever barriers each
// had passed when TapFrom was called (before that barrier's injection).
func TestOutputTapShutUntilTapFrom(t *testing.T) {
	j := &Job{}
	chans := []chan types.Message{make(chan types.Message, 32), make(chan types.Message, 32)}
	taps := make([]*tapDispatcher, len(chans))
	for i, ch := range chans {
		taps[i] = &tapDispatcher{out: simpleDispatcher{outs: []chan<- types.Message{ch}}, gate: &j.tap}
	}
	ctx := context.Background()
	chunk := func() *types.Chunk {
		c := types.NewChunk([]types.T{types.TInt8}, 1)
		c.AppendRow(types.OpInsert, types.Row{types.DInt(1)})
		return c
	}
	barrier := func(e uint64) types.Barrier { return types.Barrier{Epoch: types.Epoch{Prev: e - 1, Curr: e}} }
	send := func(tap *tapDispatcher, msgs ...types.Message) {
		for _, m := range msgs {
			if err := tap.dispatch(ctx, m); err != nil {
				t.Fatal(err)
			}
		}
	}
	// TapFrom(3) comes before barrier 3 is injected (the engine's
	// contract), with one tap past barrier 2 and the other not yet.
	send(taps[0], chunk(), barrier(2), types.Watermark{Col: 0, Val: types.DInt(5)}, chunk())
	j.TapFrom(3)
	j.TapFrom(4) // changes nothing: the first call decides
	send(taps[1], chunk(), barrier(2), chunk(), barrier(3), chunk())
	send(taps[0], barrier(3), chunk(), barrier(4))
	send(taps[1], barrier(4))
	want := []string{"W barrier3 C barrier4", "barrier3 C barrier4"}
	for i, ch := range chans {
		var got []string
		for len(ch) > 0 {
			switch m := (<-ch).(type) {
			case types.Barrier:
				got = append(got, fmt.Sprintf("barrier%d", m.Epoch.Curr))
			case types.Watermark:
				got = append(got, "W")
			case *types.Chunk:
				got = append(got, "C")
			}
		}
		if g := strings.Join(got, " "); g != want[i] {
			t.Errorf("tap %d sent %q, want %q", i, g, want[i])
		}
	}
}
