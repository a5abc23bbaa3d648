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

// count adds rec to the batch's per-partition record and byte counts.
func (b *Batch) count(rec *kgo.Record) {
	if b.Records == nil {
		b.Records, b.Bytes, b.MalformedBy = map[int32]int64{}, map[int32]int64{}, map[int32]int64{}
	}
	b.Records[rec.Partition]++
	b.Bytes[rec.Partition] += int64(len(rec.Key) + len(rec.Value))
}
