package planner

import (
	"slices"
	"strings"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// This file plans the stream nodes of connectors: sources read inside a
// job (StreamSource), tables fed by a connector (a StreamSource into a
// StreamMaterialize of the table) and sinks (StreamSink at a job's root).

// HasConnector reports whether rel is fed by an external connector: a
// source, or a table created WITH (connector = ...). Such a table is
// written by a job of its own, not by DML.
func HasConnector(rel *catalog.Relation) bool {
	return rel.Kind == catalog.KindSource || rel.Kind == catalog.KindTable && rel.With["connector"] != ""
}

// sourceState describes a source's position state table: one row per
// partition, key (partition int4), value (next offset int8).
func (sp *streamPlanner) sourceState() StateTableDesc {
	return StateTableDesc{
		ID:      sp.alloc(),
		Name:    "source_position",
		Cols:    types.Schema{{Name: "partition", T: types.TInt4, NotNull: true}, {Name: "next_offset", T: types.TInt8, NotNull: true}},
		KeyCols: []int{0},
	}
}

// newSource returns the StreamSource of rel reading all its columns,
// keyed by rel's primary key (the hidden _row_id of a source).
func (sp *streamPlanner) newSource(rel *catalog.Relation) *StreamSource {
	n := &StreamSource{Rel: rel}
	for i, c := range rel.Cols {
		n.Cols = append(n.Cols, i)
		n.Out = append(n.Out, types.Column{Name: c.Name, T: c.T, NotNull: c.NotNull, Hidden: c.Hidden})
	}
	if len(rel.PK) == 0 {
		failUnsupported("source %q has no row id", rel.Name)
	}
	n.StreamKey = append([]int(nil), rel.PK...)
	n.AppendOnly = !strings.EqualFold(rel.With["format"], "upsert")
	n.Dist = Distribution{Kind: DistSingle}
	n.State = sp.sourceState()
	if n.Watermark = sourceWatermark(rel); n.Watermark != nil {
		n.Watermarks = []int{n.Watermark.Col}
	}
	return n
}

// source plans a scan of a source: the job reads the source itself.
func (sp *streamPlanner) source(s *Scan) StreamNode {
	n := sp.newSource(s.Rel)
	if len(s.Cols) == len(n.Cols) {
		same := true
		for i, c := range s.Cols {
			same = same && c == n.Cols[i]
		}
		if same {
			return n
		}
	}
	// The scan's columns first, then the key if the scan lacks it.
	exprs := make([]Expr, 0, len(s.Cols)+1)
	out := make(types.Schema, 0, len(s.Cols)+1)
	for _, c := range s.Cols {
		exprs = append(exprs, &ColRef{Idx: c, T: n.Out[c].T})
		out = append(out, n.Out[c])
	}
	for _, pk := range n.StreamKey {
		if indexOf(s.Cols, pk) < 0 {
			exprs = append(exprs, &ColRef{Idx: pk, T: n.Out[pk].T})
			c := n.Out[pk]
			c.Hidden = true
			out = append(out, c)
		}
	}
	return newProject(n, exprs, out)
}

// PlanConnectorTable plans the job of a table fed by a connector: its
// source read into the table's storage (state table rel.ID, keyed by
// rel.PK). A table with FORMAT UPSERT (rel.With["format"]) overwrites
// rows by key and deletes on tombstones. alloc hands out the other state
// table ids, as for PlanStream.
func PlanConnectorTable(rel *catalog.Relation, alloc func() uint32) (root *StreamMaterialize, err error) {
	defer func() {
		if r := recover(); r != nil {
			pe, ok := r.(*pgerr.Error)
			if !ok {
				panic(r)
			}
			root, err = nil, pe
		}
	}()
	sp := &streamPlanner{alloc: alloc}
	src := sp.newSource(rel)
	n := exchange(src, hashDist(src.StreamKey), false)
	m := &StreamMaterialize{Input: n, Rel: rel, Cols: append([]int(nil), src.Cols...),
		Upsert: strings.EqualFold(rel.With["format"], "upsert")}
	m.Out = append(types.Schema(nil), src.Out...)
	m.StreamKey = append([]int(nil), rel.PK...)
	m.AppendOnly = src.AppendOnly
	m.Dist = n.Base().Dist
	m.Watermarks = mappedWatermarks(n.Base().Watermarks, m.Cols)
	m.State = StateTableDesc{ID: rel.ID, Name: "materialize", Cols: append(types.Schema(nil), m.Out...),
		KeyCols: append([]int(nil), rel.PK...), OrderDesc: make([]bool, len(rel.PK)), DistKeyCols: append([]int(nil), rel.PK...)}
	return m, nil
}

// SinkSpec is what PlanSink needs from CREATE SINK's options.
type SinkSpec struct {
	// Format is "plain", "upsert" or "debezium".
	Format string
	// PrimaryKey names the sink's key columns (primary_key option); when
	// empty, an UPSERT or DEBEZIUM sink is keyed by the query's unique key
	// if that is made of output columns.
	PrimaryKey      []string
	ForceAppendOnly bool
}

// PlanSink converts the bound query of CREATE SINK into a stream plan
// rooted at a StreamSink of sink, whose Cols it fills in (the query's
// visible output columns). Errors: 0A000 as PlanStream; 42703 for a
// primary_key column that is not an output column; 42P10 when an UPSERT
// or DEBEZIUM sink has no key; 0A000 for a PLAIN sink over a changelog
// that can retract without force_append_only. An UPSERT or DEBEZIUM sink
// over a retracting query whose stream key is not within the sink's key
// compacts each epoch's changes by that key (StreamSink.Compact), which is
// exact when the key identifies the query's rows.
func PlanSink(p Plan, sink *catalog.Relation, spec SinkSpec, alloc func() uint32) (root *StreamSink, err error) {
	defer func() {
		if r := recover(); r != nil {
			pe, ok := r.(*pgerr.Error)
			if !ok {
				panic(r)
			}
			root, err = nil, pe
		}
	}()
	sp := &streamPlanner{alloc: alloc, before5: before5(sink), before8: before8(sink)}
	sp.checkExprs(p)
	n := sp.plan(prunePlan(p, sink))
	out := p.Schema()
	b := n.Base()
	s := &StreamSink{Rel: sink, Format: spec.Format, ForceAppendOnly: spec.ForceAppendOnly}
	seen := map[string]bool{}
	sink.Cols = nil
	for i, c := range out {
		if c.Hidden {
			continue
		}
		if seen[c.Name] {
			fail(pgerr.New(pgerr.DuplicateColumn, "column \"%s\" specified more than once", c.Name))
		}
		seen[c.Name] = true
		s.Cols = append(s.Cols, i)
		sink.Cols = append(sink.Cols, catalog.Column{Name: c.Name, T: c.T, NotNull: c.NotNull})
		s.Out = append(s.Out, types.Column{Name: c.Name, T: c.T, NotNull: c.NotNull})
	}
	for _, name := range spec.PrimaryKey {
		at := -1
		for i, c := range sink.Cols {
			if c.Name == name {
				at = i
			}
		}
		if at < 0 {
			fail(pgerr.New(pgerr.UndefinedColumn, "primary_key column \"%s\" is not a column of the sink", name))
		}
		s.Key = append(s.Key, at)
	}
	if len(s.Key) == 0 && spec.Format != "plain" {
		for _, k := range b.StreamKey {
			at := indexOf(s.Cols, k)
			if at < 0 {
				s.Key = nil
				break
			}
			s.Key = append(s.Key, at)
		}
		if len(s.Key) == 0 {
			fail(pgerr.New(pgerr.InvalidColumnReference, "%s sink needs a primary key", withArticle(strings.ToUpper(spec.Format))).
				WithDetail("The query's output has no unique key of its own among its columns (a GROUP BY's columns, or the primary key of the table it reads), so the sink cannot take one from it.").
				WithHint("Add primary_key = 'col, ...' to the WITH options."))
		}
	}
	if spec.Format == "plain" && !b.AppendOnly && !spec.ForceAppendOnly {
		fail(unsupported("the sink's query can update or delete rows, which FORMAT PLAIN cannot write").
			WithHint("Use FORMAT UPSERT or FORMAT DEBEZIUM, or add force_append_only = 'true' to the WITH options to drop deletes and write updates as inserts."))
	}
	if len(s.Key) > 0 {
		// All changes of a key go through one sink actor. They arrive in
		// order only for one stream key (one upstream actor sends them
		// all), so a retracting input whose stream key is not within the
		// sink's key is compacted by the sink at each barrier.
		keys := make([]int, len(s.Key))
		for i, k := range s.Key {
			keys[i] = s.Cols[k]
		}
		if spec.Format != "plain" && !b.AppendOnly {
			for _, k := range b.StreamKey {
				if !slices.Contains(keys, k) {
					s.Compact = true
				}
			}
		}
		n = exchange(n, hashDist(keys), false)
		b = n.Base()
	}
	s.Input = n
	s.StreamKey = nil
	for _, k := range b.StreamKey {
		if at := indexOf(s.Cols, k); at >= 0 {
			s.StreamKey = append(s.StreamKey, at)
		}
	}
	s.AppendOnly = b.AppendOnly || spec.ForceAppendOnly
	s.Dist = mapDist(b.Dist, inverse(s.Cols))
	s.State = StateTableDesc{
		ID:   alloc(),
		Name: "sink_txn",
		Cols: types.Schema{
			{Name: "actor", T: types.TInt4, NotNull: true}, {Name: "transactional_id", T: types.TText, NotNull: true},
			{Name: "epoch", T: types.TInt8, NotNull: true}, {Name: "record", T: types.TBytea, NotNull: true},
		},
		KeyCols: []int{0, 1},
	}
	if sharesSubplans(sink) {
		shareSubplans(s)
	}
	return s, nil
}

// withArticle returns word after its indefinite article ("an UPSERT",
// "a DEBEZIUM"), for messages naming a format or kind the statement
// chose.
func withArticle(word string) string {
	if word != "" && strings.ContainsRune("AEIOUaeiou", rune(word[0])) {
		return "an " + word
	}
	return "a " + word
}
