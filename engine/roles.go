package engine

import (
	"context"
	"crypto/rand"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// This file keeps roles as PostgreSQL does: CREATE/ALTER/DROP ROLE (USER
// is a role that can log in), passwords stored only as SCRAM-SHA-256
// verifiers, and the lookup the wire server authenticates against.
// Privileges are in privileges.go.

// DatabaseName is the name of weir's one database. Connecting to any
// other name fails with 3D000, as Postgres does for a database that does
// not exist.
const DatabaseName = sql.DatabaseName

// BootstrapUser is the name of the superuser made on first start.
const BootstrapUser = "root"

// Codes of this file that pgerr does not name.
const (
	codeInvalidCatalogName    pgerr.Code = "3D000"
	codeInvalidAuthorization  pgerr.Code = "28000"
	codeDuplicateObject       pgerr.Code = "42710"
	codeUndefinedObject       pgerr.Code = "42704"
	codeReservedName          pgerr.Code = "42939"
	codeInvalidGrantOperation pgerr.Code = "0LP01"
)

// bootstrapRoles makes the first superuser when the catalog has no role,
// with the verifier of cfg.InitPassword (no password when empty). An
// initial password given later is set when that superuser still has no
// password, and ignored once it has one.
func (e *Engine) bootstrapRoles() error {
	verifier := ""
	if e.cfg.InitPassword != "" {
		v, err := e.scramVerifier(e.cfg.InitPassword)
		if err != nil {
			return err
		}
		verifier = v
	}
	made, err := e.cat.Bootstrap(BootstrapUser, verifier)
	if err != nil {
		return err
	}
	if made {
		e.log.Info("bootstrap superuser created", "role", BootstrapUser, "password", verifier != "")
		return nil
	}
	if verifier == "" {
		return nil
	}
	root, ok := e.cat.RoleByOID(catalog.BootstrapRoleOID)
	if !ok || root.Password != "" {
		e.log.Info("initial password ignored: the bootstrap superuser has one already (change it with ALTER ROLE)", "role", BootstrapUser)
		return nil
	}
	// The bootstrap superuser was made without a password (a first start
	// under trust): the initial password is its first one.
	r := *root
	r.Password = verifier
	if err := e.cat.ReplaceRole(&r); err != nil {
		return err
	}
	e.log.Info("bootstrap superuser given its initial password", "role", root.Name)
	return nil
}

// scramVerifier makes the verifier of a new password with a fresh salt.
func (e *Engine) scramVerifier(password string) (string, error) {
	r := e.cfg.Rand
	if r == nil {
		r = rand.Reader
	}
	salt := make([]byte, 16)
	if _, err := io.ReadFull(r, salt); err != nil {
		return "", err
	}
	return wire.SCRAMVerifier(password, salt, wire.DefaultSCRAMIterations)
}

// LookupRole implements wire.Roles.
func (e *Engine) LookupRole(name string) (wire.Role, bool) {
	r, ok := e.cat.RoleByName(name)
	if !ok {
		return wire.Role{}, false
	}
	return wire.Role{Superuser: r.Superuser, CanLogin: r.Login, Verifier: r.Password, ValidUntil: r.ValidUntil}, true
}

var _ wire.Roles = (*Engine)(nil)

// role returns the role the session acts as (current_user) as the
// catalog has it now: the one SET ROLE chose, else the session's own
// (session_user). SET ROLE keeps the role's OID, as PostgreSQL does, so
// a role renamed and another made under its old name changes nothing;
// a role dropped under a session has no privileges.
func (s *Session) role() *catalog.Role {
	if name, oid, ok := setRoleValue(s.vars["role"]); ok {
		if r, ok := s.eng.cat.RoleByOID(oid); ok {
			return r
		}
		return &catalog.Role{OID: oid, Name: name}
	}
	return s.sessionRole()
}

// sessionRole returns the session user (session_user) as the catalog
// has it now: the role SET SESSION AUTHORIZATION chose, else the
// authenticated one. A role dropped under a session has no privileges
// (and OID 0 when it was chosen by name).
func (s *Session) sessionRole() *catalog.Role {
	if name := s.vars["session_authorization"]; name != "" {
		if r, ok := s.eng.cat.RoleByName(name); ok {
			return r
		}
		return &catalog.Role{Name: name}
	}
	if r, ok := s.eng.cat.RoleByOID(s.roleOID); ok {
		return r
	}
	return &catalog.Role{OID: s.roleOID, Name: s.user}
}

// The value of the role setting is the name SET ROLE was given (what
// SHOW role prints) and, after a NUL, the OID of the role it named then.

// roleSetting is the value of the role setting for role r.
func roleSetting(r *catalog.Role) string {
	return r.Name + "\x00" + strconv.FormatUint(uint64(r.OID), 10)
}

// setRoleValue splits a role setting's value into the name and the OID:
// ok is false for none (RESET ROLE).
func setRoleValue(v string) (name string, oid uint32, ok bool) {
	name, num, found := strings.Cut(v, "\x00")
	if !found {
		return v, 0, false
	}
	n, err := strconv.ParseUint(num, 10, 32)
	if err != nil {
		return name, 0, false
	}
	return name, uint32(n), true
}

// CurrentUser returns the name of the role the session acts as
// (current_user, current_role and user), which SET ROLE changes; User
// is session_user, which it does not.
func (s *Session) CurrentUser() string { return s.role().Name }

// checkSessionAuthorization checks SET SESSION AUTHORIZATION name (v):
// as in PostgreSQL, only a session whose authenticated role is a
// superuser may become another role (42501); any session may become its
// authenticated role again. It returns the role's name.
func (s *Session) checkSessionAuthorization(v string) (string, error) {
	target, ok := s.eng.cat.RoleByName(v)
	if !ok {
		return "", pgerr.New(pgerr.InvalidParameterValue, "role \"%s\" does not exist", v)
	}
	if target.OID == s.roleOID {
		return target.Name, nil
	}
	if auth, ok := s.eng.cat.RoleByOID(s.roleOID); !ok || !auth.Superuser {
		return "", pgerr.New(pgerr.InsufficientPrivilege, "permission denied to set session authorization \"%s\"", v)
	}
	return target.Name, nil
}

// checkSetRole checks SET ROLE name (v): the session user must be a
// superuser or a member of the role, directly or through other roles
// (whatever their INHERIT), as in PostgreSQL. It returns the value to
// keep: "none" or the role's name and OID (roleSetting).
func (s *Session) checkSetRole(v string) (string, error) {
	if strings.EqualFold(v, "none") {
		return "none", nil
	}
	target, ok := s.eng.cat.RoleByName(v)
	if !ok {
		return "", pgerr.New(pgerr.InvalidParameterValue, "role \"%s\" does not exist", v)
	}
	own, ok := s.eng.cat.RoleByOID(s.sessionRole().OID)
	if !ok {
		return "", pgerr.New(pgerr.InsufficientPrivilege, "permission denied to set role \"%s\"", v)
	}
	if own.Superuser || own.OID == target.OID {
		return roleSetting(target), nil
	}
	seen := map[uint32]bool{own.OID: true}
	queue := []uint32{own.OID}
	for len(queue) > 0 {
		r, ok := s.eng.cat.RoleByOID(queue[0])
		queue = queue[1:]
		if !ok {
			continue
		}
		for _, m := range r.MemberOf {
			if m == target.OID {
				return roleSetting(target), nil
			}
			if !seen[m] {
				seen[m] = true
				queue = append(queue, m)
			}
		}
	}
	return "", pgerr.New(pgerr.InsufficientPrivilege, "permission denied to set role \"%s\"", v)
}

// superuser reports whether the session's role is a superuser.
func (s *Session) superuser() bool { return s.role().Superuser }

// roleOptions applies CREATE/ALTER ROLE options to r.
func (s *Session) roleOptions(r *catalog.Role, o sql.RoleOptions, io wire.ExecIO) error {
	set := func(dst *bool, v *bool) {
		if v != nil {
			*dst = *v
		}
	}
	set(&r.Superuser, o.Superuser)
	set(&r.Login, o.Login)
	set(&r.CreateRole, o.CreateRole)
	set(&r.CreateDB, o.CreateDB)
	set(&r.Inherit, o.Inherit)
	if o.ConnLimit != nil {
		if *o.ConnLimit < -1 {
			return pgerr.New(pgerr.InvalidParameterValue, "invalid connection limit: %d", *o.ConnLimit)
		}
		r.ConnLimit = *o.ConnLimit
	}
	switch {
	case o.PasswordNull:
		r.Password = ""
	case o.Password != nil && *o.Password == "":
		io.Notice("NOTICE", "00000", "empty string is not a valid password, clearing password")
		r.Password = ""
	case o.Password != nil:
		if _, ok := wire.ParseSCRAMVerifier(*o.Password); ok {
			// A verifier made elsewhere (pg_dumpall, another server) is
			// kept as it is, as Postgres does.
			r.Password = *o.Password
		} else {
			v, err := s.eng.scramVerifier(*o.Password)
			if err != nil {
				return err
			}
			r.Password = v
		}
	}
	if o.ValidUntil != nil {
		switch strings.ToLower(strings.TrimSpace(*o.ValidUntil)) {
		case "infinity":
			r.ValidUntil = time.Time{}
		default:
			us, err := types.ParseTimestamp(*o.ValidUntil, true, s.loc)
			if err != nil {
				return err
			}
			r.ValidUntil = time.UnixMicro(us).UTC()
		}
	}
	return nil
}

// checkRoleAdmin returns 42501 unless the session may create or change
// role target: a superuser may do anything; a role with CREATEROLE may
// manage roles that are not superusers.
func (s *Session) checkRoleAdmin(verb string, target *catalog.Role) error {
	me := s.role()
	if me.Superuser {
		return nil
	}
	if !me.CreateRole {
		return pgerr.New(pgerr.InsufficientPrivilege, "permission denied to %s role", verb).
			WithDetail("Only roles with the CREATEROLE attribute may %s roles.", verb)
	}
	if target.Superuser {
		return pgerr.New(pgerr.InsufficientPrivilege, "permission denied to %s role", verb).
			WithDetail("Only roles with the SUPERUSER attribute may %s roles with the SUPERUSER attribute.", verb)
	}
	return nil
}

func (s *Session) createRole(ctx context.Context, st *sql.CreateRole, io wire.ExecIO) (wire.Result, error) {
	if strings.HasPrefix(st.Name, "pg_") {
		return nil, pgerr.New(codeReservedName, "role name \"%s\" is reserved", st.Name).
			WithDetail("Role names starting with \"pg_\" are reserved.")
	}
	if strings.EqualFold(st.Name, "public") || strings.EqualFold(st.Name, "none") {
		return nil, pgerr.New(codeReservedName, "role name \"%s\" is reserved", st.Name)
	}
	r := &catalog.Role{Name: st.Name, Login: st.User, Inherit: true, ConnLimit: -1}
	if err := s.roleOptions(r, st.Opts, io); err != nil {
		return nil, err
	}
	if err := s.checkRoleAdmin("create", r); err != nil {
		return nil, err
	}
	if err := s.eng.cat.CreateRole(r); err != nil {
		return nil, err
	}
	s.eng.log.Info("role created", "role", r.Name, "by", s.user, "superuser", r.Superuser, "login", r.Login, "password", r.Password != "")
	return done("CREATE ROLE")
}

func (s *Session) alterRole(ctx context.Context, st *sql.AlterRole, io wire.ExecIO) (wire.Result, error) {
	old, ok := s.eng.cat.RoleByName(st.Name)
	if !ok {
		return nil, pgerr.New(codeUndefinedObject, "role \"%s\" does not exist", st.Name)
	}
	r := *old
	if st.RenameTo != "" {
		if old.OID == s.sessionRole().OID {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "session user cannot be renamed")
		}
		if old.OID == s.role().OID {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "current user cannot be renamed")
		}
		if err := s.checkRoleAdmin("rename", old); err != nil {
			return nil, err
		}
		// Postgres clears an MD5 password on rename because the name is
		// its salt; a SCRAM verifier does not depend on the name.
		r.Name = st.RenameTo
		if err := s.eng.cat.ReplaceRole(&r); err != nil {
			return nil, err
		}
		return done("ALTER ROLE")
	}
	// A role may change its own password without any attribute, as in
	// Postgres; everything else needs CREATEROLE or SUPERUSER.
	ownPasswordOnly := old.OID == s.role().OID && st.Opts.Superuser == nil && st.Opts.Login == nil &&
		st.Opts.CreateRole == nil && st.Opts.CreateDB == nil && st.Opts.Inherit == nil &&
		st.Opts.ValidUntil == nil && st.Opts.ConnLimit == nil
	if err := s.roleOptions(&r, st.Opts, io); err != nil {
		return nil, err
	}
	if !ownPasswordOnly {
		if err := s.checkRoleAdmin("alter", old); err != nil {
			return nil, err
		}
		if err := s.checkRoleAdmin("alter", &r); err != nil {
			return nil, err
		}
	}
	if r.OID == catalog.BootstrapRoleOID && !r.Superuser {
		return nil, pgerr.New(pgerr.InsufficientPrivilege, "permission denied to alter role").
			WithDetail("The bootstrap user must have the SUPERUSER attribute.")
	}
	if err := s.eng.cat.ReplaceRole(&r); err != nil {
		return nil, err
	}
	s.eng.log.Info("role altered", "role", r.Name, "by", s.user, "password_changed", st.Opts.Password != nil || st.Opts.PasswordNull)
	return done("ALTER ROLE")
}

func (s *Session) dropRole(ctx context.Context, st *sql.DropRole, io wire.ExecIO) (wire.Result, error) {
	var targets []*catalog.Role
	for _, n := range st.Names {
		r, ok := s.eng.cat.RoleByName(n)
		if !ok {
			if st.IfExists {
				io.Notice("NOTICE", "00000", "role \""+n+"\" does not exist, skipping")
				continue
			}
			return nil, pgerr.New(codeUndefinedObject, "role \"%s\" does not exist", n)
		}
		// PostgreSQL 15 checks first that the role may drop roles at
		// all (CREATEROLE), last that it may drop this one.
		if err := s.checkRoleAdmin("drop", &catalog.Role{}); err != nil {
			return nil, err
		}
		switch {
		case r.OID == s.role().OID:
			return nil, pgerr.New(pgerr.ObjectInUse, "current user cannot be dropped")
		case r.OID == s.sessionRole().OID:
			// The session user is the one SET SESSION AUTHORIZATION
			// chose, as PostgreSQL's GetSessionUserId.
			return nil, pgerr.New(pgerr.ObjectInUse, "session user cannot be dropped")
		}
		if err := s.checkRoleAdmin("drop", r); err != nil {
			return nil, err
		}
		if r.OID == catalog.BootstrapRoleOID {
			// PostgreSQL finds it pinned with the objects that depend
			// on a role, after the privilege checks.
			return nil, pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop role %s because it is required by the database system", r.Name)
		}
		targets = append(targets, r)
	}
	for _, r := range targets {
		if err := s.eng.cat.DropRole(r.OID); err != nil {
			return nil, err
		}
		s.eng.log.Info("role dropped", "role", r.Name, "by", s.user)
	}
	return done("DROP ROLE")
}
