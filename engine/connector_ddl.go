package engine

import (
	"context"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/weirdb/weir/connector/kafka"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// This file runs the DDL of connectors: CREATE SOURCE, CREATE TABLE ...
// WITH (connector = ...), CREATE SINK, and EXPLAIN CREATE SINK.

// connectorColumns turns the column list and INCLUDE clauses of a source
// or a table with a connector into catalog columns; with has the
// include.<column> options added.
func connectorColumns(defs []sql.ColumnDef, include []sql.IncludeClause, with map[string]string) ([]catalog.Column, error) {
	var cols []catalog.Column
	seen := map[string]bool{}
	add := func(c catalog.Column) error {
		if seen[c.Name] {
			return pgerr.New(pgerr.DuplicateColumn, "column \"%s\" specified more than once", c.Name)
		}
		seen[c.Name] = true
		cols = append(cols, c)
		return nil
	}
	for _, d := range defs {
		if d.Default != "" {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "DEFAULT is not supported on columns read from a connector")
		}
		if d.Serial || d.Identity != "" {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "serial and identity columns are not supported on columns read from a connector")
		}
		if err := add(catalog.Column{Name: d.Name, T: d.Type.T, Domain: d.Type.Domain, DomainArray: d.Type.DomainArray, NotNull: d.NotNull || d.PrimaryKey}); err != nil {
			return nil, err
		}
	}
	for _, inc := range include {
		kind, ok := includeKinds[inc.What]
		if !ok {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "INCLUDE %s is not supported", inc.What).
				WithHint("Use INCLUDE partition, offset, timestamp or key.")
		}
		c := kind.Column()
		name := c.Name
		if inc.Alias != "" {
			name = inc.Alias
		}
		if err := add(catalog.Column{Name: name, T: c.T}); err != nil {
			return nil, err
		}
		with[optIncludePrefix+name] = inc.What
	}
	return cols, nil
}

// connectorWith merges a statement's WITH options with its FORMAT and
// ENCODE.
func connectorWith(with map[string]string, format, encode string) map[string]string {
	m := maps.Clone(with)
	if m == nil {
		m = map[string]string{}
	}
	if format != "" {
		m[optFormat] = format
	}
	if encode != "" {
		m[optEncode] = encode
	}
	return m
}

// createSource runs CREATE SOURCE: it records the source in the catalog.
// A source stores nothing and runs nothing by itself: every materialized
// view or sink reading it gets a reader of its own.
func (s *Session) createSource(ctx context.Context, st *sql.CreateSource, text string, io wire.ExecIO) (wire.Result, error) {
	if err := s.noDDLInBlock("CREATE SOURCE"); err != nil {
		return nil, err
	}
	for _, c := range st.Columns {
		if c.PrimaryKey {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "a source cannot have a primary key").
				WithHint("Use CREATE TABLE ... (..., PRIMARY KEY (...)) WITH (connector = 'kafka', ...) FORMAT UPSERT ENCODE JSON for a keyed topic.")
		}
	}
	with := connectorWith(st.With, st.Format, st.Encode)
	if err := checkSourceOptions(with, "source"); err != nil {
		return nil, err
	}
	if f := with[optFormat]; f == "upsert" {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "FORMAT UPSERT is not supported for sources").
			WithHint("Use CREATE TABLE with a primary key for a keyed topic.")
	}
	cols, err := connectorColumns(st.Columns, st.Include, with)
	if err != nil {
		return nil, err
	}
	if len(st.Columns) == 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "a source needs at least one column")
	}
	cols = append(cols, catalog.Column{Name: hiddenRowID, T: types.TInt8, NotNull: true, Hidden: true})
	e := s.eng
	schema, _, err := s.creationSchema(st.Name, false)
	if err != nil {
		return nil, err
	}
	rel := &catalog.Relation{Schema: schema, Name: st.Name.Name, Kind: catalog.KindSource,
		Cols: cols, PK: []int{len(cols) - 1}, SQL: text, With: with}
	if err := setWatermarkOptions(rel, st.Watermark, true); err != nil {
		return nil, err
	}
	if err := e.checkSourceConnector(ctx, rel, io); err != nil {
		return nil, err
	}
	if err := e.ddlMu.lockContext(ctx); err != nil {
		return nil, err
	}
	defer e.ddlMu.Unlock()
	if err := e.writeMu.lockContext(ctx); err != nil {
		return nil, err
	}
	defer e.writeMu.Unlock()
	if _, ok := e.cat.Lookup(rel.Schema, rel.Name); ok {
		if st.IfNotExists {
			io.Notice("NOTICE", "42P07", fmt.Sprintf("relation \"%s\" already exists, skipping", rel.Name))
			return done("CREATE SOURCE")
		}
		return nil, pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", rel.Name)
	}
	rel.Owner = s.role().OID
	if err := e.cat.Create(rel); err != nil {
		return nil, err
	}
	e.log.Info("created source", "name", rel.Name, "id", rel.ID, "topic", with[optTopic])
	return done("CREATE SOURCE")
}

// createConnectorTable runs CREATE TABLE ... WITH (connector = ...): a
// table whose rows come from a connector, written by a job of its own
// (the source read into the table's storage; FORMAT UPSERT and tables
// with a primary key overwrite rows by key).
func (s *Session) createConnectorTable(ctx context.Context, st *sql.CreateTable, text string, io wire.ExecIO) (wire.Result, error) {
	if st.AsQuery != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "CREATE TABLE AS with a connector is not supported")
	}
	with := connectorWith(st.With, st.Format, st.Encode)
	if err := checkSourceOptions(with, "table connector"); err != nil {
		return nil, err
	}
	cols, err := connectorColumns(st.Columns, st.Include, with)
	if err != nil {
		return nil, err
	}
	if len(st.Columns) == 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "tables without columns are not supported")
	}
	schema, _, err := s.creationSchema(st.Name, false)
	if err != nil {
		return nil, err
	}
	rel := &catalog.Relation{Schema: schema, Name: st.Name.Name, Kind: catalog.KindTable, Cols: cols, SQL: text, With: with}
	for _, name := range st.PrimaryKey {
		idx := -1
		for i, c := range rel.Cols {
			if c.Name == name {
				idx = i
			}
		}
		if idx < 0 {
			return nil, pgerr.New(pgerr.UndefinedColumn, "column \"%s\" named in key does not exist", name)
		}
		rel.PK = append(rel.PK, idx)
		rel.Cols[idx].NotNull = true
	}
	if with[optFormat] == "upsert" && len(rel.PK) == 0 {
		return nil, pgerr.New(pgerr.InvalidTableDefinition, "a table with FORMAT UPSERT needs a primary key").
			WithHint("The primary key says which record a later record with the same Kafka key replaces.")
	}
	if len(rel.PK) == 0 {
		rel.Cols = append(rel.Cols, catalog.Column{Name: hiddenRowID, T: types.TInt8, NotNull: true, Hidden: true})
		rel.PK = []int{len(rel.Cols) - 1}
	}
	for _, i := range rel.PK {
		if t := rel.Cols[i].T; t.ID == types.Jsonb || t.ID == types.Json || t.IsArray() {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "a %s column cannot be part of a primary key", t)
		}
	}
	if st.AppendOnly && with[optFormat] != "upsert" {
		with[appendOnlyOption] = "true"
	}
	if err := setWatermarkOptions(rel, st.Watermark, st.AppendOnly); err != nil {
		return nil, err
	}
	e := s.eng
	if err := e.checkSourceConnector(ctx, rel, io); err != nil {
		return nil, err
	}
	if err := e.ddlMu.lockContext(ctx); err != nil {
		return nil, err
	}
	defer e.ddlMu.Unlock()
	if err := e.writeMu.lockContext(ctx); err != nil {
		return nil, err
	}
	j, created, err := func() (*jobRun, bool, error) {
		defer e.writeMu.Unlock()
		if _, ok := e.cat.Lookup(rel.Schema, rel.Name); ok {
			if st.IfNotExists {
				io.Notice("NOTICE", "42P07", fmt.Sprintf("relation \"%s\" already exists, skipping", rel.Name))
				return nil, false, nil
			}
			return nil, false, pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", rel.Name)
		}
		alloc, allocErr := e.stateTableAlloc(rel)
		if _, err := planner.PlanConnectorTable(rel, alloc); err != nil {
			return nil, false, err
		}
		if err := allocErr(); err != nil {
			return nil, false, err
		}
		rel.Owner = s.role().OID
		return e.deployLocked(rel, func(r *catalog.Relation) (planner.StreamNode, error) { return planConnectorTable(r) })
	}()
	if err != nil || !created {
		if err != nil {
			return nil, err
		}
		return done("CREATE TABLE")
	}
	if err := e.launch(ctx, j, io, false); err != nil {
		return nil, err
	}
	e.log.Info("created table with a connector", "name", rel.Name, "id", rel.ID, "topic", with[optTopic])
	return done("CREATE TABLE")
}

// deployLocked records rel in the catalog, plans its job again from the
// stored relation (so the job is exactly what a recovery rebuilds) and
// starts its actors; the caller then adds it with a barrier. Called under
// writeMu.
func (e *Engine) deployLocked(rel *catalog.Relation, plan func(*catalog.Relation) (planner.StreamNode, error)) (*jobRun, bool, error) {
	if root, err := plan(rel); err == nil {
		rel.StateLayout = stateLayout(root, rel.StateTables)
	}
	if err := e.cat.Create(rel); err != nil {
		return nil, false, err
	}
	stored, _ := e.cat.ByID(rel.ID)
	root, err := plan(stored)
	if err == nil {
		var j *jobRun
		if j, err = e.newJob(stored, root); err == nil {
			err = e.joblessInput(j)
		}
		if err != nil && j != nil {
			j.cancel()
		} else if err == nil {
			e.subscribe(j, false)
			e.st.setJob(j)
			e.runJob(j)
			return j, true, nil
		}
	}
	_ = e.cat.Drop(rel.ID)
	return nil, false, err
}

// sinkSpec reads a sink's FORMAT and options.
func sinkSpec(with map[string]string) (planner.SinkSpec, error) {
	spec := planner.SinkSpec{Format: strings.ToLower(with[optFormat])}
	if spec.Format == "" {
		// RisingWave's older form: type = 'append-only' | 'upsert'.
		switch strings.ToLower(with["type"]) {
		case "", "append-only", "append_only":
			spec.Format = "plain"
		case "upsert":
			spec.Format = "upsert"
		default:
			return spec, pgerr.New(pgerr.InvalidParameterValue, "invalid value for type: \"%s\"", with["type"])
		}
	}
	if _, ok := sinkFormats[spec.Format]; !ok {
		return spec, pgerr.New(pgerr.FeatureNotSupported, "FORMAT %s is not supported for sinks", strings.ToUpper(spec.Format)).
			WithHint("Use FORMAT PLAIN, UPSERT or DEBEZIUM.")
	}
	if _, db := dbSinkKind(with); !db && !isBlackhole(with) && with[optFormat] != "" && with[optEncode] == "" {
		return spec, pgerr.New(pgerr.SyntaxError, "FORMAT %s needs ENCODE for a %s sink", strings.ToUpper(spec.Format), with[optConnector]).
			WithHint("Use FORMAT %s ENCODE JSON.", strings.ToUpper(spec.Format))
	}
	if enc := strings.ToLower(with[optEncode]); enc != "" && enc != "json" {
		return spec, pgerr.New(pgerr.FeatureNotSupported, "ENCODE %s is not supported for sinks", strings.ToUpper(enc)).
			WithHint("Use ENCODE JSON.")
	}
	for _, k := range strings.Split(with[optPrimaryKey], ",") {
		if k = strings.ToLower(strings.TrimSpace(k)); k != "" {
			if slices.Contains(spec.PrimaryKey, k) {
				return spec, pgerr.New(pgerr.DuplicateColumn, "column \"%s\" appears twice in primary_key", k)
			}
			spec.PrimaryKey = append(spec.PrimaryKey, k)
		}
	}
	b, err := boolOption(with, optForceAppend, false)
	if err != nil {
		return spec, err
	}
	spec.ForceAppendOnly = b
	return spec, nil
}

// boolOption reads a 'true'/'false' option.
func boolOption(with map[string]string, key string, def bool) (bool, error) {
	v, ok := with[key]
	if !ok {
		return def, nil
	}
	b, err := strconv.ParseBool(strings.ToLower(v))
	if err != nil {
		return false, pgerr.New(pgerr.InvalidParameterValue, "invalid value for %s: \"%s\"", key, v).WithHint("Use 'true' or 'false'.")
	}
	return b, nil
}

// sinkQuery returns the query a sink reads: its AS query, or all columns
// of its FROM relation.
func sinkQuery(st *sql.CreateSink) (*sql.Query, error) {
	if st.Query != nil {
		return st.Query, nil
	}
	stmt, err := sql.Parse("SELECT * FROM " + quoteName(st.From))
	if err != nil {
		return nil, err
	}
	return stmt.(*sql.Query), nil
}

func quoteName(n sql.ObjectName) string {
	q := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
	if n.Schema == "" {
		return q(n.Name)
	}
	return q(n.Schema) + "." + q(n.Name)
}

// planSink binds and plans a sink's query into a stream plan rooted at a
// StreamSink of rel (whose Cols it fills in).
func (s *Session) planSink(st *sql.CreateSink, rel *catalog.Relation, alloc func() uint32) (*planner.StreamSink, *planner.Bound, error) {
	spec, err := sinkSpec(rel.With)
	if err != nil {
		return nil, nil, err
	}
	snapshot, err := boolOption(rel.With, optSnapshot, true)
	if err != nil {
		return nil, nil, err
	}
	q, err := sinkQuery(st)
	if err != nil {
		return nil, nil, err
	}
	b, err := planner.Bind(q, s.catalogView(), nil)
	if err != nil {
		return nil, nil, err
	}
	if len(b.Params) > 0 {
		return nil, nil, pgerr.New(pgerr.FeatureNotSupported, "sinks may not be defined using bound parameters")
	}
	root, err := planner.PlanSink(b.Plan, rel, spec, alloc)
	if err != nil {
		return nil, nil, err
	}
	assignScanStates(root, alloc)
	if !snapshot {
		skipSnapshots(root)
	}
	return root, b, nil
}

// skipSnapshots makes every table scan of the plan read only changes.
func skipSnapshots(n planner.StreamNode) {
	if s, ok := n.(*planner.StreamTableScan); ok {
		s.SkipSnapshot = true
	}
	for _, in := range n.StreamInputs() {
		skipSnapshots(in)
	}
}

// planSinkRel plans the job of a stored sink again (recovery).
func (e *Engine) planSinkRel(rel *catalog.Relation) (*planner.StreamSink, error) {
	return e.planSinkRelOver(rel, nil)
}

// planSinkRelOver is planSinkRel seeing the relations of over in place
// of the catalog's.
func (e *Engine) planSinkRelOver(rel *catalog.Relation, over map[uint32]*catalog.Relation) (*planner.StreamSink, error) {
	alloc, check := replayAlloc(rel)
	return e.planSinkRelAlloc(rel, over, alloc, check)
}

// planSinkRelAlloc is planSinkRelOver taking its state table ids from
// alloc, and check's verdict on them.
func (e *Engine) planSinkRelAlloc(rel *catalog.Relation, over map[uint32]*catalog.Relation, alloc func() uint32, check func() error) (*planner.StreamSink, error) {
	stmt, err := sql.ParseDefinition(rel.SQL)
	if err != nil {
		return nil, err
	}
	st, ok := stmt.(*sql.CreateSink)
	if !ok {
		return nil, pgerr.New(pgerr.InternalError, "the stored definition of sink %s is not CREATE SINK: %T", rel.Name, stmt)
	}
	r := rel.Clone()
	root, _, err := e.definitionSession(rel, over).planSink(st, r, alloc)
	if err != nil {
		return nil, err
	}
	root.Rel = rel
	return root, check()
}

// createSink runs CREATE SINK: it plans the sink's query, records the
// sink, starts its job and, unless snapshot = 'false', waits until the
// current contents of what it reads have been written (and committed).
func (s *Session) createSink(ctx context.Context, st *sql.CreateSink, text string, io wire.ExecIO) (wire.Result, error) {
	if err := s.noDDLInBlock("CREATE SINK"); err != nil {
		return nil, err
	}
	e := s.eng
	if err := e.checkSinksNotHeld(); err != nil {
		return nil, err
	}
	with := connectorWith(st.With, st.Format, st.Encode)
	if err := checkOptions(with, sinkOptions, "sink"); err != nil {
		return nil, err
	}
	if err := checkParallelism(with); err != nil {
		return nil, err
	}
	if _, err := e.jobRestartStrategy(with); err != nil {
		return nil, err
	}
	schema, _, err := s.creationSchema(st.Name, false)
	if err != nil {
		return nil, err
	}
	// Its query is bound again (a restart) under the search path it is
	// created under.
	rel := &catalog.Relation{Schema: schema, Name: st.Name.Name, Kind: catalog.KindSink, SQL: text, With: with, SearchPath: s.storedSearchPath()}
	if err := s.checkSinkConnector(ctx, st, rel); err != nil {
		return nil, err
	}
	if _, ok := with["streaming_parallelism"]; !ok {
		par, _ := strconv.Atoi(s.get(settingsByName["streaming_parallelism"]))
		if par <= 0 {
			par = runtime.NumCPU()
		}
		with["streaming_parallelism"] = strconv.Itoa(par)
	}
	if v, ok := with[optTimeZone]; ok {
		if _, _, err := loadLocation(v); err != nil {
			return nil, err
		}
	} else {
		with[optTimeZone] = s.get(settingsByName["timezone"])
	}
	ctx, cancel := s.withTimeout(ctx)
	defer cancel()
	if err := e.ddlMu.lockContext(ctx); err != nil {
		return nil, err
	}
	defer e.ddlMu.Unlock()
	if err := e.writeMu.lockContext(ctx); err != nil {
		return nil, err
	}
	j, created, err := func() (*jobRun, bool, error) {
		defer e.writeMu.Unlock()
		if _, ok := e.cat.Lookup(rel.Schema, rel.Name); ok {
			if st.IfNotExists {
				io.Notice("NOTICE", "42P07", fmt.Sprintf("sink \"%s\" already exists, skipping", rel.Name))
				return nil, false, nil
			}
			return nil, false, pgerr.New(pgerr.DuplicateObject, "sink \"%s\" already exists", rel.Name)
		}
		alloc, allocErr := e.stateTableAlloc(rel)
		root, b, err := s.planSink(st, rel, alloc)
		if err != nil {
			return nil, false, err
		}
		if err := allocErr(); err != nil {
			return nil, false, err
		}
		if _, db := dbSinkKind(with); !db {
			if _, err := kafka.NewEncoder(sinkFormats[root.Format], root.Out, root.Key, nil, nil); err != nil {
				return nil, false, pgerr.Wrap(pgerr.InvalidParameterValue, err, "sink "+rel.Name)
			}
		}
		rel.Deps, rel.Funcs, rel.FuncDeps = b.Deps, b.Funcs, b.FuncDeps
		if err := e.unpopulatedInput(b.Deps); err != nil {
			return nil, false, err
		}
		if err := e.failedInput(b.Deps); err != nil {
			return nil, false, err
		}
		if e.usesTemp(b.Deps) != nil {
			return nil, false, pgerr.New(pgerr.FeatureNotSupported, "sinks must not use temporary tables or views")
		}
		rel.Owner = s.role().OID
		return e.deployLocked(rel, func(r *catalog.Relation) (planner.StreamNode, error) { return e.planSinkRel(r) })
	}()
	if err != nil {
		return nil, err
	}
	if !created {
		return done("CREATE SINK")
	}
	if err := e.launch(ctx, j, io, true); err != nil {
		return nil, err
	}
	e.log.Info("created sink", "name", rel.Name, "id", rel.ID, "topic", with[optTopic])
	return done("CREATE SINK")
}

// brokerPingTimeout bounds how long CREATE SINK and CREATE SOURCE wait
// for their broker to answer.
const brokerPingTimeout = 5 * time.Second

// pingBrokers returns 08001 when none of brokers answers within
// brokerPingTimeout, else nil.
func pingBrokers(ctx context.Context, brokers []string) *pgerr.Error {
	pctx, cancel := context.WithTimeout(ctx, brokerPingTimeout)
	defer cancel()
	if err := kafka.Ping(pctx, brokers); err != nil {
		return pgerr.New(pgerr.UnableToConnect, "could not connect to the Kafka broker at %s: %s", strings.Join(brokers, ","), brokerError(err))
	}
	return nil
}

// warnUnreachable warns, without failing the statement, when none of a
// source's brokers answers: a source reads its topic from the broker
// when views use it (retrying until the broker answers, with its errors
// in weir.stream_errors), so a source may be created before its broker
// is up, but a typo in the address should not go unnoticed.
func warnUnreachable(ctx context.Context, brokers []string, io wire.ExecIO) {
	if pe := pingBrokers(ctx, brokers); pe != nil {
		io.Notice("WARNING", string(pe.Code), pe.Message+"; views over it read nothing until it answers")
	}
}

// checkSinkBroker plans the sink's query, so that a query error comes
// first, then checks that its broker answers: a sink whose actors cannot
// connect would fail as it starts and send every streaming job through
// recovery. Errors: the query's, or 08001 (pingBrokers).
func (s *Session) checkSinkBroker(ctx context.Context, st *sql.CreateSink, rel *catalog.Relation, cfg kafka.SinkConfig) error {
	trial := *rel
	var next uint32
	if _, _, err := s.planSink(st, &trial, func() uint32 { next++; return next }); err != nil {
		return err
	}
	if pe := pingBrokers(ctx, cfg.Brokers); pe != nil {
		return pe.WithHint("Check properties.bootstrap.server; the sink was not created.")
	}
	return nil
}

// prepareExplainSink is EXPLAIN CREATE SINK: the stream plan as a tree.
func (s *Session) prepareExplainSink(st *sql.CreateSink) (wire.Prepared, error) {
	return &utilPrepared{fields: textFields("QUERY PLAN"), run: func(context.Context, []types.Datum, wire.ExecIO) (wire.Result, error) {
		rel := &catalog.Relation{Schema: s.schemaOf(st.Name), Name: st.Name.Name, Kind: catalog.KindSink,
			With: connectorWith(st.With, st.Format, st.Encode)}
		var next uint32
		root, _, err := s.planSink(st, rel, func() uint32 { next++; return next })
		if err != nil {
			return nil, err
		}
		var rows []types.Row
		for _, line := range strings.Split(strings.TrimRight(planner.ExplainStream(root), "\n"), "\n") {
			rows = append(rows, textRow(line))
		}
		return &rowsResult{rows: rows, tag: "EXPLAIN"}, nil
	}}, nil
}
