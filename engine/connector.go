package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/weirdb/weir/connector/kafka"
	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/executor/stream"
	"github.com/weirdb/weir/internal/fault"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// This file connects the stream executor's source and sink nodes to the
// Kafka connector (DESIGN.md §7): it turns a relation's WITH options into
// connector configurations, and implements stream.SourceReader and
// stream.SinkWriter over connector/kafka.

// Option keys of sources, tables with a connector, and sinks (RisingWave's
// names).
const (
	optConnector      = "connector"
	optTopic          = "topic"
	optBootstrap      = "properties.bootstrap.server"
	optStartupMode    = "scan.startup.mode"
	optStartupMillis  = "scan.startup.timestamp.millis"
	optFormat         = "format"
	optEncode         = "encode"
	optDelimiter      = "delimiter"
	optPrimaryKey     = "primary_key"
	optGuarantee      = "sink.delivery.guarantee"
	optTxnPrefix      = "sink.transactional.id.prefix"
	optTxnTimeout     = "properties.transaction.timeout.ms"
	optDelivTimeout   = "properties.delivery.timeout.ms"
	optForceAppend    = "force_append_only"
	optSnapshot       = "snapshot"
	optIncludePrefix  = "include."
	optMaxRecordBytes = "max.record.bytes"
)

// sourceOptions are known source option keys, for a clear error on typos.
var sourceOptions = []string{optConnector, optTopic, optBootstrap, optStartupMode, optStartupMillis,
	optFormat, optEncode, optDelimiter, optMaxRecordBytes, planner.WithWatermarkIdleTimeout}

// sinkOptions are known sink option keys.
var sinkOptions = []string{optConnector, optTopic, optBootstrap, optPrimaryKey, optGuarantee, optTxnPrefix,
	optTxnTimeout, optForceAppend, optSnapshot, optFormat, optEncode, "type", optMaxRecordBytes, optBarrierAlignment, optTimeZone,
	"streaming_parallelism", optDelivTimeout, stream.OptSinkDecouple, stream.OptSinkLogMaxBytes}

// checkOptions fails with 22023 on an option key not in known (include.*
// keys are the engine's own and always known).
func checkOptions(with map[string]string, known []string, what string) error {
	keys := make([]string, 0, len(with))
	for k := range with {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Contains(known, k) && !strings.HasPrefix(k, optIncludePrefix) && k != appendOnlyOption {
			return pgerr.New(pgerr.InvalidParameterValue, "unknown %s option \"%s\"", what, k).
				WithHint("Known options: %s.", strings.Join(known, ", "))
		}
	}
	return nil
}

// Connectors a source (or a table with a connector) and a sink may
// name, for the hint of an unknown one.
var (
	sourceConnectors = []string{"kafka", connNexmark, connDatagen}
	sinkConnectors   = []string{"kafka", connPostgres, connMySQL, connBlackhole}
)

// connectorHint lists the connectors weir has for a source or a sink.
func connectorHint(sink bool) string {
	what, names := "sources", sourceConnectors
	if sink {
		what, names = "sinks", sinkConnectors
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = "'" + n + "'"
	}
	return "weir's " + what + " support connector = " + strings.Join(quoted[:len(quoted)-1], ", ") + " or " + quoted[len(quoted)-1] + "."
}

// requireKafka checks the connector option of a source or a sink (the
// other connectors were picked before) and returns the bootstrap
// brokers and topic. Errors: 0A000 for another connector, 22023 for a
// missing option.
func requireKafka(with map[string]string, sink bool) (brokers []string, topic string, err error) {
	switch c := strings.ToLower(with[optConnector]); c {
	case "kafka":
	case "":
		return nil, "", pgerr.New(pgerr.InvalidParameterValue, "the connector option is required").
			WithHint("Add connector = 'kafka' to the WITH options.")
	default:
		return nil, "", pgerr.New(pgerr.FeatureNotSupported, "connector \"%s\" is not supported", c).
			WithHint("%s", connectorHint(sink))
	}
	topic = with[optTopic]
	if topic == "" {
		return nil, "", pgerr.New(pgerr.InvalidParameterValue, "the topic option is required")
	}
	for _, b := range strings.Split(with[optBootstrap], ",") {
		if b = strings.TrimSpace(b); b != "" {
			brokers = append(brokers, b)
		}
	}
	if len(brokers) == 0 {
		return nil, "", pgerr.New(pgerr.InvalidParameterValue, "the %s option is required", optBootstrap).
			WithHint("For example properties.bootstrap.server = '127.0.0.1:9092'.")
	}
	return brokers, topic, nil
}

// includeKinds maps INCLUDE words to the connector's attributes.
var includeKinds = map[string]kafka.Include{
	"partition": kafka.IncludePartition, "offset": kafka.IncludeOffset,
	"timestamp": kafka.IncludeTimestamp, "key": kafka.IncludeKey,
}

// sourceLayout describes how a source relation's columns come from the
// connector's rows: the decoded columns, then the INCLUDE columns, then
// (when the relation has a generated row id) the hidden _row_id.
type sourceLayout struct {
	decoded  types.Schema
	include  []kafka.Include
	rowID    int // index of the generated _row_id in Rel.Cols, or -1
	keyCols  []int
	upsert   bool
	csvDelim rune
}

// layoutOf derives the layout of rel (a source or a table with a
// connector) from its columns and options.
func layoutOf(rel *catalog.Relation) (*sourceLayout, error) {
	l := &sourceLayout{rowID: -1, upsert: strings.EqualFold(rel.With[optFormat], "upsert")}
	incl := map[string]kafka.Include{}
	for k, v := range rel.With {
		if name, ok := strings.CutPrefix(k, optIncludePrefix); ok {
			kind, ok := includeKinds[v]
			if !ok {
				return nil, pgerr.New(pgerr.DataCorrupted, "unknown INCLUDE kind %q of column %s", v, name)
			}
			incl[name] = kind
		}
	}
	for i, c := range rel.Cols {
		if kind, ok := incl[c.Name]; ok {
			l.include = append(l.include, kind)
			continue
		}
		if c.Hidden && c.Name == hiddenRowID {
			l.rowID = i
			continue
		}
		if len(l.include) > 0 {
			return nil, pgerr.New(pgerr.DataCorrupted, "source %s: declared column %s after INCLUDE columns", rel.Name, c.Name)
		}
		l.decoded = append(l.decoded, types.Column{Name: c.Name, T: c.T, NotNull: c.NotNull})
	}
	if l.upsert {
		for _, k := range rel.PK {
			if k >= len(l.decoded) {
				return nil, pgerr.New(pgerr.InvalidTableDefinition, "the primary key of an UPSERT table must be declared columns")
			}
			l.keyCols = append(l.keyCols, k)
		}
	}
	l.csvDelim = ','
	if d := rel.With[optDelimiter]; d != "" {
		r := []rune(d)
		if len(r) != 1 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "delimiter must be a single character")
		}
		l.csvDelim = r[0]
	}
	return l, nil
}

// sourceConfig builds the connector configuration of rel's reader.
func (e *Engine) sourceConfig(rel *catalog.Relation, positions map[int32]int64) (kafka.SourceConfig, *sourceLayout, error) {
	brokers, topic, err := requireKafka(rel.With, false)
	if err != nil {
		return kafka.SourceConfig{}, nil, err
	}
	if err := e.checkConnectorHosts(brokers); err != nil {
		return kafka.SourceConfig{}, nil, err
	}
	l, err := layoutOf(rel)
	if err != nil {
		return kafka.SourceConfig{}, nil, err
	}
	cfg := kafka.SourceConfig{
		Name: rel.Name, Brokers: brokers, Topic: topic, Positions: positions,
		Schema: l.decoded, Include: l.include, Logger: e.log,
	}
	switch m := strings.ToLower(rel.With[optStartupMode]); m {
	case "", "earliest":
		cfg.Startup = kafka.StartEarliest
	case "latest":
		cfg.Startup = kafka.StartLatest
	case "timestamp":
		cfg.Startup = kafka.StartTimestamp
	default:
		return cfg, nil, pgerr.New(pgerr.InvalidParameterValue, "invalid value for %s: \"%s\"", optStartupMode, m).
			WithHint("Use 'earliest' or 'latest', or give scan.startup.timestamp.millis.")
	}
	if ms := rel.With[optStartupMillis]; ms != "" {
		v, err := strconv.ParseInt(ms, 10, 64)
		if err != nil || v < 0 {
			return cfg, nil, pgerr.New(pgerr.InvalidParameterValue, "invalid value for %s: \"%s\"", optStartupMillis, ms)
		}
		cfg.Startup, cfg.StartTimestampMillis = kafka.StartTimestamp, v
	}
	if cfg.Startup == kafka.StartTimestamp && rel.With[optStartupMillis] == "" {
		return cfg, nil, pgerr.New(pgerr.InvalidParameterValue, "scan.startup.mode 'timestamp' needs %s", optStartupMillis)
	}
	if v := rel.With[optMaxRecordBytes]; v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return cfg, nil, pgerr.New(pgerr.InvalidParameterValue, "invalid value for %s: \"%s\"", optMaxRecordBytes, v)
		}
		cfg.MaxRecordBytes = n
	}
	format := strings.ToLower(rel.With[optFormat])
	switch format {
	case "", "plain":
		cfg.Format = kafka.SourcePlain
	case "upsert":
		cfg.Format = kafka.SourceUpsert
	default:
		return cfg, nil, pgerr.New(pgerr.FeatureNotSupported, "FORMAT %s is not supported for sources", strings.ToUpper(format)).
			WithHint("Use FORMAT PLAIN, or FORMAT UPSERT for a table with a primary key.")
	}
	switch enc := strings.ToLower(rel.With[optEncode]); enc {
	case "", "json":
		cfg.Decoder = kafka.NewJSONDecoder(l.decoded, time.UTC)
	case "csv":
		if cfg.Format == kafka.SourceUpsert {
			return cfg, nil, pgerr.New(pgerr.FeatureNotSupported, "FORMAT UPSERT ENCODE CSV is not supported").
				WithHint("Use FORMAT UPSERT ENCODE JSON.")
		}
		cfg.Decoder = kafka.NewCSVDecoder(l.decoded, l.csvDelim, time.UTC)
	default:
		return cfg, nil, pgerr.New(pgerr.FeatureNotSupported, "ENCODE %s is not supported", strings.ToUpper(enc)).
			WithHint("Use ENCODE JSON or ENCODE CSV.")
	}
	if err := e.sourceDomainCheck(rel, &cfg); err != nil {
		return cfg, nil, err
	}
	if cfg.Format == kafka.SourceUpsert {
		var keySchema types.Schema
		for _, k := range l.keyCols {
			keySchema = append(keySchema, l.decoded[k])
		}
		cfg.KeyDecoder = &upsertKeyDecoder{schema: keySchema, obj: kafka.NewJSONDecoder(keySchema, time.UTC)}
		cfg.KeyColumns = l.keyCols
	}
	return cfg, l, nil
}

// upsertKeyDecoder decodes an UPSERT record's key: a JSON object of the
// key columns, or, for a single-column key, the bare value (a JSON scalar
// or plain text, as many producers write keys).
type upsertKeyDecoder struct {
	schema types.Schema
	obj    *kafka.JSONDecoder
}

func (d *upsertKeyDecoder) Decode(data []byte) (types.Row, error) {
	s := strings.TrimSpace(string(data))
	if strings.HasPrefix(s, "{") || len(d.schema) != 1 {
		return d.obj.Decode(data)
	}
	if strings.HasPrefix(s, "\"") {
		var str string
		if err := json.Unmarshal([]byte(s), &str); err != nil {
			return nil, err
		}
		s = str
	}
	v, err := types.ParseText(s, d.schema[0].T, time.UTC)
	if err != nil {
		return nil, err
	}
	return types.Row{v}, nil
}

// rowIDOf is the generated _row_id of a record: its partition and offset,
// unique and the same on every replay.
func rowIDOf(partition int32, offset int64) int64 { return int64(partition)<<40 | offset }

// kafkaSource is a stream.SourceReader over a connector reader.
type kafkaSource struct {
	r     *kafka.SourceReader
	l     *sourceLayout
	ts    []types.T
	width int
	unreg func()
	// fail reports a read error (logged and shown in weir.stream_errors).
	fail func(error)
	// backoff is the wait after the last failed read (0 after a success).
	backoff time.Duration
	// stats counts the records read per partition (monitoring).
	stats *sourceStats
	// full is Poll's buffer for a row with its row id.
	full types.Row
}

// Poll implements stream.SourceReader. An unreachable broker or topic is
// not the job's failure: checkpoints of every job would stop with it. The
// error is reported, and the source retries with a growing pause (up to
// 5 s) while barriers keep passing.
func (s *kafkaSource) Poll(ctx context.Context, max int) (stream.SourceBatch, error) {
	b, err := s.r.Poll(ctx, max)
	if err != nil && len(b.Rows) == 0 {
		if ctx.Err() != nil {
			return stream.SourceBatch{Positions: b.Positions}, nil
		}
		s.fail(err)
		s.backoff = min(2*s.backoff+100*time.Millisecond, 5*time.Second)
		select {
		case <-ctx.Done():
		case <-time.After(s.backoff):
		}
		return stream.SourceBatch{}, nil
	}
	s.backoff = 0
	s.stats.add(b.Records, b.Bytes, b.MalformedBy, b.Positions)
	out := stream.SourceBatch{Positions: b.Positions, Malformed: int64(b.Malformed)}
	if len(b.Rows) == 0 {
		return out, nil
	}
	c := types.NewChunk(s.ts, len(b.Rows))
	out.Partitions = make([]int32, 0, len(b.Rows))
	for _, sr := range b.Rows {
		out.Partitions = append(out.Partitions, sr.Partition)
		row := sr.Row
		if id := s.l.rowID; id >= 0 {
			// The row id goes between the decoded columns and the
			// Include ones; AppendRow copies, so one buffer serves.
			if len(s.full) != s.width {
				s.full = make(types.Row, s.width)
			}
			copy(s.full, row[:id])
			s.full[id] = types.DInt(rowIDOf(sr.Partition, sr.Offset))
			copy(s.full[id+1:], row[id:])
			row = s.full
		}
		c.AppendRow(sr.Op, row)
	}
	out.Chunk = c
	return out, nil
}

func (s *kafkaSource) Close() {
	s.r.Close()
	if s.unreg != nil {
		s.unreg()
	}
}

// openSource implements stream.OpenSourceFunc.
func (e *Engine) openSource(ctx context.Context, actx *stream.ActorContext, n *planner.StreamSource, positions map[int32]int64) (stream.SourceReader, error) {
	if generatorOf(n.Rel.With) != "" {
		return e.openGenerator(actx, n, positions)
	}
	cfg, l, err := e.sourceConfig(n.Rel, positions)
	if err != nil {
		return nil, err
	}
	r, err := kafka.NewSourceReader(cfg)
	if err != nil {
		return nil, err
	}
	ts := make([]types.T, len(n.Rel.Cols))
	for i, c := range n.Rel.Cols {
		ts[i] = c.T
	}
	s := &kafkaSource{r: r, l: l, ts: ts, width: len(n.Rel.Cols)}
	s.fail = func(err error) {
		e.st.errs.Record(actx.Job, "source "+n.Rel.Name, pgerr.New(pgerr.ConnectionException, "reading the topic: %s", readerError(err)))
	}
	s.unreg, s.stats = e.conns.addReader(n.Rel.ID, actx.Job, r)
	return s, nil
}

// sinkFormats maps FORMAT words to the connector's formats.
var sinkFormats = map[string]kafka.SinkFormat{
	"plain": kafka.FormatPlain, "upsert": kafka.FormatUpsert, "debezium": kafka.FormatDebezium,
}

// sinkConfig builds a sink actor's writer configuration from the sink's
// options.
func (e *Engine) sinkConfig(rel *catalog.Relation, actor int) (kafka.SinkConfig, error) {
	brokers, topic, err := requireKafka(rel.With, true)
	if err != nil {
		return kafka.SinkConfig{}, err
	}
	if err := e.checkConnectorHosts(brokers); err != nil {
		return kafka.SinkConfig{}, err
	}
	prefix := rel.With[optTxnPrefix]
	if prefix == "" {
		// Unique per database: two databases on one broker must not
		// fence each other's transactional ids.
		prefix = "weir-" + e.databaseID
	}
	cfg := kafka.SinkConfig{Brokers: brokers, Topic: topic, TxnIDPrefix: prefix,
		SinkID: strconv.FormatUint(uint64(rel.ID), 10), Actor: actor, Logger: e.log}
	if err := checkSinkLogOptions(rel.With); err != nil {
		return cfg, err
	}
	g, err := sinkGuarantee(rel.With)
	if err != nil {
		return cfg, err
	}
	cfg.Guarantee = g
	for _, o := range []struct {
		key string
		d   *time.Duration
	}{{optTxnTimeout, &cfg.TransactionTimeout}, {optDelivTimeout, &cfg.DeliveryTimeout}} {
		if v := rel.With[o.key]; v != "" {
			ms, err := strconv.Atoi(v)
			if err != nil || ms <= 0 {
				return cfg, pgerr.New(pgerr.InvalidParameterValue, "invalid value for %s: \"%s\"", o.key, v).
					WithHint("A number of milliseconds above zero is expected.")
			}
			*o.d = time.Duration(ms) * time.Millisecond
		}
	}
	return cfg, nil
}

// sinkGuarantee reads sink.delivery.guarantee (exactly-once by default).
func sinkGuarantee(with map[string]string) (kafka.Guarantee, error) {
	switch v := strings.ReplaceAll(strings.ToLower(with[optGuarantee]), "_", "-"); v {
	case "", "exactly-once":
		return kafka.ExactlyOnce, nil
	case "at-least-once":
		return kafka.AtLeastOnce, nil
	default:
		return 0, pgerr.New(pgerr.InvalidParameterValue, "invalid value for %s: \"%s\"", optGuarantee, v).
			WithHint("Use 'exactly-once' or 'at-least-once'.")
	}
}

// kafkaSink is a stream.SinkWriter over a connector writer.
type kafkaSink struct {
	name string // the sink's, for errors
	w    *kafka.SinkWriter
	enc  *kafka.Encoder
	recs []kafka.Record
	info *sinkInfo
	// maxBytes bounds a record's key + value; skip reports one too large.
	maxBytes int
	skip     func(error)
	// fail records an error that fails the sink's checkpoint, so that
	// weir.stream_errors shows it.
	fail func(error)
}

// defaultSinkMaxRecordBytes is the sink's max.record.bytes default: under
// Kafka's default message.max.bytes (1048588) with room for the batch
// overhead.
const defaultSinkMaxRecordBytes = 1_000_000

func (s *kafkaSink) BeginEpoch(ep uint64) error { return s.w.BeginEpoch(ep) }

func (s *kafkaSink) Write(ctx context.Context, c *types.Chunk) error {
	s.recs = s.enc.AppendChunk(s.recs[:0], c)
	// A record the broker would refuse (MESSAGE_TOO_LARGE) would fail
	// every retry of the epoch: it is skipped and reported instead, as a
	// malformed source record is.
	kept := s.recs[:0]
	for _, r := range s.recs {
		if n := len(r.Key) + len(r.Value); n > s.maxBytes {
			s.skip(pgerr.New(pgerr.ProgramLimitExceeded, "a record of %d bytes exceeds the sink's limit of %d bytes (%s) and was not written", n, s.maxBytes, optMaxRecordBytes))
			continue
		}
		kept = append(kept, r)
	}
	s.recs = kept
	if len(s.recs) == 0 {
		return nil
	}
	s.info.written.Add(int64(len(s.recs)))
	return s.w.Write(ctx, s.recs...)
}

func (s *kafkaSink) PreCommit(ctx context.Context) (stream.SinkTxn, bool, error) {
	fault.Hit(fault.SinkBeforePrecommit)
	rec, err := s.w.PreCommit(ctx)
	if err != nil {
		if ctx.Err() == nil {
			// The broker did not take the epoch's records: the
			// checkpoint fails, and so do the writes waiting for it.
			err := pgerr.Wrap(pgerr.ConnectionException, err, "sink "+s.name).
				WithHint("The sink's broker does not answer; writes fail until it does (properties.delivery.timeout.ms bounds the wait).")
			if s.fail != nil {
				s.fail(err)
			}
			return stream.SinkTxn{}, false, err
		}
		return stream.SinkTxn{}, false, err
	}
	fault.Hit(fault.SinkAfterPrecommit)
	if rec.TransactionalID == "" {
		return stream.SinkTxn{}, false, nil // at-least-once: flushed, nothing to commit
	}
	if rec.Empty {
		// The epoch wrote nothing, so no transaction exists on the broker:
		// release the transactional id now rather than after the
		// checkpoint.
		return stream.SinkTxn{}, false, s.w.Commit(ctx, rec)
	}
	s.info.setPending(rec)
	return stream.SinkTxn{ID: rec.TransactionalID, Epoch: rec.Epoch, Data: rec.Marshal()}, true, nil
}

func (s *kafkaSink) TakeDone() []stream.SinkTxn {
	var out []stream.SinkTxn
	for _, r := range s.w.TakeDone() {
		out = append(out, stream.SinkTxn{ID: r.TransactionalID, Epoch: r.Epoch, Data: r.Marshal()})
	}
	return out
}

func (s *kafkaSink) Commit(ctx context.Context, txn stream.SinkTxn) error {
	rec, err := kafka.UnmarshalTxnRecord(txn.Data)
	if err != nil {
		return err
	}
	if err := s.w.Commit(ctx, rec); err != nil {
		if errors.Is(err, kafka.ErrCommitRefused) {
			return errors.Join(stream.ErrSinkTxnRefused, err)
		}
		if ctx.Err() == nil && s.fail != nil {
			s.fail(pgerr.Wrap(pgerr.ConnectionException, err, "sink "+s.name))
		}
		return err
	}
	s.info.committed(txn.Epoch, rec)
	s.info.txCommitted.Add(1)
	fault.Hit(fault.SinkDuringCommit)
	return nil
}

func (s *kafkaSink) Abort(ctx context.Context) error {
	err := s.w.Abort(ctx)
	if err == nil {
		s.info.txAborted.Add(1)
	}
	return err
}

func (s *kafkaSink) Close() { s.w.Close() }

// openSink implements stream.OpenSinkFunc: it commits the transactions a
// committed checkpoint recorded (recovery), then starts the producers.
func (e *Engine) openSink(ctx context.Context, actx *stream.ActorContext, n *planner.StreamSink, pending []stream.SinkTxn) (stream.SinkWriter, error) {
	if isBlackhole(n.Rel.With) {
		g, _ := sinkGuarantee(n.Rel.With)
		spec, _ := sinkSpec(n.Rel.With)
		return &blackholeSink{rows: &blackholeRows, info: e.conns.sink(n.Rel.ID, g), plain: spec.Format == "plain"}, nil
	}
	if _, ok := dbSinkKind(n.Rel.With); ok {
		return e.openDBSink(ctx, actx, n)
	}
	cfg, err := e.sinkConfig(n.Rel, actx.Index)
	if err != nil {
		return nil, err
	}
	var recs []kafka.TxnRecord
	for _, p := range pending {
		r, err := kafka.UnmarshalTxnRecord(p.Data)
		if err != nil {
			return nil, err
		}
		recs = append(recs, r)
	}
	if len(recs) > 0 {
		fault.Hit(fault.RecoveryBeforeSinkCommit)
		e.log.Info("committing sink transactions recorded by the last checkpoint", "sink", n.Rel.Name, "count", len(recs))
		for _, r := range recs {
			err := kafka.RecoverPending(ctx, cfg.Brokers, []kafka.TxnRecord{r})
			if errors.Is(err, kafka.ErrCommitRefused) {
				// The broker no longer has the transaction open. A broker
				// restarted after a crash refuses the repeat of a commit
				// that reached its log, so its log tells whether it
				// committed or aborted it.
				committed, serr := e.settleKafkaTxn(ctx, cfg, r)
				if serr != nil {
					return nil, errors.Join(err, serr)
				}
				if !committed {
					// Aborted (a broker that does not keep open
					// transactions across a crash may, or its transaction
					// timeout passed): a coupled sink keeps the epoch's rows
					// nowhere else, so they are lost to read_committed
					// readers. Say so loudly rather than fail the sink
					// forever.
					e.log.Error("a committed checkpoint's sink transaction was aborted by the broker; its records are lost",
						"sink", n.Rel.Name, "txn", r.String(), "err", err)
					e.st.errs.Record(actx.Job, "sink recovery", pgerr.Wrap(pgerr.DataCorrupted, err, "transaction "+r.String()+" was aborted by the broker"))
					e.conns.sink(n.Rel.ID, cfg.Guarantee).txLost.Add(1)
					continue
				}
			} else if err != nil {
				return nil, err
			}
			e.conns.sink(n.Rel.ID, cfg.Guarantee).txRecommitted.Add(1)
		}
	}
	format, ok := sinkFormats[n.Format]
	if !ok {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "FORMAT %s is not supported for sinks", strings.ToUpper(n.Format))
	}
	enc, err := kafka.NewEncoder(format, n.Out, n.Key, time.UTC, nil)
	if err != nil {
		return nil, err
	}
	w, err := kafka.NewSinkWriter(ctx, cfg)
	if err != nil {
		return nil, err
	}
	info := e.conns.sink(n.Rel.ID, cfg.Guarantee)
	info.forget(cfg.TransactionalIDs())
	maxBytes := defaultSinkMaxRecordBytes
	if v := n.Rel.With[optMaxRecordBytes]; v != "" {
		if maxBytes, err = strconv.Atoi(v); err != nil || maxBytes <= 0 {
			w.Close()
			return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid value for %s: \"%s\"", optMaxRecordBytes, v)
		}
	}
	skip := func(err error) {
		info.skipped.Add(1)
		e.st.errs.Record(actx.Job, "sink "+n.Rel.Name, err)
	}
	fail := func(err error) { e.st.errs.Record(actx.Job, "sink "+n.Rel.Name, err) }
	return &kafkaSink{name: n.Rel.Name, w: w, enc: enc, info: info, maxBytes: maxBytes, skip: skip, fail: fail}, nil
}

// connectors tracks the running connector readers and writers for the
// system views: malformed records per source, and sinks' transactions.
type connectors struct {
	mu      sync.Mutex
	readers map[uint32]map[types.JobID]*kafka.SourceReader
	sinks   map[uint32]*sinkInfo
	// stats counts each running reader's records (monitoring).
	stats map[*kafka.SourceReader]*sourceStats
	// gens counts each running generator reader's rows (nexmark,
	// datagen), by source and job, as stats counts a Kafka reader's.
	gens map[uint32]map[types.JobID]*sourceStats
}

func newConnectors() *connectors {
	return &connectors{readers: map[uint32]map[types.JobID]*kafka.SourceReader{}, sinks: map[uint32]*sinkInfo{},
		stats: map[*kafka.SourceReader]*sourceStats{}, gens: map[uint32]map[types.JobID]*sourceStats{}}
}

// addGenerator registers the generator reader of source rel that job
// starts, and returns the function unregistering it and its counts.
func (c *connectors) addGenerator(rel uint32, job types.JobID) (func(), *sourceStats) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.gens[rel]
	if m == nil {
		m = map[types.JobID]*sourceStats{}
		c.gens[rel] = m
	}
	st := &sourceStats{}
	m[job] = st
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.gens[rel][job] == st {
			delete(c.gens[rel], job)
		}
	}, st
}

func (c *connectors) addReader(rel uint32, job types.JobID, r *kafka.SourceReader) (func(), *sourceStats) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.readers[rel]
	if m == nil {
		m = map[types.JobID]*kafka.SourceReader{}
		c.readers[rel] = m
	}
	m[job] = r
	st := &sourceStats{}
	c.stats[r] = st
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.readers[rel][job] == r {
			delete(c.readers[rel], job)
		}
		delete(c.stats, r)
	}, st
}

// malformed returns the latest records skipped as malformed by the
// running readers of source rel (since they started; how many were
// skipped in all is watermarkState.malformedRecords). Every job reading a
// source has a reader of its own, which sees (and skips) every record: a
// record skipped by several readers is listed once.
func (c *connectors) malformed(rel uint32) []kafka.MalformedRecord {
	c.mu.Lock()
	defer c.mu.Unlock()
	var recs []kafka.MalformedRecord
	for _, r := range c.readers[rel] {
		recs = append(recs, r.Malformed()...)
	}
	slices.SortFunc(recs, func(a, b kafka.MalformedRecord) int {
		return cmp.Or(cmp.Compare(a.Partition, b.Partition), cmp.Compare(a.Offset, b.Offset))
	})
	recs = slices.CompactFunc(recs, func(a, b kafka.MalformedRecord) bool {
		return a.Partition == b.Partition && a.Offset == b.Offset
	})
	return recs
}

func (c *connectors) sink(rel uint32, g kafka.Guarantee) *sinkInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.sinks[rel]
	if s == nil {
		s = &sinkInfo{}
		c.sinks[rel] = s
	}
	s.guarantee = g
	return s
}

// anyPending reports whether some sink has a pre-committed transaction
// not yet committed in Kafka.
func (c *connectors) anyPending() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.sinks {
		s.mu.Lock()
		n := len(s.pending)
		s.mu.Unlock()
		if n > 0 {
			return true
		}
	}
	return false
}

func (c *connectors) sinkInfo(rel uint32) *sinkInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sinks[rel]
}

// sinkInfo is what SHOW SINKS shows of a running sink.
type sinkInfo struct {
	guarantee kafka.Guarantee
	written   atomic.Int64
	skipped   atomic.Int64 // records too large to write
	mu        sync.Mutex
	lastEpoch uint64 // last checkpoint epoch whose transaction committed
	pending   map[string]kafka.TxnRecord
	// lags are the decoupled sink's actors' delivery lags, by index.
	lags map[int]sinkLag

	// Transactions committed, aborted, and committed again by a
	// recovery, since the server started; txLost counts recorded
	// transactions of a coupled sink that recovery found aborted.
	txCommitted, txAborted, txRecommitted, txLost atomic.Int64
}

func (s *sinkInfo) setPending(r kafka.TxnRecord) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending == nil {
		s.pending = map[string]kafka.TxnRecord{}
	}
	s.pending[r.TransactionalID] = r
}

// forget drops the pending transactions of ids: a new writer on them
// has committed or aborted whatever was left.
func (s *sinkInfo) forget(ids []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		delete(s.pending, id)
	}
}

func (s *sinkInfo) committed(epoch uint64, r kafka.TxnRecord) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.pending[r.TransactionalID]; ok && p.Epoch == r.Epoch {
		delete(s.pending, r.TransactionalID)
	}
	s.lastEpoch = max(s.lastEpoch, epoch)
}

// snapshot returns the last committed epoch and the pending transactions.
func (s *sinkInfo) snapshot() (uint64, []kafka.TxnRecord) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var p []kafka.TxnRecord
	for _, r := range s.pending {
		p = append(p, r)
	}
	slices.SortFunc(p, func(a, b kafka.TxnRecord) int { return strings.Compare(a.TransactionalID, b.TransactionalID) })
	return s.lastEpoch, p
}

// sourceDomainCheck makes cfg check the decoded columns of rel that are
// of a domain type against the domain's constraints, as bound when the
// reader starts: a record whose row fails them is malformed.
func (e *Engine) sourceDomainCheck(rel *catalog.Relation, cfg *kafka.SourceConfig) error {
	var decoded []catalog.Column
	for _, c := range rel.Cols {
		if len(decoded) == len(cfg.Schema) {
			break
		}
		if c.Hidden && c.Name == hiddenRowID {
			continue
		}
		decoded = append(decoded, c)
	}
	any := false
	for _, c := range decoded {
		any = any || c.Domain != 0
	}
	if !any {
		return nil
	}
	one := &catalog.Relation{Name: rel.Name, Cols: decoded}
	is := e.internalSession()
	doms, err := planner.DomainRules(context.Background(), one, is.catalogView())
	if err != nil {
		return err
	}
	ts := make([]types.T, len(decoded))
	for i, c := range decoded {
		ts[i] = c.T
	}
	checks, err := executor.NewDomainChecks(doms, ts)
	if err != nil {
		return err
	}
	ec := is.execCtx(context.Background(), nil, nil, nil)
	var mu sync.Mutex
	cfg.Check = func(row types.Row) (err error) {
		mu.Lock()
		defer mu.Unlock()
		defer func() {
			// A check that fails in an unforeseen way fails the record,
			// never the reader.
			if r := recover(); r != nil {
				err = fmt.Errorf("checking the domains of the row: %v", r)
			}
		}()
		return checks.Check(row, &ec.Eval, nil)
	}
	return nil
}
