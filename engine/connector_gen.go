package engine

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/weirdb/weir/connector/datagen"
	"github.com/weirdb/weir/connector/nexmark"
	"github.com/weirdb/weir/executor/stream"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// This file connects the built-in connectors that need no external
// system: the generators connector = 'nexmark' and connector = 'datagen'
// (sources, and tables fed by them) and the sink connector = 'blackhole',
// which discards its rows. A generator's position (the next event or row
// index per split) is checkpointed by the source operator exactly as a
// Kafka offset, so a generator replays exactly after a recovery.

// Connector names of the built-in connectors.
const (
	connNexmark   = "nexmark"
	connDatagen   = "datagen"
	connBlackhole = "blackhole"
)

// Options of the generators (RisingWave's names, plus the base times,
// which weir fixes when the source is created so that event times are
// the same on every replay).
const (
	optNexmarkTable    = "nexmark.table.type"
	optNexmarkEvents   = "nexmark.event.num"
	optNexmarkGap      = "nexmark.min.event.gap.in.ns"
	optNexmarkSplits   = "nexmark.split.num"
	optNexmarkChunk    = "nexmark.max.chunk.size"
	optNexmarkRate     = "nexmark.event.rate"
	optNexmarkBaseTime = "nexmark.base.time"

	optDatagenRate     = "datagen.rows.per.second"
	optDatagenSplits   = "datagen.split.num"
	optDatagenBaseTime = "datagen.base.time"
	optDatagenFields   = "fields."
)

// nexmarkOptions and datagenOptions are the generators' known option
// keys (datagen's fields.<col>.<attr> keys are checked by column).
var (
	nexmarkOptions = []string{optConnector, optNexmarkTable, optNexmarkEvents, optNexmarkGap, optNexmarkSplits,
		optNexmarkChunk, optNexmarkRate, optNexmarkBaseTime, optFormat, optEncode, planner.WithWatermarkIdleTimeout}
	datagenOptions = []string{optConnector, optDatagenRate, optDatagenSplits, optDatagenBaseTime, optFormat, optEncode,
		planner.WithWatermarkIdleTimeout}
	datagenAttrs = []string{"kind", "start", "end", "min", "max", "length", "seed", "max_past", "max_past_mode"}
)

// generatorOf returns the generator connector named by with ("" for
// none).
func generatorOf(with map[string]string) string {
	switch c := strings.ToLower(with[optConnector]); c {
	case connNexmark, connDatagen:
		return c
	}
	return ""
}

// isBlackhole reports whether a sink's options name the blackhole
// connector.
func isBlackhole(with map[string]string) bool {
	return strings.EqualFold(with[optConnector], connBlackhole)
}

// checkSourceOptions fails with 22023 on an option key the relation's
// connector does not know.
func checkSourceOptions(with map[string]string, what string) error {
	switch generatorOf(with) {
	case connNexmark:
		return checkOptions(with, nexmarkOptions, what)
	case connDatagen:
		rest := map[string]string{}
		for k, v := range with {
			if !strings.HasPrefix(k, optDatagenFields) {
				rest[k] = v
			}
		}
		return checkOptions(rest, datagenOptions, what)
	}
	return checkOptions(with, sourceOptions, what)
}

// checkSourceConnector checks a new source's (or connector table's)
// connector configuration: a generator's options and columns (fixing its
// base time in rel.With), or a Kafka source's, warning when its broker
// does not answer.
func (e *Engine) checkSourceConnector(ctx context.Context, rel *catalog.Relation, io wire.ExecIO) error {
	switch generatorOf(rel.With) {
	case connNexmark, connDatagen:
		for k, v := range rel.With {
			if strings.HasPrefix(k, optIncludePrefix) {
				return pgerr.New(pgerr.FeatureNotSupported, "INCLUDE %s is not supported with connector '%s'", v, rel.With[optConnector])
			}
		}
		for _, c := range rel.Cols {
			if c.Domain != 0 {
				// A generator's rows are not checked against a domain.
				return pgerr.New(pgerr.FeatureNotSupported, "column \"%s\" of a domain type is not supported with connector '%s'", c.Name, rel.With[optConnector])
			}
		}
		key := optNexmarkBaseTime
		if generatorOf(rel.With) == connDatagen {
			key = optDatagenBaseTime
		}
		if _, ok := rel.With[key]; !ok {
			rel.With[key] = strconv.FormatInt(time.Now().UnixMilli(), 10)
		}
		_, err := generatorConfig(rel, nil)
		return err
	}
	cfg, _, err := e.sourceConfig(rel, nil)
	if err != nil {
		return err
	}
	warnUnreachable(ctx, cfg.Brokers, io)
	return nil
}

// intOption reads an integer option within [lo, hi], def when absent.
func intOption(with map[string]string, key string, def, lo, hi int64) (int64, error) {
	v, ok := with[key]
	if !ok {
		return def, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < lo || n > hi {
		return 0, pgerr.New(pgerr.InvalidParameterValue, "invalid value for %s: \"%s\"", key, v).
			WithHint("An integer from %d to %d is expected.", lo, hi)
	}
	return n, nil
}

// generator is a generator's reader as the source adapter drives it.
type generator interface {
	// next returns up to max rows, nil when the stream is exhausted.
	next(max int) (c *types.Chunk, partitions []int32, positions map[int32]int64)
	wait() time.Duration
}

type nexmarkGen struct{ r *nexmark.Reader }

func (g nexmarkGen) next(max int) (*types.Chunk, []int32, map[int32]int64) {
	b := g.r.Next(max)
	return b.Chunk, b.Partitions, b.Positions
}
func (g nexmarkGen) wait() time.Duration { return g.r.Wait() }

type datagenGen struct{ r *datagen.Reader }

func (g datagenGen) next(max int) (*types.Chunk, []int32, map[int32]int64) {
	b := g.r.Next(max)
	return b.Chunk, b.Partitions, b.Positions
}
func (g datagenGen) wait() time.Duration { return g.r.Wait() }

// generatorConfig checks rel's generator options and columns and returns
// its reader opened at positions (nil positions: a check only, no
// reader). Errors: 22023 for a bad option value, 42703 for a column the
// generator does not produce, 42804 for a column of the wrong type.
func generatorConfig(rel *catalog.Relation, positions map[int32]int64) (generator, error) {
	with := rel.With
	if generatorOf(with) == connDatagen {
		return datagenConfig(rel, positions)
	}
	tt, ok := with[optNexmarkTable]
	if !ok {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "a nexmark source needs %s", optNexmarkTable).
			WithHint("Add nexmark.table.type = 'Bid' (or 'Auction' or 'Person') to the WITH options; the combined event stream is not supported.")
	}
	table, err := nexmark.ParseTableType(tt)
	if err != nil {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid value for %s: \"%s\"", optNexmarkTable, tt).
			WithHint("Use 'Person', 'Auction' or 'Bid'.")
	}
	cfg := nexmark.Config{Table: table}
	if cfg.EventNum, err = intOption(with, optNexmarkEvents, -1, -1, 1<<52); err != nil {
		return nil, err
	}
	gap, err := intOption(with, optNexmarkGap, 100_000, 0, int64(time.Hour))
	if err != nil {
		return nil, err
	}
	cfg.MinEventGap = time.Duration(gap)
	splits, err := intOption(with, optNexmarkSplits, 1, 1, stream.MaxSourcePartition+1)
	if err != nil {
		return nil, err
	}
	cfg.Splits = int(splits)
	chunk, err := intOption(with, optNexmarkChunk, types.ChunkCap, 1, 1<<16)
	if err != nil {
		return nil, err
	}
	cfg.MaxChunkSize = int(chunk)
	if cfg.Clock.Rate, err = intOption(with, optNexmarkRate, nexmark.DefaultEventRate, 1, 1<<40); err != nil {
		return nil, err
	}
	if cfg.Clock.BaseMillis, err = intOption(with, optNexmarkBaseTime, 0, 0, 1<<46); err != nil {
		return nil, err
	}
	names := nexmark.Columns(table)
	for _, c := range rel.Cols {
		if c.Hidden && c.Name == hiddenRowID {
			cfg.Fields = append(cfg.Fields, nexmark.FieldEventNumber)
			cfg.Types = append(cfg.Types, c.T)
			continue
		}
		at := slices.IndexFunc(names, func(n types.Column) bool { return n.Name == c.Name })
		if at < 0 {
			var all []string
			for _, n := range names {
				all = append(all, n.Name)
			}
			return nil, pgerr.New(pgerr.UndefinedColumn, "column \"%s\" is not a field of a Nexmark %s", c.Name, table).
				WithHint("A %s has the fields %s.", table, strings.Join(all, ", "))
		}
		if err := nexmark.CheckColumn(table, at, c.T); err != nil {
			return nil, pgerr.New(pgerr.DatatypeMismatch, "%v", err)
		}
		cfg.Fields = append(cfg.Fields, at)
		cfg.Types = append(cfg.Types, c.T)
	}
	if positions == nil {
		return nil, nil
	}
	cfg.Positions = positions
	r, err := nexmark.NewReader(cfg)
	if err != nil {
		return nil, pgerr.New(pgerr.DataCorrupted, "source %s: %v", rel.Name, err)
	}
	return nexmarkGen{r}, nil
}

// datagenConfig is generatorConfig for connector = 'datagen'.
func datagenConfig(rel *catalog.Relation, positions map[int32]int64) (generator, error) {
	with := rel.With
	cfg := datagen.Config{}
	splits, err := intOption(with, optDatagenSplits, 1, 1, stream.MaxSourcePartition+1)
	if err != nil {
		return nil, err
	}
	cfg.Splits = int(splits)
	if v, ok := with[optDatagenRate]; ok {
		r, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || r < 0 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid value for %s: \"%s\"", optDatagenRate, v)
		}
		cfg.RowsPerSecond = r
	} else {
		cfg.RowsPerSecond = 10
	}
	base, err := intOption(with, optDatagenBaseTime, 0, 0, 1<<46)
	if err != nil {
		return nil, err
	}
	cfg.BaseMicros = base * 1000
	known := map[string]bool{}
	for _, c := range rel.Cols {
		known[c.Name] = true
		if c.Hidden && c.Name == hiddenRowID {
			cfg.Fields = append(cfg.Fields, datagen.Field{Name: c.Name, T: c.T, Kind: datagen.RowIndex})
			continue
		}
		f, err := datagen.Parse(c.Name, c.T, with)
		if err != nil {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "%v", err)
		}
		cfg.Fields = append(cfg.Fields, f)
	}
	for k := range with {
		rest, ok := strings.CutPrefix(k, optDatagenFields)
		if !ok {
			continue
		}
		dot := strings.LastIndexByte(rest, '.')
		if dot < 0 || !known[rest[:dot]] || !slices.Contains(datagenAttrs, rest[dot+1:]) {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "unknown datagen option \"%s\"", k).
				WithHint("Options are fields.<column>.<%s> for a column of the source.", strings.Join(datagenAttrs, "|"))
		}
	}
	if positions == nil {
		return nil, nil
	}
	cfg.Positions = positions
	r, err := datagen.NewReader(cfg)
	if err != nil {
		return nil, pgerr.New(pgerr.DataCorrupted, "source %s: %v", rel.Name, err)
	}
	return datagenGen{r}, nil
}

// genSource is a stream.SourceReader over a generator.
type genSource struct {
	g     generator
	stats *genStats
	done  bool
	// parts counts the rows generated per split and holds the splits'
	// positions, as a Kafka reader's (weir.source_partitions); unreg
	// unregisters them.
	parts *sourceStats
	unreg func()
}

// Poll implements stream.SourceReader: it waits as the generator's
// pacing asks, then generates up to max rows. An exhausted generator
// waits for ctx to end (the source never ends by itself, as a Kafka
// topic does not).
func (s *genSource) Poll(ctx context.Context, max int) (stream.SourceBatch, error) {
	if d := s.g.wait(); d > 0 {
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return stream.SourceBatch{}, nil
		case <-t.C:
		}
	}
	c, parts, pos := s.g.next(max)
	var records map[int32]int64
	if len(parts) > 0 {
		records = map[int32]int64{}
		for _, p := range parts {
			records[p]++
		}
	}
	s.parts.add(records, nil, nil, pos)
	if c == nil {
		if !s.done {
			s.done = true
			s.stats.exhausted.Add(1)
		}
		<-ctx.Done()
		return stream.SourceBatch{}, nil
	}
	s.stats.rows.Add(int64(c.Len()))
	return stream.SourceBatch{Chunk: c, Partitions: parts, Positions: pos}, nil
}

// Close implements stream.SourceReader.
func (s *genSource) Close() {
	s.unreg()
	s.stats.readers.Add(-1)
	if s.done {
		s.stats.exhausted.Add(-1)
	}
}

// genStats counts what the running generator readers produced.
type genStats struct {
	rows      atomic.Int64
	readers   atomic.Int64
	exhausted atomic.Int64
}

// GeneratorStats is what the running generator sources (nexmark,
// datagen) have produced since the engine opened.
type GeneratorStats struct {
	// Rows is how many rows they generated (a row replayed after a
	// recovery counts again).
	Rows int64
	// Readers is how many generator readers run (one per job reading a
	// generator source); Exhausted how many of them read their last row.
	Readers, Exhausted int64
}

// GeneratorStats returns the generator sources' counts.
func (e *Engine) GeneratorStats() GeneratorStats {
	return GeneratorStats{Rows: e.gen.rows.Load(), Readers: e.gen.readers.Load(), Exhausted: e.gen.exhausted.Load()}
}

// openGenerator implements stream.OpenSourceFunc for the generators.
func (e *Engine) openGenerator(actx *stream.ActorContext, n *planner.StreamSource, positions map[int32]int64) (stream.SourceReader, error) {
	if positions == nil {
		positions = map[int32]int64{}
	}
	g, err := generatorConfig(n.Rel, positions)
	if err != nil {
		return nil, err
	}
	e.gen.readers.Add(1)
	s := &genSource{g: g, stats: &e.gen}
	s.unreg, s.parts = e.conns.addGenerator(n.Rel.ID, actx.Job)
	return s, nil
}

// blackholeSink is a stream.SinkWriter that discards its rows (RisingWave's
// connector = 'blackhole'): the sink of benchmarks, which measure
// everything up to the sink's input. weir.sinks counts what it takes as
// it does a Kafka sink's: the records its format would write (one per
// change, an update's two rows making one, and for FORMAT PLAIN the
// inserts alone) as records written, and each checkpoint epoch that
// wrote some as a committed transaction.
type blackholeSink struct {
	rows  *atomic.Int64
	info  *sinkInfo
	plain bool
	// epochRecords counts the records of the current epoch.
	epochRecords int64
}

func (*blackholeSink) BeginEpoch(uint64) error { return nil }

func (s *blackholeSink) Write(_ context.Context, c *types.Chunk) error {
	s.rows.Add(int64(c.VisibleCount()))
	var n int64
	for i := 0; i < c.Len(); i++ {
		if !c.Visible(i) {
			continue
		}
		switch op := c.Op(i); {
		case op == types.OpUpdateDelete:
		case s.plain && !op.IsInsert():
		default:
			n++
		}
	}
	s.info.written.Add(n)
	s.epochRecords += n
	return nil
}

func (s *blackholeSink) PreCommit(context.Context) (stream.SinkTxn, bool, error) {
	if s.epochRecords > 0 {
		s.info.txCommitted.Add(1)
		s.epochRecords = 0
	}
	return stream.SinkTxn{}, false, nil
}
func (*blackholeSink) TakeDone() []stream.SinkTxn                   { return nil }
func (*blackholeSink) Commit(context.Context, stream.SinkTxn) error { return nil }
func (s *blackholeSink) Abort(context.Context) error {
	s.epochRecords = 0
	return nil
}
func (*blackholeSink) Close() {}

// blackholeRows counts the rows written into blackhole sinks.
var blackholeRows atomic.Int64

// BlackholeRows returns how many rows blackhole sinks have discarded in
// this process.
func BlackholeRows() int64 { return blackholeRows.Load() }

// checkSinkConnector checks a new sink's connector: a blackhole sink's
// query plans; a Kafka sink's configuration is valid and its broker
// answers (checkSinkBroker).
func (s *Session) checkSinkConnector(ctx context.Context, st *sql.CreateSink, rel *catalog.Relation) error {
	if isBlackhole(rel.With) {
		trial := *rel
		var next uint32
		_, _, err := s.planSink(st, &trial, func() uint32 { next++; return next })
		return err
	}
	if _, ok := dbSinkKind(rel.With); ok {
		return s.checkDBSink(ctx, st, rel)
	}
	cfg, err := s.eng.sinkConfig(rel, 0)
	if err != nil {
		return err
	}
	return s.checkSinkBroker(ctx, st, rel, cfg)
}

// String describes the counts (for logs).
func (g GeneratorStats) String() string {
	return fmt.Sprintf("%d rows, %d readers, %d exhausted", g.Rows, g.Readers, g.Exhausted)
}
