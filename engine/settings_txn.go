package engine

import (
	"maps"
	"strings"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/wire"
)

// settingsTxn is what a transaction block keeps of the session's
// settings so that its end can settle them as PostgreSQL's GUC stack
// does: ROLLBACK (or a failed block) restores the values the block began
// with; COMMIT keeps what SET and RESET did and drops what SET LOCAL did;
// ROLLBACK TO a savepoint restores the values of the savepoint.
type settingsTxn struct {
	// begin is the session's settings when the block first changed one.
	begin map[string]string
	// kept is what COMMIT leaves: begin with the block's SET and RESET
	// (not SET LOCAL) applied.
	kept map[string]string
}

// settingsMark is the settings at a savepoint: nil when the block had
// changed none by then (they were the block's first values).
type settingsMark struct {
	vars, kept map[string]string
}

// settingsFrame returns the block's settingsTxn, started when the block
// changes its first setting.
func (s *Session) settingsFrame() *settingsTxn {
	if s.settingsTx == nil {
		s.settingsTx = &settingsTxn{begin: maps.Clone(s.vars), kept: maps.Clone(s.vars)}
	}
	return s.settingsTx
}

// changeSetting is SET (or, with def, SET ... TO DEFAULT and RESET) of
// st to v. In a transaction block the change is undone by ROLLBACK, and
// a local one (SET LOCAL, set_config(..., true)) by COMMIT too. Outside
// a block a local change lasts until the end of the statement's own
// transaction, as in PostgreSQL: the end of the statement's Query, or
// of its extended-protocol batch at Sync (EndImplicit); SET LOCAL then
// warns that it can only be used in transaction blocks.
func (s *Session) changeSetting(st *setting, v string, def, local bool, io wire.ExecIO) error {
	if err := s.maySet(st); err != nil {
		return err
	}
	if local && !s.txnBlock() && io != nil {
		io.Notice("WARNING", "25P01", "SET LOCAL can only be used in transaction blocks")
	}
	// A change outside a block is undone at the end of the statement's
	// transaction only when it is local; a SET there after a local
	// change in the same transaction must be kept all the same.
	f := s.settingsTx
	if s.txn != 'I' || local {
		f = s.settingsFrame()
	}
	name := strings.ToLower(st.name)
	if name == "role" && !def {
		r, err := s.checkSetRole(v)
		if err != nil {
			return err
		}
		v = r
	}
	if name == "session_authorization" {
		if !def {
			r, err := s.checkSessionAuthorization(v)
			if err != nil {
				return err
			}
			v = r
		}
		// A new session user acts as itself: SET ROLE ends, as
		// PostgreSQL's SetSessionUserId has it.
		if role := settingsByName["role"]; role != nil {
			s.reset(role)
			if f != nil && !local {
				delete(f.kept, "role")
			}
		}
	}
	if def {
		if st.readOnly {
			return pgerr.New(pgerr.CantChangeRuntimeParam, "parameter \"%s\" cannot be changed", st.name)
		}
		s.reset(st)
		if f != nil && !local {
			delete(f.kept, name)
		}
		return nil
	}
	if err := s.set(st, v); err != nil {
		return err
	}
	if f != nil && !local {
		f.kept[name] = s.vars[name]
	}
	return nil
}

// resetAllSettings is RESET ALL: every setting but the noShowAll ones
// back to its default, undone by ROLLBACK in a block.
func (s *Session) resetAllSettings() {
	keep := func(from map[string]string) map[string]string {
		out := map[string]string{}
		for i := range settingList {
			name := strings.ToLower(settingList[i].name)
			if v, ok := from[name]; ok && settingList[i].noShowAll {
				out[name] = v
			}
		}
		return out
	}
	if s.txn != 'I' {
		f := s.settingsFrame()
		f.kept = keep(f.kept)
	} else if f := s.settingsTx; f != nil {
		f.kept = keep(f.kept)
	}
	s.vars = keep(s.vars)
	s.reset(settingsByName["timezone"])
}

// endSettings settles the settings at the end of a transaction block:
// COMMIT keeps the block's SET and RESET, anything else restores the
// values the block began with.
func (s *Session) endSettings(commit bool) {
	f := s.settingsTx
	s.settingsTx = nil
	if f == nil {
		return
	}
	if commit {
		s.restoreSettings(f.kept)
	} else {
		s.restoreSettings(f.begin)
	}
}

// markSettings returns the settings at a savepoint.
func (s *Session) markSettings() settingsMark {
	if s.settingsTx == nil {
		return settingsMark{}
	}
	return settingsMark{vars: maps.Clone(s.vars), kept: maps.Clone(s.settingsTx.kept)}
}

// rollbackSettings restores the settings of savepoint mark m.
func (s *Session) rollbackSettings(m settingsMark) {
	f := s.settingsTx
	if f == nil {
		return
	}
	if m.vars == nil {
		s.restoreSettings(f.begin)
		f.kept = maps.Clone(f.begin)
		return
	}
	s.restoreSettings(m.vars)
	f.kept = maps.Clone(m.kept)
}

// restoreSettings makes vars the session's settings, with the time zone
// they name.
func (s *Session) restoreSettings(vars map[string]string) {
	s.vars = maps.Clone(vars)
	if s.vars == nil {
		s.vars = map[string]string{}
	}
	tz := settingsByName["timezone"]
	if v, ok := s.vars["timezone"]; ok {
		if loc, _, err := loadLocation(v); err == nil {
			s.loc = loc
			return
		}
	}
	s.reset(tz)
}

// reportedValues returns the values of the settings clients track
// (ParameterStatus), to report those a block's end changed.
func (s *Session) reportedValues() map[string]string {
	out := map[string]string{}
	for i := range settingList {
		st := &settingList[i]
		if reported[strings.ToLower(st.name)] {
			out[st.name] = s.get(st)
		}
	}
	return out
}

// reportChanged sends a ParameterStatus for each tracked setting whose
// value differs from before.
func (s *Session) reportChanged(before map[string]string, io wire.ExecIO) {
	for i := range settingList {
		st := &settingList[i]
		if v, ok := before[st.name]; ok && v != s.get(st) {
			io.ParameterStatus(st.name, s.get(st))
		}
	}
}

// maySet refuses, with PostgreSQL's 42501, a change of a setting only a
// superuser may change (context superuser: lc_messages) by any other
// role, whether by SET, RESET, set_config or at connection.
func (s *Session) maySet(st *setting) error {
	if settingMetas[st.name].context == "superuser" && !s.superuser() {
		return pgerr.New(pgerr.InsufficientPrivilege, "permission denied to set parameter \"%s\"", st.name)
	}
	return nil
}

// SetSetting implements functions.SettingChanger: set_config(name,
// value, is_local) changes the setting as SET or SET LOCAL would (a NULL
// value, null, resets it) and returns its new value.
func (s *Session) SetSetting(name, value string, null, local bool) (string, error) {
	st, err := lookupSetting(name)
	if err != nil {
		return "", err
	}
	if err := s.changeSetting(st, value, null, local, nil); err != nil {
		return "", err
	}
	return s.get(st), nil
}
