package types

import (
	"bytes"
	"testing"
)

// TestEnumOrderAndText: values key in declaration order, a label added
// between two others keys between them, and a renamed label keeps its
// value.
func TestEnumOrderAndText(t *testing.T) {
	e := NewEnum(90002, "lvl", "lvl", []EnumLabel{{OID: 1, Sort: 1, Label: "low"}, {OID: 2, Sort: 2, Label: "high"}})
	if !e.IsEnum() || e.OID() != 90002 || e.String() != "lvl" || e.Family() != FamFloat {
		t.Fatalf("type %v oid %d family %v", e, e.OID(), e.Family())
	}
	SetEnumLabels(e, []EnumLabel{{OID: 1, Sort: 1, Label: "low"}, {OID: 2, Sort: 2, Label: "high"}, {OID: 3, Sort: 1.5, Label: "mid"}})
	var keys [][]byte
	for _, l := range []string{"low", "mid", "high"} {
		d, err := ParseText(l, e, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := FormatText(d, e, nil); got != l {
			t.Errorf("%s formats as %s", l, got)
		}
		keys = append(keys, AppendKey(nil, d, e, false))
	}
	if bytes.Compare(keys[0], keys[1]) >= 0 || bytes.Compare(keys[1], keys[2]) >= 0 {
		t.Errorf("keys out of declaration order: %x", keys)
	}
	if _, err := ParseText("none", e, nil); err == nil || err.Error() != `invalid input value for enum lvl: "none"` {
		t.Errorf("bad label: %v", err)
	}
	SetEnumLabels(e, []EnumLabel{{OID: 1, Sort: 1, Label: "bottom"}, {OID: 2, Sort: 2, Label: "high"}, {OID: 3, Sort: 1.5, Label: "mid"}})
	if got := FormatText(DFloat(1), e, nil); got != "bottom" {
		t.Errorf("renamed label prints %q", got)
	}
	if _, err := Cast(DFloat(1), e, TText, true, nil); err != nil {
		t.Errorf("enum to text: %v", err)
	}
	if _, err := Cast(DInt(1), TInt4, e, true, nil); err == nil {
		t.Error("integer to enum was allowed")
	}
}
