package catalog

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/storage"
)

// BootstrapRoleOID is the OID of the superuser made when the catalog is
// first set up, as Postgres's bootstrap superuser (BOOTSTRAP_SUPERUSERID).
const BootstrapRoleOID = 10

// publicSchemaOID is the OID of the public schema (pg_namespace), as in
// PostgreSQL.
const publicSchemaOID = 2200

// PublicGrantee is the grantee OID that stands for PUBLIC (every role),
// as in Postgres's aclitem.
const PublicGrantee = 0

// Role is a database role (a user when it can log in).
type Role struct {
	OID  uint32
	Name string
	// Superuser bypasses every privilege check.
	Superuser  bool
	Login      bool
	CreateRole bool
	CreateDB   bool
	Inherit    bool
	// ConnLimit is CONNECTION LIMIT (-1: none).
	ConnLimit int
	// Password is the SCRAM-SHA-256 verifier in Postgres's format, never
	// the password itself; empty when the role has none.
	Password string
	// ValidUntil is when the password expires (zero: never).
	ValidUntil time.Time
	// MemberOf holds the OIDs of the roles this role was granted (GRANT
	// role TO this), in order.
	MemberOf []uint32
}

// Privilege is a set of privileges, as the letters of Postgres's aclitem
// (r SELECT, a INSERT, w UPDATE, d DELETE, D TRUNCATE, x REFERENCES,
// t TRIGGER, X EXECUTE, C CREATE, U USAGE).
type Privilege uint16

// Privileges.
const (
	PrivSelect Privilege = 1 << iota
	PrivInsert
	PrivUpdate
	PrivDelete
	PrivCreate
	PrivUsage
	PrivTruncate
	PrivReferences
	PrivTrigger
	// PrivExecute is EXECUTE on a function ('X').
	PrivExecute
)

// PrivTableAll is every privilege a table can have, Postgres 15's
// ACL_ALL_RIGHTS_RELATION ("arwdDxt"). weir checks SELECT, INSERT,
// UPDATE, DELETE and TRUNCATE; REFERENCES and TRIGGER are kept for
// clients that grant them.
const PrivTableAll = PrivSelect | PrivInsert | PrivUpdate | PrivDelete | PrivTruncate | PrivReferences | PrivTrigger

// PrivSequenceAll is every privilege a sequence can have, Postgres 15's
// ACL_ALL_RIGHTS_SEQUENCE ("rwU"): SELECT (currval, reading it), UPDATE
// (nextval, setval) and USAGE (nextval, currval).
const PrivSequenceAll = PrivSelect | PrivUpdate | PrivUsage

var privLetters = []struct {
	p Privilege
	c byte
}{{PrivInsert, 'a'}, {PrivSelect, 'r'}, {PrivUpdate, 'w'}, {PrivDelete, 'd'}, {PrivTruncate, 'D'},
	{PrivReferences, 'x'}, {PrivTrigger, 't'}, {PrivExecute, 'X'}, {PrivUsage, 'U'}, {PrivCreate, 'C'}}

// Letters returns the privileges as aclitem letters in Postgres's order
// ("arwdDxt").
func (p Privilege) Letters() string {
	var b strings.Builder
	for _, l := range privLetters {
		if p&l.p != 0 {
			b.WriteByte(l.c)
		}
	}
	return b.String()
}

// ACL maps grantee role OIDs (PublicGrantee for PUBLIC) to the
// privileges granted to them by the owner. An owner's own privileges
// are implicit and not stored.
type ACL map[uint32]Privilege

func (a ACL) clone() ACL { return maps.Clone(a) }

// Grantees returns the ACL's grantees in OID order.
func (a ACL) Grantees() []uint32 {
	ks := slices.Collect(maps.Keys(a))
	slices.Sort(ks)
	return ks
}

// ACLItem is one aclitem of a RelACL: the privileges the object's owner
// granted to Grantee (PublicGrantee for PUBLIC).
type ACLItem struct {
	Grantee uint32
	Privs   Privilege
}

// RelACL is the ACL of a relation or a sequence as PostgreSQL keeps it
// (pg_class.relacl). It is nil until the first GRANT or REVOKE on the
// object: the owner then holds every privilege and no one else any
// (relacl NULL, PostgreSQL's acldefault). The first GRANT or REVOKE
// makes it explicit, starting from the owner's item with every
// privilege; a GRANT adds privileges to the grantee's item or appends
// one, a REVOKE takes them away and drops an item left with none, the
// owner's too. So the items are in PostgreSQL's order, and an owner who
// revoked its own privileges no longer holds them, as in PostgreSQL. An
// explicit ACL is never nil, even when no item is left (relacl '{}').
type RelACL []ACLItem

// Explicit reports whether a GRANT or REVOKE has set the ACL.
func (a RelACL) Explicit() bool { return a != nil }

// Has reports whether g has an item of its own.
func (a RelACL) Has(g uint32) bool {
	return slices.ContainsFunc(a, func(it ACLItem) bool { return it.Grantee == g })
}

// Privileges returns the privileges held through the ACL by PUBLIC and
// the roles: all for the owner while the ACL is not explicit.
func (a RelACL) Privileges(owner uint32, all Privilege, roles []uint32) Privilege {
	if a == nil {
		if slices.Contains(roles, owner) {
			return all
		}
		return 0
	}
	var have Privilege
	for _, it := range a {
		if it.Grantee == PublicGrantee || slices.Contains(roles, it.Grantee) {
			have |= it.Privs
		}
	}
	return have
}

// Update returns the ACL after a GRANT (revoke false) or a REVOKE of p
// to or from the grantees, by the owner, whose every privilege is all;
// a is not changed.
func (a RelACL) Update(owner uint32, all Privilege, grantees []uint32, p Privilege, revoke bool) RelACL {
	out := make(RelACL, 0, len(a)+len(grantees)+1)
	if a == nil {
		out = append(out, ACLItem{Grantee: owner, Privs: all})
	} else {
		out = append(out, a...)
	}
	for _, g := range grantees {
		i := slices.IndexFunc(out, func(it ACLItem) bool { return it.Grantee == g })
		if i < 0 {
			if revoke {
				continue
			}
			out = append(out, ACLItem{Grantee: g})
			i = len(out) - 1
		}
		if revoke {
			out[i].Privs &^= p
		} else {
			out[i].Privs |= p
		}
		if out[i].Privs == 0 {
			out = slices.Delete(out, i, i+1)
		}
	}
	return out
}

// relACLFromMap reads an ACL stored as a map of grantee to privileges
// (catalogs written before RelACL): explicit, the owner first with every
// privilege, then the others in OID order.
func relACLFromMap(m map[uint32]int, owner uint32, all Privilege) RelACL {
	if len(m) == 0 {
		return nil
	}
	out := RelACL{{Grantee: owner, Privs: all}}
	for _, g := range slices.Sorted(maps.Keys(m)) {
		if g != owner && m[g] != 0 {
			out = append(out, ACLItem{Grantee: g, Privs: Privilege(m[g])})
		}
	}
	return out
}

// aclEntry is a RelACL as stored: [grantee, privileges] pairs, a nil
// pointer for an ACL that is not explicit.
type aclEntry = *[][2]uint32

func encodeRelACL(a RelACL) aclEntry {
	if a == nil {
		return nil
	}
	out := make([][2]uint32, 0, len(a))
	for _, it := range a {
		out = append(out, [2]uint32{it.Grantee, uint32(it.Privs)})
	}
	return &out
}

func decodeRelACL(e aclEntry) RelACL {
	if e == nil {
		return nil
	}
	out := make(RelACL, 0, len(*e))
	for _, it := range *e {
		out = append(out, ACLItem{Grantee: it[0], Privs: Privilege(it[1])})
	}
	return out
}

// roleIDCounter is the storage id counter role OIDs come from.
const roleIDCounter = "role"

// FirstUserRoleOID is the first OID given to a created role. Roles have
// OIDs of their own range so that they never meet a relation's.
const FirstUserRoleOID = 1 << 30

// Roles returns every role, ordered by name.
func (c *Catalog) Roles() []*Role {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := slices.Collect(maps.Values(c.roles))
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// RoleByName finds a role by name.
func (c *Catalog) RoleByName(name string) (*Role, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, r := range c.roles {
		if r.Name == name {
			return r, true
		}
	}
	return nil, false
}

// RoleByOID finds a role by OID.
func (c *Catalog) RoleByOID(oid uint32) (*Role, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	r, ok := c.roles[oid]
	return r, ok
}

// Bootstrap creates the first superuser, with BootstrapRoleOID, when
// the catalog holds no role yet (a new data directory, or one made
// before roles existed), and reports whether it did. Later calls do
// nothing, so the password given on first start is the one kept.
func (c *Catalog) Bootstrap(name, verifier string) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.roles) > 0 {
		return false, nil
	}
	r := &Role{OID: BootstrapRoleOID, Name: name, Superuser: true, Login: true, CreateRole: true,
		CreateDB: true, Inherit: true, ConnLimit: -1, Password: verifier}
	if err := c.write(func(b *storage.Batch) error { return putRole(b, r) }); err != nil {
		return false, err
	}
	c.roles[r.OID] = r
	return true, nil
}

// CreateRole adds r, assigning its OID. 42710 when the name is taken.
func (c *Catalog) CreateRole(r *Role) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, o := range c.roles {
		if o.Name == r.Name {
			return pgerr.New(codeDuplicateObject, "role \"%s\" already exists", r.Name)
		}
	}
	id, err := c.db.NextID(roleIDCounter)
	if err != nil {
		return err
	}
	stored := *r
	stored.OID = FirstUserRoleOID + uint32(id)
	if err := c.write(func(b *storage.Batch) error { return putRole(b, &stored) }); err != nil {
		return err
	}
	r.OID = stored.OID
	c.roles[stored.OID] = &stored
	return nil
}

// ReplaceRole overwrites the role with r.OID (ALTER ROLE). 42704 when it
// does not exist, 42710 when a rename meets another role's name.
func (c *Catalog) ReplaceRole(r *Role) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.roles[r.OID]; !ok {
		return pgerr.New(codeUndefinedObject, "role with OID %d does not exist", r.OID)
	}
	for _, o := range c.roles {
		if o.Name == r.Name && o.OID != r.OID {
			return pgerr.New(codeDuplicateObject, "role \"%s\" already exists", r.Name)
		}
	}
	stored := *r
	stored.MemberOf = slices.Clone(r.MemberOf)
	if err := c.write(func(b *storage.Batch) error { return putRole(b, &stored) }); err != nil {
		return err
	}
	c.roles[r.OID] = &stored
	return nil
}

// DropRole removes a role and its memberships. A role that owns
// relations, functions or types, or holds privileges on relations,
// functions or schemas, cannot be dropped (2BP01), as in Postgres.
func (c *Catalog) DropRole(oid uint32) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.roles[oid]
	if !ok {
		return pgerr.New(codeUndefinedObject, "role with OID %d does not exist", oid)
	}
	// The objects are listed in the order of their OIDs, as PostgreSQL
	// sorts them, which is the order they were made in. A serial
	// column's sequence comes just before its table (PostgreSQL makes it
	// first); weir keeps no OIDs for schemas other than public, whose
	// grants come after public's and before every other object's.
	type dep struct {
		oid, sub uint32
		desc     string
	}
	var owned []dep
	add := func(oid, sub uint32, desc string) { owned = append(owned, dep{oid, sub, desc}) }
	for _, rel := range c.byID {
		if rel.Owner == oid {
			add(rel.OID, 1, "owner of "+rel.Kind.noun()+" "+rel.Name)
		}
		if rel.ACL.Has(oid) && rel.Owner != oid {
			// As in PostgreSQL, privileges granted to the role keep it:
			// they are revoked first, so none vanishes unseen. (An
			// explicit ACL also holds its owner's own item.)
			add(rel.OID, 1, "privileges for "+rel.Kind.noun()+" "+rel.Name)
		}
		for _, col := range rel.Cols {
			if col.SeqACL.Has(oid) && col.Seq != "" && rel.Owner != oid {
				add(rel.OID, 0, "privileges for sequence "+col.Seq)
			}
		}
	}
	for _, f := range c.funcs {
		sig := f.ObjectSignature(f.Schema != PublicSchema)
		if f.Owner == oid {
			add(f.OID, 1, "owner of function "+sig)
		} else if _, granted := f.ACL[oid]; granted && f.ExplicitACL {
			add(f.OID, 1, "privileges for function "+sig)
		}
	}
	for _, u := range c.types {
		// A type's array type has no owner of its own to report.
		if u.Owner == oid {
			add(u.OID, 1, "owner of type "+typeDisplayName(u.Schema, u.Name))
		}
	}
	for s, o := range c.schemaOwner {
		if o == oid {
			add(uint32(FirstUserOID), 1, "owner of schema "+s)
		}
	}
	for s, acl := range c.schemaACL {
		if _, granted := acl[oid]; granted {
			key := uint32(FirstUserOID)
			if s == PublicSchema {
				key = publicSchemaOID
			}
			add(key, 1, "privileges for schema "+s)
		}
	}
	if len(owned) > 0 {
		slices.SortFunc(owned, func(a, b dep) int {
			return cmp.Or(cmp.Compare(a.oid, b.oid), cmp.Compare(a.sub, b.sub), strings.Compare(a.desc, b.desc))
		})
		lines := make([]string, len(owned))
		for i, d := range owned {
			lines[i] = d.desc
		}
		return pgerr.New(pgerr.DependentObjectsStillExist, "role \"%s\" cannot be dropped because some objects depend on it", r.Name).
			WithDetail("%s", strings.Join(lines, "\n"))
	}
	var members []*Role
	for _, m := range c.roles {
		if slices.Contains(m.MemberOf, oid) {
			cp := *m
			cp.MemberOf = slices.DeleteFunc(slices.Clone(m.MemberOf), func(o uint32) bool { return o == oid })
			members = append(members, &cp)
		}
	}
	err := c.write(func(b *storage.Batch) error {
		for _, m := range members {
			if err := putRole(b, m); err != nil {
				return err
			}
		}
		return b.DeleteKey(storage.CatalogKey(roleKey(oid)))
	})
	if err != nil {
		return err
	}
	for _, m := range members {
		c.roles[m.OID] = m
	}
	delete(c.roles, oid)
	return nil
}

// SchemaACL returns the privileges granted on a schema (nil when none).
func (c *Catalog) SchemaACL(schema string) ACL {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return maps.Clone(c.schemaACL[normSchema(schema)])
}

// SetSchemaACL replaces the privileges granted on a schema (GRANT and
// REVOKE ... ON SCHEMA). 3F000 for an unknown schema.
func (c *Catalog) SetSchemaACL(schema string, acl ACL) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	schema = normSchema(schema)
	if !c.schemas[schema] {
		return pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", schema)
	}
	acl = maps.Clone(acl)
	if err := c.write(func(b *storage.Batch) error { return putSchemaACL(b, schema, acl) }); err != nil {
		return err
	}
	c.schemaACL[schema] = acl
	return nil
}

// Codes the catalog reports that pgerr does not name.
const (
	codeDuplicateObject pgerr.Code = "42710"
	codeUndefinedObject pgerr.Code = "42704"
)

// Storage of roles and schema privileges, below storage.PrefixCatalog:
//
//	'u' role oid (u32 BE) -> roleEntry as JSON
//	'g' schema name       -> schemaACLEntry as JSON
const (
	roleTag      byte = 'u'
	schemaACLTag byte = 'g'
)

func roleKey(oid uint32) []byte { return binary.BigEndian.AppendUint32([]byte{roleTag}, oid) }

func schemaACLKey(name string) []byte { return append([]byte{schemaACLTag}, name...) }

type roleEntry struct {
	V          int    `json:"v"`
	OID        uint32 `json:"oid"`
	Name       string `json:"name"`
	Superuser  bool   `json:"superuser,omitempty"`
	Login      bool   `json:"login,omitempty"`
	CreateRole bool   `json:"createrole,omitempty"`
	CreateDB   bool   `json:"createdb,omitempty"`
	Inherit    bool   `json:"inherit,omitempty"`
	ConnLimit  int    `json:"connlimit"`
	Password   string `json:"password,omitempty"`
	// ValidUntil is microseconds since 1970 UTC (0: never).
	ValidUntil int64    `json:"valid_until,omitempty"`
	MemberOf   []uint32 `json:"member_of,omitempty"`
}

type schemaACLEntry struct {
	V      int            `json:"v"`
	Schema string         `json:"schema"`
	ACL    map[uint32]int `json:"acl"`
}

func putRole(b *storage.Batch, r *Role) error {
	e := roleEntry{V: formatVersion, OID: r.OID, Name: r.Name, Superuser: r.Superuser, Login: r.Login,
		CreateRole: r.CreateRole, CreateDB: r.CreateDB, Inherit: r.Inherit, ConnLimit: r.ConnLimit, Password: r.Password,
		MemberOf: r.MemberOf}
	if !r.ValidUntil.IsZero() {
		e.ValidUntil = r.ValidUntil.UnixMicro()
	}
	v, err := json.Marshal(e)
	if err != nil {
		return pgerr.Wrap(pgerr.InternalError, err, "encoding catalog entry")
	}
	return b.Set(storage.CatalogKey(roleKey(r.OID)), v)
}

func decodeRole(v []byte) (*Role, error) {
	var e roleEntry
	if err := json.Unmarshal(v, &e); err != nil {
		return nil, corrupt("%v", err)
	}
	if e.V != formatVersion {
		return nil, corrupt("role %q has format version %d", e.Name, e.V)
	}
	r := &Role{OID: e.OID, Name: e.Name, Superuser: e.Superuser, Login: e.Login, CreateRole: e.CreateRole,
		CreateDB: e.CreateDB, Inherit: e.Inherit, ConnLimit: e.ConnLimit, Password: e.Password, MemberOf: e.MemberOf}
	if e.ValidUntil != 0 {
		r.ValidUntil = time.UnixMicro(e.ValidUntil).UTC()
	}
	return r, nil
}

func putSchemaACL(b *storage.Batch, schema string, acl ACL) error {
	if len(acl) == 0 {
		return b.DeleteKey(storage.CatalogKey(schemaACLKey(schema)))
	}
	e := schemaACLEntry{V: formatVersion, Schema: schema, ACL: map[uint32]int{}}
	for k, p := range acl {
		e.ACL[k] = int(p)
	}
	v, err := json.Marshal(e)
	if err != nil {
		return pgerr.Wrap(pgerr.InternalError, err, "encoding catalog entry")
	}
	return b.Set(storage.CatalogKey(schemaACLKey(schema)), v)
}

func decodeSchemaACL(v []byte) (string, ACL, error) {
	var e schemaACLEntry
	if err := json.Unmarshal(v, &e); err != nil {
		return "", nil, corrupt("%v", err)
	}
	if e.V != formatVersion {
		return "", nil, corrupt("privileges of schema %q have format version %d", e.Schema, e.V)
	}
	acl := ACL{}
	for k, p := range e.ACL {
		acl[k] = Privilege(p)
	}
	return e.Schema, acl, nil
}
