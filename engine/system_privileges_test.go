package engine

import (
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/wire"
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

// The weir schema shows a role the jobs, operators, state tables,
// sources and watermarks of the relations it owns or may SELECT (of an
// index, the table it indexes), a superuser all of them; EXPLAIN
// MATERIALIZED VIEW's live counts are refused for the others.
func TestSystemViewsShowWhatTheRoleMayRead(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	root := session(t, e)
	for _, q := range []string{
		"CREATE TABLE a (x int, ts timestamp, WATERMARK FOR ts AS ts - INTERVAL '5 seconds') APPEND ONLY",
		"CREATE MATERIALIZED VIEW av AS SELECT x, count(*) AS n FROM a GROUP BY x",
		"CREATE INDEX ai ON a (x)",
		"CREATE TABLE gen (v int) WITH (connector = 'datagen', datagen.rows.per.second = '1')",
		"CREATE ROLE mallory LOGIN", "GRANT CREATE ON SCHEMA public TO mallory",
		"CREATE ROLE friend LOGIN", "GRANT SELECT ON av, gen TO friend",
		"CREATE ROLE insider LOGIN", "GRANT SELECT ON a TO insider",
		"CREATE ROLE team", "GRANT mallory TO team", "CREATE ROLE member LOGIN", "GRANT team TO member",
	} {
		mustRun(t, root, q)
	}
	mallory := sessionAs(t, e, "mallory")
	mustRun(t, mallory, "CREATE TABLE b (y int)")
	mustRun(t, mallory, "CREATE MATERIALIZED VIEW bv AS SELECT y, count(*) AS n FROM b GROUP BY y")

	queries := map[string]string{
		"jobs":         "SELECT string_agg(name, ',' ORDER BY name) FROM weir.jobs",
		"operators":    "SELECT string_agg(DISTINCT job, ',' ORDER BY job) FROM weir.operators",
		"state_tables": "SELECT string_agg(DISTINCT job, ',' ORDER BY job) FROM weir.state_tables",
		"sources":      "SELECT string_agg(name, ',' ORDER BY name) FROM weir.sources",
		"watermarks":   "SELECT string_agg(name, ',' ORDER BY name) FROM weir.watermarks",
	}
	want := map[string]map[string]string{
		"root":    {"jobs": "ai,av,bv,gen", "operators": "ai,av,bv,gen", "state_tables": "ai,av,bv,gen", "sources": "gen", "watermarks": "a"},
		"mallory": {"jobs": "bv", "operators": "bv", "state_tables": "bv", "sources": "NULL", "watermarks": "NULL"},
		"member":  {"jobs": "bv", "operators": "bv", "state_tables": "bv", "sources": "NULL", "watermarks": "NULL"},
		"friend":  {"jobs": "av,gen", "operators": "av,gen", "state_tables": "av,gen", "sources": "gen", "watermarks": "NULL"},
		"insider": {"jobs": "ai", "operators": "ai", "state_tables": "ai", "sources": "NULL", "watermarks": "a"},
	}
	sessions := map[string]wire.Session{"root": root, "mallory": mallory,
		"member": sessionAs(t, e, "member"), "friend": sessionAs(t, e, "friend"), "insider": sessionAs(t, e, "insider")}
	for who, s := range sessions {
		for view, q := range queries {
			if got := strings.Join(mustRun(t, s, q), "|"); got != want[who][view] {
				t.Errorf("%s reads %s: %q, want %q", who, view, got, want[who][view])
			}
		}
	}
	wantCode(t, mallory, "EXPLAIN MATERIALIZED VIEW av", pgerr.InsufficientPrivilege, "permission denied for materialized view av")
	for _, who := range []string{"root", "friend"} {
		if out := strings.Join(mustRun(t, sessions[who], "EXPLAIN MATERIALIZED VIEW av"), "\n"); !strings.Contains(out, "rows") {
			t.Errorf("%s: EXPLAIN MATERIALIZED VIEW av: %q, want the live plan", who, out)
		}
	}
}

// A setting of PostgreSQL's superuser context (lc_messages) is changed
// only by a superuser: SET, RESET and set_config by another role are
// 42501, as in PostgreSQL.
func TestSuperuserOnlySettings(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	root := session(t, e)
	mustRun(t, root, "CREATE ROLE plain LOGIN")
	mustRun(t, root, "SET lc_messages = 'C'")
	plain := sessionAs(t, e, "plain")
	for _, q := range []string{"SET lc_messages = 'C'", "RESET lc_messages", "SELECT set_config('lc_messages', 'C', false)"} {
		wantCode(t, plain, q, pgerr.InsufficientPrivilege, `permission denied to set parameter "lc_messages"`)
	}
	mustRun(t, plain, "SET work_mem = '8MB'")
	mustRun(t, root, "SET ROLE plain")
	wantCode(t, root, "SET lc_messages = 'C'", pgerr.InsufficientPrivilege, `permission denied to set parameter "lc_messages"`)
}
