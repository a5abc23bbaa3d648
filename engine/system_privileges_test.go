package engine

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/internal/pgerr"
)

// FLUSH forces a checkpoint, so, as PostgreSQL's CHECKPOINT, it is for
// superusers: another role gets 42501, also through SET ROLE.
func TestFlushNeedsSuperuser(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	root := session(t, e)
	mustRun(t, root, "CREATE ROLE plain LOGIN")
	mustRun(t, root, "CREATE ROLE admin LOGIN SUPERUSER")
	mustRun(t, root, "GRANT plain TO admin")
	mustRun(t, root, "FLUSH")
	plain := sessionAs(t, e, "plain")
	wantCode(t, plain, "FLUSH", pgerr.InsufficientPrivilege, "must be superuser to do FLUSH")
	admin := sessionAs(t, e, "admin")
	mustRun(t, admin, "FLUSH")
	mustRun(t, admin, "SET ROLE plain")
	wantCode(t, admin, "FLUSH", pgerr.InsufficientPrivilege, "must be superuser to do FLUSH")
	mustRun(t, admin, "RESET ROLE")
	mustRun(t, admin, "FLUSH")
}
