package sql

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weirdb/weir/internal/pgerr"
)

// seedCorpus adds every golden input to f, so fuzzing starts from the
// forms the bridge rewrites.
func seedCorpus(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.txt")
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		for _, block := range strings.Split(string(data), "\n----\n") {
			lines := strings.Split(block, "\n")
			for i, l := range lines {
				if l == "parse" || l == "split" || l == "expr" || l == "lex" {
					f.Add(strings.Join(lines[i+1:], "\n"))
					break
				}
			}
		}
	}
}

// checkErr fails unless err is nil or a *pgerr.Error with a SQLSTATE.
func checkErr(t *testing.T, input string, err error) {
	if err == nil {
		return
	}
	var pe *pgerr.Error
	if !errors.As(err, &pe) || pe.Code == "" {
		t.Fatalf("%q: error without SQLSTATE: %v", input, err)
	}
	if pe.Code == pgerr.InternalError {
		t.Fatalf("%q: internal error: %v", input, err)
	}
}

func FuzzLex(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, s string) {
		toks, err := Lex(s)
		checkErr(t, s, err)
		if err != nil {
			return
		}
		prev := 0
		for _, tok := range toks {
			if tok.Off < prev || tok.End < tok.Off || tok.End > len(s) {
				t.Fatalf("%q: bad token span %+v", s, tok)
			}
			prev = tok.End
		}
		if toks[len(toks)-1].Kind != TEOF {
			t.Fatalf("%q: no EOF token", s)
		}
	})
}

func FuzzSplit(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, s string) {
		ps, err := Split(s)
		checkErr(t, s, err)
		for _, p := range ps {
			if p.Text == "" || s[p.Offset:p.Offset+len(p.Text)] != p.Text {
				t.Fatalf("%q: piece %+v does not match the text", s, p)
			}
		}
	})
}

func FuzzParse(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, s string) {
		st, err := Parse(s)
		checkErr(t, s, err)
		if q, ok := st.(*Query); ok && err == nil {
			if q.Node == nil {
				t.Fatalf("%q: query without a node", s)
			}
			for i, n := range q.Params {
				if n < 0 {
					t.Fatalf("%q: param %d has number %d", s, i, n)
				}
			}
		}
		_, err = ParseExpr(s)
		checkErr(t, s, err)
	})
}
