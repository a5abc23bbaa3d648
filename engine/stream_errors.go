package engine

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/weirdb/weir/engine/syscat"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql/catalog"
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
	msg := "streaming expression error, the value is NULL"
	switch {
	case strings.HasPrefix(operator, "sink"):
		// A sink's delivery or recovery: it says itself what follows
		// (a retry, or the loss it found).
		msg = "sink error"
	case strings.HasPrefix(string(pe.Code), "08"):
		// A connector that cannot reach its broker (it retries).
		msg = "streaming connection error, retrying"
	case operator == "build":
		msg = "streaming job could not be built"
	case operator == "checkpoint":
		msg = "streaming job holds up the checkpoint, failing it"
	}
	r.log.Log(context.Background(), level, msg, "job", job, "operator", operator, "sqlstate", pe.Code, "err", pe.Message)
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

// streamErrorRecords are weir.stream_errors' rows, by job, operator and
// SQLSTATE, of the jobs whose relation visible accepts (all when nil).
func (e *Engine) streamErrorRecords(visible func(rel *catalog.Relation) bool) []syscat.StreamError {
	rows := e.st.errs.rows()
	slices.SortFunc(rows, func(a, b streamErrorRow) int {
		return cmp.Or(cmp.Compare(a.key.job, b.key.job), cmp.Compare(a.key.operator, b.key.operator), cmp.Compare(a.key.code, b.key.code))
	})
	out := make([]syscat.StreamError, 0, len(rows))
	for _, r := range rows {
		name := fmt.Sprintf("#%d", r.key.job)
		rel, ok := e.cat.ByID(uint32(r.key.job))
		if !ok {
			rel = nil
		}
		if visible != nil && !visible(rel) {
			continue
		}
		if ok {
			name = rel.Name
		}
		out = append(out, syscat.StreamError{View: name, Operator: r.key.operator, SQLState: r.key.code, Count: r.count, Last: r.last,
			First: r.firstAt, LastAt: r.lastAt})
	}
	return out
}
