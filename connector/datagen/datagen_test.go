package datagen

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/types"
)

func fields(t *testing.T, with map[string]string) []Field {
	t.Helper()
	var fs []Field
	for _, c := range []struct {
		name string
		t    types.T
	}{{"id", types.TInt4}, {"v", types.TFloat8}, {"s", types.TVarchar}, {"ts", types.TTimestamp}, {"b", types.TBool}} {
		f, err := Parse(c.name, c.t, with)
		if err != nil {
			t.Fatal(err)
		}
		fs = append(fs, f)
	}
	return fs
}

func readAll(t *testing.T, cfg Config, batch int, resume bool) []string {
	t.Helper()
	r, err := NewReader(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for {
		b := r.Next(batch)
		if b.Chunk == nil {
			return rows
		}
		for i := range b.Chunk.Len() {
			var sb strings.Builder
			for j, d := range b.Chunk.Row(i) {
				sb.WriteString(types.FormatText(d, cfg.Fields[j].T, time.UTC) + "|")
			}
			rows = append(rows, sb.String())
		}
		if resume {
			cfg.Positions = b.Positions
			if r, err = NewReader(cfg); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestSequenceRandomReplay(t *testing.T) {
	with := map[string]string{
		"fields.id.kind": "sequence", "fields.id.start": "5", "fields.id.end": "1004",
		"fields.v.kind": "random", "fields.v.min": "1", "fields.v.max": "2", "fields.v.seed": "7",
		"fields.s.length": "12", "fields.ts.max_past": "1 hour",
	}
	cfg := Config{Fields: fields(t, with), Splits: 1, BaseMicros: 1_700_000_000_000_000}
	want := readAll(t, cfg, 100, false)
	if len(want) != 1000 {
		t.Fatalf("%d rows, want 1000 (the sequence 5..1004)", len(want))
	}
	r, _ := NewReader(cfg)
	b := r.Next(1000)
	for i := range b.Chunk.Len() {
		row := b.Chunk.Row(i)
		if row[0].I != int64(5+i) || row[1].F < 1 || row[1].F >= 2 || len(row[2].S) != 12 ||
			row[3].I > cfg.BaseMicros || row[3].I < cfg.BaseMicros-3_600_000_000 {
			t.Fatalf("row %d: %v", i, row)
		}
	}
	if got := readAll(t, cfg, 33, true); !slices.Equal(got, want) {
		t.Fatal("a resumed reader differs")
	}
	cfg.Splits = 4
	if got := readAll(t, cfg, 50, true); !slices.Equal(got, want) {
		t.Fatal("4 splits differ from 1")
	}
}

func TestParseErrors(t *testing.T) {
	for _, with := range []map[string]string{
		{"fields.id.kind": "zigzag"},
		{"fields.id.start": "x"},
		{"fields.id.start": "10", "fields.id.end": "1"},
		{"fields.v.kind": "random", "fields.v.min": "3", "fields.v.max": "1"},
	} {
		var err error
		for _, c := range []struct {
			n string
			t types.T
		}{{"id", types.TInt8}, {"v", types.TFloat8}} {
			if _, e := Parse(c.n, c.t, with); e != nil {
				err = e
			}
		}
		if err == nil {
			t.Errorf("%v accepted", with)
		}
	}
	if _, err := Parse("j", types.TJsonb, nil); err == nil {
		t.Error("a jsonb column accepted")
	}
}
