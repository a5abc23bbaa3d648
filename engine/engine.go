package engine

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/wire"
)

// Version is weir's version, reported by `weir version`, version() and
// the server_version parameter suffix.
var Version = "0.1.0-dev"

// ServerVersion is the Postgres version weir presents to clients
// (server_version ParameterStatus and version()); psql and drivers pick
// their catalog queries by it.
const ServerVersion = "15.0"

// Config configures an Engine.
type Config struct {
	// DataDir is the directory of the Pebble database (created if missing).
	DataDir string
	// Logger receives structured logs; nil discards them.
	Logger *slog.Logger
	// Storage options (tests pass an in-memory FS).
	Storage storage.Options
	// MemoryBudgetBytes bounds what streaming holds in memory (DESIGN.md
	// §4; see MemoryBudget). Zero means StateCacheBytes.
	MemoryBudgetBytes int64
	// StateCacheBytes is MemoryBudgetBytes's older name (weir serve
	// --state-cache-mb); zero means DefaultStateCacheBytes.
	StateCacheBytes int64
	// InitPassword is the password of the superuser made on first start
	// (BootstrapUser); empty leaves it without one, so it can log in only
	// where trust authentication applies. Only its SCRAM verifier is
	// kept, and it is ignored once roles exist.
	InitPassword string
	// Rand is where password salts come from; nil means crypto/rand.
	Rand io.Reader
	// MaxConnections is the wire server's session limit, shown by SHOW
	// max_connections (zero: the default, 100).
	MaxConnections int
	// SuperuserReservedConnections is how many of those only superusers
	// may take, shown by SHOW superuser_reserved_connections (negative:
	// none; zero: the default, 3).
	SuperuserReservedConnections int
	// AllowedConnectorHosts limits the brokers sources and sinks may
	// name: each entry is a host (any port) or host:port. Empty allows
	// every host.
	AllowedConnectorHosts []string
	// DiskReserveBytes is the free space kept in reserve on the data
	// directory's file system (see disk.go): writes are refused below it.
	// Zero means DefaultDiskReserveBytes; a negative value keeps none.
	DiskReserveBytes int64
	// TakeOverSinks starts the sinks of a database whose sinks a backup
	// holds (a restored copy, or an original that handed its sinks over):
	// see backup.go.
	TakeOverSinks bool
	// StreamingParallelism, when above zero, is given at start to every
	// materialized view and sink that has another (rescale.go): weir
	// serve --streaming-parallelism, for a copy restored from a backup.
	StreamingParallelism int
}

// DefaultStateCacheBytes is the default memory budget (256 MiB).
const DefaultStateCacheBytes = 256 << 20

// MemoryBudget returns the memory budget of the whole process:
// Config.MemoryBudgetBytes, or its older name StateCacheBytes, or
// DefaultStateCacheBytes. storage.BudgetShares divides it: a fixed part
// for the executable and the runtime, Pebble's block cache and memtables
// (storage.PebbleShare), and the Go runtime's soft memory limit, of
// which half is the state tables' entries and the epochs' write sets
// (clean entries are evicted beyond it, and an epoch's dirty ones
// flushed early) and an eighth bounds a DML statement's changes held in
// memory, beyond which they flow to the dataflows in pieces.
func (c Config) MemoryBudget() int64 {
	return cmp.Or(c.MemoryBudgetBytes, c.StateCacheBytes, DefaultStateCacheBytes)
}

// Engine is the database: it owns storage and the catalog, and serves
// sessions. It implements wire.Handler.
type Engine struct {
	// noRedo, set by tests, commits every DML statement through its
	// checkpoint, not the redo log (redo.go).
	noRedo atomic.Bool
	// redoFailed says once that an fsync of the redo log failed.
	redoFailed sync.Once

	cfg     Config
	log     *slog.Logger
	db      *storage.DB
	cat     *catalog.Catalog
	started time.Time
	// seqs holds the positions of the sequences of serial and identity
	// columns (sequence.go).
	seqs seqTable
	// rowsRead counts the rows statements read from relations and indexes
	// (stored rows decoded); tests read it to see what an index saves.
	rowsRead atomic.Int64
	// freeSpace is the last measurement of the data directory's free
	// space, which the disk reserve check reuses for a while (disk.go).
	freeSpace freeSpaceCache

	// ddlMu serialises DDL statements, which may wait for checkpoints
	// (creating or dropping a materialized view) and so must not hold
	// writeMu while they wait.
	ddlMu stmtMutex
	// writeMu serialises the changes to tables and the catalog: a DML
	// statement computes its changes and checks constraints against the
	// committed state plus the pending epochs while holding it, so
	// constraint checks never race; barriers are injected (epochs sealed)
	// and committed epochs retired under it.
	writeMu stmtMutex
	// locks are the table locks LOCK TABLE takes and the statements of
	// other sessions wait for (locks.go). A session never waits for one
	// while holding ddlMu or writeMu.
	locks tableLocks
	// rewriteMu orders reads against ALTER COLUMN ... TYPE: a read checks
	// that its plan types the tables as the catalog does and takes its
	// snapshot under the read lock, and the rewrite commits its rows and
	// catalog entry under the write lock (alter_type.go).
	rewriteMu sync.RWMutex
	// st is the streaming side: checkpoints, epochs, running jobs.
	st *streams
	// fks indexes the tables' foreign keys for DML (fkey_dml.go).
	fks fkCache

	nextPID atomic.Uint32
	// parses admits the parsing of large statements (parse.go).
	parses *parseGate
	// bulkInsertMin is the least text of a statement run as a bulk
	// INSERT (bulkinsert.go): bulkInsertMinBytes.
	bulkInsertMin int
	// noInsertShapes turns off the templates of single-row INSERTs
	// (insertshape.go), for tests comparing with the ordinary path.
	noInsertShapes bool
	// shapeRuns counts the statements run through a shape's template.
	shapeRuns atomic.Uint64
	// conf holds the session settings' defaults that ALTER SYSTEM kept,
	// as of the last pg_reload_conf() or start (autoconf.go).
	conf    atomic.Pointer[confDefaults]
	metrics *Metrics
	// obs measures checkpoints, jobs and DML for monitoring (observe.go).
	obs *observer
	// sessions holds the open sessions by pid (sessions by state).
	sessions sync.Map
	// conns tracks running connector readers and writers (system views).
	conns *connectors
	// gen counts what the generator sources produce (connector_gen.go).
	gen genStats
	// ckpt times the checkpoints (checkpoint_times.go).
	ckpt checkpointTimes
	// wms holds the tables' watermarks and what sources report of
	// theirs (watermark.go).
	wms *watermarkState
	// databaseID is a random id made when the data directory was created
	// (hex), part of the sinks' default transactional id prefix.
	databaseID string
	// sinksHeld is why the sinks are held (backup.go), nil when they run.
	sinksHeld atomic.Pointer[string]
}

// metaDatabaseID is the meta entry holding Engine.databaseID.
const metaDatabaseID = "system/database_id"

// loadDatabaseID reads the database's id, creating it on first open.
func loadDatabaseID(db *storage.DB) (string, error) {
	v, ok, err := db.Meta(metaDatabaseID)
	if err != nil {
		return "", err
	}
	if ok {
		return string(v), nil
	}
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	id := hex.EncodeToString(b[:])
	batch := db.NewBatch()
	defer batch.Close()
	if err := batch.SetMeta(metaDatabaseID, []byte(id)); err != nil {
		return "", err
	}
	return id, batch.Commit()
}

// Open opens (or creates) the database in cfg.DataDir. It fails with
// SQLSTATE 55006 when another weir process holds the directory.
func Open(cfg Config) (*Engine, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	opts := cfg.Storage
	if opts.Logger == nil {
		opts.Logger = log
	}
	if opts.PebbleBytes == 0 {
		opts.PebbleBytes = storage.PebbleShare(cfg.MemoryBudget())
	}
	if err := checkFreeSpace(cfg.DataDir, cfg.diskReserve(), "could not start on the data directory"); err != nil {
		return nil, err
	}
	db, err := storage.Open(cfg.DataDir, opts)
	if err != nil {
		return nil, err
	}
	if err := openFormat(db); err != nil {
		db.Close()
		return nil, err
	}
	cat, err := catalog.Open(db)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open catalog: %w", err)
	}
	// Temporary relations end with their session; a server that
	// stopped without ending its sessions left some behind, and a
	// CREATE TABLE AS it stopped in the middle of its table.
	if n, err := cat.DropTemp(); err != nil {
		db.Close()
		return nil, fmt.Errorf("drop temporary relations: %w", err)
	} else if n > 0 {
		log.Info("dropped temporary relations left by the last run", "count", n)
	}
	registerMissing(db, cat)
	e := &Engine{cfg: cfg, log: log, db: db, cat: cat, started: time.Now(), metrics: newMetrics(), conns: newConnectors(), wms: newWatermarkState()}
	e.wms.log = e.logLateRows
	e.parses = newParseGate(cfg.MemoryBudget())
	e.bulkInsertMin = bulkInsertMinBytes
	if err := e.rebuildUniqueStores(); err != nil {
		db.Close()
		return nil, fmt.Errorf("rebuild unique key stores: %w", err)
	}
	if err := e.loadConf(); err != nil {
		db.Close()
		return nil, fmt.Errorf("load ALTER SYSTEM settings: %w", err)
	}
	if err := e.bootstrapRoles(); err != nil {
		db.Close()
		return nil, fmt.Errorf("bootstrap roles: %w", err)
	}
	e.obs = newObserver()
	e.obs.register(e.metrics.Registry, e)
	if e.databaseID, err = loadDatabaseID(db); err != nil {
		db.Close()
		return nil, fmt.Errorf("database id: %w", err)
	}
	if err := e.upgradeFormat(); err != nil {
		db.Close()
		return nil, fmt.Errorf("upgrade data directory: %w", err)
	}
	if err := e.loadSinkHold(cfg.TakeOverSinks); err != nil {
		db.Close()
		return nil, fmt.Errorf("sink hold: %w", err)
	}
	e.nextPID.Store(uint32(time.Now().UnixNano()%100000) + 1000)
	if err := e.startStreams(); err != nil {
		e.stopStreams()
		db.Close()
		return nil, err
	}
	if err := e.buildPendingAtOpen(); err != nil {
		e.stopStreams()
		db.Close()
		return nil, fmt.Errorf("build the indexes an ALTER TABLE dropped: %w", err)
	}
	if cfg.StreamingParallelism > 0 {
		if err := e.rescaleAtStart(cfg.StreamingParallelism); err != nil {
			e.stopStreams()
			db.Close()
			return nil, fmt.Errorf("rescale at start: %w", err)
		}
	}
	log.Info("database open", "data_dir", cfg.DataDir, "relations", len(cat.All()))
	return e, nil
}

// Close stops the streaming jobs and closes the database. Sessions must
// be closed first.
func (e *Engine) Close() error {
	e.shutdownCheckpoint()
	e.stopStreams()
	return e.db.Close()
}

// Catalog returns the engine's catalog.
func (e *Engine) Catalog() *catalog.Catalog { return e.cat }

// Metrics returns the engine's Prometheus metrics.
func (e *Engine) Metrics() *Metrics { return e.metrics }

// StateCacheBytes returns the bytes the state tables hold in memory,
// clean and dirty entries, and the epochs' write sets not yet committed
// (weir_state_cache_bytes), without collecting
// the other metrics: a scrape also measures every state table's size in
// storage, which reads all of its rows.
func (e *Engine) StateCacheBytes() int64 {
	if e.st == nil {
		return 0
	}
	return e.st.cache.Used()
}

// PebbleMemory returns the bytes of Pebble's block cache and memtables
// (storage.DB.PebbleMemory).
func (e *Engine) PebbleMemory() int64 { return e.db.PebbleMemory() }

// ServerParams implements wire.Handler: the ParameterStatus values sent at
// connection start, as Postgres 15 sends them.
func (e *Engine) ServerParams() [][2]string {
	return [][2]string{
		{"server_version", ServerVersion + " (weir " + Version + ")"},
		{"server_encoding", "UTF8"},
		{"client_encoding", "UTF8"},
		{"DateStyle", "ISO, MDY"},
		{"IntervalStyle", "postgres"},
		{"TimeZone", "UTC"},
		{"integer_datetimes", "on"},
		{"standard_conforming_strings", "on"},
		{"is_superuser", "on"},
		{"session_authorization", "root"},
	}
}

// NewSession implements wire.Handler. weir has one database,
// DatabaseName: any other name is 3D000, as in Postgres. The user must be
// an existing role (28000); the wire server has authenticated it.
func (e *Engine) NewSession(ctx context.Context, p wire.StartupParams) (wire.Session, error) {
	if p.Database != "" && p.Database != DatabaseName {
		return nil, pgerr.New(codeInvalidCatalogName, "database \"%s\" does not exist", p.Database).
			WithDetail("weir has one database, %s.", DatabaseName)
	}
	user := p.User
	if user == "" {
		user = BootstrapUser
	}
	r, ok := e.cat.RoleByName(user)
	if !ok {
		return nil, pgerr.New(codeInvalidAuthorization, "role \"%s\" does not exist", user)
	}
	s := newSession(e, p)
	s.conn = ctx
	s.roleOID = r.OID
	if err := s.applyStartupOptions(p.Options); err != nil {
		return nil, err
	}
	e.metrics.sessions.Inc()
	e.sessions.Store(s.pid, s)
	return s, nil
}

var _ wire.Handler = (*Engine)(nil)
