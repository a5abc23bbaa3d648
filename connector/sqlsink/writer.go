package sqlsink

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
	"github.com/weirdb/weir/internal/fault"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// Column is a sink column: its name in the target table and its weir
// type.
type Column struct {
	Name string
	T    types.T
}

// Default batch bounds: a statement is sent once it holds this many rows
// or this many bytes of SQL text.
const (
	DefaultBatchRows  = 1000
	DefaultBatchBytes = 1 << 20
)

// Config configures a Writer.
type Config struct {
	// Kind is the target's kind.
	Kind Kind
	// DSN is the database/sql data source name of the driver of Kind
	// (a postgres:// URL or keyword string for pgx, a go-sql-driver
	// DSN for MySQL). It may hold a password: never log it.
	DSN string
	// Table is the target table, optionally "schema.table".
	Table string
	// Cols are the sink's columns in the order of the chunks written.
	Cols []Column
	// Key are the indexes in Cols of the target's primary key; UPSERT
	// needs them.
	Key []int
	// Upsert selects FORMAT UPSERT (else PLAIN: inserts only).
	Upsert bool
	// ExactlyOnce keeps the progress row; otherwise epochs are written
	// at least once.
	ExactlyOnce bool
	// TwoPhase prepares each epoch's transaction (PREPARE TRANSACTION,
	// XA PREPARE) instead of committing it; the caller records the
	// transaction id PreCommit returns and commits it with
	// CommitPrepared. Only with ExactlyOnce.
	TwoPhase bool
	// Sink and Actor name the progress row (and prefix the ids of
	// prepared transactions).
	Sink  string
	Actor int
	// BatchRows and BatchBytes bound a statement (the defaults when 0).
	BatchRows, BatchBytes int
	// Timeout bounds each statement and the connection's set-up
	// (DefaultTimeout when 0): a target that stops answering fails the
	// epoch's delivery, which is retried, rather than hanging it.
	Timeout time.Duration
}

// DefaultTimeout is Config.Timeout's default.
const DefaultTimeout = 2 * time.Minute

// Stats are a Writer's counts since it was opened.
type Stats struct {
	// Rows is the number of rows written (in committed and open
	// transactions); Skipped the rows of epochs found already delivered.
	Rows, Skipped int64
	// Statements is the number of data statements sent.
	Statements int64
	// Epochs counts committed transactions; Replays the epochs skipped
	// because the progress row held them.
	Epochs, Replays int64
}

// Writer writes a sink's epochs into its target table, one transaction
// per epoch. It is not safe for concurrent use.
type Writer struct {
	cfg Config
	db  *sql.DB

	epoch uint64
	// conn is the session of the epoch's transaction; inTx is set while
	// a transaction is open on it, and gid names it in two-phase mode.
	conn *sql.Conn
	inTx bool
	gid  string
	// skip is set when the progress row shows the open epoch delivered.
	skip bool

	// The statement being built: kind (0 none, kindInsert, kindDelete),
	// its text, row count and keys (a repeat ends it).
	kind  int
	buf   []byte
	nrows int
	keys  map[string]struct{}
	key   []byte

	cols     string // the quoted column list
	head     string // "INSERT INTO t (cols) VALUES "
	tail     string // the upsert's conflict clause
	delHead  string // "DELETE FROM t WHERE (key) IN ("
	keyMulti bool

	stats Stats
}

const (
	kindInsert = 1
	kindDelete = 2
)

// Open connects to the target and, for exactly-once, creates the
// progress table when it is missing. Errors carry SQLSTATEs: 08001 when
// the target does not answer, the target's own code otherwise.
func Open(ctx context.Context, cfg Config) (*Writer, error) {
	if cfg.BatchRows <= 0 {
		cfg.BatchRows = DefaultBatchRows
	}
	if cfg.BatchBytes <= 0 {
		cfg.BatchBytes = DefaultBatchBytes
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Upsert && len(cfg.Key) == 0 {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "a FORMAT UPSERT sink into %s needs primary_key", cfg.Kind)
	}
	octx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	db, err := Connect(octx, cfg.Kind, cfg.DSN)
	if err != nil {
		return nil, err
	}
	w := &Writer{cfg: cfg, db: db, keys: map[string]struct{}{}}
	if cfg.ExactlyOnce {
		if err := CreateProgressTable(octx, db, cfg.Kind); err != nil {
			db.Close()
			return nil, err
		}
	}
	if cfg.TwoPhase {
		if err := w.rollbackPrepared(octx); err != nil {
			db.Close()
			return nil, err
		}
	}
	w.prepare()
	return w, nil
}

// CreateProgressTable creates the progress table when it is missing. Two
// sinks' actors creating it at once in PostgreSQL may see a unique
// violation of the catalog: the table is then there, and that is not
// an error.
func CreateProgressTable(ctx context.Context, db *sql.DB, k Kind) error {
	_, err := db.ExecContext(ctx, k.progressDDL())
	if err == nil {
		return nil
	}
	switch pgerr.CodeOf(Error(err, "")) {
	case pgerr.UniqueViolation, pgerr.DuplicateTable:
		return nil
	}
	return Error(err, "creating "+ProgressTable)
}

// Connect opens a pool of at most one connection to the target and
// checks that it answers.
func Connect(ctx context.Context, k Kind, dsn string) (*sql.DB, error) {
	db, err := sql.Open(k.driverName(), dsn)
	if err != nil {
		return nil, pgerr.Wrap(pgerr.InvalidParameterValue, err, "invalid "+k.String()+" connection settings")
	}
	// One session for the epoch's transaction, one for committing
	// prepared transactions and reading progress beside it.
	db.SetMaxOpenConns(2)
	db.SetMaxIdleConns(2)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, Error(err, "could not connect to "+k.String())
	}
	return db, nil
}

// Error wraps an error of the target's driver with its SQLSTATE (the
// target's own for a server error, 08001 for a connection failure).
func Error(err error, msg string) error {
	var pe *pgconn.PgError
	var me *mysql.MySQLError
	switch {
	case errors.As(err, &pe):
		return pgerr.Wrap(pgerr.Code(pe.Code), err, msg)
	case errors.As(err, &me):
		return pgerr.Wrap(mysqlCode(me), err, msg)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	return pgerr.Wrap(pgerr.UnableToConnect, err, msg)
}

// mysqlCode maps a MySQL error to a PostgreSQL SQLSTATE: MySQL's own
// SQLSTATE when it is a standard one, the PostgreSQL code of the same
// condition for the few MySQL-specific ones, and 08000 for the rest
// (HY000, "general error": the sink cannot go on as it is).
func mysqlCode(me *mysql.MySQLError) pgerr.Code {
	switch me.Number {
	case 1146: // ER_NO_SUCH_TABLE
		return pgerr.UndefinedTable
	case 1054: // ER_BAD_FIELD_ERROR
		return pgerr.UndefinedColumn
	case 1062: // ER_DUP_ENTRY
		return pgerr.UniqueViolation
	case 1049: // ER_BAD_DB_ERROR
		return pgerr.InvalidCatalogName
	case 1045, 1044: // access denied
		return pgerr.InsufficientPrivilege
	}
	s := string(me.SQLState[:])
	if s == "HY000" || strings.Trim(s, "\x00") == "" {
		return pgerr.ConnectionException
	}
	return pgerr.Code(s)
}

func (w *Writer) prepare() {
	k := w.cfg.Kind
	names := make([]string, len(w.cfg.Cols))
	for i, c := range w.cfg.Cols {
		names[i] = k.Quote(c.Name)
	}
	w.cols = strings.Join(names, ", ")
	table := k.QuoteTable(w.cfg.Table)
	w.head = "INSERT INTO " + table + " (" + w.cols + ") VALUES "
	if !w.cfg.Upsert {
		return
	}
	keys := make([]string, len(w.cfg.Key))
	isKey := map[int]bool{}
	for i, c := range w.cfg.Key {
		keys[i] = names[c]
		isKey[c] = true
	}
	var sets []string
	for i, n := range names {
		if isKey[i] {
			continue
		}
		if k == MySQL {
			sets = append(sets, n+" = VALUES("+n+")")
		} else {
			sets = append(sets, n+" = EXCLUDED."+n)
		}
	}
	switch {
	case k == MySQL && len(sets) == 0:
		// Only key columns: a duplicate changes nothing.
		w.tail = " ON DUPLICATE KEY UPDATE " + keys[0] + " = " + keys[0]
	case k == MySQL:
		w.tail = " ON DUPLICATE KEY UPDATE " + strings.Join(sets, ", ")
	case len(sets) == 0:
		w.tail = " ON CONFLICT (" + strings.Join(keys, ", ") + ") DO NOTHING"
	default:
		w.tail = " ON CONFLICT (" + strings.Join(keys, ", ") + ") DO UPDATE SET " + strings.Join(sets, ", ")
	}
	w.keyMulti = len(keys) > 1
	if w.keyMulti {
		w.delHead = "DELETE FROM " + table + " WHERE (" + strings.Join(keys, ", ") + ") IN ("
	} else {
		w.delHead = "DELETE FROM " + table + " WHERE " + keys[0] + " IN ("
	}
}

// Stats returns the writer's counts.
func (w *Writer) Stats() Stats { return w.stats }

// BeginEpoch starts epoch e; a transaction left open by an epoch that
// did not reach PreCommit is rolled back.
func (w *Writer) BeginEpoch(e uint64) error {
	w.rollback()
	w.epoch, w.skip = e, false
	w.reset()
	return nil
}

func (w *Writer) reset() {
	w.kind, w.buf, w.nrows = 0, w.buf[:0], 0
	clear(w.keys)
}

// rollback ends the open transaction without its changes. A session
// that fails to roll back is discarded (a new one is opened for the next
// epoch).
func (w *Writer) rollback() {
	if !w.inTx {
		return
	}
	w.inTx = false
	ctx, cancel := context.WithTimeout(context.Background(), w.cfg.Timeout)
	defer cancel()
	var err error
	if w.cfg.TwoPhase && w.cfg.Kind == MySQL {
		_, err = w.conn.ExecContext(ctx, "XA END "+w.cfg.Kind.xidLit(w.gid))
		if err == nil {
			_, err = w.conn.ExecContext(ctx, "XA ROLLBACK "+w.cfg.Kind.xidLit(w.gid))
		}
	} else {
		_, err = w.conn.ExecContext(ctx, "ROLLBACK")
	}
	if err != nil {
		w.dropConn()
	}
}

// dropConn discards the session: its connection is closed, never
// returned to the pool in an unknown transaction state.
func (w *Writer) dropConn() {
	if w.conn == nil {
		return
	}
	_ = w.conn.Raw(func(any) error { return driver.ErrBadConn })
	w.conn.Close()
	w.conn, w.inTx = nil, false
}

// exec runs one statement on the session within the timeout.
func (w *Writer) exec(ctx context.Context, stmt string) error {
	sctx, cancel := context.WithTimeout(ctx, w.cfg.Timeout)
	defer cancel()
	_, err := w.conn.ExecContext(sctx, stmt)
	return err
}

// xidLit is a prepared transaction's id as a literal of k: MySQL's XA
// takes a plain or hexadecimal string, without an introducer.
func (k Kind) xidLit(gid string) string {
	if k == MySQL {
		return "X'" + hex.EncodeToString([]byte(gid)) + "'"
	}
	return k.stringLit(gid)
}

// GID returns the id of the prepared transaction of the sink actor's
// epoch (two-phase mode): "<sink>:<actor>:<epoch>", under 64 bytes for
// MySQL's XA.
func (c Config) GID(epoch uint64) string {
	return c.gidPrefix() + strconv.FormatUint(epoch, 10)
}

func (c Config) gidPrefix() string { return c.Sink + ":" + strconv.Itoa(c.Actor) + ":" }

// begin opens the epoch's transaction and, for exactly-once, reads the
// progress row: skip is set when the epoch is there already.
func (w *Writer) begin(ctx context.Context) error {
	if w.inTx || w.skip {
		return nil
	}
	if w.conn == nil {
		c, err := w.db.Conn(ctx)
		if err != nil {
			return Error(err, "connecting to "+w.cfg.Kind.String())
		}
		w.conn = c
		if w.cfg.Kind == MySQL {
			// At InnoDB's default REPEATABLE READ, the locking read
			// of an actor's missing progress row below takes a gap
			// lock, and the first upserts of two actors into that gap
			// deadlock. READ COMMITTED takes no gap locks; the epoch's
			// transaction reads nothing else.
			if err := w.exec(ctx, "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED"); err != nil {
				w.dropConn()
				return Error(err, "setting the isolation level")
			}
		}
	}
	stmt := "BEGIN"
	if w.cfg.Kind == MySQL {
		stmt = "START TRANSACTION"
	}
	if w.cfg.TwoPhase {
		w.gid = w.cfg.GID(w.epoch)
		if w.cfg.Kind == MySQL {
			stmt = "XA START " + w.cfg.Kind.xidLit(w.gid)
		}
	}
	if err := w.exec(ctx, stmt); err != nil {
		w.dropConn()
		return Error(err, "beginning a transaction")
	}
	w.inTx = true
	if !w.cfg.ExactlyOnce {
		return nil
	}
	var done int64
	sctx, cancel := context.WithTimeout(ctx, w.cfg.Timeout)
	err := w.conn.QueryRowContext(sctx, w.cfg.Kind.progressSelect(w.cfg.Sink, w.cfg.Actor)).Scan(&done)
	cancel()
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		w.rollback()
		return Error(err, "reading "+ProgressTable)
	case uint64(done) >= w.epoch:
		w.rollback()
		fault.Hit(fault.RecoveryBeforeSinkCommit)
		w.skip = true
		w.stats.Replays++
	}
	return nil
}

// Write adds the visible rows of c (in Cols order) to the open epoch.
// Errors carry the target's SQLSTATE.
func (w *Writer) Write(ctx context.Context, c *types.Chunk) error {
	if w.skip {
		w.stats.Skipped += int64(c.VisibleCount())
		return nil
	}
	n := c.Len()
	for i := 0; i < n; i++ {
		if !c.Visible(i) {
			continue
		}
		kind := kindInsert
		if w.cfg.Upsert {
			switch c.Op(i) {
			case types.OpDelete:
				kind = kindDelete
			case types.OpUpdateDelete:
				// An update whose new row follows at once with the same
				// key: the upsert of the new row is all it takes.
				if j := nextVisible(c, i+1); j < n && c.Op(j) == types.OpUpdateInsert && w.sameKey(c, i, j) {
					continue
				}
				kind = kindDelete
			}
		}
		if err := w.add(ctx, kind, c, i); err != nil {
			return err
		}
		if w.skip {
			w.stats.Skipped += int64(c.VisibleCount())
			return nil
		}
	}
	return nil
}

func nextVisible(c *types.Chunk, i int) int {
	for i < c.Len() && !c.Visible(i) {
		i++
	}
	return i
}

func (w *Writer) sameKey(c *types.Chunk, i, j int) bool {
	for _, k := range w.cfg.Key {
		t := w.cfg.Cols[k].T
		if types.Compare(c.Cols[k].Get(i), c.Cols[k].Get(j), t) != 0 {
			return false
		}
	}
	return true
}

// add appends row i of c to the statement being built, sending it first
// when the row cannot join it.
func (w *Writer) add(ctx context.Context, kind int, c *types.Chunk, i int) error {
	var err error
	if w.cfg.Upsert {
		w.key = w.key[:0]
		if w.keyMulti {
			w.key = append(w.key, '(')
		}
		for j, k := range w.cfg.Key {
			if j > 0 {
				w.key = append(w.key, ", "...)
			}
			if w.key, err = w.cfg.Kind.Literal(w.key, c.Cols[k].Get(i), w.cfg.Cols[k].T); err != nil {
				return w.rowError(err)
			}
		}
		if w.keyMulti {
			w.key = append(w.key, ')')
		}
	}
	if w.kind != kind || w.nrows >= w.cfg.BatchRows || len(w.buf) >= w.cfg.BatchBytes {
		if err := w.flush(ctx); err != nil {
			return err
		}
	} else if w.cfg.Upsert {
		if _, dup := w.keys[string(w.key)]; dup {
			if err := w.flush(ctx); err != nil {
				return err
			}
		}
	}
	if w.skip {
		return nil
	}
	mark := len(w.buf)
	if w.nrows == 0 {
		w.kind = kind
		if kind == kindDelete {
			w.buf = append(w.buf, w.delHead...)
		} else {
			w.buf = append(w.buf, w.head...)
		}
	} else {
		w.buf = append(w.buf, ", "...)
	}
	if kind == kindDelete {
		w.buf = append(w.buf, w.key...)
	} else {
		w.buf = append(w.buf, '(')
		for j := range w.cfg.Cols {
			if j > 0 {
				w.buf = append(w.buf, ", "...)
			}
			if w.buf, err = w.cfg.Kind.Literal(w.buf, c.Cols[j].Get(i), w.cfg.Cols[j].T); err != nil {
				w.buf = w.buf[:mark]
				if w.nrows == 0 {
					w.kind = 0
				}
				return w.rowError(err)
			}
		}
		w.buf = append(w.buf, ')')
	}
	if w.cfg.Upsert {
		w.keys[string(w.key)] = struct{}{}
	}
	w.nrows++
	return nil
}

func (w *Writer) rowError(err error) error {
	return fmt.Errorf("sink into %s table %s: %w", w.cfg.Kind, w.cfg.Table, err)
}

// flush sends the statement being built, in the epoch's transaction.
func (w *Writer) flush(ctx context.Context) error {
	if w.nrows == 0 {
		return nil
	}
	if err := w.begin(ctx); err != nil {
		return err
	}
	if w.skip {
		w.reset()
		return nil
	}
	if w.kind == kindDelete {
		w.buf = append(w.buf, ')')
	} else {
		w.buf = append(w.buf, w.tail...)
	}
	if err := w.exec(ctx, string(w.buf)); err != nil {
		w.rollback()
		return Error(err, fmt.Sprintf("writing to %s table %s", w.cfg.Kind, w.cfg.Table))
	}
	w.stats.Rows += int64(w.nrows)
	w.stats.Statements++
	w.reset()
	return nil
}

// PreCommit sends what is left of the epoch, sets the progress row
// (exactly-once) and commits the epoch's transaction, or in two-phase
// mode prepares it and returns its id (gid) for the caller to record and
// commit with CommitPrepared. committed reports whether a transaction
// was committed; both are empty when the epoch wrote nothing or was
// already delivered. An error leaves the outcome unknown: the epoch is
// delivered again, and the progress row makes that harmless.
func (w *Writer) PreCommit(ctx context.Context) (gid string, committed bool, err error) {
	if err := w.flush(ctx); err != nil {
		return "", false, err
	}
	if !w.inTx {
		return "", false, nil
	}
	if w.cfg.ExactlyOnce {
		if err := w.exec(ctx, w.cfg.Kind.progressUpsert(w.cfg.Sink, w.cfg.Actor, w.epoch)); err != nil {
			w.rollback()
			return "", false, Error(err, "writing "+ProgressTable)
		}
	}
	fault.Hit(fault.SinkDBBeforeCommit)
	if w.cfg.TwoPhase {
		lit := w.cfg.Kind.xidLit(w.gid)
		var err error
		if w.cfg.Kind == MySQL {
			if err = w.exec(ctx, "XA END "+lit); err == nil {
				err = w.exec(ctx, "XA PREPARE "+lit)
			}
		} else {
			err = w.exec(ctx, "PREPARE TRANSACTION "+lit)
		}
		if err != nil {
			w.rollback()
			w.dropConn()
			return "", false, Error(err, "preparing epoch "+strconv.FormatUint(w.epoch, 10))
		}
		w.inTx = false
		fault.Hit(fault.SinkDBAfterPrepare)
		return w.gid, false, nil
	}
	err = w.exec(ctx, "COMMIT")
	w.inTx = false
	if err != nil {
		w.dropConn()
		return "", false, Error(err, "committing epoch "+strconv.FormatUint(w.epoch, 10))
	}
	w.stats.Epochs++
	fault.Hit(fault.SinkDBAfterCommit)
	return "", true, nil
}

// Querier is what CommitPrepared and Progress run statements on: a
// *sql.DB, or the *sql.Conn that prepared the transaction (MariaDB lets
// only that session commit it while it is connected).
type Querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// ErrPreparedGone is returned by CommitPrepared when the prepared
// transaction no longer exists and the progress row shows its epoch was
// never committed: it was rolled back (by a restart of its writer), and
// its epoch must be delivered again.
var ErrPreparedGone = errors.New("the prepared transaction was rolled back")

// CommitPrepared commits the prepared transaction gid of the sink
// actor's epoch (COMMIT PREPARED, XA COMMIT). Committing one already
// committed succeeds: a transaction that no longer exists counts as
// committed when the progress row holds its epoch, else
// ErrPreparedGone.
func CommitPrepared(ctx context.Context, db Querier, cfg Config, gid string, epoch uint64) error {
	stmt := "COMMIT PREPARED " + cfg.Kind.xidLit(gid)
	if cfg.Kind == MySQL {
		stmt = "XA COMMIT " + cfg.Kind.xidLit(gid)
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	_, err := db.ExecContext(ctx, stmt)
	if err == nil {
		return nil
	}
	var pe *pgconn.PgError
	var me *mysql.MySQLError
	if errors.As(err, &pe) && pe.Code == "42704" || errors.As(err, &me) && me.Number == 1397 {
		done, perr := Progress(ctx, db, cfg.Kind, cfg.Sink, cfg.Actor)
		if perr != nil {
			return perr
		}
		if done >= epoch {
			return nil
		}
		return fmt.Errorf("%s: %w", gid, ErrPreparedGone)
	}
	return Error(err, "committing prepared transaction "+gid)
}

// Commit commits the writer's prepared transaction gid of epoch
// (CommitPrepared).
func (w *Writer) Commit(ctx context.Context, gid string, epoch uint64) error {
	var q Querier = w.db
	if w.conn != nil {
		// The session that prepared it: MariaDB's XA lets no other one
		// commit it while that one is connected.
		q = w.conn
	}
	if err := CommitPrepared(ctx, q, w.cfg, gid, epoch); err != nil {
		return err
	}
	w.stats.Epochs++
	fault.Hit(fault.SinkDBAfterCommit)
	return nil
}

// rollbackPrepared rolls back every prepared transaction of the sink
// actor: a new writer starts from the log store, so whatever an earlier
// one prepared is either recorded (its commit then finds it gone, and
// the epoch is delivered again) or forgotten.
func (w *Writer) rollbackPrepared(ctx context.Context) error {
	prefix := w.cfg.gidPrefix()
	var gids []string
	if w.cfg.Kind == MySQL {
		rows, err := w.db.QueryContext(ctx, "XA RECOVER")
		if err != nil {
			return Error(err, "listing prepared transactions")
		}
		for rows.Next() {
			var format, gl, bl int
			var data string
			if err := rows.Scan(&format, &gl, &bl, &data); err != nil {
				rows.Close()
				return Error(err, "listing prepared transactions")
			}
			if strings.HasPrefix(data, prefix) {
				gids = append(gids, data[:gl])
			}
		}
		rows.Close()
	} else {
		rows, err := w.db.QueryContext(ctx, "SELECT gid FROM pg_prepared_xacts WHERE database = current_database() AND left(gid, $1) = $2", len(prefix), prefix)
		if err != nil {
			return Error(err, "listing prepared transactions")
		}
		for rows.Next() {
			var g string
			if err := rows.Scan(&g); err != nil {
				rows.Close()
				return Error(err, "listing prepared transactions")
			}
			gids = append(gids, g)
		}
		rows.Close()
	}
	for _, g := range gids {
		stmt := "ROLLBACK PREPARED " + w.cfg.Kind.xidLit(g)
		if w.cfg.Kind == MySQL {
			stmt = "XA ROLLBACK " + w.cfg.Kind.xidLit(g)
		}
		if _, err := w.db.ExecContext(ctx, stmt); err != nil {
			return Error(err, "rolling back prepared transaction "+g)
		}
	}
	return nil
}

// Progress returns the last epoch delivered by the sink actor according
// to the target's progress table (0 when it has no row).
func Progress(ctx context.Context, db Querier, k Kind, sink string, actor int) (uint64, error) {
	var e int64
	q := strings.TrimSuffix(k.progressSelect(sink, actor), " FOR UPDATE")
	err := db.QueryRowContext(ctx, q).Scan(&e)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, Error(err, "reading "+ProgressTable)
	}
	return uint64(e), nil
}

// Abort rolls back the open epoch's transaction, if any; the epoch is
// then delivered again from its beginning.
func (w *Writer) Abort() {
	w.rollback()
	w.skip = false
	w.reset()
}

// Close rolls back an open transaction and closes the connection.
func (w *Writer) Close() {
	w.rollback()
	if w.conn != nil {
		w.conn.Close()
	}
	w.db.Close()
}
