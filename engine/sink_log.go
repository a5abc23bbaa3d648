package engine

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/weirdb/weir/connector/kafka"
	"github.com/weirdb/weir/executor/sinktxn"
	"github.com/weirdb/weir/executor/stream"
	"github.com/weirdb/weir/internal/fault"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// This file wires decoupled sinks (DESIGN.md §5a) to Kafka: how a
// recorded transaction is resolved without a producer, how the options
// are checked, and how their deliveries show in the log and weir.sinks.

// sinkRedeliverMsg is logged when a decoupled sink finds its recorded
// transaction aborted by the broker.
const sinkRedeliverMsg = "the broker aborted a recorded sink transaction; delivering its epoch again from the log store"

// sysSinkLogMaxBytes is the ALTER SYSTEM parameter of the log store
// bound of sinks that set none; metaSinkLogMaxBytes keeps it.
const (
	sysSinkLogMaxBytes  = "sink_log_store_max_bytes"
	metaSinkLogMaxBytes = "system/" + sysSinkLogMaxBytes
)

// sysSinkRetryMaxDelay is the ALTER SYSTEM setting bounding a decoupled
// sink's delivery backoff: the wait between attempts doubles from
// sinktxn.DefaultRetryInitial up to it, so it is also the longest a sink
// may stay idle after its target returns.
const sysSinkRetryMaxDelay = "sink_retry_max_delay_ms"

// sinkDecoupling is what every job's sinks get to be decoupled; the
// system's log store bound and retry bound apply to the sinks started
// after they are set (a job's next start or restart).
func (e *Engine) sinkDecoupling() stream.SinkDecoupling {
	d := stream.SinkDecoupling{Recover: e.recoverSinkTxn, Settle: e.settleSinkTxn, Observer: sinkObserver{e}}
	if v, ok, err := e.db.Meta(metaSinkLogMaxBytes); err == nil && ok {
		d.MaxBytes, _ = strconv.ParseInt(string(v), 10, 64)
	}
	if e.st != nil && e.st.sys != nil {
		if v, ok := e.st.sys.get(sysSinkRetryMaxDelay); ok {
			d.RetryMax = msOf(v)
		}
	}
	return d
}

// sinkLogMaxBytesSetting is SHOW sink_log_store_max_bytes: the system's
// log store bound, or the default when none was set.
func (e *Engine) sinkLogMaxBytesSetting() string {
	if n := e.sinkDecoupling().MaxBytes; n > 0 {
		return strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(stream.DefaultSinkLogMaxBytes, 10)
}

// alterSinkLogMaxBytes runs ALTER SYSTEM SET sink_log_store_max_bytes:
// the log store bound of sinks without sink.log_store.max_bytes, kept
// across restarts. Errors: 22023 for a value that is not a positive
// number of bytes.
func (s *Session) alterSinkLogMaxBytes(v string) (wire.Result, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n <= 0 {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", sysSinkLogMaxBytes, v).
			WithHint("A number of bytes above zero is expected.")
	}
	b := s.eng.db.NewBatch()
	defer b.Close()
	if err := b.SetMeta(metaSinkLogMaxBytes, []byte(strconv.FormatInt(n, 10))); err != nil {
		return nil, err
	}
	if err := b.Commit(); err != nil {
		return nil, err
	}
	return done("ALTER SYSTEM")
}

// checkSinkLogOptions checks sink.decouple and sink.log_store.max_bytes.
// Errors: 22023 for a value that is not a boolean or a positive number.
func checkSinkLogOptions(with map[string]string) error {
	if v, ok := with[stream.OptSinkDecouple]; ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true", "on", "1", "yes", "false", "off", "0", "no":
		default:
			return pgerr.New(pgerr.InvalidParameterValue, "invalid value for %s: \"%s\"", stream.OptSinkDecouple, v).
				WithHint("Use 'true' (a log store between the sink and its broker, the default) or 'false'.")
		}
	}
	if v, ok := with[stream.OptSinkLogMaxBytes]; ok {
		if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err != nil || n <= 0 {
			return pgerr.New(pgerr.InvalidParameterValue, "invalid value for %s: \"%s\"", stream.OptSinkLogMaxBytes, v).
				WithHint("A number of bytes above zero is expected.")
		}
	}
	return nil
}

// recoverSinkTxn implements stream.RecoverSinkTxnFunc over
// kafka.RecoverPending, within the sink's delivery timeout.
func (e *Engine) recoverSinkTxn(ctx context.Context, actx *stream.ActorContext, n *planner.StreamSink, txn stream.SinkTxn) error {
	if _, ok := dbSinkKind(n.Rel.With); ok {
		return e.recoverDBSinkTxn(ctx, actx, n, txn)
	}
	cfg, err := e.sinkConfig(n.Rel, actx.Index)
	if err != nil {
		return err
	}
	rec, err := kafka.UnmarshalTxnRecord(txn.Data)
	if err != nil {
		return err
	}
	fault.Hit(fault.RecoveryBeforeSinkCommit)
	timeout := cfg.DeliveryTimeout
	if timeout <= 0 {
		timeout = kafka.DefaultDeliveryTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err = kafka.RecoverPending(ctx, cfg.Brokers, []kafka.TxnRecord{rec})
	if errors.Is(err, kafka.ErrCommitRefused) {
		return errors.Join(stream.ErrSinkTxnRefused, err)
	}
	if err == nil {
		e.log.Info("committed a sink transaction recorded before a restart", "sink", n.Rel.Name, "txn", rec.String())
	}
	return err
}

// settleSinkTxn implements stream.SettleSinkTxnFunc over
// kafka.SettleTxn, within the sink's delivery timeout: the broker
// refused to commit txn, and its log says whether it committed it.
func (e *Engine) settleSinkTxn(ctx context.Context, actx *stream.ActorContext, n *planner.StreamSink, txn stream.SinkTxn) (bool, error) {
	if _, ok := dbSinkKind(n.Rel.With); ok {
		// A database sink's recovery reads its progress row and never
		// answers with a refusal: there is nothing to settle.
		return false, nil
	}
	cfg, err := e.sinkConfig(n.Rel, actx.Index)
	if err != nil {
		return false, err
	}
	rec, err := kafka.UnmarshalTxnRecord(txn.Data)
	if err != nil {
		return false, err
	}
	committed, err := e.settleKafkaTxn(ctx, cfg, rec)
	if err == nil && committed {
		e.log.Info("the broker refused to commit a sink transaction again, and its log shows it committed: its epoch is delivered",
			"sink", n.Rel.Name, "txn", rec.String())
	}
	return committed, err
}

// settleKafkaTxn reads from the sink's topic whether the broker
// committed rec, within the sink's delivery timeout. A record of the
// first version has no first offsets to read from: its refusal is taken
// for an abort, as it was when it was written.
func (e *Engine) settleKafkaTxn(ctx context.Context, cfg kafka.SinkConfig, rec kafka.TxnRecord) (bool, error) {
	if len(rec.FirstOffsets) == 0 {
		return false, nil
	}
	timeout := cfg.DeliveryTimeout
	if timeout <= 0 {
		timeout = kafka.DefaultDeliveryTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return kafka.SettleTxn(ctx, cfg.Brokers, cfg.Topic, rec, cfg.ClientOpts...)
}

// sinkObserver implements stream.SinkObserver for the engine.
type sinkObserver struct{ e *Engine }

func (o sinkObserver) SinkLag(rel uint32, index int, lag sinktxn.Lag, held bool) {
	o.e.conns.sinkLag(rel, index, lag, held)
}

func (o sinkObserver) SinkRetry(job types.JobID, rel uint32, index int, r sinktxn.Retry) {
	name := o.e.relName(rel)
	o.e.log.Warn("sink delivery failed; retrying", "sink", name, "actor", index, "step", r.Step,
		"attempt", r.Attempt, "delay", r.Delay, "err", r.Err)
}

func (o sinkObserver) SinkAborted(job types.JobID, rel uint32, index int, epoch uint64, err error) {
	o.e.log.Warn(sinkRedeliverMsg, "sink", o.e.relName(rel), "actor", index, "epoch", epoch, "err", err)
}

func (o sinkObserver) SinkLost(job types.JobID, rel uint32, index int, l sinktxn.Lost) {
	name := o.e.relName(rel)
	o.e.log.Error("a recorded sink transaction was aborted by the broker and its epoch is no longer in the log store; its records are lost",
		"sink", name, "txn", l.Txn.String(), "err", l.Err)
	o.e.st.errs.Record(job, "sink recovery", pgerr.Wrap(pgerr.DataCorrupted, l.Err, "transaction "+l.Txn.String()+" was aborted by the broker"))
}

// relName returns the name of relation id, or its number.
func (e *Engine) relName(id uint32) string {
	for _, r := range e.cat.All() {
		if r.ID == id {
			return r.Name
		}
	}
	return strconv.FormatUint(uint64(id), 10)
}

// sinkLag is one actor's delivery lag as weir.sinks shows it.
type sinkLag struct {
	lag  sinktxn.Lag
	held bool
}

func (c *connectors) sinkLag(rel uint32, index int, lag sinktxn.Lag, held bool) {
	c.mu.Lock()
	s := c.sinks[rel]
	if s == nil {
		s = &sinkInfo{}
		c.sinks[rel] = s
	}
	c.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lags == nil {
		s.lags = map[int]sinkLag{}
	}
	s.lags[index] = sinkLag{lag: lag, held: held}
}

// logLag sums the actors' lags: epochs (the most of any actor), rows and
// bytes in the log stores, whether any holds its job, and the newest
// delivered epoch.
func (s *sinkInfo) logLag() (epochs, rows, bytes int64, held bool, delivered uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.lags {
		epochs = max(epochs, l.lag.Epochs)
		rows += l.lag.Rows
		bytes += l.lag.Bytes
		held = held || l.held
		delivered = max(delivered, l.lag.Delivered)
	}
	return epochs, rows, bytes, held, delivered
}
