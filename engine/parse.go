package engine

import (
	"context"

	"golang.org/x/sync/semaphore"

	"github.com/weirdb/weir/internal/memlimit"
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
// While it runs, a large parse also borrows its estimate above the Go
// runtime's soft memory limit (memlimit.Loan): the limit follows the
// memory budget, and a parse of megabytes, live above it, would
// otherwise keep the collector running back to back until it ends.
type parseGate struct {
	sem      *semaphore.Weighted
	capacity int64
	// parseText parses a large statement (sql.ParseContext when nil);
	// tests hold a parse in it.
	parseText func(ctx context.Context, text string) (sql.Stmt, error)
}

// newParseGate admits large parses estimated to hold up to the memory
// budget (at least minParseGateBytes) at once.
func newParseGate(budget int64) *parseGate {
	c := max(budget, minParseGateBytes)
	return &parseGate{sem: semaphore.NewWeighted(c), capacity: c}
}

// weight is what parsing text takes from the gate.
func (g *parseGate) weight(text string) int64 {
	return min(parseEstimate(text), g.capacity)
}

// parseEstimate is what parsing text is estimated to hold, which a large
// parse borrows above the soft memory limit whole: a statement larger
// than the gate parses alone, but its trees are no smaller for that.
func parseEstimate(text string) int64 {
	return int64(len(text)) * parseBytesPerTextByte
}

// parse parses text, giving up when ctx ends first (statement_timeout,
// a cancel, the client gone), both while waiting for the gate and while
// parsing: a large statement's parse runs in a goroutine whose result is
// dropped if ctx ended meanwhile, holding its share of the gate, and
// loan, until it ends. Short statements are parsed inline. loan is the
// statement's headroom above the soft memory limit (Session.Prepare
// lends it for the parse, bind and plan together); when it is nil a
// large parse borrows its own for as long as it runs.
func (g *parseGate) parse(ctx context.Context, text string, loan *memlimit.Loan) (sql.Stmt, error) {
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
	if loan == nil {
		loan = memlimit.Lend(parseEstimate(text))
	} else {
		loan.Hold()
	}
	type result struct {
		stmt sql.Stmt
		err  error
	}
	done := make(chan result, 1)
	go func() {
		defer g.sem.Release(w)
		defer loan.Release()
		defer func() {
			if r := recover(); r != nil {
				done <- result{err: pgerr.New(pgerr.InternalError, "internal error: %v", r)}
			}
		}()
		// ParseContext gives up once ctx ends, as soon as it is out of
		// the TiDB parser, so an abandoned parse gives its share of the
		// gate back early.
		parse := g.parseText
		if parse == nil {
			parse = sql.ParseContext
		}
		stmt, err := parse(ctx, text)
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
	return s.eng.parses.parse(ctx, text, nil)
}

// prepareLoan is the headroom above the soft memory limit a statement of
// text, parsed whole, borrows for its parse, bind and plan: nil for a
// statement parsed inline, the parse gate's estimate for a larger one.
// The binder's and planner's trees of a statement of megabytes live as
// long as the parse tree, and are of its size.
func (s *Session) prepareLoan(text string) *memlimit.Loan {
	if len(text) < parseInlineBytes {
		return nil
	}
	return memlimit.Lend(parseEstimate(text))
}
