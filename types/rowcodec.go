package types

import (
	"encoding/binary"
	"math"

	"github.com/cockroachdb/apd/v3"
	"github.com/weirdb/weir/internal/pgerr"
)

// The row value encoding, version 1:
//
//	[format 0x01][uvarint ncols][null bitmap: (ncols+7)/8 bytes, bit i set = column i NULL]
//	[each non-NULL column's value, in column order]
//
// Values by family:
//
//	bool      1 byte
//	int       zig-zag varint
//	float     8 bytes little-endian IEEE bits (exact, NaN payload and -0 kept)
//	numeric   a flags byte (bits 0-1 form, bit 2 negative, bit 3 big
//	          coefficient), zig-zag varint exponent, then the coefficient as
//	          a uvarint, or for a big coefficient as uvarint length + big-endian bytes.
//	          The exponent is kept, so the display scale survives (1.00 stays 1.00).
//	string    uvarint length + bytes
//	uuid      as a string of its 16 bytes (length 16); a length other
//	          than 16 is text kept as it was (never written for a valid uuid)
//	interval  zig-zag varints months, days, micros (the fields kept apart)
//
// Unlike keys, row values are exact: DecodeRow returns what AppendRow was
// given. A row encoded with fewer columns than the schema it is decoded
// with gets NULLs for the missing trailing columns, so adding a column to a
// table needs no rewrite of its rows; DecodeRowFill gives them the
// column's value for rows written before it was added (PostgreSQL's
// attmissingval) and ignores the trailing columns of rows written after
// the reader's schema was taken.
const rowFormatV1 byte = 0x01

const (
	decFlagFormMask = 0x03
	decFlagNegative = 0x04
	decFlagBigCoeff = 0x08
)

// AppendRow appends the compact value encoding of row r (types ts) to buf.
// r and ts must have the same length; the encoding is described at the top
// of rowcodec.go.
func AppendRow(buf []byte, r Row, ts []T) []byte {
	buf = append(buf, rowFormatV1)
	buf = binary.AppendUvarint(buf, uint64(len(r)))
	bm := len(buf)
	for range (len(r) + 7) / 8 {
		buf = append(buf, 0)
	}
	for i, d := range r {
		if d.Null || ts[i].ID == Unknown {
			buf[bm+i/8] |= 1 << (i % 8)
			continue
		}
		buf = appendValue(buf, d, ts[i])
	}
	return buf
}

func appendValue(buf []byte, d Datum, t T) []byte {
	switch t.Family() {
	case FamBool:
		if d.I != 0 {
			return append(buf, 1)
		}
		return append(buf, 0)
	case FamInt:
		return binary.AppendVarint(buf, d.I)
	case FamFloat:
		return binary.LittleEndian.AppendUint64(buf, math.Float64bits(d.F))
	case FamDecimal:
		return appendDecimalValue(buf, d.D)
	case FamInterval:
		buf = binary.AppendVarint(buf, int64(d.Iv.Months))
		buf = binary.AppendVarint(buf, int64(d.Iv.Days))
		return binary.AppendVarint(buf, d.Iv.Micros)
	default: // FamString
		if t.ID == Uuid {
			if b, ok := UUIDBytes(d.S); ok {
				buf = binary.AppendUvarint(buf, UUIDLen)
				return append(buf, b[:]...)
			}
		}
		buf = binary.AppendUvarint(buf, uint64(len(d.S)))
		return append(buf, d.S...)
	}
}

func appendDecimalValue(buf []byte, d *apd.Decimal) []byte {
	if d == nil {
		d = new(apd.Decimal)
	}
	flags := byte(d.Form) & decFlagFormMask
	if d.Negative {
		flags |= decFlagNegative
	}
	big := !d.Coeff.IsUint64()
	if big {
		flags |= decFlagBigCoeff
	}
	buf = append(buf, flags)
	buf = binary.AppendVarint(buf, int64(d.Exponent))
	if big {
		cb := d.Coeff.Bytes()
		buf = binary.AppendUvarint(buf, uint64(len(cb)))
		return append(buf, cb...)
	}
	return binary.AppendUvarint(buf, d.Coeff.Uint64())
}

// rowHeader reads the header of a row encoded by AppendRow for schema
// ts: its column count, its null bitmap and the values after them.
func rowHeader(b []byte, ts []T) (n uint64, bm, rest []byte, err error) {
	if len(b) == 0 {
		return 0, nil, nil, corruptRow("empty")
	}
	if b[0] != rowFormatV1 {
		return 0, nil, nil, corruptRow("unknown format %d", b[0])
	}
	b = b[1:]
	n, k := binary.Uvarint(b)
	if k <= 0 {
		return 0, nil, nil, corruptRow("bad column count")
	}
	b = b[k:]
	if n > uint64(len(ts)) {
		return 0, nil, nil, corruptRow("%d columns, schema has %d", n, len(ts))
	}
	nb := int((n + 7) / 8)
	if len(b) < nb {
		return 0, nil, nil, corruptRow("truncated null bitmap")
	}
	return n, b[:nb], b[nb:], nil
}

// DecodeRow decodes a row encoded by AppendRow. When the encoded row has
// fewer columns than ts the missing trailing columns are NULL; more
// columns than ts, an unknown format byte or truncated data return a
// DataCorrupted error.
func DecodeRow(b []byte, ts []T) (Row, error) {
	n, bm, b, err := rowHeader(b, ts)
	if err != nil {
		return nil, err
	}
	row := make(Row, len(ts))
	for i := range row {
		if i >= int(n) || bm[i/8]&(1<<(i%8)) != 0 {
			row[i] = NullDatum
			continue
		}
		row[i], b, err = decodeValue(b, ts[i])
		if err != nil {
			return nil, err
		}
	}
	if len(b) != 0 {
		return nil, corruptRow("%d trailing bytes", len(b))
	}
	return row, nil
}

// DecodeRowCols decodes the columns i of a row encoded by AppendRow
// for which want[i] holds and leaves the others NULL, skipping their
// values without copying them: a reader that needs a few narrow columns
// of wide rows pays for those. The row is decoded into dst's storage when
// it has room. Malformed data is a DataCorrupted error, as for DecodeRow.
func DecodeRowCols(dst Row, b []byte, ts []T, want []bool) (Row, error) {
	n, bm, b, err := rowHeader(b, ts)
	if err != nil {
		return nil, err
	}
	row := dst[:0]
	if cap(row) < len(ts) {
		row = make(Row, len(ts))
	}
	row = row[:len(ts)]
	last := -1
	for i := range want {
		if want[i] {
			last = i
		}
	}
	for i := range row {
		if i >= int(n) || bm[i/8]&(1<<(i%8)) != 0 || i > last {
			row[i] = NullDatum
			continue
		}
		if want[i] {
			row[i], b, err = decodeValue(b, ts[i])
		} else {
			row[i] = NullDatum
			b, err = skipValue(b, ts[i])
		}
		if err != nil {
			return nil, err
		}
	}
	return row, nil
}

// skipValue returns b after the value of type t it starts with.
func skipValue(b []byte, t T) ([]byte, error) {
	switch t.Family() {
	case FamBool, FamInt, FamFloat, FamInterval:
		_, rest, err := decodeValue(b, t)
		return rest, err
	case FamDecimal:
		_, rest, err := decodeDecimalValue(b)
		return rest, err
	default:
		l, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < l {
			return b, corruptRow("truncated %s", t.ID)
		}
		return b[k+int(l):], nil
	}
}

// DecodeRowFill decodes a row of a table whose columns may have been
// added since the row was written, or since ts was taken: a column the
// encoded row does not have takes missing[i] (NULL when missing is
// shorter), and encoded columns beyond ts are ignored. Other malformed
// data is a DataCorrupted error, as for DecodeRow.
func DecodeRowFill(b []byte, ts []T, missing Row) (Row, error) {
	if len(b) == 0 {
		return nil, corruptRow("empty")
	}
	if b[0] != rowFormatV1 {
		return nil, corruptRow("unknown format %d", b[0])
	}
	b = b[1:]
	n, k := binary.Uvarint(b)
	// Each column takes at least its bit of the null bitmap.
	if k <= 0 || n > 8*uint64(len(b)) {
		return nil, corruptRow("bad column count")
	}
	b = b[k:]
	nb := int((n + 7) / 8)
	if len(b) < nb {
		return nil, corruptRow("truncated null bitmap")
	}
	bm := b[:nb]
	b = b[nb:]
	row := make(Row, len(ts))
	for i := range row {
		switch {
		case i >= int(n):
			row[i] = NullDatum
			if i < len(missing) {
				row[i] = missing[i]
				if row[i].D != nil {
					row[i].D = new(apd.Decimal).Set(row[i].D)
				}
			}
		case bm[i/8]&(1<<(i%8)) != 0:
			row[i] = NullDatum
		default:
			var err error
			row[i], b, err = decodeValue(b, ts[i])
			if err != nil {
				return nil, err
			}
		}
	}
	if n <= uint64(len(ts)) && len(b) != 0 {
		return nil, corruptRow("%d trailing bytes", len(b))
	}
	return row, nil
}

func decodeValue(b []byte, t T) (Datum, []byte, error) {
	switch t.Family() {
	case FamBool:
		if len(b) < 1 {
			return NullDatum, b, corruptRow("truncated %s", t.ID)
		}
		return Datum{I: int64(b[0])}, b[1:], nil
	case FamInt:
		v, k := binary.Varint(b)
		if k <= 0 {
			return NullDatum, b, corruptRow("bad %s", t.ID)
		}
		return Datum{I: v}, b[k:], nil
	case FamFloat:
		if len(b) < 8 {
			return NullDatum, b, corruptRow("truncated %s", t.ID)
		}
		return Datum{F: math.Float64frombits(binary.LittleEndian.Uint64(b))}, b[8:], nil
	case FamDecimal:
		return decodeDecimalValue(b)
	case FamInterval:
		var f [3]int64
		for i := range f {
			v, k := binary.Varint(b)
			if k <= 0 {
				return NullDatum, b, corruptRow("bad interval")
			}
			f[i], b = v, b[k:]
		}
		return Datum{Iv: IntervalVal{Months: int32(f[0]), Days: int32(f[1]), Micros: f[2]}}, b, nil
	default:
		l, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < l {
			return NullDatum, b, corruptRow("truncated %s", t.ID)
		}
		b = b[k:]
		if t.ID == Uuid && l == UUIDLen {
			return Datum{S: FormatUUID(b[:l])}, b[l:], nil
		}
		return Datum{S: string(b[:l])}, b[l:], nil
	}
}

func decodeDecimalValue(b []byte) (Datum, []byte, error) {
	if len(b) < 1 {
		return NullDatum, b, corruptRow("truncated numeric")
	}
	flags := b[0]
	b = b[1:]
	e, k := binary.Varint(b)
	if k <= 0 || e > math.MaxInt32 || e < math.MinInt32 {
		return NullDatum, b, corruptRow("bad numeric exponent")
	}
	b = b[k:]
	d := &apd.Decimal{Form: apd.Form(flags & decFlagFormMask), Negative: flags&decFlagNegative != 0, Exponent: int32(e)}
	if flags&decFlagBigCoeff != 0 {
		l, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < l {
			return NullDatum, b, corruptRow("truncated numeric")
		}
		b = b[k:]
		d.Coeff.SetBytes(b[:l])
		b = b[l:]
	} else {
		c, k := binary.Uvarint(b)
		if k <= 0 {
			return NullDatum, b, corruptRow("bad numeric coefficient")
		}
		d.Coeff.SetUint64(c)
		b = b[k:]
	}
	return Datum{D: d}, b, nil
}

func corruptRow(format string, args ...any) error {
	return pgerr.New(pgerr.DataCorrupted, "corrupt row value: "+format, args...)
}
