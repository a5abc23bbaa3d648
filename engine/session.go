package engine

import (
	"context"
	"net"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/weirdb/weir/internal/memlimit"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// Session is one client connection's state: its settings, its
// transaction-block status and its identity. It implements wire.Session
// and the executor's SessionInfo.
type Session struct {
	eng *Engine
	// conn lives as long as the client's connection (the context
	// NewSession was given): a statement past its commit point waits
	// for its checkpoint under it, not under its own (waitApplied).
	conn context.Context
	// pins and over are set on the internal sessions that bind stored
	// definitions: the definition's pinned tables (Relation.DepCols),
	// and relations to see in place of the catalog's (ALTER TABLE
	// trying a change on the definitions that read the table).
	pins map[uint32][]string
	over map[uint32]*catalog.Relation
	// funcPins are the user functions a definition bound again sees in
	// place of the catalog's: those it was created with
	// (catalog.Relation.Funcs).
	funcPins map[uint32]*catalog.Function
	// seqLast is the value nextval last returned in this session, by
	// sequence name (currval).
	seqLast map[string]int64
	// seqLastName is the sequence nextval was last applied to (lastval).
	seqLastName string
	user        string
	database    string
	pid         uint32
	// roleOID is the session's own role (session_user); the role it acts
	// as (current_user) is this one or the one SET ROLE chose (role).
	// Their attributes and privileges are read from the catalog at every
	// check, so ALTER ROLE and REVOKE take effect at once.
	roleOID uint32

	vars map[string]string // lower-case setting name → value
	// schemaFirst is the schema searched first for an unqualified
	// relation name, before public: the new schema while CREATE SCHEMA
	// runs its elements, or the one a view's stored definition was
	// created under (catalog.SearchSchemaOption). "" otherwise.
	schemaFirst string
	// fkModes is what SET CONSTRAINTS said in the open transaction
	// block.
	fkModes fkModes
	// fkPending are the tables on which deferred checks wait in the
	// open transaction block.
	fkPending fkPending
	// startup holds the settings the client gave at connection (their
	// reset values), by canonical name.
	startup map[string]string
	loc     *time.Location
	// settingsTx is what the open transaction block must undo of vars
	// (nil until the block changes a setting).
	settingsTx *settingsTxn

	// shapes are the templates of single-row INSERTs bound for this
	// session's simple queries, by shape (insertshape.go).
	shapes map[string]*insertShape

	// txn is the ReadyForQuery status: 'I' idle, 'T' in a transaction
	// block, 'E' in a failed block. weir commits every statement on its
	// own (each is durable when acknowledged); BEGIN ... COMMIT blocks are
	// accepted for client compatibility and tracked only for the status.
	txn byte
	// tx holds the block's pending writes (nil until the block writes).
	tx *txnState
	// implicit is set while the statements of one multi-statement Query,
	// or of an extended-protocol batch up to Sync, run as Postgres's
	// implicit transaction (txn is then 'T', or 'E' once one failed).
	implicit bool
	// pipeline is set when the implicit transaction is an
	// extended-protocol batch's. PostgreSQL does not count that one as a
	// transaction block (IsTransactionBlock): SET LOCAL warns in it, and
	// DECLARE, LOCK and SAVEPOINT are refused. pipelined is set once a
	// statement of the batch ran: the statements that cannot run in a
	// block are refused after it ("cannot be executed within a
	// pipeline").
	pipeline, pipelined bool
	// txnStart is when the open transaction began (microseconds since
	// 1970, UTC): now() inside it.
	txnStart int64
	// sqlPrepared holds the statements of SQL's PREPARE, by name.
	sqlPrepared map[string]*sqlPrepared
	// cursors holds the open cursors of DECLARE, by name; the end of the
	// transaction block closes them, except WITH HOLD ones it commits.
	cursors map[string]*cursor
	// source is the query string the client sent last (the whole of a
	// multi-statement one): PostgreSQL's source text, which pg_cursors
	// shows as a cursor's statement.
	source string
	// activity is sessActive while a statement runs, else the last
	// ReadyForQuery status (read by the metrics, from other goroutines).
	activity atomic.Uint32

	// backend is the wire server's handle on the connection (nil for a
	// session without one); remote is the client's address; started is
	// when the session began (pg_stat_activity's backend_start).
	backend wire.Backend
	remote  net.Addr
	started time.Time
	// tls is the connection's TLS version and cipher, nil for a plain
	// connection or a session without one (pg_stat_ssl).
	tls *wire.TLSInfo
	// closed is closed by Close: pg_terminate_backend with a timeout
	// waits for it.
	closed    chan struct{}
	closeOnce sync.Once
	// shown is what pg_stat_activity shows of the session to the others
	// (backends.go).
	shown shownActivity
	// builtinDefaults makes the session's settings default to the
	// built-in values, never to those of ALTER SYSTEM (internalSession).
	builtinDefaults bool
	// internal marks the engine's own sessions (internalSession), whose
	// bindings are not checked for privileges.
	internal bool
	// notices are the notices the statement's functions raised, sent
	// to the client by the statement's Execute or Next (only the
	// session's goroutine touches them).
	notices []notice
	// tempSchema is the session's temporary schema, pg_temp_N, or ""
	// before its first temporary relation (temp.go).
	tempSchema string
	// blockTemps are the temporary tables created in the open
	// transaction, which its end drops if it does not commit, or if
	// they were created ON COMMIT DROP, in the order created.
	blockTemps []blockTemp
	// deleteRows are the temporary tables created ON COMMIT DELETE
	// ROWS, which every commit empties (deleteRowsAtCommit).
	deleteRows []uint32
}

func newSession(e *Engine, p wire.StartupParams) *Session {
	s := &Session{eng: e, user: p.User, database: p.Database, vars: map[string]string{}, loc: e.defaultLocation(), txn: 'I', roleOID: catalog.BootstrapRoleOID}
	if s.user == "" {
		s.user = "root"
	}
	if s.database == "" {
		s.database = s.user
	}
	s.pid = p.PID
	if s.pid == 0 {
		s.pid = e.nextPID.Add(1)
	}
	s.backend, s.remote, s.started, s.closed = p.Backend, p.RemoteAddr, time.Now(), make(chan struct{})
	s.tls = p.TLS
	s.shown.state = "idle"
	s.shown.changed = s.started
	s.shown.app = p.Options["application_name"]
	return s
}

// User implements executor.SessionInfo.
func (s *Session) User() string { return s.sessionRole().Name }

// Database implements executor.SessionInfo.
func (s *Session) Database() string { return s.database }

// Setting implements executor.SessionInfo.
func (s *Session) Setting(name string) (string, bool) {
	st, err := lookupSetting(name)
	if err != nil {
		return "", false
	}
	return s.get(st), true
}

func (s *Session) get(st *setting) string {
	if st.name == "max_connections" && s.eng.cfg.MaxConnections > 0 {
		return strconv.Itoa(s.eng.cfg.MaxConnections)
	}
	if st.name == "superuser_reserved_connections" && s.eng.cfg.SuperuserReservedConnections != 0 {
		return strconv.Itoa(max(s.eng.cfg.SuperuserReservedConnections, 0))
	}
	if st.name == "is_superuser" {
		if s.superuser() {
			return "on"
		}
		return "off"
	}
	if st.name == "session_authorization" {
		return s.sessionRole().Name
	}
	name := strings.ToLower(st.name)
	if v, ok := s.vars[name]; ok {
		if name == "role" {
			// The name SET ROLE was given, without the OID it keeps.
			v, _, _ = setRoleValue(v)
		}
		return v
	}
	if v, ok := s.eng.confDefault(name); ok && !s.builtinDefaults {
		return v
	}
	return st.def
}

func (s *Session) set(st *setting, v string) error {
	if st.readOnly {
		return pgerr.New(pgerr.CantChangeRuntimeParam, "parameter \"%s\" cannot be changed", st.name)
	}
	if st.check != nil {
		nv, err := st.check(v)
		if err != nil {
			return err
		}
		v = nv
	}
	if strings.EqualFold(st.name, "TimeZone") {
		loc, _, err := loadLocation(v)
		if err != nil {
			return err
		}
		s.loc = loc
	}
	s.vars[strings.ToLower(st.name)] = v
	return nil
}

func (s *Session) reset(st *setting) {
	delete(s.vars, strings.ToLower(st.name))
	if strings.EqualFold(st.name, "TimeZone") {
		s.loc = time.UTC
		if !s.builtinDefaults {
			s.loc = s.eng.defaultLocation()
		}
	}
}

// searchPath returns the session's search_path.
func (s *Session) searchPath() string { return s.get(settingsByName["search_path"]) }

// statementTimeout returns the session's statement_timeout (0: none).
func (s *Session) statementTimeout() time.Duration {
	st, _ := lookupSetting("statement_timeout")
	d, _ := parseDurationSetting(s.get(st))
	return d
}

// workMem returns the session's work_mem in bytes: what each sort or
// hash operator of a query may hold before it spills to disk.
func (s *Session) workMem() int64 {
	st, _ := lookupSetting("work_mem")
	b, _ := parseMemorySetting(s.get(st))
	return b
}

// IdleSessionTimeout implements wire.IdleTimeouts: idle_session_timeout.
func (s *Session) IdleSessionTimeout() time.Duration {
	st, _ := lookupSetting("idle_session_timeout")
	d, _ := parseDurationSetting(s.get(st))
	return d
}

// IdleInTransactionTimeout implements wire.IdleTimeouts:
// idle_in_transaction_session_timeout.
func (s *Session) IdleInTransactionTimeout() time.Duration {
	st, _ := lookupSetting("idle_in_transaction_session_timeout")
	d, _ := parseDurationSetting(s.get(st))
	return d
}

// Split implements wire.Session. Like Postgres, it parses the whole query
// string before anything runs: a syntax error in any statement fails the
// query with nothing executed. It checks ctx every splitCheckEvery
// statements and fails with its cause (57014, 57P01, the client gone)
// once it has ended, so that a message of millions of statements whose
// client went, or that a cancel or shutdown came for, stops at once.
func (s *Session) Split(ctx context.Context, text string) ([]wire.Piece, error) {
	if err := checkUTF8(text); err != nil {
		return nil, err
	}
	s.source = text
	ps, err := sql.Split(text)
	if err != nil {
		return nil, err
	}
	if len(ps) > 1 {
		for i, p := range ps {
			if i%splitCheckEvery == 0 && ctx.Err() != nil {
				return nil, ctxError(ctx)
			}
			if _, err := s.parseSyntax(p.Text); err != nil {
				pe := pgerr.As(err)
				if pe.Code != pgerr.SyntaxError {
					continue
				}
				if pe.Position > 0 {
					shifted := *pe
					shifted.Position += utf8.RuneCountInString(text[:p.Offset])
					return nil, &shifted
				}
				return nil, pe
			}
		}
	}
	out := make([]wire.Piece, len(ps))
	for i, p := range ps {
		out[i] = wire.Piece{Text: p.Text, Offset: p.Offset}
	}
	return out, nil
}

// splitCheckEvery is how many statements Split checks the syntax of
// between two looks at its context: a few milliseconds' work.
const splitCheckEvery = 1024

// TxStatus implements wire.Session.
func (s *Session) TxStatus() byte {
	s.activity.Store(uint32(s.txn))
	s.showIdle()
	return s.txn
}

// Close implements wire.Session.
func (s *Session) Close() {
	_ = s.endTxn(context.Background(), false)
	s.releaseLocks()
	s.closeCursors(true)
	s.closeTemp()
	s.eng.metrics.sessions.Dec()
	s.eng.sessions.CompareAndDelete(s.pid, s)
	s.closeOnce.Do(func() { close(s.closed) })
}

// recoverInternal turns a panic in statement processing into an internal
// error (XX000) for the client, logging the stack: a bug in one statement
// must never end the session or the server.
func (s *Session) recoverInternal(err *error) {
	if r := recover(); r != nil {
		s.eng.log.Error("internal error", "panic", r, "stack", string(debug.Stack()))
		*err = pgerr.New(pgerr.InternalError, "internal error: %v", r)
		s.fail()
	}
}

// Prepare implements wire.Session.
func (s *Session) Prepare(ctx context.Context, text string, paramOIDs []uint32) (_ wire.Prepared, err error) {
	defer s.recoverInternal(&err)
	if err := checkUTF8(text); err != nil {
		return nil, err
	}
	// A single-row INSERT of integers is prepared through its shape's
	// template (insertshape.go).
	if s.txn != 'E' && wire.IsSimpleQuery(ctx) && !noShape(ctx) {
		if p := s.prepareShape(ctx, text); p != nil {
			source := s.source
			if source == "" {
				source = text
			}
			return &failTracking{Prepared: p, s: s, text: source}, nil
		}
	}
	// statement_timeout and cancellation cover parsing and binding too.
	ctx, cancel := s.withTimeout(ctx)
	defer cancel()
	// A bulk INSERT is prepared from its template (bulkinsert.go).
	var bulk *sql.BulkInsert
	if !noBulk(ctx) {
		bulk = s.eng.scanBulkInsert(text)
	}
	prepText := text
	if bulk != nil {
		prepText = bulk.Template()
	}
	// A statement of megabytes parsed whole borrows headroom above the
	// soft memory limit until it is planned (a bulk INSERT's pieces are
	// small and parsed one at a time).
	var loan *memlimit.Loan
	if bulk == nil {
		if loan = s.prepareLoan(text); loan != nil {
			defer loan.Release()
		}
	}
	stmt, err := s.eng.parses.parse(ctx, prepText, loan)
	if err != nil {
		s.fail()
		if bulk != nil {
			err = templateError(bulk, err)
		}
		return nil, err
	}
	if s.txn == 'E' {
		if t, ok := stmt.(*sql.Txn); !ok || t.Kind == sql.TxnBegin || t.Kind == sql.TxnSavepoint || t.Kind == sql.TxnRelease {
			return nil, pgerr.New(pgerr.InFailedSQLTransaction, "current transaction is aborted, commands ignored until end of transaction block")
		}
	}
	hints := make([]types.T, len(paramOIDs))
	for i, oid := range paramOIDs {
		if t, ok := types.ByOID(oid); ok && oid != 0 {
			hints[i] = t
		} else {
			hints[i] = types.TUnknown
		}
	}
	// The client's query string, which pg_stat_activity shows while
	// the statement runs: the whole of a simple Query, as PostgreSQL
	// shows it, and a Parse message's statement.
	source := s.source
	if source == "" {
		source = text
	}
	bindCtx := ctx
	if _, ok := stmt.(*sql.Query); ok && wire.IsSimpleQuery(ctx) {
		bindCtx = planner.WithoutParams(ctx)
	}
	// Every row of a bulk INSERT is bound before the template's ON
	// CONFLICT and RETURNING, and before anything runs.
	var late error
	if bulk != nil {
		if late, err = s.checkBulk(ctx, bulk); err != nil {
			s.fail()
			return nil, err
		}
	}
	p, err := s.prepare(bindCtx, stmt, prepText, hints)
	if err == nil && late != nil {
		p, err = nil, late
	} else if err != nil && bulk != nil {
		err = templateError(bulk, err)
	}
	if err != nil {
		s.fail()
		return nil, err
	}
	if bulk != nil {
		cq, ok := p.(*cachedQuery)
		if !ok || !s.attachBulk(cq.q, bulk) {
			// Not the INSERT it looked like: prepare it whole.
			return s.Prepare(withNoBulk(ctx), text, paramOIDs)
		}
		cq.bulk = bulk
	}
	return &failTracking{Prepared: p, s: s, text: source}, nil
}

// fail moves an open transaction block into the failed state, as Postgres
// does after any error inside BEGIN ... COMMIT.
func (s *Session) fail() {
	if s.txn == 'T' {
		s.txn = 'E'
	}
}

// failTracking wraps a prepared statement so that execution errors mark
// the transaction block failed.
// It also shows the statement in pg_stat_activity while it runs and
// sends the notices its functions raise.
type failTracking struct {
	wire.Prepared
	s *Session
	// text is the query string pg_stat_activity shows.
	text string
}

func (f *failTracking) Execute(ctx context.Context, params []types.Datum, io wire.ExecIO) (_ wire.Result, err error) {
	defer f.s.recoverInternal(&err)
	f.s.activity.Store(sessActive)
	f.s.showActive(f.text)
	r, err := f.Prepared.Execute(ctx, params, io)
	if f.s.pipeline {
		f.s.pipelined = true
	}
	if err == nil && !f.s.inBlock() && !f.s.implicit {
		// The statement was its own transaction, which has committed.
		err = f.s.deleteRowsAtCommit(ctx)
	}
	f.s.sendNotices(io)
	if err != nil {
		f.s.fail()
		return nil, err
	}
	return &failTrackingResult{Result: r, s: f.s, io: io}, nil
}

// Revalidate implements wire.Revalidator for the statements that do
// (cachedQuery); a failure marks the transaction block failed, as any
// error at Bind does in Postgres.
func (f *failTracking) Revalidate(ctx context.Context) (err error) {
	rv, ok := f.Prepared.(wire.Revalidator)
	if !ok {
		return nil
	}
	defer f.s.recoverInternal(&err)
	if err := rv.Revalidate(ctx); err != nil {
		f.s.fail()
		return err
	}
	return nil
}

type failTrackingResult struct {
	wire.Result
	s  *Session
	io wire.ExecIO
}

func (r *failTrackingResult) Next(ctx context.Context) (_ types.Row, err error) {
	defer r.s.recoverInternal(&err)
	row, err := r.Result.Next(ctx)
	r.s.sendNotices(r.io)
	if err != nil {
		r.s.fail()
	}
	return row, err
}

// Location implements wire.SessionLocation: the session's TimeZone, used to
// read text parameters and print timestamptz results.
func (s *Session) Location() *time.Location { return s.loc }

// checkUTF8 rejects statement text that is not valid UTF-8 (the only
// client encoding weir speaks), with Postgres's error (22021), so invalid
// bytes never reach stored values.
func checkUTF8(text string) error {
	return types.CheckText(text)
}
