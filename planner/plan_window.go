package planner

import (
	"fmt"

	"github.com/weirdb/weir/types"
)

// HopWindow assigns every input row to each hopping window that contains
// its time: windows Size long, one starting every Slide, aligned to
// 1970-01-01 00:00:00 (UTC for timestamptz) plus Offset. A window
// [start, start+Size) contains a time t when start <= t < start+Size, so
// every row lands in exactly Size/Slide windows. Output: the input's
// columns, then window_start and window_end, one row per (input row,
// window), windows in ascending order. Rows whose time is NULL are
// dropped.
//
// TimeCol indexes the input's columns; it is a timestamp, a timestamptz
// or a date (whose windows are timestamps, the date taken as midnight).
// Slide, Size and Offset are microseconds: the binder refuses intervals
// with months and counts a day as 24 hours; Size is a positive multiple
// of Slide, and any Offset is allowed (it works modulo Slide).
//
// Emit, set only by the column pruning of stream plans (stream_prune.go),
// lists the columns output, in order, as positions in the layout above
// (the input's columns, then window_start at len(Input.Schema()) and
// window_end after it): the columns nobody above reads are left out
// rather than copied into every window. Nil: every column. Batch plans
// never set it.
type HopWindow struct {
	Input   Plan
	TimeCol int
	Slide   int64
	Size    int64
	Offset  int64
	Emit    []int
	Out     types.Schema
}

// Schema implements Plan.
func (p *HopWindow) Schema() types.Schema { return p.Out }

// Inputs implements Plan.
func (p *HopWindow) Inputs() []Plan { return []Plan{p.Input} }

// describeHop prints a hopping window's parameters for EXPLAIN: the time
// column (named from the input schema in), slide, size and a non-zero
// offset.
func describeHop(in types.Schema, timeCol int, slide, size, offset int64) string {
	s := fmt.Sprintf("time: %s, slide: %s, size: %s", colName(in, timeCol),
		types.FormatInterval(micros(slide)), types.FormatInterval(micros(size)))
	if offset != 0 {
		s += ", offset: " + types.FormatInterval(micros(offset))
	}
	return s
}

// SessionWindow labels every input row with the start of its session
// (bind_session.go): the rows equal on the Keys columns fall into
// sessions, the maximal runs of them whose TimeCol values, in order, are
// at most Gap microseconds apart, and a session starts at its first
// time. Output: the input's columns, then session_start (of TimeCol's
// type, a timestamp or a timestamptz). A row whose time is NULL gets a
// NULL start. Unlike HopWindow it is not a row mapping: a row's label
// depends on the other rows of its keys, so no filter passes through it.
type SessionWindow struct {
	Input   Plan
	Keys    []int
	TimeCol int
	Gap     int64
	Out     types.Schema
}

// Schema implements Plan.
func (p *SessionWindow) Schema() types.Schema { return p.Out }

// Inputs implements Plan.
func (p *SessionWindow) Inputs() []Plan { return []Plan{p.Input} }

// describeSession prints a session window's parameters for EXPLAIN: the
// partition keys and the time column (named from the input schema in),
// and the gap.
func describeSession(in types.Schema, keys []int, timeCol int, gap int64) string {
	s := "partition: ["
	for i, k := range keys {
		if i > 0 {
			s += ", "
		}
		s += colName(in, k)
	}
	return s + fmt.Sprintf("], time: %s, gap: %s", colName(in, timeCol), types.FormatInterval(micros(gap)))
}
