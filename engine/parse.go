package engine

import (
	"context"

	"golang.org/x/sync/semaphore"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql"
)

// parseInlineBytes is the text size below which a statement is parsed
// inline, without the gate: such statements parse in well under a
// millisecond and hold little.
const parseInlineBytes = 64 << 10

// parseBytesPerTextByte estimates what parsing holds in memory per byte
// of statement text: the tokens, the bridged text and the TiDB syntax
// tree of a list of a million items take a few hundred bytes per input
// byte (and allocate more than a kilobyte per byte along the way).
const parseBytesPerTextByte = 256

// minParseGateBytes is the least the gate admits at once, whatever the
// memory budget.
const minParseGateBytes = 64 << 20

// parseGate bounds the memory that parsing large statements holds at
// once. The TiDB parser cannot be interrupted (weir's own stages before
// and after it stop when the statement's context ends), so a statement
// that times out, is cancelled or whose client disconnects keeps parsing
// in a goroutine of its own until it leaves the TiDB parser; without a
// bound, clients sending multi-megabyte statements and hanging up could
// start any number of those, each holding gigabytes and a core, outside
// every session and max_connections. Each large
// parse takes its estimated memory from the gate (at most all of it, so
// a statement larger than the gate parses alone) and gives it back only
// when the parse ends, abandoned or not; a statement waiting its turn
// gives up when its own statement_timeout, cancel or disconnect comes.
type parseGate struct {
	sem      *semaphore.Weighted
	capacity int64
}

// newParseGate admits large parses estimated to hold up to the memory
// budget (at least minParseGateBytes) at once.
func newParseGate(budget int64) *parseGate {
	c := max(budget, minParseGateBytes)
	return &parseGate{sem: semaphore.NewWeighted(c), capacity: c}
}

// weight is what parsing text takes from the gate.
func (g *parseGate) weight(text string) int64 {
	return min(int64(len(text))*parseBytesPerTextByte, g.capacity)
}

// parse parses text, giving up when ctx ends first (statement_timeout,
// a cancel, the client gone), both while waiting for the gate and while
// parsing: a large statement's parse runs in a goroutine whose result is
// dropped if ctx ended meanwhile, holding its share of the gate until it
// ends. Short statements are parsed inline.
func (g *parseGate) parse(ctx context.Context, text string) (sql.Stmt, error) {
	if len(text) < parseInlineBytes {
		stmt, err := sql.Parse(text)
		if err == nil && ctx.Err() != nil {
			err = ctxError(ctx)
		}
		return stmt, err
	}
	w := g.weight(text)
	if err := g.sem.Acquire(ctx, w); err != nil {
		return nil, ctxError(ctx)
	}
	type result struct {
		stmt sql.Stmt
		err  error
	}
	done := make(chan result, 1)
	go func() {
		defer g.sem.Release(w)
		defer func() {
			if r := recover(); r != nil {
				done <- result{err: pgerr.New(pgerr.InternalError, "internal error: %v", r)}
			}
		}()
		// ParseContext gives up once ctx ends, as soon as it is out of
		// the TiDB parser, so an abandoned parse gives its share of the
		// gate back early.
		stmt, err := sql.ParseContext(ctx, text)
		done <- result{stmt, err}
	}()
	select {
	case r := <-done:
		if r.err == nil && ctx.Err() != nil {
			r.err = ctxError(ctx)
		}
		return r.stmt, r.err
	case <-ctx.Done():
		return nil, ctxError(ctx)
	}
}

// parseCtx parses text for the session through the engine's parse gate.
func (s *Session) parseCtx(ctx context.Context, text string) (sql.Stmt, error) {
	return s.eng.parses.parse(ctx, text)
}
