package types

import (
	"reflect"
	"testing"

	"github.com/cockroachdb/apd/v3"
)

// TestDecodeRowCols decodes every subset of a row's columns, of every
// family DecodeRowCols skips, and compares them with DecodeRow's: the
// wanted columns equal, the others NULL, into a reused row.
func TestDecodeRowCols(t *testing.T) {
	ts := []T{TInt8, TText, TFloat8, TNumeric, TBool, TInterval, TText, TInt4}
	d := Datum{Iv: IntervalVal{Months: 1, Days: -2, Micros: 3}}
	row := Row{DInt(-5), DString("wide text"), DFloat(1.5), NullDatum, Datum{I: 1}, d, DString(""), DInt(7)}
	dec, _, err := apd.NewFromString("-12.340")
	if err != nil {
		t.Fatal(err)
	}
	row[3] = DDecimal(dec)
	enc := AppendRow(nil, row, ts)
	full, err := DecodeRow(enc, ts)
	if err != nil {
		t.Fatal(err)
	}
	var dst Row
	for mask := 0; mask < 1<<len(ts); mask++ {
		want := make([]bool, len(ts))
		exp := make(Row, len(ts))
		for i := range ts {
			want[i] = mask&(1<<i) != 0
			exp[i] = NullDatum
			if want[i] {
				exp[i] = full[i]
			}
		}
		if dst, err = DecodeRowCols(dst, enc, ts, want); err != nil {
			t.Fatalf("mask %b: %v", mask, err)
		}
		if !reflect.DeepEqual(dst, exp) {
			t.Fatalf("mask %b: got %v, want %v", mask, dst, exp)
		}
	}
	if _, err := DecodeRowCols(nil, enc[:len(enc)-3], ts, []bool{false, false, false, false, false, false, false, true}); err == nil {
		t.Error("a truncated row decoded")
	}
}
