package planner

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/weirdb/weir/internal/pgerr"
)

// bindRealToString binds text parsed by the real front end (whose dialect
// bridge turns TUMBLE and HOP in FROM into table functions) and prints
// the output columns and the plan, or the error.
func bindRealToString(text string) string {
	q, err := parseQuery(text)
	if err != nil {
		return "parse error: " + err.Error() + "\n"
	}
	bd, err := Bind(q, streamCatalog(), nil)
	if err != nil {
		pe := pgerr.As(err)
		s := fmt.Sprintf("error %s: %s\n", pe.Code, pe.Message)
		if pe.Hint != "" {
			s += "hint: " + pe.Hint + "\n"
		}
		return s
	}
	var cols []string
	for _, c := range bd.Plan.Schema() {
		s := c.Name + ":" + c.T.String()
		if c.Hidden {
			s += " hidden"
		}
		if c.NotNull {
			s += " not null"
		}
		cols = append(cols, s)
	}
	return fmt.Sprintf("%s (%s)\n", bd.Tag, strings.Join(cols, ", ")) + Explain(bd.Plan)
}

// TestTimeWindowBind checks the binding of TUMBLE and HOP against the
// golden file testdata/timewindow/bind.txt (-rewrite regenerates it).
func TestTimeWindowBind(t *testing.T) {
	useTestFrontEnd()
	const path = "testdata/timewindow/bind.txt"
	var out strings.Builder
	for _, c := range readCases(t, path) {
		got := bindRealToString(c.input)
		if *rewrite {
			fmt.Fprintf(&out, "%s\n%s\n----\n%s\n", c.directive, c.input, got)
			continue
		}
		if got != c.expected {
			t.Errorf("%s\n----\ngot:\n%s\nwant:\n%s", c.input, got, c.expected)
		}
	}
	if *rewrite {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
