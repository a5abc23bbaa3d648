package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// Savepoints. BACKUP TO 'dir' (and `weir backup` on a stopped server)
// writes a consistent copy of the whole database into a new data
// directory: a Pebble checkpoint (storage.DB.Checkpoint) taken right
// after a checkpoint commit, while the streams go on. Every checkpoint is
// one atomic Pebble batch, so the copy holds the catalog, the tables, every
// view's state, the sources' positions and the sinks' transaction records
// of exactly one committed epoch. `weir serve --data-dir dir` resumes from
// it as a recovery does: views as of that epoch, sources continuing from
// their saved positions, and the sinks' transactions recorded by that
// epoch committed again (idempotent).
//
// Sinks. The copy keeps the database's id, and so its sinks' Kafka
// transactional ids: it is the same database, moved. Two copies must never
// both write to one sink, so a restored copy that has sinks refuses to
// start until it is told --take-over-sinks (and refuses CREATE SINK while
// the hold lasts). It refuses to start at all rather than start without
// its sinks: a sink reading a view gets the view's changes as they are
// made, so views running ahead of their held sinks would leave the sinks
// a gap. Taking over initialises producers on the original's
// transactional ids, which fences the original's producers (their open
// transaction is aborted and their next write fails); the hold is lifted
// for good.
//
// To continue a sink with no record lost or repeated, the original must
// stop writing to it at the backup's epoch: BACKUP TO ... WITH
// (hand_over_sinks = true) stops every sink's job with a barrier, takes
// the copy right after, and then drops the sinks from the original,
// whose other jobs keep running. Their last transactions are recorded in
// the copy, which commits them as it takes over.

// Meta entries of savepoints.
const (
	// metaRestoredFrom is the meta entry of a copy written by a backup:
	// backupOrigin as JSON.
	metaRestoredFrom = "system/restored_from"
	// metaSinksHeld holds, while the database's sinks are held, why
	// (text); --take-over-sinks removes it.
	metaSinksHeld = "system/sinks_held"
	// optHandOverSinks is BACKUP's option that stops the sinks at the
	// backup's epoch and drops them from this database.
	optHandOverSinks = "hand_over_sinks"
)

// backupOrigin describes where a copy came from.
type backupOrigin struct {
	DatabaseID string    `json:"database_id"`
	Epoch      uint64    `json:"epoch"`
	From       string    `json:"from"`
	At         time.Time `json:"at"`
}

// BackupResult is what a backup reports.
type BackupResult struct {
	// Epoch is the committed epoch the copy holds.
	Epoch uint64
	// Dir is the copy's data directory.
	Dir string
	// HandedOver names the sinks handed over to the copy (and dropped
	// here) by hand_over_sinks.
	HandedOver []string
}

// checkBackupDir refuses a relative path (it would depend on the server's
// working directory) and a directory that exists and is not empty.
func checkBackupDir(fs vfs.FS, dir string) error {
	if dir == "" || !filepath.IsAbs(dir) {
		return pgerr.New(pgerr.InvalidParameterValue, "backup directory %q must be an absolute path", dir)
	}
	if names, err := fs.List(dir); err == nil && len(names) > 0 {
		return pgerr.New(pgerr.DuplicateObject, "backup directory %q exists and is not empty", dir)
	}
	return nil
}

// Backup writes a consistent copy of the database into dir (BACKUP TO):
// it asks for a checkpoint, waits for its commit, and copies the database
// as of the latest committed epoch without stopping the streams. With
// handOverSinks, every sink's job is first stopped with a barrier (so its
// last transaction is recorded in that checkpoint) and, once the copy is
// written, the sinks are dropped here. DDL waits meanwhile.
func (e *Engine) Backup(ctx context.Context, dir string, handOverSinks bool) (BackupResult, error) {
	dir = filepath.Clean(dir)
	if err := checkBackupDir(e.db.FS(), dir); err != nil {
		return BackupResult{}, err
	}
	if filepath.Clean(e.db.Dir()) == dir {
		return BackupResult{}, pgerr.New(pgerr.InvalidParameterValue, "cannot back up the database into its own data directory")
	}
	if err := e.ddlMu.lockContext(ctx); err != nil {
		return BackupResult{}, err
	}
	defer e.ddlMu.Unlock()
	var stopped []*catalog.Relation
	if handOverSinks {
		for _, rel := range e.cat.All() {
			if rel.Kind != catalog.KindSink {
				continue
			}
			if err := e.stopJob(ctx, rel.ID); err != nil {
				e.resumeSinks(ctx, stopped)
				return BackupResult{}, err
			}
			stopped = append(stopped, rel)
		}
	}
	res, err := e.backupLocked(ctx, dir)
	if err != nil {
		e.resumeSinks(ctx, stopped)
		return BackupResult{}, err
	}
	if len(stopped) > 0 {
		// A crash before this drop leaves the sinks here, behind the
		// views they read: the original must then not be restarted with
		// them (drop them, or use the copy).
		ids := make([]uint32, len(stopped))
		for i, rel := range stopped {
			ids[i] = rel.ID
			res.HandedOver = append(res.HandedOver, rel.Name)
		}
		if err := e.cat.Drop(ids...); err != nil {
			return res, err
		}
	}
	e.log.Info("backup written", "dir", dir, "epoch", res.Epoch, "handed_over_sinks", res.HandedOver)
	return res, nil
}

// backupLocked is Backup's copy, under ddlMu.
func (e *Engine) backupLocked(ctx context.Context, dir string) (BackupResult, error) {
	// A fresh checkpoint: the copy holds every write acknowledged before
	// the statement.
	if err := e.st.drv.Barrier(ctx); err != nil {
		return BackupResult{}, err
	}
	if err := e.db.Checkpoint(dir); err != nil {
		return BackupResult{}, err
	}
	opts := e.cfg.Storage
	opts.FS = e.db.FS()
	epoch, err := markCopy(dir, e.db.Dir(), e.databaseID, opts)
	if err != nil {
		return BackupResult{}, err
	}
	return BackupResult{Epoch: epoch, Dir: dir}, nil
}

// markCopy records in the copy in dir where it came from and holds its
// sinks, and returns the epoch it holds.
func markCopy(dir, from, databaseID string, opts storage.Options) (uint64, error) {
	cp, err := storage.Open(dir, opts)
	if err != nil {
		return 0, err
	}
	defer cp.Close()
	epoch, err := cp.CommittedEpoch()
	if err != nil {
		return 0, err
	}
	o, err := json.Marshal(backupOrigin{DatabaseID: databaseID, Epoch: epoch, From: from, At: time.Now().UTC()})
	if err != nil {
		return 0, err
	}
	b := cp.NewBatch()
	defer b.Close()
	if err := b.SetMeta(metaRestoredFrom, o); err != nil {
		return 0, err
	}
	reason := fmt.Sprintf("this database was restored from a backup of %s at epoch %d", from, epoch)
	if err := b.SetMeta(metaSinksHeld, []byte(reason)); err != nil {
		return 0, err
	}
	return epoch, b.Commit()
}

// BackupOffline copies the data directory dataDir, which no server may be
// using, into dir (`weir backup`): the copy holds its last committed
// epoch. With handOverSinks the sinks of dataDir are dropped once the
// copy is written, as BACKUP's hand_over_sinks does.
func BackupOffline(dataDir, dir string, handOverSinks bool, opts storage.Options) (BackupResult, error) {
	dir = filepath.Clean(dir)
	if !filepath.IsAbs(dir) {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return BackupResult{}, err
		}
		dir = abs
	}
	db, err := storage.Open(dataDir, opts)
	if err != nil {
		return BackupResult{}, err
	}
	defer db.Close()
	if err := checkFormat(db); err != nil {
		return BackupResult{}, err
	}
	if err := checkBackupDir(db.FS(), dir); err != nil {
		return BackupResult{}, err
	}
	id, err := loadDatabaseID(db)
	if err != nil {
		return BackupResult{}, err
	}
	if err := db.Checkpoint(dir); err != nil {
		return BackupResult{}, err
	}
	epoch, err := markCopy(dir, dataDir, id, opts)
	if err != nil {
		return BackupResult{}, err
	}
	res := BackupResult{Epoch: epoch, Dir: dir}
	if handOverSinks {
		cat, err := catalog.Open(db)
		if err != nil {
			return res, err
		}
		var ids []uint32
		for _, rel := range cat.All() {
			if rel.Kind == catalog.KindSink {
				ids = append(ids, rel.ID)
				res.HandedOver = append(res.HandedOver, rel.Name)
			}
		}
		if len(ids) > 0 {
			if err := cat.Drop(ids...); err != nil {
				return res, err
			}
		}
	}
	return res, nil
}

// loadSinkHold reads whether the sinks are held. With takeOver it lifts
// the hold (durably). Without it, a database holding sinks is refused
// (55000): its sinks must not write while another copy may, and its views
// must not run ahead of them. Called by Open before the jobs start.
func (e *Engine) loadSinkHold(takeOver bool) error {
	v, ok, err := e.db.Meta(metaSinksHeld)
	if err != nil || !ok {
		return err
	}
	reason := string(v)
	if takeOver {
		b := e.db.NewBatch()
		defer b.Close()
		if err := b.DeleteKey(storage.MetaKey(metaSinksHeld)); err != nil {
			return err
		}
		if err := b.Commit(); err != nil {
			return err
		}
		e.log.Info("taking over the sinks: their producers fence any other copy's", "was_held", reason)
		return nil
	}
	var sinks []string
	for _, rel := range e.cat.All() {
		if rel.Kind == catalog.KindSink {
			sinks = append(sinks, rel.Name)
		}
	}
	if len(sinks) > 0 {
		return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "the sinks of this database are held: %s", reason).
			WithDetail("Sinks: %s. They deliver as the original's do (the same Kafka transactional ids, the same progress rows in target databases), so the two copies must not both write.", strings.Join(sinks, ", ")).
			WithHint("Start weir with --take-over-sinks once the original no longer writes to them (a BACKUP with hand_over_sinks stops them at the backup's epoch); the copy's Kafka producers then fence the original's.")
	}
	e.sinksHeld.Store(&reason)
	e.log.Info("the sinks are held: CREATE SINK waits for a start with --take-over-sinks", "reason", reason)
	return nil
}

// checkSinksNotHeld refuses to start a sink while the sinks are held.
func (e *Engine) checkSinksNotHeld() error {
	if r := e.sinksHeld.Load(); r != nil {
		return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "the sinks of this database are held: %s", *r).
			WithHint("Restart weir with --take-over-sinks once no other copy of this database writes to its sinks.")
	}
	return nil
}

// resumeSinks starts again the jobs of sinks stopped by a backup that
// failed, or was cancelled: the restart undoes the stop, and no cancel
// or statement_timeout ends it.
func (e *Engine) resumeSinks(ctx context.Context, rels []*catalog.Relation) {
	ctx, cancel := e.pastCancel(ctx)
	defer cancel()
	for _, rel := range rels {
		if err := e.startJobAgain(ctx, rel); err != nil {
			e.log.Error("could not restart a sink after a failed backup; it runs again after a restart", "sink", rel.Name, "err", err)
		}
	}
}

// startJobAgain builds the job of rel again from its committed state and
// adds it with a barrier.
func (e *Engine) startJobAgain(ctx context.Context, rel *catalog.Relation) error {
	e.writeMu.Lock()
	j, err := e.buildJob(rel)
	if err != nil {
		e.writeMu.Unlock()
		return err
	}
	e.subscribe(j, false)
	e.st.setJob(j)
	e.runJob(j)
	e.writeMu.Unlock()
	return e.addJob(ctx, j)
}

// runBackup is BACKUP TO: one row with the epoch and directory of the
// copy. Only a superuser may run it (privileges.go).
func (s *Session) runBackup(ctx context.Context, st *sql.Backup, io wire.ExecIO) (wire.Result, error) {
	if err := s.noDDLInBlock("BACKUP"); err != nil {
		return nil, err
	}
	// The backup's committed state holds every acknowledged statement.
	end, err := s.eng.quiesceRedo(ctx)
	if err != nil {
		return nil, err
	}
	defer end()
	hand := false
	for k, v := range st.With {
		if k != optHandOverSinks {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "unrecognized backup option \"%s\"", k).
				WithHint("The option is " + optHandOverSinks + ".")
		}
		b, err := parseBoolOption(k, v)
		if err != nil {
			return nil, err
		}
		hand = b
	}
	ctx, cancel := s.withTimeout(ctx)
	defer cancel()
	res, err := s.eng.Backup(ctx, st.Dir, hand)
	if err != nil {
		return nil, err
	}
	if len(res.HandedOver) > 0 {
		io.Notice("NOTICE", "00000", fmt.Sprintf("sinks handed over to the backup and dropped here: %s", strings.Join(res.HandedOver, ", ")))
	}
	return &rowsResult{rows: []types.Row{{types.DInt(int64(res.Epoch)), types.DString(res.Dir)}}, tag: "BACKUP"}, nil
}

// backupFields are BACKUP's result columns.
var backupFields = []wire.Field{{Name: "epoch", T: types.TInt8}, {Name: "directory", T: types.TText}}

// parseBoolOption reads a boolean option value.
func parseBoolOption(k, v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "on", "1", "yes":
		return true, nil
	case "false", "off", "0", "no":
		return false, nil
	}
	return false, pgerr.New(pgerr.InvalidParameterValue, "invalid value for %s: \"%s\"", k, v)
}
