package types

import "testing"

func TestPrettyRoundTrip(t *testing.T) {
	ts := []T{TInt8, TText, TNumeric, TBool, TFloat8, TDate, TInterval}
	in := `
 I T N B F D IV
+  1 a 1.50 t 2.5 2024-02-29 1m2d3us
U- 2 "b c" . f NaN 1970-01-01 0m0d0us
U+ . "" -3 . -Infinity . .
-  4 "." 0 t 1e+20 2000-01-01 -1m0d0us
`
	c, err := ParseChunk(in, ts)
	if err != nil {
		t.Fatal(err)
	}
	if c.Len() != 4 || c.Op(1) != OpUpdateDelete || !c.Cols[0].Nulls[2] || c.Cols[1].S[1] != "b c" {
		t.Fatalf("parsed wrongly:\n%s", c)
	}
	out := c.String()
	c2, err := ParseChunk(out, ts)
	if err != nil {
		t.Fatal(err)
	}
	if c2.String() != out {
		t.Fatalf("round trip differs:\n%s\nvs\n%s", out, c2)
	}
	want := "   I T     N    B F         D          IV\n" +
		"+  1 a     1.50 t 2.5       2024-02-29 1m2d3us\n" +
		"U- 2 \"b c\" .    f NaN       1970-01-01 0m0d0us\n" +
		"U+ . \"\"    -3   . -Infinity .          .\n" +
		"-  4 \".\"   0    t 1e+20     2000-01-01 -1m0d0us\n"
	if out != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
	c.Vis = []bool{true, false, false, true}
	if n := len(splitLines(c.String())); n != 3 {
		t.Fatalf("invisible rows printed:\n%s", c)
	}
	if _, err := ParseChunk("+ 1", []T{TInt8, TText}); err == nil {
		t.Fatal("short row accepted")
	}
	if _, err := ParseChunk("+ x", []T{TInt8}); err == nil {
		t.Fatal("bad integer accepted")
	}
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}

func TestPrettyWatermark(t *testing.T) {
	ts := []T{TInt8, TTimestamp}
	for _, line := range []string{"wm 0 7", "wm 1 2024-01-01T00:01:30"} {
		w, err := ParseWatermark(line, ts)
		if err != nil {
			t.Fatal(err)
		}
		if got := w.String(); got != line {
			t.Errorf("round trip of %q gave %q", line, got)
		}
	}
	w, _ := ParseWatermark("wm 1 1970-01-01T00:00:01", ts)
	if w.Col != 1 || w.T != TTimestamp || w.Val.I != 1e6 {
		t.Errorf("parsed %+v", w)
	}
	for _, bad := range []string{"wm 2 7", "wm 0 .", "wm 0", "wm x 1", "wm 0 x", "+ 0 1"} {
		if _, err := ParseWatermark(bad, ts); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
