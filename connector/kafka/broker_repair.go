package kafka

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// kfake, restarted on its data directory after a crash, aborts the
// transactions that were open without writing their ABORT markers. Kafka
// readers need the marker: read_committed consumers skip a producer's
// batches from the start of its aborted range until they see one, so the
// producer's later committed records vanish, and a replay that decides
// by the next control batch takes the producer's next COMMIT for the
// aborted records too (kfake-cluster-probe.md, section 5.3). Writing the
// missing markers with WriteTxnMarkers, before any client produces, cures
// both; a broker closed cleanly keeps its open transactions and gets none.

// abortDanglingTxns scans every partition of the broker at addr and
// writes an ABORT marker for each producer whose transactional batches
// the log leaves without a control batch after them and which the broker
// no longer counts as in a transaction. It returns how many markers it
// wrote. The transactions in kept (restoreOpenTxns kept them open) are
// left alone: clients may already be at work when the scan runs, and a
// kept transaction that a producer ended meanwhile has its marker past
// the end the scan read to, so the scan would take it for dangling; a
// second marker, written with no regard to the producer's epoch, would
// then abort that producer's next transaction on the partition.
func abortDanglingTxns(ctx context.Context, addr string, kept map[keptTxn]bool) (int, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr),
		kgo.FetchIsolationLevel(kgo.ReadUncommitted()),
		kgo.KeepControlRecords())
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	topics, err := adm.ListTopics(ctx)
	if err != nil {
		return 0, err
	}
	if len(topics) == 0 {
		return 0, nil
	}
	starts, err := adm.ListStartOffsets(ctx, topics.Names()...)
	if err != nil {
		return 0, err
	}
	ends, err := adm.ListEndOffsets(ctx, topics.Names()...)
	if err != nil {
		return 0, err
	}
	type tp struct {
		topic     string
		partition int32
	}
	// left is the offset each partition is to be read up to.
	left := map[tp]int64{}
	consume := map[string]map[int32]kgo.Offset{}
	ends.Each(func(o kadm.ListedOffset) {
		s, ok := starts.Lookup(o.Topic, o.Partition)
		if o.Err != nil || !ok || s.Err != nil || o.Offset <= s.Offset {
			return
		}
		left[tp{o.Topic, o.Partition}] = o.Offset
		if consume[o.Topic] == nil {
			consume[o.Topic] = map[int32]kgo.Offset{}
		}
		consume[o.Topic][o.Partition] = kgo.NewOffset().At(s.Offset)
	})
	if len(left) == 0 {
		return 0, nil
	}
	// open holds, per partition, the producers with transactional
	// batches not yet followed by a control batch, with their epoch.
	open := map[tp]map[int64]int16{}
	cl.AddConsumePartitions(consume)
	for len(left) > 0 {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		var ferr error
		fs.EachError(func(_ string, _ int32, err error) { ferr = err })
		if ferr != nil {
			return 0, ferr
		}
		fs.EachRecord(func(r *kgo.Record) {
			k := tp{r.Topic, r.Partition}
			switch {
			case r.Attrs.IsControl():
				delete(open[k], r.ProducerID)
			case r.Attrs.IsTransactional():
				if open[k] == nil {
					open[k] = map[int64]int16{}
				}
				open[k][r.ProducerID] = r.ProducerEpoch
			}
			if end, ok := left[k]; ok && r.Offset >= end-1 {
				delete(left, k)
			}
		})
	}
	set := kadm.TopicsSet{}
	for k, pids := range open {
		if len(pids) > 0 {
			set.Add(k.topic, k.partition)
		}
	}
	if len(set) == 0 {
		return 0, nil
	}
	active, err := adm.DescribeProducers(ctx, set)
	if err != nil {
		return 0, err
	}
	written := 0
	for k, pids := range open {
		for pid, epoch := range pids {
			if kept[keptTxn{k.topic, k.partition, pid}] {
				continue // its producer, the coordinator or its timeout ends it
			}
			live := false
			active.EachProducer(func(p kadm.DescribedProducer) {
				live = live || (p.Topic == k.topic && p.Partition == k.partition && p.ProducerID == pid)
			})
			if live {
				continue // still open: its producer will end it
			}
			m := kadm.TxnMarkers{ProducerID: pid, ProducerEpoch: epoch, Topics: kadm.TopicsSet{}}
			m.Topics.Add(k.topic, k.partition)
			resps, err := adm.WriteTxnMarkers(ctx, m)
			if err != nil {
				return written, err
			}
			for _, r := range resps {
				for _, t := range r.Topics {
					for _, p := range t.Partitions {
						if p.Err != nil {
							return written, fmt.Errorf("abort marker for producer %d on %s/%d: %w", pid, k.topic, k.partition, p.Err)
						}
					}
				}
			}
			written++
		}
	}
	return written, nil
}

// repairTimeout bounds the scan of abortDanglingTxns at start.
const repairTimeout = 2 * time.Minute
