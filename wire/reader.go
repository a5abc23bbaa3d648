package wire

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"slices"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/weirdb/weir/internal/pgerr"
)

// goneCheckFirst is when the socket is first checked, while the
// connection goroutine handles a message, for a client that went away
// (PostgreSQL's client_connection_check_interval, which it leaves off by
// default); the interval then doubles up to goneCheckMax, so that many
// long statements cost little.
const (
	goneCheckFirst = 10 * time.Millisecond
	goneCheckMax   = 500 * time.Millisecond
)

// longAgo is a read deadline in the past: it makes a blocked read return
// at once.
var longAgo = time.Unix(1, 0)

// frameReader cuts the socket's byte stream into frames on the
// connection goroutine. A read that a deadline interrupts keeps what it
// has consumed (in the bufio.Reader, or the body read so far), so the
// next call goes on where it stopped and the stream stays in step.
type frameReader struct {
	br  *bufio.Reader
	max int
	// A message whose header was consumed and whose body is still being
	// read.
	inBody bool
	typ    byte
	want   int
	body   []byte
}

// read returns the next frame. Errors from the socket (including a
// deadline's) are returned as they are and leave the reader ready to
// resume; a message too long or with an invalid length gives a frame
// whose err is a pgerr.Error, after which the stream cannot go on.
func (r *frameReader) read() (frame, error) {
	if !r.inBody {
		hdr, err := r.br.Peek(5)
		if err != nil {
			if errors.Is(err, io.EOF) && len(hdr) > 0 {
				err = io.ErrUnexpectedEOF
			}
			return frame{}, err
		}
		n := int64(int32(binary.BigEndian.Uint32(hdr[1:]))) - 4
		switch {
		case n < 0:
			return frame{err: pgerr.New(pgerr.ProtocolViolation, "invalid message length")}, nil
		case n > int64(r.max):
			return frame{err: pgerr.New(pgerr.ProgramLimitExceeded,
				"message of %d bytes exceeds the limit of %d bytes", n, r.max)}, nil
		}
		r.inBody, r.typ, r.want = true, hdr[0], int(n)
		// The body's buffer grows with the bytes that arrive, so a length
		// word alone cannot make the server allocate up to the limit.
		r.body = make([]byte, 0, min(r.want, 64<<10))
		r.br.Discard(5)
	}
	for len(r.body) < r.want {
		if len(r.body) == cap(r.body) {
			r.body = slices.Grow(r.body, min(r.want-len(r.body), len(r.body)))
		}
		m, err := r.br.Read(r.body[len(r.body):min(cap(r.body), r.want)])
		r.body = r.body[:len(r.body)+m]
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return frame{}, err
		}
	}
	f := frame{typ: r.typ, body: r.body}
	r.inBody, r.body = false, nil
	if r.br.Buffered() > 0 {
		if b, err := r.br.Peek(1); err == nil {
			f.then = b[0]
		}
	}
	return f, nil
}

// readInterrupts is how the connection goroutine's blocking read is
// stopped from elsewhere: by moving the socket's read deadline into the
// past. The connection's end (its context) stops every read from then
// on; a statement's context stops the reads made under it; an idle
// timeout is a deadline set before the read.
type readInterrupts struct {
	nc net.Conn
	mu sync.Mutex
	// gen counts the reads made under a context of their own: an
	// interrupt meant for one that is over is ignored.
	gen uint64
	// closed is set once the connection's context ended.
	closed bool
}

// stopAll makes every read from now on return at once.
func (ri *readInterrupts) stopAll() {
	ri.mu.Lock()
	ri.closed = true
	ri.nc.SetReadDeadline(longAgo)
	ri.mu.Unlock()
}

// begin starts a read bounded by ctx (nil: by nothing but the
// connection) and by deadline (zero: none); end must follow the read.
func (ri *readInterrupts) begin(ctx context.Context, deadline time.Time) (end func()) {
	// The deadline first: set after the context's interrupt, it could
	// undo it.
	if !deadline.IsZero() {
		ri.mu.Lock()
		if !ri.closed {
			ri.nc.SetReadDeadline(deadline)
		}
		ri.mu.Unlock()
	}
	var stop func() bool
	if ctx != nil {
		ri.mu.Lock()
		gen := ri.gen
		ri.mu.Unlock()
		stop = context.AfterFunc(ctx, func() {
			ri.mu.Lock()
			if ri.gen == gen && !ri.closed {
				ri.nc.SetReadDeadline(longAgo)
			}
			ri.mu.Unlock()
		})
	}
	if stop == nil && deadline.IsZero() {
		return func() {}
	}
	return func() {
		if stop != nil && stop() && deadline.IsZero() {
			return // the deadline was never touched
		}
		ri.mu.Lock()
		ri.gen++
		if !ri.closed {
			ri.nc.SetReadDeadline(time.Time{})
		}
		ri.mu.Unlock()
	}
}

// isDeadline reports whether err is a read deadline's.
func isDeadline(err error) bool { return errors.Is(err, os.ErrDeadlineExceeded) }

// goneWatch checks, while a message is handled, whether the client closed
// or broke its connection, and cancels the connection when it did: the
// connection goroutine is busy with it (a statement runs) and does not read.
// A check is a poll(2) of the socket for a hang-up, every
// goneCheckFirst once the message has been handled that long, then at
// doubling intervals up to goneCheckMax.
type goneWatch struct {
	c  *conn
	rc syscall.RawConn // nil: the connection has no socket to poll (a test's pipe)
	mu sync.Mutex
	t  *time.Timer
	on bool
	// every is the interval to the next check.
	every time.Duration
}

// newGoneWatch returns c's watch.
func newGoneWatch(c *conn) *goneWatch {
	w := &goneWatch{c: c}
	nc := c.nc
	if tc, ok := nc.(*tls.Conn); ok {
		nc = tc.NetConn()
	}
	if sc, ok := nc.(syscall.Conn); ok {
		if rc, err := sc.SyscallConn(); err == nil {
			w.rc = rc
		}
	}
	return w
}

// start arms the watch as the connection goroutine takes a message.
func (w *goneWatch) start() {
	if w.rc == nil {
		return
	}
	w.mu.Lock()
	w.on, w.every = true, goneCheckFirst
	if w.t == nil {
		w.t = time.AfterFunc(w.every, w.check)
	} else {
		w.t.Reset(w.every)
	}
	w.mu.Unlock()
}

// stop disarms it once the message is handled.
func (w *goneWatch) stop() {
	if w.rc == nil {
		return
	}
	w.mu.Lock()
	w.on = false
	if w.t != nil {
		w.t.Stop()
	}
	w.mu.Unlock()
}

// check polls the socket once and re-arms the watch while the message
// is being handled.
func (w *goneWatch) check() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.on {
		return
	}
	if w.gone() {
		w.c.cancel(errClientGone)
		return
	}
	w.every = min(2*w.every, goneCheckMax)
	w.t.Reset(w.every)
}

// gone reports whether the peer hung up or the socket failed. As with
// PostgreSQL's client_connection_check_interval, a client that closed
// its end is gone even if messages it sent before are still unread.
func (w *goneWatch) gone() bool {
	var hup bool
	err := w.rc.Control(func(fd uintptr) {
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLRDHUP}}
		if n, err := unix.Poll(pfd, 0); err == nil && n > 0 {
			hup = pfd[0].Revents&(unix.POLLRDHUP|unix.POLLERR|unix.POLLHUP|unix.POLLNVAL) != 0
		}
	})
	return err == nil && hup
}
