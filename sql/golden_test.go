package sql

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the golden files in testdata/ with the current output")

// The golden files hold cases of the form
//
//	command
//	input lines
//	----
//	output lines
//	<blank line>
//
// where command is parse, expr, type, split or lex. Lines starting with #
// between cases are comments.

type goldenCase struct {
	cmd, input, output string
	comments           []string
}

func readGolden(t *testing.T, path string) []goldenCase {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cases []goldenCase
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); {
		var c goldenCase
		for i < len(lines) && (lines[i] == "" || strings.HasPrefix(lines[i], "#")) {
			if lines[i] != "" {
				c.comments = append(c.comments, lines[i])
			}
			i++
		}
		if i >= len(lines) {
			break
		}
		c.cmd = lines[i]
		i++
		var in []string
		for i < len(lines) && lines[i] != "----" {
			in = append(in, lines[i])
			i++
		}
		i++
		var out []string
		for i < len(lines) && lines[i] != "" {
			out = append(out, lines[i])
			i++
		}
		c.input, c.output = strings.Join(in, "\n"), strings.Join(out, "\n")
		cases = append(cases, c)
	}
	return cases
}

func TestGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txt")
	if len(files) == 0 {
		t.Fatal("no golden files")
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			cases := readGolden(t, path)
			var sb strings.Builder
			for i := range cases {
				c := &cases[i]
				got := runGolden(c.cmd, c.input)
				if *rewrite {
					c.output = got
				} else if got != c.output {
					t.Errorf("%s:\n%s\n---- got:\n%s\n---- want:\n%s", c.cmd, c.input, got, c.output)
				}
				for _, l := range c.comments {
					sb.WriteString(l + "\n")
				}
				fmt.Fprintf(&sb, "%s\n%s\n----\n%s\n\n", c.cmd, c.input, c.output)
			}
			if *rewrite {
				if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func runGolden(cmd, input string) string {
	switch cmd {
	case "parse":
		s, err := Parse(input)
		if err != nil {
			return errString(err)
		}
		return printStmt(s)
	case "expr":
		q, err := ParseExpr(input)
		if err != nil {
			return errString(err)
		}
		return printQuery(q)
	case "type":
		var out []string
		for _, l := range strings.Split(input, "\n") {
			tn, err := ParseType(l)
			if err != nil {
				out = append(out, l+" => "+errString(err))
			} else {
				out = append(out, fmt.Sprintf("%s => %s (oid %d, mod %d)", l, tn.T, tn.T.OID(), tn.T.Mod))
			}
		}
		return strings.Join(out, "\n")
	case "split":
		ps, err := Split(input)
		if err != nil {
			return errString(err)
		}
		var out []string
		for _, p := range ps {
			out = append(out, fmt.Sprintf("%d: %q", p.Offset, p.Text))
		}
		if len(out) == 0 {
			return "(none)"
		}
		return strings.Join(out, "\n")
	case "lex":
		toks, err := Lex(input)
		if err != nil {
			return errString(err)
		}
		var out []string
		names := []string{"EOF", "ident", "qident", "string", "bitstring", "hexstring", "number", "param", "op"}
		for _, t := range toks {
			s := fmt.Sprintf("%d %s %q", t.Off, names[t.Kind], t.Val)
			if t.Err != nil {
				s += " " + errString(t.Err)
			}
			out = append(out, s)
		}
		return strings.Join(out, "\n")
	}
	return "unknown command " + cmd
}

func errString(err error) string {
	var pe *pgerr.Error
	if !errors.As(err, &pe) {
		return "error: (no SQLSTATE) " + err.Error()
	}
	s := fmt.Sprintf("error %s: %s", pe.Code, pe.Message)
	if pe.Position > 0 {
		s += fmt.Sprintf(" (position %d)", pe.Position)
	}
	return s
}

func restore(n ast.Node) string {
	var sb strings.Builder
	if err := n.Restore(format.NewRestoreCtx(format.DefaultRestoreFlags, &sb)); err != nil {
		return "restore error: " + err.Error()
	}
	return sb.String()
}

func printQuery(q *Query) string {
	var out []string
	// Newlines inside string literals are shown as \n so that an output
	// never holds the blank line that ends a case.
	nl := strings.NewReplacer("\n", `\n`)
	out = append(out, "rewritten: "+nl.Replace(q.Rewritten), "restored:  "+nl.Replace(restore(q.Node)))
	if len(q.Params) > 0 {
		out = append(out, fmt.Sprintf("params: %v", q.Params))
	}
	keys := make([]string, 0, len(q.TVFs))
	for k := range q.TVFs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		f := q.TVFs[k]
		var args []string
		for _, a := range f.Args {
			args = append(args, restore(a))
		}
		out = append(out, fmt.Sprintf("tvf %s: %s(%s) argtext=%q alias=%q columns=%q", k, f.Name, strings.Join(args, ", "), f.ArgText, f.Alias, f.Columns))
	}
	akeys := make([]string, 0, len(q.Aliases))
	for k := range q.Aliases {
		akeys = append(akeys, k)
	}
	sort.Strings(akeys)
	for _, k := range akeys {
		out = append(out, fmt.Sprintf("aliases %s: %q", k, q.Aliases[k]))
	}
	if q.Returning != nil {
		var fs []string
		for _, f := range q.Returning {
			fs = append(fs, restore(f))
		}
		out = append(out, "returning: "+strings.Join(fs, ", "))
	}
	if q.Overriding != "" {
		out = append(out, "overriding: "+q.Overriding)
	}
	if q.InsertAlias != "" {
		out = append(out, "insert alias: "+q.InsertAlias)
	}
	if oc := q.OnConflict; oc != nil {
		s := fmt.Sprintf("on conflict: columns=%q constraint=%q update=%v", oc.Columns, oc.Constraint, oc.Update)
		if oc.Exprs != nil {
			s += fmt.Sprintf(" exprs=%q", oc.Exprs)
		}
		if oc.IndexWhere != "" {
			s += fmt.Sprintf(" index_where=%q", oc.IndexWhere)
		}
		var set []string
		for _, a := range oc.Set {
			set = append(set, restore(a.Column)+" = "+restore(a.Expr))
		}
		if len(set) > 0 {
			s += " set " + strings.Join(set, ", ")
		}
		if oc.Where != nil {
			s += " where " + restore(oc.Where)
		}
		out = append(out, s)
	}
	return strings.Join(out, "\n")
}

// printStmt prints one of our statements field by field, skipping zero
// fields; a nested Query is printed with printQuery.
func printStmt(s Stmt) string {
	if q, ok := s.(*Query); ok {
		return printQuery(q)
	}
	v := reflect.ValueOf(s).Elem()
	out := []string{v.Type().Name()}
	for i := 0; i < v.NumField(); i++ {
		f, name := v.Field(i), v.Type().Field(i).Name
		if f.IsZero() {
			continue
		}
		switch x := f.Interface().(type) {
		case *Query:
			for _, l := range strings.Split(printQuery(x), "\n") {
				out = append(out, "  "+name+"."+l)
			}
		case Stmt:
			for _, l := range strings.Split(printStmt(x), "\n") {
				out = append(out, "  "+name+": "+l)
			}
		case []*AlterTable:
			for _, a := range x {
				for _, l := range strings.Split(printStmt(a), "\n") {
					out = append(out, "  "+name+": "+l)
				}
			}
		case []ColumnDef:
			for _, c := range x {
				if c.Like != nil {
					out = append(out, fmt.Sprintf("  like %s defaults=%v at %d", c.Like.Table, c.Like.Defaults, c.Like.Pos))
					continue
				}
				l := fmt.Sprintf("  column %q %s", c.Name, c.Type.T)
				if c.Type.T.Mod >= 0 {
					l += fmt.Sprintf(" mod=%d", c.Type.T.Mod)
				}
				l += fmt.Sprintf(" (%s)", c.Type.Text)
				if c.NotNull {
					l += " NOT NULL"
				}
				if c.Null {
					l += " NULL"
				}
				if c.PrimaryKey {
					l += " PRIMARY KEY"
				}
				if c.Default != "" {
					l += " DEFAULT " + c.Default + " => " + restore(c.DefaultExpr)
				}
				out = append(out, l)
			}
		case []IncludeClause:
			for _, c := range x {
				l := "  include " + c.What
				if c.Alias != "" {
					l += fmt.Sprintf(" AS %q", c.Alias)
				}
				out = append(out, l)
			}
		case *WatermarkDef:
			out = append(out, fmt.Sprintf("  watermark for %q AS %s => %s", x.Column, x.Expr, restore(x.ExprNode)))
		case map[string]string:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			var kv []string
			for _, k := range keys {
				kv = append(kv, fmt.Sprintf("%s=%q", k, x[k]))
			}
			out = append(out, "  "+name+": "+strings.Join(kv, " "))
		case types.T:
			out = append(out, "  "+name+": "+x.String())
		default:
			out = append(out, fmt.Sprintf("  %s: %#v", name, x))
		}
	}
	return strings.Join(out, "\n")
}
