package kafka

import (
	"strings"
	"testing"

	"github.com/weirdb/weir/types"
)

// TestEnumJSON: an enum column travels as its label, in both directions,
// and a label the type lacks is an error of the record, not of the job.
func TestEnumJSON(t *testing.T) {
	mood := types.NewEnum(90001, "mood", "mood", []types.EnumLabel{{OID: 1, Sort: 1, Label: "sad"}, {OID: 2, Sort: 2, Label: "ok"}})
	s := types.Schema{{Name: "id", T: types.TInt4}, {Name: "m", T: mood}}
	e, err := NewEncoder(FormatPlain, s, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	recs := e.Append(nil, types.OpInsert, types.Row{types.DInt(1), types.DFloat(2)})
	if len(recs) != 1 || string(recs[0].Value) != `{"id":1,"m":"ok"}` {
		t.Fatalf("encoded %q", recs[0].Value)
	}
	d := NewJSONDecoder(s, nil)
	row, err := d.Decode([]byte(`{"id":2,"m":"sad"}`))
	if err != nil || row[1].F != 1 || types.FormatText(row[1], mood, nil) != "sad" {
		t.Fatalf("decoded %v, %v", row, err)
	}
	if _, err := d.Decode([]byte(`{"id":3,"m":"angry"}`)); err == nil || !strings.Contains(err.Error(), `invalid input value for enum mood: "angry"`) {
		t.Fatalf("a bad label decoded: %v", err)
	}
}
