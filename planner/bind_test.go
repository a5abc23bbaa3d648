package planner

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the golden files in testdata/")

// parseBridged parses already-bridged text with the TiDB parser, the way
// sql.Parse does after its dialect bridge. Leading comment lines carry
// what the bridge would have recorded:
//
//	-- tvf __weir_tvf_1 = generate_series(1, 3) [alias g] [cols x]
//	-- alias s = x, y
//	-- returning a, b + 1 AS c
//	-- params 2, 1
func parseBridged(text string) (*sql.Query, error) {
	q := &sql.Query{TVFs: map[string]*sql.TVF{}, Aliases: map[string][]string{}}
	var body []string
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "-- tvf "):
			m := regexp.MustCompile(`^-- tvf (\S+) = (\w+)\((.*)\)(?: alias (\w+))?(?: cols (\S+))?$`).FindStringSubmatch(t)
			if m == nil {
				return nil, fmt.Errorf("bad tvf line %q", t)
			}
			tvf := &sql.TVF{Name: m[2], Alias: m[4]}
			if m[3] != "" {
				sel, err := parseOne("select " + m[3])
				if err != nil {
					return nil, err
				}
				for _, f := range sel.(*ast.SelectStmt).Fields.Fields {
					tvf.Args = append(tvf.Args, f.Expr)
				}
			}
			if m[5] != "" {
				tvf.Columns = strings.Split(m[5], ",")
			}
			q.TVFs[m[1]] = tvf
		case strings.HasPrefix(t, "-- alias "):
			parts := strings.SplitN(strings.TrimPrefix(t, "-- alias "), "=", 2)
			var cols []string
			for _, c := range strings.Split(parts[1], ",") {
				cols = append(cols, strings.TrimSpace(c))
			}
			q.Aliases[strings.TrimSpace(parts[0])] = cols
		case strings.HasPrefix(t, "-- returning "):
			sel, err := parseOne("select " + strings.TrimPrefix(t, "-- returning "))
			if err != nil {
				return nil, err
			}
			q.Returning = sel.(*ast.SelectStmt).Fields.Fields
		case strings.HasPrefix(t, "-- params "):
			for _, p := range strings.Split(strings.TrimPrefix(t, "-- params "), ",") {
				n, _ := strconv.Atoi(strings.TrimSpace(p))
				q.Params = append(q.Params, n)
			}
		default:
			body = append(body, line)
		}
	}
	q.Text = strings.TrimSpace(strings.Join(body, "\n"))
	q.Rewritten = q.Text
	node, err := parseOne(q.Text)
	if err != nil {
		return nil, err
	}
	q.Node = node
	if q.Params == nil {
		n := strings.Count(q.Text, "?")
		for i := 1; i <= n; i++ {
			q.Params = append(q.Params, i)
		}
	}
	return q, nil
}

func parseOne(text string) (ast.StmtNode, error) {
	p := parser.New()
	mode, err := mysql.GetSQLMode("ANSI_QUOTES,PIPES_AS_CONCAT,NO_BACKSLASH_ESCAPES")
	if err != nil {
		return nil, err
	}
	p.SetSQLMode(mode)
	p.EnableWindowFunc(true)
	stmts, _, err := p.Parse(text, "", "")
	if err != nil {
		return nil, pgerr.Wrap(pgerr.SyntaxError, err, "")
	}
	if len(stmts) != 1 {
		return nil, fmt.Errorf("want one statement, got %d", len(stmts))
	}
	return stmts[0], nil
}

// testParseType is a small stand-in for sql.ParseType.
func testParseType(text string) (sql.TypeName, error) {
	t := strings.ToLower(strings.TrimSpace(text))
	t = strings.TrimPrefix(t, "pg_catalog.")
	if m := regexp.MustCompile(`^(?:varchar|character varying)\((\d+)\)$`).FindStringSubmatch(t); m != nil {
		n, _ := strconv.Atoi(m[1])
		return sql.TypeName{T: types.T{ID: types.Varchar, Mod: int32(n + 4)}, Text: text}, nil
	}
	if m := regexp.MustCompile(`^numeric\((\d+),\s*(\d+)\)$`).FindStringSubmatch(t); m != nil {
		p, _ := strconv.Atoi(m[1])
		s, _ := strconv.Atoi(m[2])
		return sql.TypeName{T: types.T{ID: types.Numeric, Mod: int32(p<<16|s) + 4}, Text: text}, nil
	}
	ids := map[string]types.TypeID{
		"integer": types.Int4, "int": types.Int4, "int4": types.Int4, "bigint": types.Int8, "int8": types.Int8,
		"smallint": types.Int2, "int2": types.Int2, "text": types.Text, "varchar": types.Varchar,
		"character varying": types.Varchar, "numeric": types.Numeric, "decimal": types.Numeric,
		"boolean": types.Bool, "bool": types.Bool, "real": types.Float4, "float4": types.Float4,
		"double precision": types.Float8, "float8": types.Float8, "date": types.Date,
		"timestamp": types.Timestamp, "timestamp without time zone": types.Timestamp,
		"timestamptz": types.Timestamptz, "timestamp with time zone": types.Timestamptz,
		"interval": types.Interval, "jsonb": types.Jsonb, "bytea": types.Bytea, "name": types.Name,
		"oid": types.Oid, "time": types.Time, "text[]": types.TextArray,
	}
	if id, ok := ids[t]; ok {
		return sql.TypeName{T: types.T{ID: id, Mod: -1}, Text: text}, nil
	}
	return sql.TypeName{}, pgerr.New(pgerr.UndefinedObject, "type \"%s\" does not exist", text)
}

func testParseStmt(text string) (sql.Stmt, error) { return parseBridged(text) }

func testParseExpr(text string) (*sql.Query, error) { return parseBridged("select " + text) }

// useTestFrontEnd points the binder at the test parser unless the real
// front end works.
func useTestFrontEnd() {
	if _, err := sql.Parse("select 1"); err != nil {
		parseStmt = testParseStmt
		parseExpr = testParseExpr
	}
	if _, err := sql.ParseType("integer"); err != nil {
		parseType = testParseType
	}
}

// fakeCatalog holds the test tables.
type fakeCatalog struct {
	rels map[string]*catalog.Relation
	sys  map[string]types.Schema
}

func col(name string, t types.T) catalog.Column { return catalog.Column{Name: name, T: t} }

func newFakeCatalog() *fakeCatalog {
	vc10 := types.T{ID: types.Varchar, Mod: 14}
	num102 := types.T{ID: types.Numeric, Mod: (10<<16 | 2) + 4}
	c := &fakeCatalog{rels: map[string]*catalog.Relation{}, sys: map[string]types.Schema{}}
	add := func(r *catalog.Relation) {
		r.OID = r.ID + catalog.FirstUserOID
		r.Schema = "public"
		c.rels[r.Name] = r
	}
	add(&catalog.Relation{ID: 1, Name: "t", Kind: catalog.KindTable, PK: []int{0}, Cols: []catalog.Column{
		{Name: "a", T: types.TInt4, NotNull: true}, col("b", types.TText), col("c", num102),
		col("d", types.TTimestamptz), col("e", types.TFloat8)}})
	add(&catalog.Relation{ID: 2, Name: "u", Kind: catalog.KindTable, PK: []int{0}, Cols: []catalog.Column{
		{Name: "a", T: types.TInt4, NotNull: true}, col("x", vc10), col("ts", types.TTimestamp), col("n", types.TInt8)}})
	add(&catalog.Relation{ID: 3, Name: "nopk", Kind: catalog.KindTable, PK: []int{2}, Cols: []catalog.Column{
		col("v", types.TInt4), col("w", types.TText), {Name: "_row_id", T: types.TInt8, Hidden: true}}})
	add(&catalog.Relation{ID: 4, Name: "v", Kind: catalog.KindView, SQL: "select a, b from t where a > 0", Deps: []uint32{1},
		Cols: []catalog.Column{{Name: "a", T: types.TInt4}, col("b", types.TText)}})
	add(&catalog.Relation{ID: 5, Name: "mv", Kind: catalog.KindMView, Cols: []catalog.Column{
		col("k", types.TInt4), col("cnt", types.TInt8)}})
	add(&catalog.Relation{ID: 6, Name: "defs", Kind: catalog.KindTable, PK: []int{0}, Cols: []catalog.Column{
		{Name: "id", T: types.TInt4, NotNull: true}, {Name: "s", T: types.TText, Default: "'x'"},
		{Name: "n", T: types.TInt4, Default: "42"}, {Name: "ts", T: types.TTimestamptz, Default: "now()"},
		col("vc", vc10), col("j", types.TJsonb)}})
	c.sys["pg_catalog.pg_class"] = types.Schema{{Name: "oid", T: types.TOid}, {Name: "relname", T: types.TName},
		{Name: "relkind", T: types.TChar}, {Name: "relnamespace", T: types.TOid}}
	c.sys["pg_catalog.pg_namespace"] = types.Schema{{Name: "oid", T: types.TOid}, {Name: "nspname", T: types.TName}}
	return c
}

func (c *fakeCatalog) Relation(schema, name string) (*catalog.Relation, bool) {
	if schema != "" && schema != "public" {
		return nil, false
	}
	r, ok := c.rels[name]
	return r, ok
}

func (c *fakeCatalog) SystemTable(schema, name string) (string, types.Schema, bool) {
	if schema == "" {
		schema = "pg_catalog"
	}
	s, ok := c.sys[schema+"."+name]
	return schema, s, ok
}

// bindToString binds text and prints the outcome for golden files.
func bindToString(text string, hints []types.T, rules bool) string {
	q, err := parseBridged(text)
	if err != nil {
		return "parse error: " + err.Error() + "\n"
	}
	bd, err := Bind(q, newFakeCatalog(), hints)
	if err != nil {
		pe := pgerr.As(err)
		s := fmt.Sprintf("error %s: %s\n", pe.Code, pe.Message)
		if pe.Hint != "" {
			s += "hint: " + pe.Hint + "\n"
		}
		if pe.Position != 0 {
			s += fmt.Sprintf("position: %d\n", pe.Position)
		}
		return s
	}
	_ = rules
	var sb strings.Builder
	var cols []string
	for _, c := range bd.Plan.Schema() {
		if !c.Hidden {
			cols = append(cols, c.Name+":"+c.T.String())
		}
	}
	fmt.Fprintf(&sb, "%s (%s)\n", bd.Tag, strings.Join(cols, ", "))
	if len(bd.Params) > 0 {
		var ps []string
		for i, p := range bd.Params {
			ps = append(ps, fmt.Sprintf("$%d:%s", i+1, p))
		}
		fmt.Fprintf(&sb, "params: %s\n", strings.Join(ps, ", "))
	}
	sb.WriteString(Explain(bd.Plan))
	return sb.String()
}

type testCase struct {
	directive string
	input     string
	expected  string
}

// readCases reads a golden file: a directive line, the input, a "----"
// line, the expected output, and a blank line between cases.
func readCases(t *testing.T, path string) []testCase {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []testCase
	sc := bufio.NewScanner(f)
	state := 0 // 0: between cases, 1: input, 2: expected
	var cur testCase
	var in, exp []string
	flush := func() {
		if state != 0 {
			cur.input = strings.Join(in, "\n")
			cur.expected = strings.Join(exp, "\n")
			if cur.expected != "" {
				cur.expected += "\n"
			}
			cases = append(cases, cur)
		}
		cur, in, exp, state = testCase{}, nil, nil, 0
	}
	for sc.Scan() {
		line := sc.Text()
		switch state {
		case 0:
			if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
				continue
			}
			cur.directive = line
			state = 1
		case 1:
			if line == "----" {
				state = 2
				continue
			}
			in = append(in, line)
		case 2:
			if strings.TrimSpace(line) == "" {
				flush()
				continue
			}
			exp = append(exp, line)
		}
	}
	flush()
	return cases
}

func runCase(c testCase) string {
	fields := strings.Fields(c.directive)
	var hints []types.T
	for _, f := range fields[1:] {
		if strings.HasPrefix(f, "hints=") {
			for _, h := range strings.Split(strings.TrimPrefix(f, "hints="), ",") {
				tn, err := testParseType(h)
				if err != nil {
					return "bad hint " + h
				}
				hints = append(hints, tn.T)
			}
		}
	}
	switch fields[0] {
	case "bind":
		return bindToString(c.input, hints, true)
	case "stream":
		return streamToString(c.input, fields[1:]...)
	}
	return "unknown directive " + fields[0] + "\n"
}

func TestGolden(t *testing.T) {
	useTestFrontEnd()
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			cases := readCases(t, path)
			var out strings.Builder
			for _, c := range cases {
				got := runCase(c)
				if *rewrite {
					fmt.Fprintf(&out, "%s\n%s\n----\n%s\n", c.directive, c.input, got)
					continue
				}
				if got != c.expected {
					t.Errorf("%s\n%s\n----\ngot:\n%s\nwant:\n%s", c.directive, c.input, got, c.expected)
				}
			}
			if *rewrite {
				if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// A parameter number past what a statement may have is refused where it
// is bound, without sizing the list of parameters by it: binding
// SELECT $2147483648 used to allocate until the machine ran out of
// memory, and $30000000 half a gigabyte.
func TestHugeParamNumber(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for _, text := range []string{"SELECT $30000000", "SELECT $2147483648", "SELECT $99999999999999999999"} {
		st, err := sql.Parse(text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if _, err := Bind(st.(*sql.Query), newFakeCatalog(), nil); err == nil || pgerr.As(err).Code != pgerr.UndefinedParameter {
			t.Errorf("%s: %v, want 42P02", text, err)
		}
	}
	runtime.ReadMemStats(&after)
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 16<<20 {
		t.Errorf("binding three statements with huge parameter numbers allocated %d bytes", grown)
	}
}
