package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// collectRows runs a COPY parser over data and renders each row as
// fields joined by "|", with NULL shown as <null>.
func collectRows(t *testing.T, data string, co copyOptions, parse func([]byte, copyOptions, func([]*string, string) error) error) []string {
	t.Helper()
	var out []string
	err := parse([]byte(data), co, func(fields []*string, _ string) error {
		parts := make([]string, len(fields))
		for i, f := range fields {
			if f == nil {
				parts[i] = "<null>"
			} else {
				parts[i] = *f
			}
		}
		out = append(out, strings.Join(parts, "|"))
		return nil
	})
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return out
}

func TestCopyTextFormat(t *testing.T) {
	co, err := parseCopyOptions(map[string]string{})
	if err != nil {
		t.Fatal(err)
	}
	data := "1\thello\n2\t\\N\n3\ttab\\there\\\\back\n4\t\\x41\\101\n\\.\n5\tafter end\n"
	got := collectRows(t, data, co, readCopyText)
	want := []string{"1|hello", "2|<null>", "3|tab\there\\back", "4|AA"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestCopyCSVFormat(t *testing.T) {
	co, err := parseCopyOptions(map[string]string{"format": "csv", "header": "true"})
	if err != nil {
		t.Fatal(err)
	}
	data := "id,s\n1,plain\n2,\n3,\"\"\n4,\"a,b\"\n5,\"say \"\"hi\"\"\"\n"
	got := collectRows(t, data, co, readCSV)
	// The header line is skipped by copyIn (co.header), not by the parser;
	// an unquoted empty field is NULL, a quoted one is the empty string.
	want := []string{"id|s", "1|plain", "2|<null>", "3|", "4|a,b", `5|say "hi"`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestCopyOutEscaping(t *testing.T) {
	if got, want := escapeCopy("a\tb\nc\\d", '\t'), `a\tb\nc\\d`; got != want {
		t.Errorf("escapeCopy = %q, want %q", got, want)
	}
	co, _ := parseCopyOptions(map[string]string{"format": "csv"})
	for in, want := range map[string]string{"plain": "plain", "": `""`, "a,b": `"a,b"`, `q"x`: `"q""x"`, "l\nm": "\"l\nm\""} {
		if got := csvQuote(in, co); got != want {
			t.Errorf("csvQuote(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCopyOptionErrors(t *testing.T) {
	for _, o := range []map[string]string{
		{"format": "xml"},
		{"delimiter": "ab"},
		{"header": "true"}, // HEADER needs CSV
		{"format": "binary"},
	} {
		if _, err := parseCopyOptions(o); err == nil {
			t.Errorf("parseCopyOptions(%v) succeeded, want an error", o)
		}
	}
}

// TestCopyDropsLateRows checks that COPY into an APPEND ONLY table with
// a watermark leaves out the rows behind the watermark as the statement
// began, without failing, and that its tag counts the rows copied.
func TestCopyDropsLateRows(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE ev (id int, ts timestamp, WATERMARK FOR ts AS ts - INTERVAL '5 seconds') APPEND ONLY")
	mustRun(t, s, "INSERT INTO ev VALUES (1, '2024-01-01 10:00:00')")
	data := "2\t2024-01-01 09:59:00\n3\t2024-01-01 10:00:30\n4\t2024-01-01 09:00:00\n"
	ctx := context.Background()
	p, err := s.Prepare(ctx, "COPY ev FROM STDIN", nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Execute(ctx, nil, &testIO{copyIn: &data})
	if err != nil {
		t.Fatal(err)
	}
	if row, err := r.Next(ctx); err != nil || row != nil {
		t.Fatalf("COPY: %v, %v", row, err)
	}
	if tag := r.Tag(); tag != "COPY 1" {
		t.Fatalf("tag %q, want COPY 1", tag)
	}
	r.Close()
	wantRows(t, s, "SELECT id FROM ev ORDER BY id", "1", "3")
	wantRows(t, s, "SELECT late_rows FROM weir.watermarks", "2")
}
