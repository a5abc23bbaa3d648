package engine

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// Format versions. A data directory records the format of what it holds
// (the catalog and the encodings of the state tables) in the meta entry
// system/format_version; a directory without it was written before
// versions were recorded and is version 1. A weir opens a directory of
// its own version or an older one, upgrading it (each step below, in
// order, durably) before anything else reads it; a directory of a newer
// version is refused: this weir would misread it.
//
//	1  the format of weir 0.1 (catalog entries as JSON, "v":1)
//	2  every streaming relation records the layout of each of its state
//	   tables (catalog.Relation.StateLayout); jobs refuse a plan whose
//	   layout differs from the recorded one. Backups record their origin
//	   (system/restored_from) and may hold the sinks (system/sinks_held).
//	3  a full join's stream key holds a mark of each side, so the
//	   NULL-padded rows of its two sides never share a key; relations
//	   created before keep their layout (planner.WithFullJoinMarks
//	   "false", set by the upgrade from 1), and a numeric sum's counts
//	   by scale follow its aggregation's state columns
//	   (functions.AccumulatorTailTypes), which older rows lack.
//	4  a jsonb or array key column is encoded by value (jsonb numbers
//	   numerically, array elements each by its type's key encoding)
//	   instead of as its text, so that '1' and '1.0' are one jsonb key
//	   and '{1.0}' and '{1}' one numeric[] key. A directory of version 3
//	   whose relations have no such key column (primary key, stream key
//	   or state table key) is upgraded as it is; one with such a column
//	   is refused (55000, naming the relation) before anything is
//	   written, as its stored keys would be misread: drop that relation
//	   with the weir that wrote the directory first.
//	5  stream plans carry only the columns their operators read (column
//	   pruning), which changes the state layout of joins, top-N and over
//	   windows, and DISTINCT aggregates over the same columns share one
//	   table of values with a count per aggregate; relations created
//	   before keep their plans (planner.WithPlanFormat "4", set by the
//	   upgrade from 4 and from 1).
//	6  a stream plan computes equal subplans once (planner.StreamShare):
//	   the copies' state tables stay unused, so the layout changes;
//	   relations created before keep their plans (planner.WithPlanFormat
//	   "5", set by the upgrade from 5; older ones have theirs already).
//	7  a ProjectSet has a state table of the input rows whose expansion
//	   a barrier passed midway (planner.StreamProjectSet.State); the
//	   relations planned before (format 6 and older, and any directory
//	   upgraded from them) recorded none. The upgrade gives each of
//	   their ProjectSets a new, empty table, inserted at its place in the
//	   relation's state tables and layout (addProjectSetStates): no older
//	   weir left an expansion pending at a barrier.
//	8  a max over counts that only grow keeps no table of its values
//	   (planner.StreamHashAgg.GrowOnly), which changes the state layout;
//	   relations created before keep their plans (planner.WithPlanFormat
//	   "7", set by the upgrade from 7; older ones have theirs already).
//	9  an aggregation's state rows end in a second generation of tails
//	   (functions.AccumulatorTailGens): counts of NaN and infinite
//	   inputs, compensated float sums and out-of-range interval sums.
//	   Rows written before read them as NULL, so the upgrade changes
//	   nothing; the version keeps an older weir, which would find the
//	   rows too long (XX001), from opening a directory that has them.
const (
	// FormatVersion is the data directory format this weir writes.
	FormatVersion = 9
	// metaFormatVersion is the meta entry holding the format (decimal).
	metaFormatVersion = "system/format_version"
)

// readFormat returns the directory's format version: 1 when none is
// recorded, 0 for a directory never used (no committed epoch, no catalog
// entry, no version).
func readFormat(db *storage.DB) (int, error) {
	v, ok, err := db.Meta(metaFormatVersion)
	if err != nil {
		return 0, err
	}
	if ok {
		n, err := strconv.Atoi(string(v))
		if err != nil || n < 1 {
			return 0, pgerr.New(pgerr.DataCorrupted, "corrupt format version %q in the data directory", v)
		}
		return n, nil
	}
	if _, used, err := db.Meta("counter/" + "relation"); err != nil || used {
		return 1, err
	}
	if _, used, err := db.Meta(storage.MetaCommittedEpoch); err != nil || used {
		return 1, err
	}
	return 0, nil
}

// checkFormat refuses a data directory written by a newer weir.
func checkFormat(db *storage.DB) error {
	v, err := readFormat(db)
	if err != nil {
		return err
	}
	if v > FormatVersion {
		return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "database files are incompatible with this weir").
			WithDetail("The data directory %s has format version %d; this weir (%s) reads versions up to %d.", db.Dir(), v, Version, FormatVersion).
			WithHint("Run a weir at least as new as the one that wrote it.")
	}
	return nil
}

// openFormat checks the directory's format and records the current one
// for a new directory. An older directory is upgraded by upgradeFormat
// once the catalog is open.
func openFormat(db *storage.DB) error {
	if err := checkFormat(db); err != nil {
		return err
	}
	v, err := readFormat(db)
	if err != nil || v != 0 {
		return err
	}
	return writeFormat(db, FormatVersion)
}

func writeFormat(db *storage.DB, v int) error {
	b := db.NewBatch()
	defer b.Close()
	if err := b.SetMeta(metaFormatVersion, []byte(strconv.Itoa(v))); err != nil {
		return err
	}
	return b.Commit()
}

// upgradeFormat brings an older data directory to FormatVersion, one
// version at a time. Called by Open after the catalog is loaded and
// before any job starts.
func (e *Engine) upgradeFormat() error {
	v, err := readFormat(e.db)
	if err != nil {
		return err
	}
	for v < FormatVersion {
		switch v {
		case 1:
			// Version 2 records every streaming relation's state layout:
			// plan each as this weir does (with its recorded state table
			// ids) and record what the plan reads and writes. A relation
			// whose plan fails keeps no layout; its job reports the error.
			for _, rel := range e.cat.All() {
				if !hasJob(rel) || len(rel.StateLayout) > 0 {
					continue
				}
				// Its full joins were planned without side marks (format
				// 3): keep them so.
				up := rel.Clone()
				if up.With == nil {
					up.With = map[string]string{}
				}
				up.With[planner.WithFullJoinMarks] = "false"
				up.With[planner.WithPlanFormat] = "4"
				mapped, err := e.addProjectSetStates(up)
				if err != nil {
					return err
				}
				if mapped != nil {
					up = mapped
				}
				root, err := e.planRel(up)
				if err != nil {
					e.log.Warn("upgrade: cannot plan a streaming relation to record its state layout", "relation", rel.Name, "err", err)
					continue
				}
				up.StateLayout = stateLayout(root, up.StateTables)
				if err := e.cat.Replace(up); err != nil {
					return err
				}
			}
		case 3:
			if err := e.checkNoTextEncodedKeys(); err != nil {
				return err
			}
		case 4:
			// Version 5 prunes columns from stream plans: relations
			// created before keep the layout they were planned with.
			if err := e.keepPlanFormat("4"); err != nil {
				return err
			}
		case 5:
			// Version 6 shares equal subplans.
			if err := e.keepPlanFormat("5"); err != nil {
				return err
			}
		case 6:
			// Version 7 gives ProjectSets a state table.
			for _, rel := range e.cat.All() {
				if !hasJob(rel) {
					continue
				}
				up, err := e.addProjectSetStates(rel)
				if err != nil {
					return err
				}
				if up == nil {
					continue
				}
				if err := e.cat.Replace(up); err != nil {
					return err
				}
				e.log.Info("upgrade: a new state table for each ProjectSet", kindWords[rel.Kind], rel.Name, "state_tables", len(up.StateTables)-len(rel.StateTables))
			}
		case 7:
			// Version 8 drops the table of values of a grow-only max.
			if err := e.keepPlanFormat("7"); err != nil {
				return err
			}
		}
		v++
		if err := writeFormat(e.db, v); err != nil {
			return err
		}
		e.log.Info("data directory upgraded", "format_version", v)
	}
	return nil
}

// probeIDBase is where the placeholder state table ids of planRelProbe
// start: above every id the catalog hands out (catalog.NextStateTableID).
const probeIDBase = 1<<32 - catalog.FirstUserOID

// planRelProbe plans rel's job as planRel does, with placeholder state
// table ids instead of its recorded ones, however many its plan takes:
// it returns the plan and the placeholders in allocation order.
func (e *Engine) planRelProbe(rel *catalog.Relation) (planner.StreamNode, []uint32, error) {
	var ids []uint32
	alloc := func() uint32 {
		id := uint32(probeIDBase + len(ids))
		ids = append(ids, id)
		return id
	}
	ok := func() error { return nil }
	var root planner.StreamNode
	var err error
	switch {
	case materialized(rel):
		root, err = e.planViewAlloc(rel, nil, alloc, ok)
	case rel.Kind == catalog.KindSink:
		root, err = e.planSinkRelAlloc(rel, nil, alloc, ok)
	default:
		root, err = planConnectorTableAlloc(rel, alloc, ok)
	}
	if err != nil {
		return nil, nil, err
	}
	if len(ids) >= catalog.FirstUserOID {
		return nil, nil, pgerr.New(pgerr.ProgramLimitExceeded, "%s \"%s\" has too many state tables", kindWords[rel.Kind], rel.Name)
	}
	return root, ids, nil
}

// isProjectSetState reports whether a state table described by layout
// (describeState) is a ProjectSet's.
func isProjectSetState(layout string) bool {
	return strings.HasPrefix(layout, "project_set(")
}

// addProjectSetStates returns rel with a new state table id for each of
// its ProjectSets that its recorded ids lack (rel was planned before
// format version 7), or nil when rel needs none or its ids cannot be
// mapped onto its plan so (its job then reports the difference, 55000).
//
// The plan's tables are matched, in allocation order, with the recorded
// ones: a table equal to the next recorded layout takes its id, a
// ProjectSet's table (or an unused one, a shared subplan's copy, which
// holds nothing either way) not in the record gets a new id, and any
// other difference leaves rel unmapped. A relation recorded with no
// layout (format 1) is matched by count: each ProjectSet's table is new,
// every other takes the next recorded id. The new tables are empty, and
// that is their content: no older weir left an expansion pending at a
// barrier.
func (e *Engine) addProjectSetStates(rel *catalog.Relation) (*catalog.Relation, error) {
	root, probe, err := e.planRelProbe(rel)
	if err != nil || len(probe) <= len(rel.StateTables) {
		// A plan that fails is the job's to report.
		return nil, nil
	}
	layout := stateLayout(root, probe)
	recorded := rel.StateLayout
	if len(recorded) != 0 && len(recorded) != len(rel.StateTables) {
		return nil, nil
	}
	fresh := make([]bool, len(layout))
	j := 0
	for i, l := range layout {
		switch {
		case len(recorded) > 0 && j < len(recorded) && l == recorded[j],
			len(recorded) == 0 && j < len(rel.StateTables) && !isProjectSetState(l):
			j++
		case isProjectSetState(l), len(recorded) > 0 && l == "unused":
			fresh[i] = true
		default:
			return nil, nil
		}
	}
	if j != len(rel.StateTables) {
		return nil, nil
	}
	up := rel.Clone()
	up.StateTables = make([]uint32, 0, len(layout))
	j = 0
	for i := range layout {
		if !fresh[i] {
			up.StateTables = append(up.StateTables, rel.StateTables[j])
			j++
			continue
		}
		id, err := e.cat.NextStateTableID()
		if err != nil {
			return nil, err
		}
		up.StateTables = append(up.StateTables, id)
	}
	if len(recorded) > 0 {
		up.StateLayout = layout
	}
	return up, nil
}

// keepPlanFormat makes the views and sinks planned by the current
// planner (no planner.WithPlanFormat) keep the plans of format version:
// an upgrade whose planner changes state layouts.
func (e *Engine) keepPlanFormat(version string) error {
	for _, rel := range e.cat.All() {
		if rel.Kind != catalog.KindMView && rel.Kind != catalog.KindSink || rel.With[planner.WithPlanFormat] != "" {
			continue
		}
		up := rel.Clone()
		if up.With == nil {
			up.With = map[string]string{}
		}
		up.With[planner.WithPlanFormat] = version
		if err := e.cat.Replace(up); err != nil {
			return err
		}
	}
	return nil
}

// checkNoTextEncodedKeys refuses a version 3 directory holding keys with
// a jsonb or array column, which version 4 encodes differently: a
// relation's primary (stream) key, or the key of one of its state tables.
func (e *Engine) checkNoTextEncodedKeys() error {
	refuse := func(rel *catalog.Relation, t types.T, what string) error {
		return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "database files are incompatible with this weir: %s \"%s\" has a %s column in %s, stored in the key encoding of format version 3",
			kindWords[rel.Kind], rel.Name, t, what).
			WithDetail("This weir (%s) encodes jsonb and array keys by value (format version %d) and would misread them.", Version, FormatVersion).
			WithHint("Drop the relation with the weir that wrote the data directory, then open it with this weir and create the relation again.")
	}
	changed := func(t types.T) bool { return t.ID == types.Jsonb || t.IsArray() }
	for _, rel := range e.cat.All() {
		for _, i := range rel.PK {
			if i < len(rel.Cols) && changed(rel.Cols[i].T) {
				return refuse(rel, rel.Cols[i].T, "its primary key")
			}
		}
		if !hasJob(rel) {
			continue
		}
		root, err := e.planRel(rel)
		if err != nil {
			e.log.Warn("upgrade: cannot plan a streaming relation to check its state keys", "relation", rel.Name, "err", err)
			continue
		}
		byID := map[uint32]planner.StateTableDesc{}
		collectStates(reflect.ValueOf(root), byID, 0)
		for _, id := range rel.StateTables {
			d := byID[id]
			for _, k := range d.KeyCols {
				if k < len(d.Cols) && changed(d.Cols[k].T) {
					return refuse(rel, d.Cols[k].T, "the key of its state table "+d.Name)
				}
			}
		}
	}
	return nil
}

// planRel plans rel's job with its recorded state table ids.
func (e *Engine) planRel(rel *catalog.Relation) (planner.StreamNode, error) {
	return e.planRelOver(rel, nil)
}

// planRelOver is planRel seeing the relations of over in place of the
// catalog's.
func (e *Engine) planRelOver(rel *catalog.Relation, over map[uint32]*catalog.Relation) (planner.StreamNode, error) {
	switch {
	case materialized(rel):
		return e.planViewOver(rel, over)
	case rel.Kind == catalog.KindSink:
		return e.planSinkRelOver(rel, over)
	default:
		return planConnectorTable(rel)
	}
}

// checkStateLayout compares the layout of a plan of rel with the one rel
// recorded when it was created: a plan that would read its state tables
// differently (a planner change since) is refused with 55000 naming the
// first difference, never run over state it would misread.
func checkStateLayout(rel *catalog.Relation, root planner.StreamNode) error {
	if len(rel.StateLayout) == 0 {
		return nil
	}
	got := stateLayout(root, rel.StateTables)
	for i := range max(len(got), len(rel.StateLayout)) {
		var want, have string
		if i < len(rel.StateLayout) {
			want = rel.StateLayout[i]
		}
		if i < len(got) {
			have = got[i]
		}
		if want != have {
			return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "%s \"%s\" cannot run on this weir: its state table %d was written as %s, and this weir would read it as %s",
				kindWords[rel.Kind], rel.Name, i+1, orNone(want), orNone(have)).
				WithHint("Run the weir version that created it, or drop and create it again.")
		}
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// stateLayout describes each state table of the plan rooted at root, in
// the order of ids: operator name, column types, key columns with their
// order, and the distribution key. Column names are left out: they do
// not change how a row is stored.
func stateLayout(root planner.StreamNode, ids []uint32) []string {
	byID := map[uint32]planner.StateTableDesc{}
	collectStates(reflect.ValueOf(root), byID, 0)
	out := make([]string, len(ids))
	for i, id := range ids {
		d, ok := byID[id]
		if !ok {
			out[i] = "unused"
			continue
		}
		out[i] = describeState(d)
	}
	return out
}

func describeState(d planner.StateTableDesc) string {
	var b strings.Builder
	b.WriteString(d.Name)
	b.WriteByte('(')
	for i, c := range d.Cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.T.String())
	}
	b.WriteString(") key ")
	fmt.Fprint(&b, d.KeyCols)
	if slices.Contains(d.OrderDesc, true) {
		b.WriteString(" desc ")
		fmt.Fprint(&b, d.OrderDesc)
	}
	if len(d.DistKeyCols) > 0 {
		b.WriteString(" dist ")
		fmt.Fprint(&b, d.DistKeyCols)
	}
	return b.String()
}

var (
	stateDescType = reflect.TypeOf(planner.StateTableDesc{})
	plannerPkg    = stateDescType.PkgPath()
)

// collectStates finds every StateTableDesc reachable from v through the
// planner's own types (plan nodes, their specs, slices of them).
func collectStates(v reflect.Value, out map[uint32]planner.StateTableDesc, depth int) {
	if depth > 100 || !v.IsValid() {
		return
	}
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return
		}
		collectStates(v.Elem(), out, depth+1)
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() != reflect.Interface && v.Type().Elem().PkgPath() != plannerPkg &&
			!(v.Type().Elem().Kind() == reflect.Pointer && v.Type().Elem().Elem().PkgPath() == plannerPkg) {
			return
		}
		for i := range v.Len() {
			collectStates(v.Index(i), out, depth+1)
		}
	case reflect.Struct:
		if v.Type() == stateDescType {
			d := v.Interface().(planner.StateTableDesc)
			if d.ID != 0 {
				out[d.ID] = d
			}
			return
		}
		if v.Type().PkgPath() != plannerPkg {
			return
		}
		for i := range v.NumField() {
			if !v.Type().Field(i).IsExported() {
				continue
			}
			collectStates(v.Field(i), out, depth+1)
		}
	}
}
