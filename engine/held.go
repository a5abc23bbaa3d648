package engine

import (
	"encoding/binary"
	"maps"
	"slices"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// This file holds the changes DML writes between a recovery and its
// Initial barrier. The rebuilt jobs must see that barrier first, so the
// changes wait and are pushed right after it (they belong to the epoch
// after the Initial one, which carries no changes). They wait in memory
// up to heldLimit and beyond it in a log on disk (storage.Log, as a big
// statement's changelog does), so that a bulk statement committing in
// that window is not held whole: its changelog, read back from its own
// log a chunk at a time, has no job to wait for yet.

// heldChanges are a statement's changes of one table held until the
// Initial barrier.
type heldChanges struct {
	relID  uint32
	chunks []*types.Chunk
}

// heldState is what streams holds of the changes written before the
// Initial barrier: chunks in memory, in order, then, once they reached
// heldLimit, every later change in log, in order. Guarded by writeMu.
type heldState struct {
	mem   []heldChanges
	bytes int64
	log   *storage.Log
	// types are the column types of each table with changes in log.
	types map[uint32][]types.T
	// lost, once the log failed, holds the tables whose changes it
	// could not keep: the jobs reading them are failed after the Initial
	// barrier, and their restarts rebuild them from the tables.
	lost    map[uint32]bool
	lostErr error
	rec     []byte
}

// heldLimit is the most bytes of held changes kept in memory: 1/16 of
// the memory budget.
func (e *Engine) heldLimit() int64 { return e.cfg.MemoryBudget() / 16 }

// hold keeps the changes chunks of table relID until the Initial
// barrier. Called under writeMu.
func (e *Engine) hold(relID uint32, chunks []*types.Chunk) {
	h := &e.st.held
	if h.lost != nil {
		h.lost[relID] = true
		return
	}
	if h.log == nil {
		n := int64(0)
		for _, c := range chunks {
			n += chunkBytes(c)
		}
		if h.bytes+n <= e.heldLimit() {
			h.mem = append(h.mem, heldChanges{relID: relID, chunks: chunks})
			h.bytes += n
			return
		}
		lg, err := e.db.NewLog()
		if err != nil {
			// Memory rather than changes lost.
			e.log.Warn("holding changes written during a recovery in memory", "err", err)
			h.mem = append(h.mem, heldChanges{relID: relID, chunks: chunks})
			return
		}
		h.log, h.types = lg, map[uint32][]types.T{}
	}
	if h.types[relID] == nil && len(chunks) > 0 {
		ts := make([]types.T, len(chunks[0].Cols))
		for i, v := range chunks[0].Cols {
			ts[i] = v.T
		}
		h.types[relID] = ts
	}
	ts := h.types[relID]
	for _, c := range chunks {
		for i := 0; i < c.Len(); i++ {
			if !c.Visible(i) {
				continue
			}
			h.rec = binary.BigEndian.AppendUint32(h.rec[:0], relID)
			h.rec = appendChange(h.rec, c.Op(i), c.Row(i), ts)
			if err := h.log.Append(h.rec); err != nil {
				h.fail(relID, err)
				return
			}
		}
	}
}

// fail records that the log lost changes: those of every table in it,
// and of relID.
func (h *heldState) fail(relID uint32, err error) {
	h.lost = map[uint32]bool{relID: true}
	for id := range h.types {
		h.lost[id] = true
	}
	h.lostErr = err
}

// replayHeld pushes the held changes to the jobs, in the order written,
// right after the Initial barrier, and forgets them. Called under
// writeMu.
func (e *Engine) replayHeld() {
	h := e.st.held
	e.st.held = heldState{}
	for _, c := range h.mem {
		if err := e.pushChanges(c.relID, c.chunks); err != nil {
			e.log.Error("pushing changes held during recovery", "err", err)
		}
	}
	if h.log != nil {
		if h.lost == nil {
			if err := e.replayHeldLog(&h); err != nil {
				h.fail(0, err)
				delete(h.lost, 0)
			}
		}
		if err := h.log.Discard(); err != nil {
			e.log.Warn("removing the log of changes held during recovery", "err", err)
		}
	}
	if h.lost == nil {
		return
	}
	err := pgerr.Wrap(pgerr.IOError, h.lostErr, "could not keep the changes written during a recovery")
	for _, id := range slices.Sorted(maps.Keys(h.lost)) {
		for _, j := range e.st.sortedJobs() {
			if j.active && j.job.Scans(id) {
				go func() { _ = e.jobFailed(j.ctx, j, 0, err) }()
			}
		}
	}
}

// replayHeldLog pushes the changes of h.log, a chunk of one table at a
// time, never splitting an update pair.
func (e *Engine) replayHeldLog(h *heldState) error {
	var c *types.Chunk
	var cur uint32
	flush := func() error {
		if c == nil {
			return nil
		}
		err := e.pushChanges(cur, []*types.Chunk{c})
		c = nil
		return err
	}
	err := h.log.Each(func(rec []byte) error {
		if len(rec) < 4 {
			return pgerr.New(pgerr.DataCorrupted, "short record of held changes")
		}
		id := binary.BigEndian.Uint32(rec)
		op, row, err := decodeChange(rec[4:], h.types[id])
		if err != nil {
			return err
		}
		if c != nil && (id != cur || c.Len() >= types.ChunkCap && op != types.OpUpdateInsert) {
			if err := flush(); err != nil {
				return err
			}
		}
		if c == nil {
			c, cur = types.NewChunk(h.types[id], types.ChunkCap+1), id
		}
		c.AppendRow(op, row)
		return nil
	})
	if err == nil {
		err = flush()
	}
	return err
}

// discardHeld drops the held changes (a recovery discards their epoch).
// Called under writeMu.
func (e *Engine) discardHeld() {
	if lg := e.st.held.log; lg != nil {
		if err := lg.Discard(); err != nil {
			e.log.Warn("removing the log of changes held during recovery", "err", err)
		}
	}
	e.st.held = heldState{}
}

// chunkBytes estimates the memory of a chunk: its vectors' slots and
// the bytes of its strings.
func chunkBytes(c *types.Chunk) int64 {
	n := int64(c.Len()) * (int64(len(c.Cols))*24 + 2)
	for _, v := range c.Cols {
		for _, s := range v.S {
			n += int64(len(s))
		}
	}
	return n
}
