package engine

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// streamErrors records the errors streaming jobs turned into NULLs (an
// expression failing on one row never stops a job): counted per job and
// operator, the latest kept with its message, logged, and shown in
// weir.stream_errors.
type streamErrors struct {
	log *slog.Logger
	mu  sync.Mutex
	// byKey holds one entry per (job, operator, SQLSTATE).
	byKey map[streamErrorKey]*streamErrorEntry
}

type streamErrorKey struct {
	job      types.JobID
	operator string
	code     string
}

type streamErrorEntry struct {
	count   int64
	last    string
	lastAt  time.Time
	firstAt time.Time
}

func newStreamErrors(log *slog.Logger) *streamErrors {
	return &streamErrors{log: log, byKey: map[streamErrorKey]*streamErrorEntry{}}
}

// Record implements stream.ErrorRecorder. The first error of a kind is
// logged at warning level, later ones at debug level, so a bad row per
// chunk does not flood the log.
func (r *streamErrors) Record(job types.JobID, operator string, err error) {
	pe := pgerr.As(err)
	k := streamErrorKey{job: job, operator: operator, code: string(pe.Code)}
	now := time.Now()
	r.mu.Lock()
	e := r.byKey[k]
	first := e == nil
	if first {
		e = &streamErrorEntry{firstAt: now}
		r.byKey[k] = e
	}
	e.count++
	e.last, e.lastAt = pe.Message, now
	r.mu.Unlock()
	level := slog.LevelDebug
	if first {
		level = slog.LevelWarn
	}
	r.log.Log(context.Background(), level, "streaming expression error, the value is NULL", "job", job, "operator", operator, "sqlstate", pe.Code, "err", pe.Message)
}

// forget drops the entries of a job (its view was dropped).
func (r *streamErrors) forget(job types.JobID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k := range r.byKey {
		if k.job == job {
			delete(r.byKey, k)
		}
	}
}

// streamErrorRow is one row of weir.stream_errors.
type streamErrorRow struct {
	key streamErrorKey
	streamErrorEntry
}

func (r *streamErrors) rows() []streamErrorRow {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]streamErrorRow, 0, len(r.byKey))
	for k, e := range r.byKey {
		out = append(out, streamErrorRow{key: k, streamErrorEntry: *e})
	}
	return out
}
