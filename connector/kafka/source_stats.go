package kafka

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// HighWatermarks lists the topic's high watermark per partition: the
// offset the next record produced to it will get. The lag of a reader on
// a partition is the high watermark minus its position. It asks the
// broker (one ListOffsets request) and may be called from any goroutine.
// A topic that does not exist yet has no partitions.
func (r *SourceReader) HighWatermarks(ctx context.Context) (map[int32]int64, error) {
	lo, err := r.adm.ListEndOffsets(ctx, r.cfg.Topic)
	if err != nil {
		return nil, fmt.Errorf("kafka source: list end offsets of %s: %w", r.cfg.Topic, err)
	}
	out := map[int32]int64{}
	var first error
	lo.Each(func(o kadm.ListedOffset) {
		if o.Partition < 0 {
			return // the topic does not exist
		}
		if o.Err != nil {
			first = errors.Join(first, o.Err)
			return
		}
		out[o.Partition] = o.Offset
	})
	return out, first
}

// makeMaps makes the batch's per-partition counts.
func (b *Batch) makeMaps() {
	if b.Records == nil {
		b.Records, b.Bytes, b.MalformedBy = map[int32]int64{}, map[int32]int64{}, map[int32]int64{}
	}
}

// partitionStats sums the records and bytes of a run of records of one
// partition (a fetch returns each partition's records together) before
// adding them to a Batch's maps, so that a record costs no map access.
type partitionStats struct {
	part           int32
	records, bytes int64
}

// count counts rec, adding the sums so far to b when its partition
// differs from the previous record's.
func (s *partitionStats) count(b *Batch, rec *kgo.Record) {
	if s.records > 0 && s.part != rec.Partition {
		s.flush(b)
	}
	b.makeMaps()
	s.part = rec.Partition
	s.records++
	s.bytes += int64(len(rec.Key) + len(rec.Value))
}

// flush adds the sums to b and starts over.
func (s *partitionStats) flush(b *Batch) {
	if s.records == 0 {
		return
	}
	b.Records[s.part] += s.records
	b.Bytes[s.part] += s.bytes
	s.records, s.bytes = 0, 0
}
