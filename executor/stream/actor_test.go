package stream

import (
	"context"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// panicking is an operator whose Next panics, as a buggy operator would.
type panicking struct{}

func (panicking) Next(context.Context) (types.Message, error) { panic("index out of range [3]") }
func (panicking) Close()                                      {}

// TestActorPanicFailsTheActor: a panic inside an operator is recovered
// and reported as the actor's failure (XX000), so that the job is
// restarted instead of the process dying.
func TestActorPanicFailsTheActor(t *testing.T) {
	db := openMemDB(t, vfs.NewMem())
	defer db.Close()
	sink := newFakeSink()
	a := &Actor{ctx: newTestActx(db), root: panicking{}, sink: sink}
	err := a.Run(context.Background())
	if err == nil || pgerr.CodeOf(err) != pgerr.InternalError || !strings.Contains(err.Error(), "index out of range [3]") {
		t.Fatalf("Run = %v, want the panic as an XX000 error", err)
	}
	if len(sink.failed) != 1 || !strings.Contains(sink.failed[0].Error(), "panicked") {
		t.Fatalf("failures reported: %v", sink.failed)
	}
}

// TestNextWriteSetSize: the next epoch's write set reserves a quarter
// more than the last one wrote, but never more than an operator's share
// of the budget, which the Go runtime would count as live from the
// start.
func TestNextWriteSetSize(t *testing.T) {
	cache := storage.NewCache(256 << 20)
	a := &Actor{ctx: &ActorContext{Cache: cache}}
	if got, want := a.nextWriteSetSize(1<<20), 1<<20+1<<18+4<<10; got != want {
		t.Errorf("after 1 MiB: %d, want %d", got, want)
	}
	if got, want := a.nextWriteSetSize(114<<20), int(cache.OperatorBuffer())+4<<10; got != want {
		t.Errorf("after 114 MiB: %d, want %d (the operator buffer)", got, want)
	}
}
