package functions

import (
	"encoding/binary"
	"math"

	"github.com/weirdb/weir/types"
)

// TableSampleFn is the condition a materialized view's TABLESAMPLE ...
// REPEATABLE becomes: pg_tablesample_keep(limit, seed, key...) is true
// for the rows the sample keeps, limit and seed being SampleLimit's and
// SampleSeed's (as int8) and key the row's primary key. A batch scan
// decides with SampleKeep on the same terms, so a view keeps the rows a
// query with the same seed does. No query can name it.
const TableSampleFn = "pg_tablesample_keep"

// SampleLimit is what a row's hash must be below for a sample of pct
// percent (0..100) to keep it.
func SampleLimit(pct float32) uint64 {
	if pct >= 100 {
		return math.MaxUint64
	}
	return uint64(float64(pct) / 100 * (1 << 64))
}

// SampleSeed is the hash seed of REPEATABLE (f): 0 and -0 are one seed.
func SampleSeed(f float64) uint64 {
	if f == 0 {
		return 0
	}
	return math.Float64bits(f)
}

// SampleKeep reports whether a sample with limit (SampleLimit) and seed
// keeps the row whose storage key (types.AppendKey of its primary key
// columns) is key. buf is scratch space, returned for reuse.
func SampleKeep(limit, seed uint64, key, buf []byte) (bool, []byte) {
	if limit == math.MaxUint64 {
		return true, buf
	}
	if limit == 0 {
		return false, buf
	}
	buf = binary.BigEndian.AppendUint64(buf[:0], seed)
	buf = append(buf, key...)
	return sampleHash(buf) < limit, buf
}

// sampleHash hashes b (FNV-1a, then SplitMix64's finalizer to spread the
// bits): fixed, so that a REPEATABLE seed keeps the same rows in every
// process and release.
func sampleHash(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}

// tableSample implements TableSampleFn.
func tableSample(args []types.T, _ types.T) (Impl, bool) {
	if len(args) < 2 {
		return Impl{}, false
	}
	keyTypes := args[2:]
	return Impl{NonStrict: true, Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
		var key []byte
		for i, t := range keyTypes {
			key = types.AppendKey(key, d[2+i], t, false)
		}
		keep, _ := SampleKeep(uint64(d[0].I), uint64(d[1].I), key, nil)
		return types.DBool(keep), nil
	}}, true
}
