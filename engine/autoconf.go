package engine

import (
	"context"
	"strings"
	"time"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/wire"
)

// ALTER SYSTEM of the session settings (work_mem, statement_timeout, ...),
// as PostgreSQL does it: the value is checked and kept durably, where
// PostgreSQL writes postgresql.auto.conf, and becomes the default of every
// session's setting once pg_reload_conf() reads the kept values again (a
// restart reads them too). A session's own SET still wins over it, and
// RESET returns to it. weir keeps the values in the meta keyspace under
// "conf/<name>"; its own system settings (system_settings.go) take effect
// at once instead.

// metaConfKey is the meta entry of session setting name's ALTER SYSTEM
// value.
func metaConfKey(name string) string { return "conf/" + strings.ToLower(name) }

// confDefaults are the values in effect from ALTER SYSTEM, as of the last
// pg_reload_conf() or start.
type confDefaults struct {
	// vals holds the values by lower-case setting name.
	vals map[string]string
	// loc is the TimeZone of vals (nil when it sets none).
	loc *time.Location
}

// loadConf reads the kept ALTER SYSTEM values of the session settings
// and makes them the sessions' defaults. A kept value that no longer
// passes its setting's check is skipped and logged, as PostgreSQL skips a
// bad line of its configuration file on reload.
func (e *Engine) loadConf() error {
	c := &confDefaults{vals: map[string]string{}}
	for i := range settingList {
		st := &settingList[i]
		raw, ok, err := e.db.Meta(metaConfKey(st.name))
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		v := string(raw)
		if st.check != nil {
			if v, err = st.check(v); err != nil {
				e.log.Warn("ignoring a setting kept by ALTER SYSTEM", "name", st.name, "value", string(raw), "err", err)
				continue
			}
		}
		if st.name == "TimeZone" {
			loc, _, err := loadLocation(v)
			if err != nil {
				e.log.Warn("ignoring a setting kept by ALTER SYSTEM", "name", st.name, "value", v, "err", err)
				continue
			}
			c.loc = loc
		}
		c.vals[strings.ToLower(st.name)] = v
	}
	e.conf.Store(c)
	return nil
}

// confDefault returns the ALTER SYSTEM value in effect of the setting
// with lower-case name, and whether there is one.
func (e *Engine) confDefault(name string) (string, bool) {
	if e == nil {
		return "", false
	}
	c := e.conf.Load()
	if c == nil {
		return "", false
	}
	v, ok := c.vals[name]
	return v, ok
}

// defaultLocation is the TimeZone of a session that did not set one.
func (e *Engine) defaultLocation() *time.Location {
	if e != nil {
		if c := e.conf.Load(); c != nil && c.loc != nil {
			return c.loc
		}
	}
	return time.UTC
}

// followDefaultZone gives a session that did not set TimeZone the
// default one, which a reload may have changed.
func (s *Session) followDefaultZone() {
	if _, own := s.vars["timezone"]; !own && !s.builtinDefaults {
		s.loc = s.eng.defaultLocation()
	}
}

// noAlterSystemHere refuses ALTER SYSTEM in a transaction block,
// implicit ones (several statements in one Query) included, as
// PostgreSQL's PreventInTransactionBlock does, and for any role but a
// superuser.
func (s *Session) noAlterSystemHere(st *sql.AlterSystem) error {
	if err := s.notInBlock("ALTER SYSTEM"); err != nil {
		return err
	}
	if s.superuser() {
		return nil
	}
	if st.All {
		return pgerr.New(pgerr.InsufficientPrivilege, "permission denied to perform ALTER SYSTEM RESET ALL")
	}
	return pgerr.New(pgerr.InsufficientPrivilege, "permission denied to set parameter \"%s\"", st.Name)
}

// alterSystemConf runs ALTER SYSTEM SET or RESET of a session setting.
func (s *Session) alterSystemConf(st *sql.AlterSystem) (wire.Result, error) {
	set, err := lookupSetting(st.Name)
	if err != nil {
		return nil, err
	}
	if err := checkArgs(set, st.Args); err != nil {
		return nil, err
	}
	switch {
	case set.readOnly, set.name == "transaction_isolation", set.name == "transaction_read_only",
		strings.EqualFold(set.name, "role"), strings.EqualFold(set.name, "session_authorization"):
		// PostgreSQL's internal settings, the ones of a transaction and
		// the session's role are not for a configuration file.
		return nil, pgerr.New(pgerr.CantChangeRuntimeParam, "parameter \"%s\" cannot be changed", st.Name)
	}
	b := s.eng.db.NewBatch()
	defer b.Close()
	if st.Value == "" {
		if err := b.DeleteKey(storage.MetaKey(metaConfKey(set.name))); err != nil {
			return nil, err
		}
	} else {
		v := unquoteSetting(st.Value)
		if set.check != nil {
			if v, err = set.check(v); err != nil {
				return nil, err
			}
		}
		if set.name == "TimeZone" {
			if _, _, err := loadLocation(v); err != nil {
				return nil, err
			}
		}
		if err := b.SetMeta(metaConfKey(set.name), []byte(v)); err != nil {
			return nil, err
		}
	}
	if err := b.Commit(); err != nil {
		return nil, err
	}
	return done("ALTER SYSTEM")
}

// alterSystemResetAll runs ALTER SYSTEM RESET ALL: every session setting
// kept by ALTER SYSTEM is forgotten (the defaults change at the next
// pg_reload_conf()), and weir's system settings return to their defaults
// at once, barrier_interval_ms and sink_log_store_max_bytes included.
func (s *Session) alterSystemResetAll(ctx context.Context) (wire.Result, error) {
	e := s.eng
	b := e.db.NewBatch()
	defer b.Close()
	for i := range settingList {
		if err := b.DeleteKey(storage.MetaKey(metaConfKey(settingList[i].name))); err != nil {
			return nil, err
		}
	}
	for _, key := range []string{metaBarrierInterval, metaSinkLogMaxBytes} {
		if err := b.DeleteKey(storage.MetaKey(key)); err != nil {
			return nil, err
		}
	}
	// The system settings go together: one by one, a restart strategy
	// could pass through a combination that does not validate.
	var wasSet []*systemSetting
	for i := range systemSettingList {
		sys := &systemSettingList[i]
		if _, set := e.st.sys.get(sys.name); set {
			wasSet = append(wasSet, sys)
			if err := b.DeleteKey(storage.MetaKey(metaSystemKey(sys.name))); err != nil {
				return nil, err
			}
		}
	}
	if err := b.Commit(); err != nil {
		return nil, err
	}
	e.st.sys.mu.Lock()
	for _, sys := range wasSet {
		delete(e.st.sys.vals, sys.name)
	}
	e.st.sys.mu.Unlock()
	for _, sys := range wasSet {
		if sys.apply != nil && sys.def != "" {
			if err := sys.apply(ctx, e, sys.def); err != nil {
				return nil, err
			}
		}
	}
	if err := e.setBarrierInterval(ctx, defaultBarrierInterval); err != nil {
		return nil, err
	}
	return done("ALTER SYSTEM")
}
