package kafka

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"sort"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/weirdb/weir/types"
)

// StartupMode is scan.startup.mode: where a source without committed
// positions starts reading.
type StartupMode uint8

const (
	StartEarliest  StartupMode = iota // the first retained record
	StartLatest                       // the end of each partition at start
	StartTimestamp                    // the first record at or after StartTimestampMillis
)

// SourceFormat is the source's FORMAT.
type SourceFormat uint8

const (
	// SourcePlain: every record's value is one inserted row.
	SourcePlain SourceFormat = iota
	// SourceUpsert: the key identifies the row; a value upserts it and a
	// tombstone (nil value) deletes it, with the key columns decoded from
	// the key.
	SourceUpsert
)

// Include names a record attribute appended as an extra column (INCLUDE
// partition | offset | timestamp | key).
type Include uint8

const (
	IncludePartition Include = iota // integer
	IncludeOffset                   // bigint
	IncludeTimestamp                // timestamptz: the record's timestamp
	IncludeKey                      // bytea: the raw key
)

// Column returns the extra column Include adds, named as RisingWave names
// them (_rw_kafka_partition and so on become plain names here).
func (i Include) Column() types.Column {
	switch i {
	case IncludePartition:
		return types.Column{Name: "_kafka_partition", T: types.TInt4}
	case IncludeOffset:
		return types.Column{Name: "_kafka_offset", T: types.TInt8}
	case IncludeTimestamp:
		return types.Column{Name: "_kafka_timestamp", T: types.TTimestamptz}
	default:
		return types.Column{Name: "_kafka_key", T: types.TBytea}
	}
}

// Defaults of SourceConfig.
const (
	DefaultMaxRecordBytes    = 1 << 20
	DefaultMalformedKeep     = 100
	DefaultDiscoveryInterval = 10 * time.Second
)

// SourceConfig configures a source reader.
type SourceConfig struct {
	Name    string // the source's name, for logs
	Brokers []string
	Topic   string

	Startup              StartupMode
	StartTimestampMillis int64
	// Positions are the next offsets to read per partition, from the last
	// committed checkpoint; they override Startup for their partitions.
	Positions map[int32]int64

	Format SourceFormat
	// Schema is the decoded columns; Decoder produces rows of it.
	Schema  types.Schema
	Decoder Decoder
	// KeyDecoder decodes an UPSERT record's key into the KeyColumns
	// (positions in Schema, in the key decoder's column order).
	KeyDecoder Decoder
	KeyColumns []int
	// Check, when set, checks a decoded row (of Schema) beyond its types,
	// as the constraints of the columns' domains: a row it fails makes
	// the record malformed.
	Check func(types.Row) error
	// Include lists extra columns appended after Schema, in this order.
	Include []Include

	// MaxRecordBytes bounds key+value size; larger records are malformed
	// (default 1 MiB).
	MaxRecordBytes int
	// MalformedKeep is how many of the latest malformed records are kept
	// for inspection (default 100).
	MalformedKeep int
	// DiscoveryInterval is how often the topic's partitions are listed to
	// find new ones (default 10 s).
	DiscoveryInterval time.Duration

	// Now stamps MalformedRecord.At (default time.Now); the discovery
	// schedule runs on the monotonic clock.
	Now        func() time.Time
	Logger     *slog.Logger
	ClientOpts []kgo.Opt
}

// SourceRow is one decoded row and the record it came from.
type SourceRow struct {
	Op        types.Op // Insert, or Delete for an UPSERT tombstone
	Row       types.Row
	Partition int32
	Offset    int64
	Timestamp time.Time
	Key       []byte
}

// Batch is what one Poll returns.
type Batch struct {
	Rows []SourceRow
	// Positions is the next offset to read per partition after this
	// batch (every assigned partition, not only those in Rows).
	Positions map[int32]int64
	// Malformed is how many records of this batch were skipped.
	Malformed int
	// Records and Bytes count the batch's records (malformed ones
	// included) and their key and value bytes, per partition;
	// MalformedBy counts the malformed ones per partition.
	Records, Bytes, MalformedBy map[int32]int64
}

// MalformedRecord describes a record that was skipped.
type MalformedRecord struct {
	Partition int32
	Offset    int64
	Reason    string
	At        time.Time
}

// SourceReader reads one Kafka topic for a source. It assigns partitions
// explicitly (no consumer group: offsets live in weir's checkpoints),
// reads at isolation level read_committed, and resumes from the positions
// of the last committed checkpoint. Partitions that appear later are found
// by listing the topic every DiscoveryInterval (every second while the
// topic has none) and are read from their earliest offset: every record
// in them is newer than the reader.
//
// Poll and Positions belong to the reading goroutine; Malformed and
// MalformedCount may be called from anywhere.
type SourceReader struct {
	cfg   SourceConfig
	log   *slog.Logger
	out   int // output row width
	admCl *kgo.Client
	adm   *kadm.Client
	cl    *kgo.Client // consumer, created at the first discovery that finds partitions
	pos   map[int32]int64
	// started holds the partitions being read; pos may also hold resume
	// points of partitions not found yet.
	started map[int32]bool
	lastD   time.Time
	listed  bool

	mu        sync.Mutex
	malformed []MalformedRecord // ring of the latest MalformedKeep
	mhead     int
	mcount    int64
}

// NewSourceReader validates cfg and prepares the reader; it connects
// lazily, at the first Poll. Errors: missing brokers, topic or decoder, or
// UPSERT without a key decoder.
func NewSourceReader(cfg SourceConfig) (*SourceReader, error) {
	if len(cfg.Brokers) == 0 || cfg.Topic == "" || cfg.Decoder == nil {
		return nil, errors.New("kafka source: brokers, topic and decoder are required")
	}
	if cfg.Format == SourceUpsert && (cfg.KeyDecoder == nil || len(cfg.KeyColumns) == 0) {
		return nil, errors.New("kafka source: FORMAT UPSERT needs a key decoder and key columns")
	}
	if cfg.MaxRecordBytes <= 0 {
		cfg.MaxRecordBytes = DefaultMaxRecordBytes
	}
	if cfg.MalformedKeep <= 0 {
		cfg.MalformedKeep = DefaultMalformedKeep
	}
	if cfg.DiscoveryInterval <= 0 {
		cfg.DiscoveryInterval = DefaultDiscoveryInterval
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	admCl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(cfg.Brokers...)}, cfg.ClientOpts...)...)
	if err != nil {
		return nil, fmt.Errorf("kafka source: %w", err)
	}
	pos := make(map[int32]int64, len(cfg.Positions))
	maps.Copy(pos, cfg.Positions)
	return &SourceReader{
		cfg: cfg, log: cfg.Logger.With("source", cfg.Name, "topic", cfg.Topic),
		out:   len(cfg.Schema) + len(cfg.Include),
		admCl: admCl, adm: kadm.NewClient(admCl), pos: pos, started: map[int32]bool{},
	}, nil
}

// Schema returns the schema of the rows Poll returns: the decoded columns,
// then the Include columns.
func (r *SourceReader) Schema() types.Schema {
	s := append(types.Schema(nil), r.cfg.Schema...)
	for _, inc := range r.cfg.Include {
		s = append(s, inc.Column())
	}
	return s
}

// discover lists the topic's partitions and starts reading the new ones.
// The first listing places partitions without a committed position by the
// startup mode; later ones start at the earliest offset. Start offsets are
// resolved to numbers here, so that Positions is exact from the first
// checkpoint on, whatever the startup mode.
func (r *SourceReader) discover(ctx context.Context) error {
	r.lastD = time.Now()
	tds, err := r.adm.ListTopics(ctx, r.cfg.Topic)
	if err != nil {
		return fmt.Errorf("kafka source: list topic %s: %w", r.cfg.Topic, err)
	}
	td, ok := tds[r.cfg.Topic]
	if !ok || errors.Is(td.Err, kerr.UnknownTopicOrPartition) {
		r.listed = true
		return nil // not created yet: nothing to read
	}
	if td.Err != nil {
		return fmt.Errorf("kafka source: topic %s: %w", r.cfg.Topic, td.Err)
	}
	var fresh []int32
	for p := range td.Partitions {
		if !r.started[p] {
			fresh = append(fresh, p)
		}
	}
	if len(fresh) == 0 {
		r.listed = true
		return nil
	}
	sort.Slice(fresh, func(i, j int) bool { return fresh[i] < fresh[j] })
	var need []int32
	for _, p := range fresh {
		if _, ok := r.pos[p]; !ok {
			need = append(need, p)
		}
	}
	if len(need) > 0 {
		mode := r.cfg.Startup
		if r.listed {
			mode = StartEarliest
		}
		var lo kadm.ListedOffsets
		switch mode {
		case StartLatest:
			lo, err = r.adm.ListEndOffsets(ctx, r.cfg.Topic)
		case StartTimestamp:
			lo, err = r.adm.ListOffsetsAfterMilli(ctx, r.cfg.StartTimestampMillis, r.cfg.Topic)
		default:
			lo, err = r.adm.ListStartOffsets(ctx, r.cfg.Topic)
		}
		if err != nil {
			return fmt.Errorf("kafka source: list offsets of %s: %w", r.cfg.Topic, err)
		}
		for _, p := range need {
			o, ok := lo.Lookup(r.cfg.Topic, p)
			if !ok || o.Err != nil || o.Offset < 0 {
				return fmt.Errorf("kafka source: no start offset for %s[%d]: %v", r.cfg.Topic, p, o.Err)
			}
			r.pos[p] = o.Offset
		}
	}
	assign := make(map[int32]kgo.Offset, len(fresh))
	for _, p := range fresh {
		assign[p] = kgo.NewOffset().At(r.pos[p])
		r.started[p] = true
	}
	if r.cl == nil {
		opts := append([]kgo.Opt{
			kgo.SeedBrokers(r.cfg.Brokers...),
			kgo.FetchIsolationLevel(kgo.ReadCommitted()),
			kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{r.cfg.Topic: assign}),
			kgo.FetchMaxWait(time.Second),
		}, r.cfg.ClientOpts...)
		cl, err := kgo.NewClient(opts...)
		if err != nil {
			return fmt.Errorf("kafka source: %w", err)
		}
		r.cl = cl
	} else {
		r.cl.AddConsumePartitions(map[string]map[int32]kgo.Offset{r.cfg.Topic: assign})
	}
	r.log.Info("kafka source reads partitions", "partitions", fresh, "first_listing", !r.listed)
	r.listed = true
	return nil
}

// missingTopicInterval is how often a reader whose topic has no
// partitions yet lists it: a source created before its topic starts
// reading soon after the first record is produced.
const missingTopicInterval = time.Second

// discoveryInterval is the time between two listings of the topic: the
// configured one, or missingTopicInterval while there is nothing to read.
func (r *SourceReader) discoveryInterval() time.Duration {
	if len(r.started) == 0 {
		return min(r.cfg.DiscoveryInterval, missingTopicInterval)
	}
	return r.cfg.DiscoveryInterval
}

// Poll returns up to max decoded rows. It waits for records until ctx
// ends or the next partition discovery is due, whichever is first; a wait
// that ends with no records returns an empty batch (and ctx's error if ctx
// ended). Malformed records are skipped and counted, never returned as
// errors. Errors: the first partition listing failed, or the client is
// closed.
func (r *SourceReader) Poll(ctx context.Context, max int) (Batch, error) {
	if !r.listed || time.Since(r.lastD) >= r.discoveryInterval() {
		if err := r.discover(ctx); err != nil {
			if !r.listed {
				return Batch{}, err
			}
			r.log.Warn("kafka source partition discovery failed", "err", err)
		}
	}
	wait := r.discoveryInterval() - time.Since(r.lastD)
	pctx, cancel := context.WithTimeout(ctx, max0(wait))
	defer cancel()
	if r.cl == nil {
		<-pctx.Done()
		return Batch{Positions: r.Positions()}, ctx.Err()
	}
	fs := r.cl.PollRecords(pctx, max)
	if fs.IsClientClosed() {
		return Batch{}, errors.New("kafka source: client closed")
	}
	fs.EachError(func(t string, p int32, err error) {
		if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
			r.log.Warn("kafka source fetch error", "partition", p, "err", err)
		}
	})
	var b Batch
	// The batch's rows share one allocation; a row has room for the
	// Include columns appended after the decoded ones.
	nrec := fs.NumRecords()
	slab := make([]types.Datum, nrec*r.out)
	b.Rows = make([]SourceRow, 0, nrec)
	var st partitionStats
	fs.EachRecord(func(rec *kgo.Record) {
		r.pos[rec.Partition] = rec.Offset + 1
		st.count(&b, rec)
		dst := slab[:len(r.cfg.Schema):r.out]
		slab = slab[r.out:]
		row, op, reason := r.decode(rec, dst)
		if reason != "" {
			b.Malformed++
			b.MalformedBy[rec.Partition]++ // count made the map
			r.skip(rec, reason)
			return
		}
		b.Rows = append(b.Rows, SourceRow{Op: op, Row: row, Partition: rec.Partition, Offset: rec.Offset,
			Timestamp: rec.Timestamp, Key: rec.Key})
	})
	st.flush(&b)
	b.Positions = r.Positions()
	if len(b.Rows) == 0 && b.Malformed == 0 {
		return b, ctx.Err()
	}
	return b, nil
}

func max0(d time.Duration) time.Duration {
	if d < time.Millisecond {
		return time.Millisecond
	}
	return d
}

// intoDecoder is a Decoder that decodes into a row it is given.
type intoDecoder interface {
	DecodeInto(row types.Row, data []byte) error
}

// decode turns rec into an output row, or returns why it is malformed.
// dst, of the decoded schema's length with room for the Include
// columns, is where a decoder that can decodes the value to.
func (r *SourceReader) decode(rec *kgo.Record, dst types.Row) (types.Row, types.Op, string) {
	if n := len(rec.Key) + len(rec.Value); n > r.cfg.MaxRecordBytes {
		return nil, 0, fmt.Sprintf("record of %d bytes exceeds the limit of %d", n, r.cfg.MaxRecordBytes)
	}
	var row types.Row
	op := types.OpInsert
	switch {
	case r.cfg.Format == SourceUpsert && rec.Key == nil:
		return nil, 0, "upsert record without a key"
	case r.cfg.Format == SourceUpsert && rec.Value == nil:
		key, err := r.cfg.KeyDecoder.Decode(rec.Key)
		if err != nil {
			return nil, 0, "key: " + err.Error()
		}
		if len(key) != len(r.cfg.KeyColumns) {
			return nil, 0, fmt.Sprintf("key has %d columns, want %d", len(key), len(r.cfg.KeyColumns))
		}
		row = make(types.Row, len(r.cfg.Schema), r.out)
		for i := range row {
			row[i] = types.NullDatum
		}
		for i, c := range r.cfg.KeyColumns {
			row[c] = key[i]
		}
		op = types.OpDelete
	case rec.Value == nil:
		return nil, 0, "record without a value"
	default:
		if d, ok := r.cfg.Decoder.(intoDecoder); ok {
			if err := d.DecodeInto(dst, rec.Value); err != nil {
				return nil, 0, err.Error()
			}
			row = dst
			break
		}
		var err error
		row, err = r.cfg.Decoder.Decode(rec.Value)
		if err != nil {
			return nil, 0, err.Error()
		}
	}
	if r.cfg.Check != nil && op == types.OpInsert {
		if err := r.cfg.Check(row[:len(r.cfg.Schema)]); err != nil {
			return nil, 0, err.Error()
		}
	}
	for _, inc := range r.cfg.Include {
		switch inc {
		case IncludePartition:
			row = append(row, types.DInt(int64(rec.Partition)))
		case IncludeOffset:
			row = append(row, types.DInt(rec.Offset))
		case IncludeTimestamp:
			row = append(row, types.DInt(rec.Timestamp.UnixMicro()))
		case IncludeKey:
			if rec.Key == nil {
				row = append(row, types.NullDatum)
			} else {
				row = append(row, types.DString(string(rec.Key)))
			}
		}
	}
	return row, op, ""
}

// skip records a malformed record: counted, kept among the latest, logged.
func (r *SourceReader) skip(rec *kgo.Record, reason string) {
	m := MalformedRecord{Partition: rec.Partition, Offset: rec.Offset, Reason: reason, At: r.cfg.Now()}
	r.mu.Lock()
	r.mcount++
	if len(r.malformed) < r.cfg.MalformedKeep {
		r.malformed = append(r.malformed, m)
	} else {
		r.malformed[r.mhead] = m
		r.mhead = (r.mhead + 1) % len(r.malformed)
	}
	r.mu.Unlock()
	r.log.Warn("kafka source skipped a malformed record", "partition", m.Partition, "offset", m.Offset, "reason", reason)
}

// Malformed returns the latest malformed records, oldest first.
func (r *SourceReader) Malformed() []MalformedRecord {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]MalformedRecord, 0, len(r.malformed))
	out = append(out, r.malformed[r.mhead:]...)
	return append(out, r.malformed[:r.mhead]...)
}

// MalformedCount returns how many records were skipped since the reader
// started.
func (r *SourceReader) MalformedCount() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.mcount
}

// Positions returns the next offset to read per partition: what goes into
// the checkpoint at a barrier, and what a restarted reader resumes from.
func (r *SourceReader) Positions() map[int32]int64 {
	return maps.Clone(r.pos)
}

// Close closes the clients.
func (r *SourceReader) Close() {
	if r.cl != nil {
		r.cl.Close()
	}
	r.admCl.Close()
}
