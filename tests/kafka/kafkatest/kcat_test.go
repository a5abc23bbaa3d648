package kafkatest

import (
	"maps"
	"slices"
	"testing"
)

func TestParseRecords(t *testing.T) {
	// What kcat prints with consumeFormat: a null key, an empty key, and
	// a value holding the separators themselves.
	out := "1 5 -1 5\nhello\n" +
		"0 7 0 3\nabc\n" +
		"0 2 1 10\nk2 0 1 1\nxy\n"
	got, err := parseRecords(out)
	if err != nil {
		t.Fatal(err)
	}
	want := []Record{
		{Partition: 0, Offset: 2, Key: "k", Value: "2 0 1 1\nxy"},
		{Partition: 0, Offset: 7, Key: "", Value: "abc"},
		{Partition: 1, Offset: 5, KeyNull: true, Value: "hello"},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for _, bad := range []string{"0 1 2\nab\n", "0 1 5 5\nshort\n", "x 1 0 0\n\n", "0 1 0 1"} {
		if _, err := parseRecords(bad); err == nil {
			t.Errorf("parseRecords(%q) succeeded", bad)
		}
	}
}

func TestDuplicates(t *testing.T) {
	recs := []Record{
		{Key: "a", Value: "1"}, {Key: "a", Value: "1"}, {Key: "a", Value: "2"},
		{KeyNull: true, Value: "1"}, {Key: "", Value: "1"}, {KeyNull: true, Value: "1"}, {KeyNull: true, Value: "1"},
	}
	want := map[string]int{"a\t1": 2, "<null>\t1": 3}
	if got := Duplicates(recs); !maps.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if got := Duplicates(recs[1:3]); len(got) != 0 {
		t.Fatalf("distinct records reported as duplicates: %v", got)
	}
}
