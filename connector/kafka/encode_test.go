package kafka

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/weirdb/weir/types"
)

var encSchema = types.Schema{
	{Name: "id", T: types.TInt8, NotNull: true},
	{Name: "name", T: types.TText},
	{Name: "ok", T: types.TBool},
	{Name: "score", T: types.TFloat8},
	{Name: "amount", T: types.TNumeric},
	{Name: "doc", T: types.TJsonb},
	{Name: "_row_id", T: types.TInt8, Hidden: true},
}

func encRow(id int64, name string) types.Row {
	d, _, _ := apd.NewFromString("12.50")
	return types.Row{types.DInt(id), types.DString(name), types.DBool(id%2 == 0), types.DFloat(1.5),
		types.DDecimal(d), types.DString(`{"a": [1, 2]}`), types.DInt(99)}
}

func render(recs []Record) string {
	var sb strings.Builder
	for _, r := range recs {
		sb.WriteString(string(r.Key))
		sb.WriteString(" => ")
		if r.Value == nil {
			sb.WriteString("<tombstone>")
		} else {
			sb.WriteString(string(r.Value))
		}
		sb.WriteString("\n")
	}
	return sb.String()
}

func encodeAll(t *testing.T, f SinkFormat, key []int) string {
	t.Helper()
	e, err := NewEncoder(f, encSchema, key, nil, func() time.Time { return time.UnixMilli(1700000000123) })
	if err != nil {
		t.Fatal(err)
	}
	var recs []Record
	recs = e.Append(recs, types.OpInsert, encRow(1, "a\"b\n"))
	recs = e.Append(recs, types.OpUpdateDelete, encRow(1, "a\"b\n"))
	recs = e.Append(recs, types.OpUpdateInsert, encRow(1, "c"))
	recs = e.Append(recs, types.OpUpdateDelete, encRow(1, "c"))
	recs = e.Append(recs, types.OpUpdateInsert, encRow(2, "c")) // the key changes
	recs = e.Append(recs, types.OpDelete, encRow(2, "c"))
	for _, r := range recs {
		for _, b := range [][]byte{r.Key, r.Value} {
			if b != nil && !json.Valid(b) {
				t.Fatalf("invalid JSON %s", b)
			}
		}
	}
	return render(recs)
}

func TestEncodeFormats(t *testing.T) {
	row1 := `{"id":1,"name":"a\"b\n","ok":false,"score":1.5,"amount":12.50,"doc":{"a": [1, 2]}}`
	row1c := `{"id":1,"name":"c","ok":false,"score":1.5,"amount":12.50,"doc":{"a": [1, 2]}}`
	row2c := `{"id":2,"name":"c","ok":true,"score":1.5,"amount":12.50,"doc":{"a": [1, 2]}}`
	for _, tc := range []struct {
		name   string
		format SinkFormat
		key    []int
		want   string
	}{
		{"plain", FormatPlain, nil, "" +
			" => " + row1 + "\n" +
			" => " + row1c + "\n" +
			" => " + row2c + "\n"},
		{"upsert", FormatUpsert, []int{0}, "" +
			`{"id":1} => ` + row1 + "\n" +
			`{"id":1} => ` + row1c + "\n" +
			`{"id":1} => <tombstone>` + "\n" +
			`{"id":2} => ` + row2c + "\n" +
			`{"id":2} => <tombstone>` + "\n"},
		{"debezium", FormatDebezium, []int{0}, "" +
			`{"id":1} => {"before":null,"after":` + row1 + `,"op":"c","ts_ms":1700000000123}` + "\n" +
			`{"id":1} => {"before":` + row1 + `,"after":` + row1c + `,"op":"u","ts_ms":1700000000123}` + "\n" +
			`{"id":1} => {"before":` + row1c + `,"after":null,"op":"d","ts_ms":1700000000123}` + "\n" +
			`{"id":2} => {"before":null,"after":` + row2c + `,"op":"c","ts_ms":1700000000123}` + "\n" +
			`{"id":2} => {"before":` + row2c + `,"after":null,"op":"d","ts_ms":1700000000123}` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := encodeAll(t, tc.format, tc.key); got != tc.want {
				t.Fatalf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestEncodeSpecialValues(t *testing.T) {
	s := types.Schema{{Name: "f", T: types.TFloat4}, {Name: "g", T: types.TFloat8}, {Name: "n", T: types.TInt4}, {Name: "s", T: types.TText}}
	e, err := NewEncoder(FormatPlain, s, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	recs := e.Append(nil, types.OpInsert, types.Row{types.DFloat(float64(float32(0.1))), types.DFloat(math.Inf(-1)), types.NullDatum, types.DString("\x01\xff")})
	want := `{"f":0.1,"g":"-Infinity","n":null,"s":"\u0001\ufffd"}`
	if got := string(recs[0].Value); got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	if _, err := NewEncoder(FormatUpsert, s, nil, nil, nil); err == nil {
		t.Fatal("upsert without a key accepted")
	}
}
