package functions

import (
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// maxValueBytes is PostgreSQL's MaxAllocSize (1 GB less one byte): no
// value may reach it, so neither may the result of string_agg, array_agg
// or the JSON aggregates. PostgreSQL fails the statement with 54000 when
// the buffer an aggregate builds would; so do these accumulators, as
// their inputs arrive, before holding more.
const maxValueBytes = 1<<30 - 1

// maxArrayElems is PostgreSQL's MaxArraySize: the most elements an
// array may have.
const maxArrayElems = maxValueBytes / 8

// valueBytes is what d adds to an aggregate's result, roughly as
// PostgreSQL counts it: a string's bytes, or 8 for a fixed-size value.
func valueBytes(d types.Datum) int64 {
	if d.Null {
		return 0
	}
	if d.S != "" {
		return int64(len(d.S))
	}
	return 8
}

// growBuffer adds more bytes to an aggregate's string buffer of have
// bytes, or fails as PostgreSQL's enlargeStringInfo does.
func growBuffer(have *int64, more int64) error {
	if more >= maxValueBytes-*have {
		return pgerr.New(pgerr.ProgramLimitExceeded, "out of memory").
			WithDetail("Cannot enlarge string buffer containing %d bytes by %d more bytes.", *have, more)
	}
	*have += more
	return nil
}

// growArray adds an element of more bytes to an array aggregate of n
// elements and have bytes, or fails as PostgreSQL's array construction
// does.
func growArray(n int, have *int64, more int64) error {
	if n+1 > maxArrayElems {
		return pgerr.New(pgerr.ProgramLimitExceeded, "array size exceeds the maximum allowed (%d)", maxArrayElems)
	}
	if more >= maxValueBytes-*have {
		return pgerr.New(pgerr.ProgramLimitExceeded, "array size exceeds the maximum allowed (%d)", maxValueBytes)
	}
	*have += more
	return nil
}
