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

// TestEnumArray: an enum with an array OID has an array type, whose
// values parse and print as labels, compare in the labels' order and
// refuse a label the enum lacks (22P02); an enum without one has none.
func TestEnumArray(t *testing.T) {
	e := NewEnum(90010, "feel", "feel", []EnumLabel{{OID: 1, Sort: 1, Label: "sad"}, {OID: 2, Sort: 2, Label: "happy"}})
	if _, ok := ArrayOf(e); ok {
		t.Fatalf("enum without an array OID has an array type")
	}
	SetEnumArrayOID(e, 90011)
	at, ok := ArrayOf(e)
	if !ok || !at.IsArray() || at.Elem().ID != e.ID || at.OID() != 90011 || at.String() != "feel[]" || at.Family() != FamString || at.IsEnum() {
		t.Fatalf("array type %v: oid %d elem %v family %v", at, at.OID(), at.Elem(), at.Family())
	}
	if e.ArrayOID() != 90011 {
		t.Errorf("typarray of the enum is %d", e.ArrayOID())
	}
	a, err := ParseText(`{happy,"sad",NULL}`, at, nil)
	if err != nil || FormatText(a, at, nil) != "{happy,sad,NULL}" {
		t.Fatalf("parse: %v %q", err, a.S)
	}
	b, err := ParseText(`{sad,happy}`, at, nil)
	if err != nil {
		t.Fatal(err)
	}
	// happy sorts after sad, although "happy" < "sad" as text.
	if Compare(a, b, at) <= 0 {
		t.Errorf("{happy,...} does not sort after {sad,...}")
	}
	elems, err := ArrayElems(b.S, at, nil)
	if err != nil || len(elems) != 2 || elems[0].F != 1 || elems[1].F != 2 {
		t.Errorf("elements %v, %v", elems, err)
	}
	if _, err := ParseText(`{happy,meh}`, at, nil); err == nil || err.Error() != `invalid input value for enum feel: "meh"` {
		t.Errorf("bad label: %v", err)
	}
}
