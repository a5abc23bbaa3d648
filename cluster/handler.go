package cluster

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// ServerVersion is the server_version a cluster node reports.
const ServerVersion = "15.0 (weir cluster)"

// peerRead starts the statement one node sends another to read key groups
// it owns: WEIR CLUSTER READ <view> <ident> <p>,<p>,...
const peerRead = "WEIR CLUSTER READ "

var _ wire.Handler = (*Node)(nil)

// ServerParams implements wire.Handler.
func (n *Node) ServerParams() [][2]string {
	return [][2]string{
		{"server_version", ServerVersion},
		{"server_encoding", "UTF8"},
		{"client_encoding", "UTF8"},
		{"DateStyle", "ISO, MDY"},
		{"IntervalStyle", "postgres"},
		{"TimeZone", "UTC"},
		{"integer_datetimes", "on"},
		{"standard_conforming_strings", "on"},
	}
}

// NewSession implements wire.Handler.
func (n *Node) NewSession(ctx context.Context, p wire.StartupParams) (wire.Session, error) {
	return &session{n: n}, nil
}

type session struct{ n *Node }

func (s *session) Split(_ context.Context, text string) ([]wire.Piece, error) {
	if strings.HasPrefix(text, peerRead) {
		return []wire.Piece{{Text: text}}, nil
	}
	ps, err := sql.Split(text)
	if err != nil {
		return nil, err
	}
	out := make([]wire.Piece, len(ps))
	for i, p := range ps {
		out[i] = wire.Piece{Text: p.Text, Offset: p.Offset}
	}
	return out, nil
}

func (s *session) TxStatus() byte { return 'I' }
func (s *session) Close()         {}

func (s *session) Prepare(ctx context.Context, text string, paramTypes []uint32) (wire.Prepared, error) {
	if strings.HasPrefix(text, peerRead) {
		return s.n.preparePeerRead(strings.TrimPrefix(text, peerRead))
	}
	st, err := sql.Parse(text)
	if err != nil {
		return nil, err
	}
	switch q := st.(type) {
	case *sql.CreateSource, *sql.CreateView, *sql.CreateSink, *sql.Drop:
		return &prepared{exec: func(ctx context.Context, _ wire.ExecIO) (*result, error) {
			ch, err := s.n.Submit(ctx, st, text)
			if err != nil {
				return nil, err
			}
			return &result{tag: ch.Tag()}, nil
		}}, nil
	case *sql.Set:
		// Drivers set session parameters at connect; a node keeps none.
		return &prepared{exec: func(context.Context, wire.ExecIO) (*result, error) { return &result{tag: "SET"}, nil }}, nil
	case *sql.Query:
		if err := s.n.syncCatalog(ctx); err != nil {
			return nil, err
		}
		return s.n.prepareSelect(q)
	}
	return nil, Unsupported(st)
}

// prepared is a statement ready to run; fields is nil for statements
// that return no rows.
type prepared struct {
	fields []wire.Field
	exec   func(ctx context.Context, io wire.ExecIO) (*result, error)
}

func (p *prepared) ParamTypes() []types.T { return nil }
func (p *prepared) Fields() []wire.Field  { return p.fields }
func (p *prepared) Execute(ctx context.Context, params []types.Datum, io wire.ExecIO) (wire.Result, error) {
	if len(params) > 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "parameters are not supported in cluster mode")
	}
	return p.exec(ctx, io)
}

type result struct {
	rows []types.Row
	tag  string
}

func (r *result) Next(context.Context) (types.Row, error) {
	if len(r.rows) == 0 {
		return nil, nil
	}
	row := r.rows[0]
	r.rows = r.rows[1:]
	return row, nil
}
func (r *result) Tag() string { return r.tag }
func (r *result) Close()      {}

// prepareSelect accepts SELECT * | columns FROM view [ORDER BY columns].
func (n *Node) prepareSelect(q *sql.Query) (wire.Prepared, error) {
	sel, ok := q.Node.(*ast.SelectStmt)
	unsupported := pgerr.New(pgerr.FeatureNotSupported, "this query is not supported in cluster mode").
		WithHint("Cluster mode answers SELECT * | columns FROM <materialized view> [ORDER BY columns].")
	if !ok {
		return nil, Unsupported(q)
	}
	if sel.Where != nil || sel.GroupBy != nil || sel.Having != nil || sel.Limit != nil || sel.Distinct || sel.With != nil ||
		len(q.TVFs) > 0 || sel.From == nil || sel.From.TableRefs == nil || sel.From.TableRefs.Right != nil {
		return nil, unsupported
	}
	ts, ok := sel.From.TableRefs.Left.(*ast.TableSource)
	if !ok {
		return nil, unsupported
	}
	tn, ok := ts.Source.(*ast.TableName)
	if !ok {
		return nil, unsupported
	}
	v, _ := n.catalogView(tn.Name.L)
	if v == nil {
		n.mu.Lock()
		isSource := n.cat.Sources[tn.Name.L] != nil
		n.mu.Unlock()
		if isSource {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "reading a source is not supported in cluster mode")
		}
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", tn.Name.O)
	}
	col := func(e ast.ExprNode) (int, error) {
		cn, ok := e.(*ast.ColumnNameExpr)
		if !ok {
			return -1, unsupported
		}
		for i, c := range v.Schema {
			if c.Name == cn.Name.Name.L {
				return i, nil
			}
		}
		return -1, pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", cn.Name.Name.O)
	}
	var proj []int
	for _, f := range sel.Fields.Fields {
		if f.WildCard != nil {
			for i := range v.Schema {
				proj = append(proj, i)
			}
			continue
		}
		i, err := col(f.Expr)
		if err != nil {
			return nil, err
		}
		proj = append(proj, i)
	}
	type ord struct {
		col  int
		desc bool
	}
	var order []ord
	if sel.OrderBy != nil {
		for _, it := range sel.OrderBy.Items {
			i, err := col(it.Expr)
			if err != nil {
				return nil, err
			}
			order = append(order, ord{i, it.Desc})
		}
	}
	fields := make([]wire.Field, len(proj))
	for i, c := range proj {
		fields[i] = wire.Field{Name: v.Schema[c].Name, T: v.Schema[c].T}
		if f := sel.Fields.Fields; len(f) == len(proj) && f[i].AsName.L != "" {
			fields[i].Name = f[i].AsName.L
		}
	}
	return &prepared{fields: fields, exec: func(ctx context.Context, io wire.ExecIO) (*result, error) {
		rows, note, err := n.gather(ctx, v)
		if err != nil {
			return nil, err
		}
		io.Notice("NOTICE", "00000", note)
		sort.SliceStable(rows, func(a, b int) bool {
			for _, o := range order {
				c := types.Compare(rows[a][o.col], rows[b][o.col], v.Schema[o.col].T)
				if c != 0 {
					return (c < 0) != o.desc
				}
			}
			return false
		})
		out := make([]types.Row, len(rows))
		for i, r := range rows {
			pr := make(types.Row, len(proj))
			for k, c := range proj {
				pr[k] = r[c]
			}
			out[i] = pr
		}
		return &result{rows: out, tag: fmt.Sprintf("SELECT %d", len(out))}, nil
	}}, nil
}

// owner is a node that owns key groups of a view, as the group reports.
type owner struct {
	node  string // "weir-node-N"
	addr  string
	parts []int32
}

// owners asks the view's consumer group who owns each key group.
func (n *Node) owners(ctx context.Context, v *View) ([]owner, []int32, error) {
	t := n.topicsOf(v)
	gs, err := n.adm.DescribeGroups(ctx, t.group)
	if err != nil {
		return nil, nil, err
	}
	g, ok := gs[t.group]
	if !ok || g.Err != nil {
		return nil, nil, fmt.Errorf("describe group %s: %v", t.group, g.Err)
	}
	owned := map[int32]bool{}
	var out []owner
	for _, m := range g.Members {
		ca, ok := m.Assigned.AsConsumer()
		if !ok {
			continue
		}
		o := owner{node: m.ClientID}
		if i := strings.LastIndexByte(m.ClientID, '@'); i >= 0 {
			o.node, o.addr = m.ClientID[:i], m.ClientID[i+1:]
		}
		for _, tp := range ca.Topics {
			if tp.Topic == t.repartition {
				o.parts = append(o.parts, tp.Partitions...)
			}
		}
		for _, p := range o.parts {
			owned[p] = true
		}
		if len(o.parts) > 0 {
			sort.Slice(o.parts, func(i, j int) bool { return o.parts[i] < o.parts[j] })
			out = append(out, o)
		}
	}
	var missing []int32
	for p := int32(0); p < v.Partitions; p++ {
		if !owned[p] {
			missing = append(missing, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].node < out[j].node })
	return out, missing, nil
}

// gather reads every key group of v from its owner and returns the rows
// and a note naming the node epochs read.
func (n *Node) gather(ctx context.Context, v *View) ([]types.Row, string, error) {
	deadline := time.Now().Add(n.cfg.ReadTimeout)
	var lastErr error
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			if time.Now().After(deadline) {
				return nil, "", pgerr.New(pgerr.SerializationFailure,
					"materialized view %q could not be read: some key groups have no active owner (%v)", v.Name, lastErr).
					WithHint("Key groups move between nodes after a node joins or fails; retry the query.")
			}
			select {
			case <-ctx.Done():
				return nil, "", ctx.Err()
			case <-time.After(200 * time.Millisecond):
			}
		}
		owners, missing, err := n.owners(ctx, v)
		if err != nil {
			lastErr = err
			continue
		}
		if len(missing) > 0 {
			lastErr = fmt.Errorf("key groups %v are not assigned", missing)
			continue
		}
		var rows []types.Row
		var notes []string
		ok := true
		for _, o := range owners {
			reads, err := n.readFrom(ctx, v, o)
			if err != nil {
				lastErr = fmt.Errorf("%s: %w", o.node, err)
				ok = false
				break
			}
			byEpoch := map[uint64][]string{}
			var epochs []uint64
			for _, r := range reads {
				rows = append(rows, r.rows...)
				if byEpoch[r.epoch] == nil {
					epochs = append(epochs, r.epoch)
				}
				byEpoch[r.epoch] = append(byEpoch[r.epoch], strconv.Itoa(int(r.part)))
			}
			sort.Slice(epochs, func(i, j int) bool { return epochs[i] < epochs[j] })
			for _, e := range epochs {
				groups := "key groups " + strings.Join(byEpoch[e], ",")
				if len(byEpoch[e]) == 1 {
					groups = "key group " + byEpoch[e][0]
				}
				notes = append(notes, fmt.Sprintf("%s from %s at epoch %d", groups, o.node, e))
			}
		}
		if !ok {
			continue
		}
		return rows, fmt.Sprintf("read %q: %s", v.Name, strings.Join(notes, "; ")), nil
	}
}

// readFrom reads an owner's key groups: locally for this node, else over
// the Postgres wire.
func (n *Node) readFrom(ctx context.Context, v *View, o owner) ([]partRead, error) {
	if o.node == fmt.Sprintf("weir-node-%d", n.cfg.NodeID) && o.addr == n.cfg.Addr {
		_, j := n.catalogView(v.Name)
		if j == nil || j.view.Ident != v.Ident {
			return nil, fmt.Errorf("no job for %q", v.Name)
		}
		return j.read(o.parts)
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := pgconn.Connect(cctx, fmt.Sprintf("postgres://root@%s/dev?sslmode=disable", o.addr))
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	ps := make([]string, len(o.parts))
	for i, p := range o.parts {
		ps[i] = strconv.Itoa(int(p))
	}
	res, err := conn.Exec(cctx, peerRead+v.Name+" "+v.Ident+" "+strings.Join(ps, ",")).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(res) != 1 || res[0].Err != nil {
		if len(res) == 1 {
			return nil, res[0].Err
		}
		return nil, fmt.Errorf("unexpected peer read result")
	}
	reads := map[int32]*partRead{}
	var order []int32
	for _, raw := range res[0].Rows {
		if len(raw) != 3+len(v.Schema) {
			return nil, fmt.Errorf("peer read returned %d columns", len(raw))
		}
		p, _ := strconv.Atoi(string(raw[0]))
		e, _ := strconv.ParseUint(string(raw[1]), 10, 64)
		r := reads[int32(p)]
		if r == nil {
			r = &partRead{part: int32(p), epoch: e}
			reads[int32(p)] = r
			order = append(order, int32(p))
		}
		if string(raw[2]) != "1" {
			continue // an empty key group, sent for its epoch
		}
		row := make(types.Row, len(v.Schema))
		for i, c := range v.Schema {
			if raw[3+i] == nil {
				row[i] = types.NullDatum
				continue
			}
			d, err := types.ParseText(string(raw[3+i]), c.T, nil)
			if err != nil {
				return nil, err
			}
			row[i] = d
		}
		r.rows = append(r.rows, row)
	}
	out := make([]partRead, 0, len(order))
	for _, p := range order {
		out = append(out, *reads[p])
	}
	return out, nil
}

// preparePeerRead answers another node's read of key groups this node
// owns: one row per group (key group, epoch, present = 1, then the view's
// columns as text), and a row with present = 0 for an empty key group so
// that its epoch is reported too.
func (n *Node) preparePeerRead(args string) (wire.Prepared, error) {
	f := strings.Fields(args)
	if len(f) != 3 {
		return nil, pgerr.New(pgerr.SyntaxError, "malformed cluster read")
	}
	v, j := n.catalogView(f[0])
	if v == nil || j == nil || v.Ident != f[1] {
		return nil, pgerr.New(pgerr.ObjectNotInPrerequisiteState, "materialized view %q (%s) does not run on node %d", f[0], f[1], n.cfg.NodeID)
	}
	var parts []int32
	for _, s := range strings.Split(f[2], ",") {
		p, err := strconv.Atoi(s)
		if err != nil {
			return nil, pgerr.New(pgerr.SyntaxError, "malformed cluster read")
		}
		parts = append(parts, int32(p))
	}
	fields := []wire.Field{{Name: "key_group", T: types.TInt4}, {Name: "epoch", T: types.TInt8}, {Name: "present", T: types.TInt4}}
	for _, c := range v.Schema {
		fields = append(fields, wire.Field{Name: c.Name, T: types.TText})
	}
	return &prepared{fields: fields, exec: func(ctx context.Context, _ wire.ExecIO) (*result, error) {
		reads, err := j.read(parts)
		if err != nil {
			return nil, err
		}
		res := &result{}
		for _, r := range reads {
			head := types.Row{types.DInt(int64(r.part)), types.DInt(int64(r.epoch))}
			if len(r.rows) == 0 {
				row := append(append(types.Row(nil), head...), types.DInt(0))
				for range v.Schema {
					row = append(row, types.NullDatum)
				}
				res.rows = append(res.rows, row)
			}
			for _, vr := range r.rows {
				row := append(append(types.Row(nil), head...), types.DInt(1))
				for i, d := range vr {
					if d.Null {
						row = append(row, types.NullDatum)
					} else {
						row = append(row, types.DString(types.FormatText(d, v.Schema[i].T, nil)))
					}
				}
				res.rows = append(res.rows, row)
			}
		}
		res.tag = fmt.Sprintf("SELECT %d", len(res.rows))
		return res, nil
	}}, nil
}
