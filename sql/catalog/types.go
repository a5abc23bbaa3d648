package catalog

import (
	"encoding/binary"
	"encoding/json"
	"slices"
	"sort"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// typeTag is the catalog key tag of user types (CREATE TYPE, CREATE
// DOMAIN), keyed by OID.
const typeTag byte = 'y'

// UserType is a type a user made: an enum (Kind 'e', pg_type.typtype)
// or a domain (Kind 'd'). Its OID comes from the relation id counter, as
// FirstUserOID + id, so it is no relation's OID; so do its labels'.
type UserType struct {
	OID    uint32
	Schema string
	Name   string
	Kind   byte
	Owner  uint32
	// Labels are an enum's labels in sort order (pg_enum).
	Labels []types.EnumLabel
	// T is an enum's type, registered with package types when the
	// catalog loads or makes it; a domain's base type.
	T types.T
	// ArrayOID is the OID of an enum's or a domain's array type
	// (pg_type.typarray); 0 for one made before weir had arrays of
	// them, which has none.
	ArrayOID uint32
	// BaseDomain is the OID of the domain a domain is over, when it is
	// over one (T is then that domain's base type), 0 otherwise.
	BaseDomain uint32
	// NotNull, Default and Checks are a domain's constraints.
	NotNull bool
	Default string
	Checks  []DomainCheck
	// Comment is COMMENT ON TYPE's text.
	Comment string
}

// DomainCheck is one CHECK constraint of a domain: its name and its
// expression's text, in which VALUE is the value checked.
type DomainCheck struct {
	// OID is the constraint's pg_constraint OID, from NextOID.
	OID  uint32 `json:"oid,omitempty"`
	Name string `json:"name"`
	Expr string `json:"expr"`
	// NotValid marks a constraint added NOT VALID and not validated
	// since: stored values may violate it.
	NotValid bool `json:"not_valid,omitempty"`
}

// Clone returns a deep copy of u.
func (u *UserType) Clone() *UserType {
	c := *u
	c.Labels = slices.Clone(u.Labels)
	c.Checks = slices.Clone(u.Checks)
	return &c
}

type typeEntry struct {
	V       int               `json:"v"`
	OID     uint32            `json:"oid"`
	ArrOID  uint32            `json:"array_oid,omitempty"`
	Schema  string            `json:"schema"`
	Name    string            `json:"name"`
	Kind    string            `json:"kind"`
	Owner   uint32            `json:"owner,omitempty"`
	Labels  []types.EnumLabel `json:"labels,omitempty"`
	BaseOID uint32            `json:"base_oid,omitempty"`
	BaseMod int32             `json:"base_mod,omitempty"`
	BaseDom uint32            `json:"base_domain,omitempty"`
	NotNull bool              `json:"not_null,omitempty"`
	Default string            `json:"default,omitempty"`
	Checks  []DomainCheck     `json:"checks,omitempty"`
	Comment string            `json:"comment,omitempty"`
}

func typeKey(oid uint32) []byte { return binary.BigEndian.AppendUint32([]byte{typeTag}, oid) }

func putType(b *storage.Batch, u *UserType) error {
	e := typeEntry{V: formatVersion, OID: u.OID, ArrOID: u.ArrayOID, Schema: u.Schema, Name: u.Name, Kind: string(u.Kind), Owner: u.Owner,
		Labels: u.Labels, NotNull: u.NotNull, Default: u.Default, Checks: u.Checks, Comment: u.Comment}
	if u.Kind == 'd' {
		e.BaseOID, e.BaseMod, e.BaseDom = u.T.OID(), u.T.Mod, u.BaseDomain
	}
	v, err := json.Marshal(e)
	if err != nil {
		return pgerr.Wrap(pgerr.InternalError, err, "encoding catalog entry")
	}
	return b.Set(storage.CatalogKey(typeKey(u.OID)), v)
}

// loadTypes decodes the user types' catalog entries: enums first, then
// domains, whose base type may be an enum or an enum's array.
func (c *Catalog) loadTypes(vals [][]byte) error {
	for _, pass := range []func(kind byte) bool{
		func(kind byte) bool { return kind != 'd' },
		func(kind byte) bool { return kind == 'd' },
	} {
		for _, v := range vals {
			var head struct {
				Kind string `json:"kind"`
			}
			if err := json.Unmarshal(v, &head); err != nil {
				return corrupt("%v", err)
			}
			if len(head.Kind) != 1 || !pass(head.Kind[0]) {
				continue
			}
			u, err := decodeType(v, c.typeOf)
			if err != nil {
				return err
			}
			c.types[u.OID] = u
		}
	}
	return nil
}

// decodeType decodes a user type's catalog entry; typeOf finds a
// domain's base type by OID (built-in types, enums and their arrays).
func decodeType(v []byte, typeOf func(oid uint32) (types.T, bool)) (*UserType, error) {
	var e typeEntry
	if err := json.Unmarshal(v, &e); err != nil {
		return nil, corrupt("%v", err)
	}
	if e.V != formatVersion || len(e.Kind) != 1 {
		return nil, corrupt("type %q has format version %d", e.Name, e.V)
	}
	u := &UserType{OID: e.OID, ArrayOID: e.ArrOID, Schema: e.Schema, Name: e.Name, Kind: e.Kind[0], Owner: e.Owner, Labels: e.Labels,
		NotNull: e.NotNull, Default: e.Default, Checks: e.Checks, Comment: e.Comment, BaseDomain: e.BaseDom}
	if u.Owner == 0 {
		u.Owner = BootstrapRoleOID
	}
	switch u.Kind {
	case 'e':
		u.T = types.NewEnum(u.OID, u.Name, typeDisplayName(u.Schema, u.Name), u.Labels)
		types.SetEnumArrayOID(u.T, u.ArrayOID)
	case 'd':
		t, ok := typeOf(e.BaseOID)
		if !ok {
			return nil, corrupt("domain %q has unknown base type oid %d", e.Name, e.BaseOID)
		}
		t.Mod = e.BaseMod
		u.T = t
	default:
		return nil, corrupt("type %q has unknown kind %q", e.Name, e.Kind)
	}
	return u, nil
}

// typeDisplayName is the name format_type prints for a type: qualified
// unless it is in public, the schema of the default search_path.
func typeDisplayName(schema, name string) string {
	q := quoteName(name)
	if schema == PublicSchema || schema == "" {
		return q
	}
	return quoteName(schema) + "." + q
}

// quoteName quotes an identifier as quote_ident does when it needs it.
func quoteName(s string) string {
	plain := s != ""
	for i, r := range s {
		if !(r >= 'a' && r <= 'z' || r == '_' || i > 0 && (r >= '0' && r <= '9' || r == '$')) {
			plain = false
		}
	}
	if plain {
		return s
	}
	out := []byte{'"'}
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			out = append(out, '"')
		}
		out = append(out, s[i])
	}
	return string(append(out, '"'))
}

// NextOID returns a fresh OID for a type or an enum label.
func (c *Catalog) NextOID() (uint32, error) {
	id, err := c.NextStateTableID()
	return FirstUserOID + id, err
}

// CreateType adds u, whose OID the caller took from NextOID, and returns
// once it is durable; an enum's T is registered here. Errors: 3F000 for
// an unknown schema, 42710 `type "x" already exists` when the schema has
// a type or relation of that name (a relation has a row type of its
// name in PostgreSQL).
func (c *Catalog) CreateType(u *UserType) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	u.Schema = normSchema(u.Schema)
	if err := c.checkSchema(u.Schema, u.Name); err != nil {
		return err
	}
	if c.typeByNameLocked(u.Schema, u.Name) != nil {
		return pgerr.New(pgerr.DuplicateObject, "type \"%s\" already exists", u.Name)
	}
	if _, dup := c.byName[u.Schema][u.Name]; dup {
		return pgerr.New(pgerr.DuplicateObject, "type \"%s\" already exists", u.Name)
	}
	if u.Owner == 0 {
		u.Owner = BootstrapRoleOID
	}
	if u.Kind == 'e' {
		u.T = types.NewEnum(u.OID, u.Name, typeDisplayName(u.Schema, u.Name), u.Labels)
		types.SetEnumArrayOID(u.T, u.ArrayOID)
	}
	stored := u.Clone()
	if err := c.write(func(b *storage.Batch) error { return putType(b, stored) }); err != nil {
		return err
	}
	c.types[u.OID] = stored
	return nil
}

// ReplaceType overwrites the type with u.OID by u (ALTER TYPE, ALTER
// DOMAIN) once the change is durable; an enum's labels and name go to
// package types as well.
func (c *Catalog) ReplaceType(u *UserType) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.types[u.OID]
	if !ok {
		return pgerr.New(pgerr.UndefinedObject, "type with OID %d does not exist", u.OID)
	}
	if old.Name != u.Name || old.Schema != u.Schema {
		if c.typeByNameLocked(u.Schema, u.Name) != nil {
			return pgerr.New(pgerr.DuplicateObject, "type \"%s\" already exists in schema \"%s\"", u.Name, u.Schema)
		}
	}
	stored := u.Clone()
	stored.T = old.T
	if u.Kind == 'd' {
		stored.T = u.T
	}
	if err := c.write(func(b *storage.Batch) error { return putType(b, stored) }); err != nil {
		return err
	}
	if stored.Kind == 'e' {
		types.SetEnumLabels(stored.T, stored.Labels)
		types.SetEnumName(stored.T, stored.Name, typeDisplayName(stored.Schema, stored.Name))
	}
	c.types[u.OID] = stored
	return nil
}

// DropType removes the type with OID oid.
func (c *Catalog) DropType(oid uint32) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.types[oid]; !ok {
		return nil
	}
	if err := c.write(func(b *storage.Batch) error { return b.DeleteKey(storage.CatalogKey(typeKey(oid))) }); err != nil {
		return err
	}
	delete(c.types, oid)
	return nil
}

func (c *Catalog) typeByNameLocked(schema, name string) *UserType {
	schema = normSchema(schema)
	for _, u := range c.types {
		if u.Schema == schema && u.Name == name {
			return u
		}
	}
	return nil
}

// TypeByName returns the user type named name in schema ("" is public).
func (c *Catalog) TypeByName(schema, name string) (*UserType, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	u := c.typeByNameLocked(schema, name)
	return u, u != nil
}

// TypeByOID returns the user type with pg_type OID oid.
func (c *Catalog) TypeByOID(oid uint32) (*UserType, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	u, ok := c.types[oid]
	return u, ok
}

// TypeByArrayOID returns the enum or domain whose array type has OID
// oid.
func (c *Catalog) TypeByArrayOID(oid uint32) (*UserType, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, u := range c.types {
		if u.ArrayOID == oid && oid != 0 {
			return u, true
		}
	}
	return nil, false
}

// EnumByID returns the enum type whose run-time TypeID is id.
func (c *Catalog) EnumByID(id types.TypeID) (*UserType, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, u := range c.types {
		if u.Kind == 'e' && u.T.ID == id {
			return u, true
		}
	}
	return nil, false
}

// Types returns every user type, by OID.
func (c *Catalog) Types() []*UserType {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]*UserType, 0, len(c.types))
	for _, u := range c.types {
		out = append(out, u)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].OID < out[j].OID })
	return out
}

// typeOf resolves a column's stored type OID: a built-in type, or a
// user enum of this catalog.
func (c *Catalog) typeOf(oid uint32) (types.T, bool) {
	if t, ok := types.ByOID(oid); ok {
		return t, true
	}
	if u, ok := c.types[oid]; ok && u.Kind == 'e' {
		return u.T, true
	}
	for _, u := range c.types {
		if u.Kind == 'e' && u.ArrayOID == oid && oid != 0 {
			return types.ArrayOf(u.T)
		}
	}
	return types.TUnknown, false
}
