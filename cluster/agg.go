package cluster

import (
	"encoding/binary"
	"errors"
	"hash/fnv"

	"github.com/cockroachdb/apd/v3"
	"github.com/weirdb/weir/types"
)

// group is the aggregate state of one group key: the key's values and one
// accumulator per aggregate of the view.
type group struct {
	key  types.Row
	accs []acc
}

// acc is one aggregate's accumulator: n counts the non-null inputs (all
// inputs for count(*)), v holds the sum, minimum or maximum.
type acc struct {
	n, v int64
}

func (g *group) clone() *group {
	return &group{key: g.key, accs: append([]acc(nil), g.accs...)}
}

// add folds one source row into g.
func (g *group) add(v *View, row types.Row) {
	for i, a := range v.Aggs {
		if a.Kind == AggCountStar {
			g.accs[i].n++
			continue
		}
		d := row[a.Arg]
		if d.Null {
			continue
		}
		ac := &g.accs[i]
		switch a.Kind {
		case AggSum:
			ac.v += d.I
		case AggMin:
			if ac.n == 0 || d.I < ac.v {
				ac.v = d.I
			}
		case AggMax:
			if ac.n == 0 || d.I > ac.v {
				ac.v = d.I
			}
		}
		ac.n++
	}
}

// row returns the view's output row for g.
func (g *group) row(v *View) types.Row {
	out := make(types.Row, len(v.Out))
	for i, oc := range v.Out {
		if oc.Key >= 0 {
			out[i] = g.key[oc.Key]
			continue
		}
		a, ac := v.Aggs[oc.Agg], g.accs[oc.Agg]
		switch {
		case a.Kind == AggCountStar || a.Kind == AggCount:
			out[i] = types.DInt(ac.n)
		case ac.n == 0:
			out[i] = types.NullDatum
		case a.outType().ID == types.Numeric:
			out[i] = types.DDecimal(apd.New(ac.v, 0))
		default:
			out[i] = types.DInt(ac.v)
		}
	}
	return out
}

// keyTypes returns the group key columns' types.
func (v *View) keyTypes() []types.T {
	ts := make([]types.T, len(v.Keys))
	for i, k := range v.Keys {
		ts[i] = v.srcSchema[k].T
	}
	return ts
}

// groupKey encodes row's group key (order-preserving encoding, so equal
// keys have equal bytes).
func (v *View) groupKey(row types.Row) []byte {
	var b []byte
	for _, k := range v.Keys {
		b = types.AppendKey(b, row[k], v.srcSchema[k].T, false)
	}
	return b
}

func (v *View) decodeKey(b []byte) (types.Row, error) {
	ts := v.keyTypes()
	key := make(types.Row, len(ts))
	for i, t := range ts {
		d, rest, err := types.DecodeKey(b, t, false)
		if err != nil {
			return nil, err
		}
		key[i], b = d, rest
	}
	if len(b) != 0 {
		return nil, errors.New("trailing bytes after a group key")
	}
	return key, nil
}

// partitionOf returns the key group of an encoded group key.
func partitionOf(key []byte, n int32) int32 {
	h := fnv.New32a()
	h.Write(key)
	return int32(h.Sum32() % uint32(n))
}

// Changelog records: the key of a group's record is changelogGroup + its
// encoded group key, the value its accumulators (two varints each).
// Records whose key starts with changelogMeta are the partition's own:
// a sink's snapshot marker (changelogMeta + "sink:" + name) and a new
// owner's fence (changelogMeta + "fence").
const (
	changelogMeta  = 0x00
	changelogGroup = 0x01
)

func encodeAccs(accs []acc) []byte {
	b := make([]byte, 0, len(accs)*4)
	for _, a := range accs {
		b = binary.AppendVarint(b, a.n)
		b = binary.AppendVarint(b, a.v)
	}
	return b
}

func decodeAccs(b []byte, n int) ([]acc, error) {
	out := make([]acc, n)
	for i := range out {
		x, k := binary.Varint(b)
		if k <= 0 {
			return nil, errors.New("corrupt changelog value")
		}
		b = b[k:]
		y, k := binary.Varint(b)
		if k <= 0 {
			return nil, errors.New("corrupt changelog value")
		}
		b = b[k:]
		out[i] = acc{n: x, v: y}
	}
	if len(b) != 0 {
		return nil, errors.New("trailing bytes in a changelog value")
	}
	return out, nil
}
