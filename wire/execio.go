package wire

import (
	"context"
	"io"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/weirdb/weir/internal/pgerr"
)

// execIO is the ExecIO of one statement execution. Its methods must be
// called from the goroutine that runs Prepared.Execute and Result.Next,
// which is the connection goroutine.
type execIO struct {
	c   *conn
	ctx context.Context // the statement's context
	in  *copyIn
	out bool // CopyOutResponse was sent; CopyDone follows the last row
}

var _ ExecIO = (*execIO)(nil)

// Notice sends a NoticeResponse.
func (e *execIO) Notice(severity, code, message string) {
	if severity == "" {
		severity = "NOTICE"
	}
	if code == "" {
		code = string(pgerr.SuccessfulCompletion)
	}
	e.c.send(&pgproto3.NoticeResponse{Severity: severity, SeverityUnlocalized: severity, Code: code, Message: message})
}

// NoticeDetail sends a NoticeResponse with a DETAIL field.
func (e *execIO) NoticeDetail(severity, code, message, detail string) {
	if severity == "" {
		severity = "NOTICE"
	}
	if code == "" {
		code = string(pgerr.SuccessfulCompletion)
	}
	e.c.send(&pgproto3.NoticeResponse{Severity: severity, SeverityUnlocalized: severity, Code: code, Message: message, Detail: detail})
}

// ParameterStatus sends a ParameterStatus message.
func (e *execIO) ParameterStatus(name, value string) {
	e.c.send(&pgproto3.ParameterStatus{Name: name, Value: value})
}

// CopyIn sends CopyInResponse and returns a reader over the CopyData
// payloads that follow. Errors: 08P01 when a COPY is already in progress,
// 22023 for a format other than 0 or 1.
func (e *execIO) CopyIn(format int16, ncols int) (io.Reader, error) {
	if e.in != nil || e.out {
		return nil, pgerr.New(pgerr.ProtocolViolation, "COPY already in progress")
	}
	if format != 0 && format != 1 {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "unsupported COPY format code: %d", format)
	}
	e.c.send(&pgproto3.CopyInResponse{OverallFormat: byte(format), ColumnFormatCodes: columnFormats(format, ncols)})
	if err := e.c.flush(); err != nil {
		return nil, errClientGone
	}
	e.in = &copyIn{c: e.c, ctx: e.ctx}
	return e.in, nil
}

// CopyOut sends CopyOutResponse and returns a writer whose every Write is
// one CopyData message.
func (e *execIO) CopyOut(format int16, ncols int) (io.Writer, error) {
	if e.in != nil || e.out {
		return nil, pgerr.New(pgerr.ProtocolViolation, "COPY already in progress")
	}
	if format != 0 && format != 1 {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "unsupported COPY format code: %d", format)
	}
	e.c.send(&pgproto3.CopyOutResponse{OverallFormat: byte(format), ColumnFormatCodes: columnFormats(format, ncols)})
	e.out = true
	return copyOut{e.c}, nil
}

func columnFormats(format int16, ncols int) []uint16 {
	f := make([]uint16, max(ncols, 0))
	for i := range f {
		f[i] = uint16(format)
	}
	return f
}

// copyOut writes CopyData messages.
type copyOut struct{ c *conn }

func (w copyOut) Write(p []byte) (int, error) {
	w.c.send(&pgproto3.CopyData{Data: p})
	if err := w.c.maybeFlush(); err != nil {
		return 0, errClientGone
	}
	return len(p), nil
}

// copyIn reads the client's CopyData stream during COPY FROM STDIN.
type copyIn struct {
	c        *conn
	ctx      context.Context
	buf      []byte
	err      error
	finished bool // CopyDone, CopyFail or a broken stream was seen
}

// Read returns CopyData payload bytes, io.EOF after CopyDone, and 57014
// `COPY from stdin failed: <message>` after CopyFail. Flush and Sync are
// ignored during COPY, as in Postgres; any other message is a protocol
// violation (08P01) that ends the copy.
func (r *copyIn) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		r.step()
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// WithContext implements ContextReader: ctx, which must be derived from
// the statement's context, bounds the reads.
func (r *copyIn) WithContext(ctx context.Context) io.Reader {
	return copyInCtx{r: r, ctx: ctx}
}

// copyInCtx reads a copyIn under a context of the statement's own.
type copyInCtx struct {
	r   *copyIn
	ctx context.Context
}

func (c copyInCtx) Read(p []byte) (int, error) {
	saved := c.r.ctx
	c.r.ctx = c.ctx
	defer func() { c.r.ctx = saved }()
	return c.r.Read(p)
}

// step consumes one frontend message of the copy stream.
func (r *copyIn) step() {
	f, err := r.c.nextCtx(r.ctx)
	if err != nil {
		r.err = err
		// A canceled statement leaves the stream to drain; a broken
		// connection ends it.
		r.finished = r.ctx.Err() == nil
		return
	}
	switch f.typ {
	case 'd':
		r.buf = f.body
	case 'c':
		r.err, r.finished = io.EOF, true
	case 'f':
		var m pgproto3.CopyFail
		m.Decode(f.body)
		r.err = pgerr.New(pgerr.QueryCanceled, "COPY from stdin failed: %s", m.Message)
		r.finished = true
	case 'H', 'S':
	case 'X':
		// Terminate in the middle of COPY: the client is gone, so the
		// statement is canceled and the session ends after it.
		r.c.cancel(errClientGone)
		r.err, r.finished = errClientGone, true
	default:
		r.err = pgerr.New(pgerr.ProtocolViolation, "unexpected message type 0x%02X during COPY from stdin", f.typ)
		r.finished = true
	}
}

// drain discards the rest of a copy stream the statement did not read to
// its end (it failed, or stopped early), so the next message the loop sees
// follows the copy.
func (r *copyIn) drain() {
	r.buf = nil
	r.ctx = context.Background()
	for !r.finished {
		r.step()
	}
}
