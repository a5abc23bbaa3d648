package main

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
)

func TestReadFlightsArrayAndLines(t *testing.T) {
	arr := `[{"date":"2001/01/01 00:47","delay":66,"distance":1750,"origin":"DTW","destination":"LAS"},
	 {"date":"2001-01-02T10:05:00","delay":-5,"distance":407,"origin":"LAS","destination":"OAK"}]`
	lines := `{"date":"2001/01/01 00:47","delay":66,"distance":1750,"origin":"DTW","destination":"LAS"}
{"date":"2001-01-02T10:05:00","delay":-5,"distance":407,"origin":"LAS","destination":"OAK"}
`
	for _, in := range []string{arr, lines} {
		fs, err := readFlights(strings.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		if len(fs) != 2 {
			t.Fatalf("got %d flights, want 2", len(fs))
		}
		if got := string(encodeFlight(fs[0])); got != `{"date":"2001-01-01T00:47:00","delay":66,"distance":1750,"origin":"DTW","destination":"LAS"}` {
			t.Errorf("record 1 encodes as %s", got)
		}
		if fs[1].Delay != -5 || fs[1].Date != time.Date(2001, 1, 2, 10, 5, 0, 0, time.UTC) {
			t.Errorf("record 2 is %+v", fs[1])
		}
	}
}

func TestReadFlightsErrors(t *testing.T) {
	for _, in := range []string{
		"",
		"   \n",
		`[{"date":"yesterday","delay":1,"distance":1,"origin":"A","destination":"B"}]`,
		`[{"date":"2001/01/01 00:47","delay":1,"distance":1,"origin":"","destination":"B"}]`,
		`[{"date":"2001/01/01 00:47","delay":"late","distance":1,"origin":"A","destination":"B"}]`,
		`{"date":"2001/01/01 00:47","delay":1,"distance":1,"origin":"A","destination":"B"}` + "\n{",
		`[{"date":"2001/01/01 00:47","delay":1,"distance":1,"origin":"A","destination":"B","extra":1}]`,
	} {
		if fs, err := readFlights(strings.NewReader(in)); err == nil {
			t.Errorf("readFlights(%q) = %d flights, want an error", in, len(fs))
		}
	}
}

// TestReplayOrderJitterIsBounded checks that the jittered order is a
// permutation of the input whose disorder stays within the bound, that
// some disorder occurs, and that jitter 0 sorts by event time.
func TestReplayOrderJitterIsBounded(t *testing.T) {
	base := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(7, 0))
	var fs []flight
	for i := range 2000 {
		// Shuffled input, one flight a minute or so, some on the same minute.
		at := base.Add(time.Duration(rng.IntN(2000)) * time.Minute)
		fs = append(fs, flight{Date: at, Delay: int64(i), Origin: "A", Destination: "B"})
	}
	sorted := replayOrder(fs, 0, nil)
	if d := maxDisorder(sorted); d != 0 {
		t.Fatalf("jitter 0: disorder %s, want none", d)
	}
	for _, jitter := range []time.Duration{2 * time.Minute, 10 * time.Minute, time.Hour} {
		got := replayOrder(fs, jitter, rand.New(rand.NewPCG(1, 0)))
		if len(got) != len(fs) {
			t.Fatalf("jitter %s: %d flights, want %d", jitter, len(got), len(fs))
		}
		seen := make(map[int64]bool)
		for _, f := range got {
			seen[f.Delay] = true
		}
		if len(seen) != len(fs) {
			t.Fatalf("jitter %s: %d distinct flights, want %d", jitter, len(seen), len(fs))
		}
		d := maxDisorder(got)
		if d > jitter {
			t.Errorf("jitter %s: disorder %s exceeds the bound", jitter, d)
		}
		if d == 0 {
			t.Errorf("jitter %s: no disorder at all", jitter)
		}
	}
}

// TestExampleFile reads the example's flights file, which the
// repository ships.
func TestExampleFile(t *testing.T) {
	f, err := os.Open("../../examples/flights/flights-20k.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fs, err := readFlights(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 20000 {
		t.Fatalf("%d flights, want 20000", len(fs))
	}
	var r flightJSON
	if err := json.Unmarshal(encodeFlight(fs[0]), &r); err != nil || r.Date != "2001-01-01T00:47:00" {
		t.Fatalf("first record %+v, %v", r, err)
	}
}

// TestReadFlightsParquet writes flights in the layout of vega-datasets'
// flights-3m.parquet and reads them back.
func TestReadFlightsParquet(t *testing.T) {
	ptr := func(v int64) *int64 { return &v }
	str := func(s string) *string { return &s }
	at := time.Date(2001, 1, 2, 3, 4, 0, 0, time.UTC)
	rows := []flightParquet{
		{Date: ptr(at.UnixMicro()), Delay: ptr(-3), Distance: ptr(500), Origin: str("SFO"), Destination: str("LAX")},
		{Date: ptr(at.Add(time.Hour).UnixMicro()), Origin: str("JFK"), Destination: str("BOS")},
	}
	path := filepath.Join(t.TempDir(), "f.parquet")
	if err := parquet.WriteFile(path, rows); err != nil {
		t.Fatal(err)
	}
	got, err := readFlightsParquet(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []flight{
		{Date: at, Delay: -3, Distance: 500, Origin: "SFO", Destination: "LAX"},
		{Date: at.Add(time.Hour), Origin: "JFK", Destination: "BOS"},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if err := parquet.WriteFile(path, []flightParquet{{Origin: str("X")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := readFlightsParquet(path); err == nil {
		t.Fatal("a row without a date was accepted")
	}
}
