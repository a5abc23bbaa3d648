// Package wire is weir's PostgreSQL frontend/backend protocol server
// (protocol version 3.0, as in chapter 55 of the PostgreSQL 15 manual),
// built on the message codecs of github.com/jackc/pgx/v5/pgproto3.
//
// The server owns sockets, protocol state, prepared statements, portals,
// parameter decoding and result encoding (text and binary formats), COPY
// framing and query cancellation. Everything about statements is asked of
// a Handler (see handler.go), which the engine implements: a Session splits
// and prepares statement text, and a Prepared statement executes into a
// Result cursor.
//
// # Connections
//
// Serve runs one goroutine per connection, which reads the socket itself
// and cuts it into frames: a message costs no hand-off between
// goroutines, as a PostgreSQL backend reads its own socket. A read is
// stopped by moving the socket's read deadline: the connection's end
// (shutdown, pg_terminate_backend), a COPY's statement being canceled,
// an idle timeout; a read cut short that way goes on later where it
// stopped. While a message is handled, nobody reads: a timer polls the
// socket for a hang-up once the message has taken 10 ms, then at
// doubling intervals up to half a second (PostgreSQL's
// client_connection_check_interval, on by default here), and a client
// that closed its end, or only its sending half, cancels the running
// statement, as PostgreSQL's check does; the session's last log line
// then names the statement (its first KiB). Output
// is buffered and flushed at ReadyForQuery, on Flush, after every
// ErrorResponse and every 64 KiB while rows stream.
//
//	client                                 server
//	SSLRequest                  ------->
//	                            <-------   'S' and a crypto/tls handshake when
//	                                         Options.TLS is set, else 'N'
//	                                         (StartupParams.TLS: version and
//	                                         cipher in OpenSSL's names)
//	GSSEncRequest               ------->
//	                            <-------   'N'
//	StartupMessage (3.0)        ------->   max_connections (53300 beyond it),
//	                                       TLSRequired (28000 when plain),
//	                                       Roles.LookupRole
//	                            <-------   AuthenticationSASL SCRAM-SHA-256 (and
//	                                         SCRAM-SHA-256-PLUS over TLS)
//	SASLInitialResponse         ------->   (AuthPassword only; auth.go)
//	                            <-------   AuthenticationSASLContinue
//	SASLResponse                ------->   proof checked against the verifier
//	                            <-------   AuthenticationSASLFinal (or FATAL 28P01)
//	                                       Handler.NewSession
//	                            <-------   AuthenticationOk
//	                            <-------   ParameterStatus ... (ServerParams,
//	                                         application_name, client_encoding,
//	                                         session_authorization, is_superuser)
//	                            <-------   BackendKeyData (pid, random secret)
//	                            <-------   ReadyForQuery I
//
// A CancelRequest arrives on a new connection carrying (pid, secret); the
// matching session's running statement has its context canceled and fails
// with 57014 "canceling statement due to user request" (the handler's
// own error when it reports that cause itself, with fields of its own
// such as a COPY's CONTEXT line). The handler
// gets the same pid in StartupParams, with a Backend through which
// another session cancels the statement the same way
// (pg_cancel_backend) or ends the connection with FATAL 57P01, as
// Shutdown does (pg_terminate_backend). A statement past its commit
// point answers a cancel with a WARNING and its normal completion, and
// a terminate with a WARNING and ErrCloseConnection, after which the
// connection closes with nothing more sent.
//
// # Simple query
//
//	Query "s1; s2"              ------->   Session.Split -> [s1, s2]
//	                                       s1: Prepare, Execute, Next...
//	                            <-------   RowDescription (if Fields != nil)
//	                            <-------   DataRow (text) ...
//	                            <-------   CommandComplete s1's tag
//	                                       s2: ... (the first error stops the
//	                                       string: ErrorResponse, Position
//	                                       counted in the whole string)
//	                            <-------   ReadyForQuery (Session.TxStatus)
//
// An empty string answers EmptyQueryResponse.
//
// # Extended query
//
//	Parse name,text,OIDs        ------->   Split (one statement) + Prepare
//	                            <-------   ParseComplete
//	Bind portal,name,params     ------->   Revalidator.Revalidate (when the
//	                                       Prepared has it), decode params
//	                                       (types.ParseText or
//	                                       types.ParseBinary by format code)
//	                            <-------   BindComplete
//	Describe S/P                ------->
//	                            <-------   [ParameterDescription] RowDescription | NoData
//	Execute portal,maxRows      ------->   first time: Prepared.Execute; then Next
//	                            <-------   DataRow ... (types.FormatText or
//	                                       types.AppendBinary per column)
//	                            <-------   CommandComplete | PortalSuspended
//	Sync                        ------->   outside a transaction block, every
//	                                       portal is closed (Result.Close)
//	                            <-------   ReadyForQuery
//
// After an error, messages are discarded until Sync. A later Execute of a
// suspended portal continues the same Result.
//
// # COPY
//
// A statement calls ExecIO.CopyIn (CopyInResponse; its reader yields the
// CopyData payloads, io.EOF at CopyDone, 57014 at CopyFail) or
// ExecIO.CopyOut (CopyOutResponse; each Write is a CopyData). The server
// sends CopyDone before the statement's CommandComplete, and discards the
// rest of a COPY FROM STDIN stream that a failed statement did not read.
// A CopyData beyond the message limit fails the statement and ends the
// connection with FATAL, with no ReadyForQuery between (PostgreSQL too
// sends ERROR, then FATAL, once it lost protocol synchronization).
//
// # Ending
//
// Terminate (also in the middle of COPY), EOF, idle_session_timeout
// (IdleTimeouts), a write error, a FATAL error (protocol violation 08P01,
// oversized message 54000) or Shutdown (FATAL 57P01) end the connection:
// the running statement's context is canceled, every open Result is closed
// once, then Session.Close is called once. A connection ended by Shutdown
// or pg_terminate_backend while blocked in a socket write (a client that
// stopped reading a streaming result) gives up the write after a second.
package wire
