package wire

import (
	"context"
	"io"
	"net"
	"time"

	"github.com/weirdb/weir/types"
)

// Handler is what the wire server needs from the database. engine
// implements it. The server owns connections, protocol state, parameter
// and result encoding (text and binary formats), portals and query
// cancellation; the handler owns statements and their execution.
type Handler interface {
	// NewSession is called once per connection after the StartupMessage.
	// An error is sent as a FATAL ErrorResponse and the connection closed.
	NewSession(ctx context.Context, p StartupParams) (Session, error)
	// ServerParams returns the ParameterStatus values sent after
	// authentication (server_version, TimeZone, ...), in send order.
	ServerParams() [][2]string
}

// StartupParams are the values of the client's StartupMessage and what
// the server knows of the connection they came on.
type StartupParams struct {
	User     string
	Database string
	// Options holds every other startup parameter (application_name,
	// client_encoding, DateStyle, options, ...).
	Options map[string]string
	// PID is the process id the server sends the client in
	// BackendKeyData: PostgreSQL's pid of the session's backend, which
	// pg_backend_pid() and pg_stat_activity report and CancelRequest
	// names. Zero when the session does not come from a connection.
	PID uint32
	// RemoteAddr is the client's address (nil when not known).
	RemoteAddr net.Addr
	// TLS is the connection's TLS version and cipher, nil when the
	// client did not upgrade to TLS (pg_stat_ssl).
	TLS *TLSInfo
	// Backend lets the handler stop the connection's work from another
	// session (pg_cancel_backend, pg_terminate_backend); nil when the
	// session does not come from a connection.
	Backend Backend
}

// Backend is the server's handle on one connection, for the handler.
// Its methods are safe to call from any goroutine, any number of times,
// also after the connection ended (they then do nothing).
type Backend interface {
	// Cancel cancels the statement the connection runs, if any, as a
	// CancelRequest does: it fails with 57014 "canceling statement due
	// to user request" and the session goes on.
	Cancel()
	// Terminate ends the connection as PostgreSQL's SIGTERM to a
	// backend does: a running statement is cancelled, the client gets
	// FATAL 57P01 "terminating connection due to administrator command"
	// and the connection closes (Session.Close is called as usual).
	Terminate()
}

// Piece is one statement of a simple-protocol query string.
type Piece struct {
	Text   string
	Offset int // byte offset of Text in the whole query string
}

// Session is one client connection's state.
type Session interface {
	// Split splits a simple-protocol query string into statements. Empty
	// statements (only whitespace, comments or ';') are dropped; an empty
	// result makes the server send EmptyQueryResponse. Split fails only on
	// unterminated quotes or comments (SQLSTATE 42601), or when ctx ends
	// first (the client gone, a cancel, shutdown): splitting a message of
	// millions of statements takes a while, and must not outlive them.
	Split(ctx context.Context, text string) ([]Piece, error)
	// Prepare parses and binds text, which holds one statement. paramTypes
	// are the client's type hints by OID (0 or missing: infer).
	Prepare(ctx context.Context, text string, paramTypes []uint32) (Prepared, error)
	// TxStatus returns the ReadyForQuery status: 'I' idle, 'T' in a
	// transaction block, 'E' in a failed transaction block.
	TxStatus() byte
	// Close releases the session; it is called exactly once, also when the
	// client disconnects mid-statement.
	Close()
}

// ImplicitTransaction is optionally implemented by a Session that runs
// the statements it is sent outside a transaction block in PostgreSQL's
// implicit transactions:
//
//   - the statements of one multi-statement simple Query form one: the
//     server calls BeginImplicit before the first statement;
//   - in the extended protocol, every Execute up to the next Sync: the
//     server calls BeginPipeline before an Execute that is not followed
//     at once by Sync (one Execute then Sync is a transaction of its own,
//     which the session may run as it runs any single statement).
//
// Either call does nothing inside a transaction block or an implicit
// transaction already open. EndImplicit ends the implicit transaction
// after the Query's last statement ran, or at Sync, with ok false when a
// statement (or any message of the batch) failed: its work must then be
// undone. The server calls it at the end of every Query and at every
// Sync, also when it began nothing, since a single statement's own
// transaction ends there too (what it did with SET LOCAL or
// set_config(..., true) ends with it). ctx is canceled as a statement's
// is (a CancelRequest, the client gone, shutdown) while the commit waits
// to be durable. An error from EndImplicit(ctx, true) is sent to the
// client before ReadyForQuery; one that wraps ErrCloseConnection ends
// the connection instead.
type ImplicitTransaction interface {
	BeginImplicit()
	BeginPipeline()
	EndImplicit(ctx context.Context, ok bool) error
}

// IdleTimeouts is optionally implemented by a Session whose idle time
// between statements is bounded (idle_session_timeout and
// idle_in_transaction_session_timeout). Zero means no limit. The server
// asks again before each wait, so a SET takes effect at once.
type IdleTimeouts interface {
	IdleSessionTimeout() time.Duration
	IdleInTransactionTimeout() time.Duration
}

// SessionLocation is optionally implemented by a Session whose TimeZone
// setting can change. The server decodes text parameters and formats
// timestamptz results in the returned location; without it, it uses UTC.
type SessionLocation interface {
	// Location returns the session's current TimeZone; it is called once
	// per Bind and per executed statement.
	Location() *time.Location
}

// Field describes one result column for RowDescription.
type Field struct {
	Name string
	T    types.T
	// TableOID and Column identify the source table column when known
	// (0 otherwise).
	TableOID uint32
	Column   int16
}

// Prepared is a parsed and bound statement.
type Prepared interface {
	// ParamTypes returns the types of $1..$n, as sent in
	// ParameterDescription.
	ParamTypes() []types.T
	// Fields returns the result columns, or nil when the statement returns
	// no rows (the server then sends NoData on Describe).
	Fields() []Field
	// Execute runs the statement with decoded parameters. Rows are pulled
	// from the returned Result; ctx is cancelled by a CancelRequest or when
	// the client goes away, and the handler must then leave nothing
	// half-done.
	Execute(ctx context.Context, params []types.Datum, io ExecIO) (Result, error)
}

// Revalidator is optionally implemented by a Prepared whose plan can go
// stale when the objects it was planned against change (a table dropped
// and created again). The server calls Revalidate at every Bind of the
// statement, before the portal is made, as Postgres revalidates its
// cached plan there: the statement then plans itself again if it must,
// keeping its parameter types, or returns the error planning it now
// gives (42P01 when its table is gone). Its parameter types never change
// and its result columns keep their names and types (when they would
// not, Revalidate fails with 0A000 "cached plan must not change result
// type"); the server reads Fields again afterwards. Execute revalidates
// on its own as well, since the catalog may change between Bind and
// Execute.
type Revalidator interface {
	Revalidate(ctx context.Context) error
}

// Result is the outcome of one execution: a cursor over rows, then a
// command tag.
type Result interface {
	// Next returns the next row, or nil at the end.
	Next(ctx context.Context) (types.Row, error)
	// Tag returns the CommandComplete tag ("SELECT 3", "INSERT 0 1",
	// "CREATE TABLE"); valid once Next returned nil.
	Tag() string
	// Close releases the cursor; it may be called before the end (portal
	// closed, client gone) and more than once.
	Close()
}

// ExecIO is what a running statement may ask of the connection besides
// returning rows. Its methods may be called only while Execute or
// Result.Next runs, from the goroutine that called them (the connection's).
type ExecIO interface {
	// Notice sends a NoticeResponse (severity NOTICE unless set).
	Notice(severity, code, message string)
	// CopyIn switches the connection into COPY FROM STDIN mode for ncols
	// columns (format 0 text, 1 binary) and returns a reader of the data the
	// client sends. Read returns io.EOF at CopyDone, and an error when the
	// client sends CopyFail.
	CopyIn(format int16, ncols int) (io.Reader, error)
	// CopyOut switches the connection into COPY TO STDOUT mode and returns
	// a writer; each Write becomes one CopyData message. The statement's
	// Result then ends the copy with CopyDone and CommandComplete.
	CopyOut(format int16, ncols int) (io.Writer, error)
	// ParameterStatus reports a changed run-time parameter to the client
	// (for example after SET TimeZone), as Postgres does for the
	// parameters it marks GUC_REPORT.
	ParameterStatus(name, value string)
}

// ContextReader is implemented by the reader ExecIO.CopyIn returns.
// WithContext returns a reader of the same stream that also stops
// waiting for the client when ctx ends (returning ctx's cause when it
// is a *pgerr.Error, as a statement's statement_timeout is), so a
// handler can bound the copy by a context of its own; the server's
// reader stops anyway when the statement's context ends (a cancel). The
// rest of a stream a statement stopped reading is discarded as after
// any failed COPY.
type ContextReader interface {
	WithContext(ctx context.Context) io.Reader
}
