package types

import "testing"

// TestDecodeRowFill: a row written before columns were added takes their
// missing values; one written after a reader's types were taken loses
// the columns the reader does not know; other damage is still caught.
func TestDecodeRowFill(t *testing.T) {
	two := []T{TInt8, TText}
	four := []T{TInt8, TText, TInt4, TText}
	old := AppendRow(nil, Row{DInt(1), DString("a")}, two)
	missing := Row{NullDatum, NullDatum, DInt(7), NullDatum}
	r, err := DecodeRowFill(old, four, missing)
	if err != nil {
		t.Fatal(err)
	}
	if r[0].I != 1 || r[1].S != "a" || r[2].Null || r[2].I != 7 || !r[3].Null {
		t.Fatalf("old row read as %v", r)
	}
	// An explicit NULL written in the added column stays NULL.
	newer := AppendRow(nil, Row{DInt(2), DString("b"), NullDatum, DString("z")}, four)
	if r, err = DecodeRowFill(newer, four, missing); err != nil || !r[2].Null || r[3].S != "z" {
		t.Fatalf("new row read as %v, %v", r, err)
	}
	// A reader planned before the columns were added sees its own.
	if r, err = DecodeRowFill(newer, two, missing); err != nil || len(r) != 2 || r[0].I != 2 || r[1].S != "b" {
		t.Fatalf("new row read with the old types as %v, %v", r, err)
	}
	// DecodeRow stays strict about extra columns.
	if _, err := DecodeRow(newer, two); err == nil {
		t.Fatal("DecodeRow accepted a row with more columns than its types")
	}
	if _, err := DecodeRowFill(old[:len(old)-1], four, missing); err == nil {
		t.Fatal("a truncated row decoded")
	}
	if _, err := DecodeRowFill(append(old, 0), four, missing); err == nil {
		t.Fatal("a row with trailing bytes decoded")
	}
}

// TestDecodeRowFillMostlyNull: a wide row of NULLs encodes in fewer bytes
// than it has columns, and decodes all the same.
func TestDecodeRowFillMostlyNull(t *testing.T) {
	ts := make([]T, 17)
	row := make(Row, 17)
	for i := range ts {
		ts[i] = TInt4
		row[i] = NullDatum
	}
	row[0] = DInt(4)
	enc := AppendRow(nil, row, ts)
	if len(enc) >= len(ts) {
		t.Fatalf("the row takes %d bytes: not the case under test", len(enc))
	}
	got, err := DecodeRowFill(enc, ts, nil)
	if err != nil || got[0].I != 4 || !got[16].Null {
		t.Fatalf("decoded %v, %v", got, err)
	}
}
