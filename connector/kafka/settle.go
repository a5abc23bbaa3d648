package kafka

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ErrTxnNotSettled is wrapped by SettleTxn when the log does not tell
// how a transaction ended: no control record of its producer follows its
// first offsets yet (it may still be open), or the record predates first
// offsets. Committing it again with its record, and settling it again if
// that is refused, is the way on.
var ErrTxnNotSettled = errors.New("the log does not show how the transaction ended")

// SettleTxn reads from the log of topic whether the broker committed or
// aborted the transaction of rec, whose commit it refused
// (ErrCommitRefused): it returns true for committed, false for aborted.
//
// A producer's transactions on a partition follow one another, each
// ended by a control record (COMMIT or ABORT) of that producer after its
// data. So the first control record of rec's producer at or after the
// transaction's first offset on a partition it wrote ends that
// transaction. SettleTxn reads each partition of rec.FirstOffsets from
// there (read_uncommitted, control records kept) up to the partition's
// end as it stands, and answers with the first partition that holds one.
// It starts no producer, so it aborts nothing. Errors: ErrTxnNotSettled
// (wrapped) when no partition holds the end, a partition no longer holds
// the transaction's first record, or the broker did not answer before
// ctx ended.
func SettleTxn(ctx context.Context, brokers []string, topic string, rec TxnRecord, opts ...kgo.Opt) (bool, error) {
	if len(rec.FirstOffsets) == 0 {
		return false, fmt.Errorf("kafka sink: settle %s: %w: the record has no first offsets", rec, ErrTxnNotSettled)
	}
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(brokers...),
		kgo.FetchIsolationLevel(kgo.ReadUncommitted()), kgo.KeepControlRecords()}, opts...)...)
	if err != nil {
		return false, fmt.Errorf("kafka sink: settle %s: %w", rec, err)
	}
	defer cl.Close()
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, topic)
	if err != nil {
		return false, fmt.Errorf("kafka sink: settle %s: %w: end offsets: %w", rec, ErrTxnNotSettled, err)
	}
	// left is, per partition still to read, the offset its read stops
	// before.
	left := map[int32]int64{}
	consume := map[int32]kgo.Offset{}
	for _, p := range slices.Sorted(maps.Keys(rec.FirstOffsets)) {
		first := rec.FirstOffsets[p]
		end, ok := ends.Lookup(topic, p)
		if !ok || end.Err != nil {
			return false, fmt.Errorf("kafka sink: settle %s: %w: no end offset of partition %d", rec, ErrTxnNotSettled, p)
		}
		if end.Offset <= first {
			continue // nothing after the first offset: no end here
		}
		left[p] = end.Offset
		consume[p] = kgo.NewOffset().At(first)
	}
	if len(left) == 0 {
		return false, fmt.Errorf("kafka sink: settle %s: %w", rec, ErrTxnNotSettled)
	}
	cl.AddConsumePartitions(map[string]map[int32]kgo.Offset{topic: consume})
	// seen marks the partitions whose first record was checked.
	seen := map[int32]bool{}
	for len(left) > 0 {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return false, fmt.Errorf("kafka sink: settle %s: %w: %w", rec, ErrTxnNotSettled, err)
		}
		var ferr error
		fs.EachError(func(_ string, _ int32, err error) { ferr = err })
		if ferr != nil {
			return false, fmt.Errorf("kafka sink: settle %s: %w: %w", rec, ErrTxnNotSettled, ferr)
		}
		var (
			found, commit bool
			gone          error
		)
		fs.EachRecord(func(r *kgo.Record) {
			end, reading := left[r.Partition]
			if !reading || found || gone != nil {
				return
			}
			first := rec.FirstOffsets[r.Partition]
			if !seen[r.Partition] {
				seen[r.Partition] = true
				if r.Offset > first {
					// The log no longer starts at or before the first
					// record (retention or compaction moved its start):
					// a later control record could end a later
					// transaction.
					gone = fmt.Errorf("partition %d starts at %d, after the transaction's first offset %d", r.Partition, r.Offset, first)
					return
				}
			}
			if r.Offset >= first && r.ProducerID == rec.ProducerID && r.Attrs.IsControl() {
				found, commit = true, isCommitMarker(r.Key)
				return
			}
			if r.Offset >= end-1 {
				delete(left, r.Partition)
			}
		})
		if gone != nil {
			return false, fmt.Errorf("kafka sink: settle %s: %w: %v", rec, ErrTxnNotSettled, gone)
		}
		if found {
			return commit, nil
		}
	}
	return false, fmt.Errorf("kafka sink: settle %s: %w: no control record of producer %d after its first offsets", rec, ErrTxnNotSettled, rec.ProducerID)
}

// isCommitMarker reports whether a control record's key is a COMMIT
// marker: a version (int16) and a type (int16, 0 ABORT, 1 COMMIT).
func isCommitMarker(key []byte) bool {
	return len(key) >= 4 && key[2] == 0 && key[3] == 1
}
