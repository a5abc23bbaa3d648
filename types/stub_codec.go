package types

import "github.com/weirdb/weir/internal/pgerr"

// STUBS: replaced by keycodec.go and rowcodec.go.

// AppendKey appends the memcomparable (order-preserving) encoding of d of
// type t to buf: bytes.Compare of two encodings orders like Compare, with
// NULL first; desc inverts the order for that column.
func AppendKey(buf []byte, d Datum, t T, desc bool) []byte { return buf }

// DecodeKey decodes one key column from b, returning the datum and the
// rest of b.
func DecodeKey(b []byte, t T, desc bool) (Datum, []byte, error) {
	return NullDatum, b, pgerr.New(pgerr.FeatureNotSupported, "types.DecodeKey: not implemented")
}

// AppendRow appends the compact value encoding of row r (types ts) to buf.
func AppendRow(buf []byte, r Row, ts []T) []byte { return buf }

// DecodeRow decodes a row encoded by AppendRow.
func DecodeRow(b []byte, ts []T) (Row, error) {
	return nil, pgerr.New(pgerr.FeatureNotSupported, "types.DecodeRow: not implemented")
}
