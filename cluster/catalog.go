package cluster

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/types"
)

// Entry is one record of the catalog topic: a DDL statement as a user
// wrote it, with what the issuing node decided once for every node (the
// key-group count of a view), so that applying it needs nothing but the
// catalog itself.
type Entry struct {
	// ID identifies the submission, so that the issuing node recognises
	// its own record when its replay reaches it.
	ID string `json:"id"`
	// SQL is the statement text.
	SQL string `json:"sql"`
	// Partitions is the number of key groups of a CREATE MATERIALIZED
	// VIEW (its repartition and changelog topics' partition count).
	Partitions int32 `json:"partitions,omitempty"`
}

// Marshal encodes e as the catalog record's value.
func (e Entry) Marshal() []byte {
	b, _ := json.Marshal(e)
	return b
}

// UnmarshalEntry decodes a catalog record's value.
func UnmarshalEntry(b []byte) (Entry, error) {
	var e Entry
	err := json.Unmarshal(b, &e)
	return e, err
}

// Source is a Kafka source in the cluster catalog.
type Source struct {
	Name      string
	Schema    types.Schema
	Topic     string
	Bootstrap string
}

// View is a GROUP BY materialized view over one source: the only view
// shape cluster mode runs.
type View struct {
	Name   string
	Source string
	// Partitions is the number of key groups.
	Partitions int32
	// Keys are the group key columns' positions in the source schema.
	Keys []int
	// Aggs are the aggregates, in no particular order.
	Aggs []Agg
	// Out maps each output column to a key (Key >= 0) or an aggregate.
	Out []OutCol
	// Schema is the view's output schema.
	Schema types.Schema
	// srcSchema is the source's schema, which the view's positions index.
	srcSchema types.Schema
	// Ident is the creating record's submission id; internal topic
	// names and the group id carry it, so a view dropped and created
	// again starts from fresh topics.
	Ident string
}

// AggKind is an aggregate function cluster mode computes.
type AggKind uint8

// The aggregates of cluster views. The input is append-only (a Kafka
// source), so each keeps one int64 accumulator and never needs the input
// multiset.
const (
	AggCountStar AggKind = iota
	AggCount
	AggSum
	AggMin
	AggMax
)

var aggNames = [...]string{"count", "count", "sum", "min", "max"}

// Agg is one aggregate of a view.
type Agg struct {
	Kind AggKind
	// Arg is the argument's position in the source schema (-1 for
	// count(*)).
	Arg int
	// ArgType is the argument's type.
	ArgType types.T
}

// OutCol is one output column of a view: Key is the index into View.Keys,
// or -1 and Agg the index into View.Aggs.
type OutCol struct {
	Key int
	Agg int
}

// Sink is an exactly-once Kafka sink of a cluster view.
type Sink struct {
	Name      string
	View      string
	Topic     string
	Bootstrap string
	Format    string // "debezium" or "upsert"
	Seq       int64
}

// Catalog is the cluster catalog: the state every node rebuilds by
// applying the catalog topic's records in order. Apply is deterministic:
// the same records in the same order give the same catalog and the same
// per-record results on every node, which is how concurrent conflicting
// DDL is decided (the first in the log wins).
type Catalog struct {
	Sources map[string]*Source
	Views   map[string]*View
	Sinks   map[string]*Sink
	// Applied is the offset of the last record applied, -1 before any.
	Applied int64
}

// NewCatalog returns an empty catalog.
func NewCatalog() *Catalog {
	return &Catalog{Sources: map[string]*Source{}, Views: map[string]*View{}, Sinks: map[string]*Sink{}, Applied: -1}
}

// Change says what a record applied: Kind is "create" or "drop", Object
// "source", "materialized view" or "sink".
type Change struct {
	Kind, Object, Name string
}

// Tag is the command tag of the statement that made the change.
func (c Change) Tag() string {
	return strings.ToUpper(c.Kind + " " + c.Object)
}

// Apply applies the record at offset. An error is the statement's result
// on every node (the catalog is unchanged); it is not a failure of the
// replay.
func (c *Catalog) Apply(offset int64, e Entry) (Change, error) {
	c.Applied = offset
	st, err := sql.Parse(e.SQL)
	if err != nil {
		return Change{}, err
	}
	switch s := st.(type) {
	case *sql.CreateSource:
		src, err := c.checkSource(s)
		if err != nil || src == nil {
			return Change{Kind: "create", Object: "source", Name: s.Name.Name}, err
		}
		c.Sources[src.Name] = src
		return Change{Kind: "create", Object: "source", Name: src.Name}, nil
	case *sql.CreateView:
		v, err := c.checkView(s, e.Partitions)
		if err != nil || v == nil {
			return Change{Kind: "create", Object: "materialized view", Name: s.Name.Name}, err
		}
		v.Ident = e.ID
		c.Views[v.Name] = v
		return Change{Kind: "create", Object: "materialized view", Name: v.Name}, nil
	case *sql.CreateSink:
		k, err := c.checkSink(s)
		if err != nil || k == nil {
			return Change{Kind: "create", Object: "sink", Name: s.Name.Name}, err
		}
		k.Seq = offset
		c.Sinks[k.Name] = k
		return Change{Kind: "create", Object: "sink", Name: k.Name}, nil
	case *sql.Drop:
		// A DROP of several names applies to all or none.
		cp := c.clone()
		ch, err := cp.drop(s)
		if err == nil {
			c.Sources, c.Views, c.Sinks = cp.Sources, cp.Views, cp.Sinks
		}
		return ch, err
	}
	return Change{}, Unsupported(st)
}

// Check validates a statement against the catalog as Apply would, without
// changing it: the issuing node refuses a statement that cannot apply
// before it reaches the log.
func (c *Catalog) Check(st sql.Stmt, partitions int32) error {
	var err error
	switch s := st.(type) {
	case *sql.CreateSource:
		_, err = c.checkSource(s)
	case *sql.CreateView:
		_, err = c.checkView(s, partitions)
	case *sql.CreateSink:
		_, err = c.checkSink(s)
	case *sql.Drop:
		cp := c.clone()
		_, err = cp.drop(s)
	default:
		err = Unsupported(st)
	}
	return err
}

func (c *Catalog) clone() *Catalog {
	cp := NewCatalog()
	for k, v := range c.Sources {
		cp.Sources[k] = v
	}
	for k, v := range c.Views {
		cp.Views[k] = v
	}
	for k, v := range c.Sinks {
		cp.Sinks[k] = v
	}
	cp.Applied = c.Applied
	return cp
}

// Unsupported is the 0A000 error for a statement cluster mode does not run.
func Unsupported(st sql.Stmt) error {
	what := strings.TrimPrefix(fmt.Sprintf("%T", st), "*sql.")
	if q, ok := st.(*sql.Query); ok {
		what = strings.TrimSuffix(strings.TrimPrefix(fmt.Sprintf("%T", q.Node), "*ast."), "Stmt")
	}
	// CreateTable → CREATE TABLE
	var b strings.Builder
	for i, r := range what {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	what = strings.ToUpper(b.String())
	return pgerr.New(pgerr.FeatureNotSupported, "%s is not supported in cluster mode", what).
		WithHint("Cluster mode runs Kafka sources, GROUP BY materialized views over one source, Kafka sinks and SELECT from those views; run other statements on a single-node weir.")
}

func (c *Catalog) nameTaken(name string) bool {
	return c.Sources[name] != nil || c.Views[name] != nil || c.Sinks[name] != nil
}

func plainName(n sql.ObjectName) (string, error) {
	if n.Schema != "" && n.Schema != "public" {
		return "", pgerr.New(pgerr.FeatureNotSupported, "schema %q is not supported in cluster mode", n.Schema)
	}
	return n.Name, nil
}

func (c *Catalog) checkSource(s *sql.CreateSource) (*Source, error) {
	name, err := plainName(s.Name)
	if err != nil {
		return nil, err
	}
	if c.nameTaken(name) {
		if s.IfNotExists {
			return nil, nil
		}
		return nil, pgerr.New(pgerr.DuplicateTable, "relation %q already exists", name)
	}
	if s.With["connector"] != "kafka" {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "connector %q is not supported in cluster mode", s.With["connector"]).
			WithHint("Cluster mode reads Kafka sources only.")
	}
	if s.Format != "plain" || s.Encode != "json" || len(s.Include) > 0 || s.Watermark != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "cluster mode reads FORMAT PLAIN ENCODE JSON sources without INCLUDE or WATERMARK")
	}
	for _, k := range []string{"topic", "properties.bootstrap.server"} {
		if s.With[k] == "" {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "source %q needs the option %s", name, k)
		}
	}
	for k := range s.With {
		switch k {
		case "connector", "topic", "properties.bootstrap.server":
		default:
			return nil, pgerr.New(pgerr.FeatureNotSupported, "option %s is not supported in cluster mode", k)
		}
	}
	src := &Source{Name: name, Topic: s.With["topic"], Bootstrap: s.With["properties.bootstrap.server"]}
	for _, col := range s.Columns {
		if !col.Type.T.IsInteger() && col.Type.T.ID != types.Text && col.Type.T.ID != types.Varchar {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "column %q: type %s is not supported in cluster mode", col.Name, col.Type.Text).
				WithHint("Cluster mode handles integer and text columns.")
		}
		src.Schema = append(src.Schema, types.Column{Name: col.Name, T: col.Type.T})
	}
	return src, nil
}

func (c *Catalog) checkView(s *sql.CreateView, partitions int32) (*View, error) {
	name, err := plainName(s.Name)
	if err != nil {
		return nil, err
	}
	if !s.Materialized || s.OrReplace || s.NoData || s.EmitOnWindowClose || len(s.With) > 0 || len(s.Columns) > 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "cluster mode creates only plain CREATE MATERIALIZED VIEW name AS SELECT ... GROUP BY ...")
	}
	if c.nameTaken(name) {
		if s.IfNotExists {
			return nil, nil
		}
		return nil, pgerr.New(pgerr.DuplicateTable, "relation %q already exists", name)
	}
	if partitions <= 0 {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "materialized view %q needs a positive key group count", name)
	}
	v, err := c.planView(s.Query)
	if err != nil {
		return nil, err
	}
	v.Name, v.Partitions = name, partitions
	return v, nil
}

// planView recognises the one plan shape cluster mode runs:
// SELECT keys and count/sum/min/max FROM one source GROUP BY keys.
func (c *Catalog) planView(q *sql.Query) (*View, error) {
	shape := func(why string) error {
		return pgerr.New(pgerr.FeatureNotSupported, "this view is not supported in cluster mode: %s", why).
			WithHint("Cluster mode runs SELECT <group keys>, count(*), count(c), sum(c), min(c), max(c) FROM <source> GROUP BY <group keys>.")
	}
	sel, ok := q.Node.(*ast.SelectStmt)
	if !ok {
		return nil, shape("it is not a single SELECT")
	}
	if sel.Where != nil || sel.Having != nil || sel.OrderBy != nil || sel.Limit != nil || sel.Distinct || sel.WindowSpecs != nil || sel.With != nil {
		return nil, shape("it has WHERE, HAVING, ORDER BY, LIMIT, DISTINCT, WINDOW or WITH")
	}
	if len(q.TVFs) > 0 || sel.From == nil || sel.From.TableRefs == nil || sel.From.TableRefs.Right != nil {
		return nil, shape("it does not read exactly one source")
	}
	ts, ok := sel.From.TableRefs.Left.(*ast.TableSource)
	if !ok {
		return nil, shape("it does not read exactly one source")
	}
	tn, ok := ts.Source.(*ast.TableName)
	if !ok {
		return nil, shape("it reads a subquery")
	}
	if s := tn.Schema.L; s != "" && s != "public" {
		return nil, shape("it reads another schema")
	}
	src := c.Sources[tn.Name.L]
	if src == nil {
		if c.Views[tn.Name.L] != nil {
			return nil, shape("it reads a view")
		}
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", tn.Name.O)
	}
	alias := ts.AsName.L
	colIndex := func(e ast.ExprNode) (int, error) {
		cn, ok := e.(*ast.ColumnNameExpr)
		if !ok {
			return -1, shape("an expression other than a column or count/sum/min/max of a column")
		}
		if t := cn.Name.Table.L; t != "" && t != src.Name && t != alias {
			return -1, pgerr.New(pgerr.UndefinedTable, "missing FROM-clause entry for table %q", cn.Name.Table.O)
		}
		for i, col := range src.Schema {
			if col.Name == cn.Name.Name.L {
				return i, nil
			}
		}
		return -1, pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", cn.Name.Name.O)
	}
	v := &View{Source: src.Name, srcSchema: src.Schema}
	if sel.GroupBy == nil || len(sel.GroupBy.Items) == 0 {
		return nil, shape("it has no GROUP BY")
	}
	for _, it := range sel.GroupBy.Items {
		i, err := colIndex(it.Expr)
		if err != nil {
			return nil, err
		}
		if !slicesContains(v.Keys, i) {
			v.Keys = append(v.Keys, i)
		}
	}
	seen := map[string]bool{}
	for _, f := range sel.Fields.Fields {
		if f.WildCard != nil {
			return nil, shape("it selects *")
		}
		var col types.Column
		switch e := f.Expr.(type) {
		case *ast.ColumnNameExpr:
			i, err := colIndex(e)
			if err != nil {
				return nil, err
			}
			k := indexOf(v.Keys, i)
			if k < 0 {
				return nil, pgerr.New(pgerr.GroupingError, "column %q must appear in the GROUP BY clause or be used in an aggregate function", src.Schema[i].Name)
			}
			v.Out = append(v.Out, OutCol{Key: k, Agg: -1})
			col = types.Column{Name: src.Schema[i].Name, T: src.Schema[i].T}
		case *ast.AggregateFuncExpr:
			a := Agg{Arg: -1}
			switch strings.ToLower(e.F) {
			case "count":
				a.Kind = AggCount
			case "sum":
				a.Kind = AggSum
			case "min":
				a.Kind = AggMin
			case "max":
				a.Kind = AggMax
			default:
				return nil, shape("aggregate " + e.F)
			}
			if e.Distinct || e.Order != nil || len(e.Args) != 1 {
				return nil, shape("an aggregate with DISTINCT, ORDER BY or several arguments")
			}
			if lit, ok := e.Args[0].(*sql.Literal); ok && a.Kind == AggCount && fmt.Sprint(lit.Value) == "1" {
				a.Kind = AggCountStar
			} else {
				i, err := colIndex(e.Args[0])
				if err != nil {
					return nil, err
				}
				a.Arg, a.ArgType = i, src.Schema[i].T
				if a.Kind != AggCount && !a.ArgType.IsInteger() {
					return nil, shape(aggNames[a.Kind] + " of a non-integer column")
				}
			}
			col = types.Column{Name: aggNames[a.Kind], T: a.outType()}
			v.Out = append(v.Out, OutCol{Key: -1, Agg: len(v.Aggs)})
			v.Aggs = append(v.Aggs, a)
		default:
			return nil, shape("an expression other than a column or count/sum/min/max of a column")
		}
		if f.AsName.L != "" {
			col.Name = f.AsName.L
		}
		if seen[col.Name] {
			return nil, pgerr.New(pgerr.DuplicateColumn, "column %q specified more than once", col.Name)
		}
		seen[col.Name] = true
		v.Schema = append(v.Schema, col)
	}
	return v, nil
}

// outType is the aggregate's result type, as Postgres types it.
func (a Agg) outType() types.T {
	switch a.Kind {
	case AggCountStar, AggCount:
		return types.TInt8
	case AggSum:
		if a.ArgType.ID == types.Int8 {
			return types.TNumeric
		}
		return types.TInt8
	}
	return a.ArgType
}

func (c *Catalog) checkSink(s *sql.CreateSink) (*Sink, error) {
	name, err := plainName(s.Name)
	if err != nil {
		return nil, err
	}
	if c.nameTaken(name) {
		if s.IfNotExists {
			return nil, nil
		}
		return nil, pgerr.New(pgerr.DuplicateObject, "sink %q already exists", name)
	}
	if s.Query != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "CREATE SINK ... AS query is not supported in cluster mode").
			WithHint("Create a materialized view and CREATE SINK ... FROM it.")
	}
	from, err := plainName(s.From)
	if err != nil {
		return nil, err
	}
	if c.Views[from] == nil {
		if c.Sources[from] != nil {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "a sink from a source is not supported in cluster mode")
		}
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", from)
	}
	if s.With["connector"] != "kafka" {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "connector %q is not supported in cluster mode", s.With["connector"])
	}
	if s.Format != "debezium" && s.Format != "upsert" || s.Encode != "json" {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "cluster sinks are FORMAT DEBEZIUM or UPSERT ENCODE JSON")
	}
	for k, val := range s.With {
		switch k {
		case "connector", "topic", "properties.bootstrap.server":
		case "sink.decouple":
			if val != "false" {
				return nil, pgerr.New(pgerr.FeatureNotSupported, "sink.decouple = %q is not supported in cluster mode", val)
			}
		default:
			return nil, pgerr.New(pgerr.FeatureNotSupported, "option %s is not supported in cluster mode", k)
		}
	}
	for _, k := range []string{"topic", "properties.bootstrap.server"} {
		if s.With[k] == "" {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "sink %q needs the option %s", name, k)
		}
	}
	for _, k := range c.Views[from].Keys {
		found := false
		for _, oc := range c.Views[from].Out {
			found = found || c.Views[from].Keys[maxInt(oc.Key, 0)] == k && oc.Key >= 0
		}
		if !found {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "a sink needs every group key of %q among the view's columns", from)
		}
	}
	return &Sink{Name: name, View: from, Topic: s.With["topic"], Bootstrap: s.With["properties.bootstrap.server"], Format: s.Format}, nil
}

func (c *Catalog) drop(s *sql.Drop) (Change, error) {
	var obj string
	switch s.Kind {
	case "source", "materialized view", "sink":
		obj = s.Kind
	default:
		return Change{}, pgerr.New(pgerr.FeatureNotSupported, "DROP %s is not supported in cluster mode", strings.ToUpper(s.Kind))
	}
	if s.Cascade {
		return Change{}, pgerr.New(pgerr.FeatureNotSupported, "DROP ... CASCADE is not supported in cluster mode")
	}
	ch := Change{Kind: "drop", Object: obj}
	for _, n := range s.Names {
		name, err := plainName(n)
		if err != nil {
			return ch, err
		}
		ch.Name = name
		var exists bool
		var deps []string
		switch obj {
		case "source":
			exists = c.Sources[name] != nil
			for _, v := range c.Views {
				if v.Source == name {
					deps = append(deps, "materialized view "+v.Name)
				}
			}
		case "materialized view":
			exists = c.Views[name] != nil
			for _, k := range c.Sinks {
				if k.View == name {
					deps = append(deps, "sink "+k.Name)
				}
			}
		case "sink":
			exists = c.Sinks[name] != nil
		}
		if !exists {
			if s.IfExists {
				continue
			}
			return ch, pgerr.New(pgerr.UndefinedTable, "%s %q does not exist", obj, name)
		}
		if len(deps) > 0 {
			sort.Strings(deps)
			return ch, pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop %s %s because other objects depend on it", obj, name).
				WithDetail("%s depends on it", strings.Join(deps, ", "))
		}
		delete(c.Sources, name)
		delete(c.Views, name)
		delete(c.Sinks, name)
	}
	return ch, nil
}

// SinksOf returns the sinks of view, sorted by name.
func (c *Catalog) SinksOf(view string) []*Sink {
	var out []*Sink
	for _, k := range c.Sinks {
		if k.View == view {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func slicesContains(s []int, x int) bool { return indexOf(s, x) >= 0 }

func indexOf(s []int, x int) int {
	for i, y := range s {
		if y == x {
			return i
		}
	}
	return -1
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}
