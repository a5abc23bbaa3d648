package catalog

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// PublicSchema is the schema that always exists and that an empty schema
// name means.
const PublicSchema = "public"

// SystemSchemas are the reserved schemas of the virtual system catalogs.
// They are not stored: relations cannot be created in them and schemas
// with their names cannot be created.
var SystemSchemas = []string{"pg_catalog", "information_schema"}

// relationIDCounter is the storage id counter relation ids come from.
const relationIDCounter = "relation"

// Catalog is the persistent set of schemas and relations, loaded into
// memory by Open and written through to storage synchronously by every
// change. It is safe for concurrent use.
//
// The *Relation values it returns are shared and must be treated as
// read-only: a change goes through Replace with a modified copy (see
// Relation.Clone).
type Catalog struct {
	db *storage.DB

	mu      sync.RWMutex
	byID    map[uint32]*Relation
	byName  map[string]map[string]*Relation // schema -> name -> relation
	schemas map[string]bool                 // user schemas, public included
	roles   map[uint32]*Role                // roles by OID (roles.go)
	types   map[uint32]*UserType            // user types by OID (types.go)
	funcs   map[uint32]*Function            // user functions by OID (functions.go)
	// schemaACL holds the privileges granted on schemas (GRANT ... ON
	// SCHEMA); a schema without grants has no entry.
	schemaACL map[string]ACL
	// schemaOwner holds the owner of each user schema created with
	// AUTHORIZATION another role; the others belong to the bootstrap
	// superuser.
	schemaOwner map[string]uint32
	// gen counts the changes made since Open (see Generation).
	gen atomic.Uint64
	// temp holds the sessions' temporary schemas (temp.go), which are
	// never stored.
	temp map[string]bool
}

// Generation returns the number of changes made to the catalog since it
// was opened: relations, schemas, roles and privileges alike. Every
// change goes through one durable write and moves the generation on
// before the catalog's lock is released, so a name bound while
// Generation returned g still means the same thing while it returns g:
// a prepared statement re-plans when the generation it was planned at
// has passed (Postgres's plan cache invalidation, made coarse).
func (c *Catalog) Generation() uint64 { return c.gen.Load() }

// Open loads the catalog stored in db. A stored entry it cannot decode
// (corruption, or a format version newer than this weir knows) is a
// DataCorrupted error.
func Open(db *storage.DB) (*Catalog, error) {
	c := &Catalog{
		db:      db,
		byID:    map[uint32]*Relation{},
		byName:  map[string]map[string]*Relation{},
		schemas: map[string]bool{PublicSchema: true},
		roles:   map[uint32]*Role{},
		types:   map[uint32]*UserType{},
		funcs:   map[uint32]*Function{},

		schemaACL:   map[string]ACL{},
		schemaOwner: map[string]uint32{},
		temp:        map[string]bool{},
	}
	snap := db.NewSnapshot()
	defer snap.Close()
	var relVals, typeVals, funcVals [][]byte
	err := snap.ScanPrefix(storage.CatalogKey(nil), func(k, v []byte) error {
		sub := k[1:]
		switch {
		case len(sub) > 0 && sub[0] == schemaTag:
			name, owner, err := decodeSchema(v)
			if err != nil {
				return err
			}
			c.schemas[name] = true
			if owner != 0 {
				c.schemaOwner[name] = owner
			}
		case len(sub) > 0 && sub[0] == relationTag:
			relVals = append(relVals, slices.Clone(v))
		case len(sub) > 0 && sub[0] == typeTag:
			typeVals = append(typeVals, slices.Clone(v))
		case len(sub) > 0 && sub[0] == funcTag:
			funcVals = append(funcVals, slices.Clone(v))
		case len(sub) > 0 && sub[0] == roleTag:
			r, err := decodeRole(v)
			if err != nil {
				return err
			}
			c.roles[r.OID] = r
		case len(sub) > 0 && sub[0] == schemaACLTag:
			name, acl, err := decodeSchemaACL(v)
			if err != nil {
				return err
			}
			c.schemaACL[name] = acl
		default:
			return pgerr.New(pgerr.DataCorrupted, "unknown catalog key %x", k)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := c.loadTypes(typeVals); err != nil {
		return nil, err
	}
	if err := c.loadFuncs(funcVals); err != nil {
		return nil, err
	}
	for _, v := range relVals {
		rel, err := decodeRelation(v, c.typeOf)
		if err != nil {
			return nil, err
		}
		c.byID[rel.ID] = rel
	}
	for _, rel := range c.byID {
		c.index(rel)
	}
	return c, nil
}

func (c *Catalog) index(rel *Relation) {
	m := c.byName[rel.Schema]
	if m == nil {
		m = map[string]*Relation{}
		c.byName[rel.Schema] = m
	}
	m[rel.Name] = rel
}

func (c *Catalog) unindex(rel *Relation) {
	delete(c.byName[rel.Schema], rel.Name)
}

func normSchema(s string) string {
	if s == "" {
		return PublicSchema
	}
	return s
}

func isSystemSchema(s string) bool { return slices.Contains(SystemSchemas, s) }

// checkSchema returns the error for creating relation name in schema, or
// nil when the schema exists and is a user schema. c.mu must be held.
func (c *Catalog) checkSchema(schema, name string) error {
	if isSystemSchema(schema) {
		return pgerr.New(pgerr.InsufficientPrivilege, "permission denied to create \"%s.%s\"", schema, name).
			WithDetail("System catalog modifications are currently disallowed.")
	}
	if !c.schemas[schema] && !c.temp[schema] {
		return pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", schema)
	}
	return nil
}

// Create adds rel to the catalog: it assigns rel.ID (never reused, even
// across restarts) and rel.OID = FirstUserOID + ID, fills an empty schema
// with "public", and returns once the entry is durable. Errors: 3F000 for
// an unknown schema, 42501 for a system schema, 42P07 `relation "x"
// already exists` when the schema already holds the name. The catalog
// keeps its own copy of rel. A foreign key of rel with RefID 0 references
// rel itself.
func (c *Catalog) Create(rel *Relation) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	schema := normSchema(rel.Schema)
	if err := c.checkSchema(schema, rel.Name); err != nil {
		return err
	}
	if _, dup := c.byName[schema][rel.Name]; dup {
		return pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", rel.Name)
	}
	id, err := c.db.NextID(relationIDCounter)
	if err != nil {
		return err
	}
	if id > 1<<32-1-FirstUserOID {
		return pgerr.New(pgerr.ProgramLimitExceeded, "out of relation ids")
	}
	stored := rel.Clone()
	stored.ID, stored.OID, stored.Schema = uint32(id), FirstUserOID+uint32(id), schema
	stored.Temp = c.temp[schema]
	for i := range stored.ForeignKeys {
		// A foreign key of a table being made that references it.
		if stored.ForeignKeys[i].RefID == 0 {
			stored.ForeignKeys[i].RefID = stored.ID
		}
	}
	if stored.Owner == 0 {
		stored.Owner = BootstrapRoleOID
	}
	if err := c.write(func(b *storage.Batch) error { return putRelation(b, stored) }); err != nil {
		return err
	}
	rel.ID, rel.OID, rel.Schema, rel.Owner, rel.Temp = stored.ID, stored.OID, stored.Schema, stored.Owner, stored.Temp
	c.byID[stored.ID] = stored
	c.index(stored)
	return nil
}

// Replace overwrites the relation with rel.ID by rel (CREATE OR REPLACE,
// ALTER), keeping its ID and OID, and returns once the change is durable.
// Renaming is allowed when the new name is free. Errors: 42P01 when no
// relation has rel.ID, 42P07 when the new name is taken, 3F000 for an
// unknown schema.
func (c *Catalog) Replace(rel *Relation) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.byID[rel.ID]
	if !ok {
		return pgerr.New(pgerr.UndefinedTable, "relation with id %d does not exist", rel.ID)
	}
	stored := rel.Clone()
	stored.Schema = normSchema(stored.Schema)
	stored.OID, stored.Temp = old.OID, old.Temp
	if stored.Owner == 0 {
		// CREATE OR REPLACE keeps the owner and the grants, as in
		// Postgres.
		stored.Owner, stored.ACL = old.Owner, slices.Clone(old.ACL)
	}
	if stored.Schema != old.Schema || stored.Name != old.Name {
		if err := c.checkSchema(stored.Schema, stored.Name); err != nil {
			return err
		}
		if _, dup := c.byName[stored.Schema][stored.Name]; dup {
			return pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", stored.Name)
		}
	}
	if err := c.write(func(b *storage.Batch) error { return putRelation(b, stored) }); err != nil {
		return err
	}
	c.unindex(old)
	c.byID[stored.ID] = stored
	c.index(stored)
	return nil
}

// ReplaceAll overwrites several relations at once, in one durable batch
// (ALTER ... RENAME TO rewriting the definitions of the dependents): as
// Replace for each, with name conflicts checked against the catalog as it
// will be after the whole change.
func (c *Catalog) ReplaceAll(rels ...*Relation) error {
	return c.ReplaceAllWith(nil, rels...)
}

// ReplaceAllWith is ReplaceAll whose durable batch also carries the
// writes more makes (nil for none): they commit atomically with the
// entries. ALTER TABLE ... ALTER COLUMN ... TYPE commits the spill area
// holding the table's rewritten rows so (storage.Batch.CommitArea), and
// the batch's commit moves the area into the table before the catalog
// shows the new entries.
func (c *Catalog) ReplaceAllWith(more func(b *storage.Batch) error, rels ...*Relation) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	changing := map[uint32]bool{}
	for _, rel := range rels {
		if _, ok := c.byID[rel.ID]; !ok {
			return pgerr.New(pgerr.UndefinedTable, "relation with id %d does not exist", rel.ID)
		}
		changing[rel.ID] = true
	}
	var stored []*Relation
	taken := map[[2]string]bool{}
	for _, rel := range rels {
		st := rel.Clone()
		st.Schema = normSchema(st.Schema)
		st.OID, st.Temp = c.byID[rel.ID].OID, c.byID[rel.ID].Temp
		if err := c.checkSchema(st.Schema, st.Name); err != nil {
			return err
		}
		key := [2]string{st.Schema, st.Name}
		if other, dup := c.byName[st.Schema][st.Name]; (dup && !changing[other.ID]) || taken[key] {
			return pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", st.Name)
		}
		taken[key] = true
		stored = append(stored, st)
	}
	err := c.write(func(b *storage.Batch) error {
		for _, st := range stored {
			if err := putRelation(b, st); err != nil {
				return err
			}
		}
		if more != nil {
			return more(b)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, st := range stored {
		c.unindex(c.byID[st.ID])
	}
	for _, st := range stored {
		c.byID[st.ID] = st
		c.index(st)
	}
	return nil
}

// Drop removes the relations with the given ids and all their data (the
// table keyspace of each id) in one durable batch. Dropping a relation
// that others still depend on is refused with 2BP01 unless the dependents
// are dropped in the same call (which is how DROP ... CASCADE works). An
// unknown id is 42P01.
func (c *Catalog) Drop(ids ...uint32) error {
	return c.DropReplace(ids)
}

// DropReplace is Drop whose durable batch also overwrites the relations
// rels, which must not be among those dropped, as Replace does (the
// name of each unchanged): ALTER COLUMN ... TYPE drops the indexes it
// builds again and records them in their table's entry
// (Relation.Rebuild) at once, so no crash loses them.
func (c *Catalog) DropReplace(ids []uint32, rels ...*Relation) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var stored []*Relation
	for _, rel := range rels {
		old, ok := c.byID[rel.ID]
		if !ok || slices.Contains(ids, rel.ID) {
			return pgerr.New(pgerr.UndefinedTable, "relation with id %d does not exist", rel.ID)
		}
		if old.Schema != normSchema(rel.Schema) || old.Name != rel.Name {
			return pgerr.New(pgerr.InternalError, "relation %s cannot be renamed while others are dropped", old.Name)
		}
		st := rel.Clone()
		st.Schema, st.OID, st.Temp = old.Schema, old.OID, old.Temp
		stored = append(stored, st)
	}
	dropping := map[uint32]bool{}
	for _, id := range ids {
		if _, ok := c.byID[id]; !ok {
			return pgerr.New(pgerr.UndefinedTable, "relation with id %d does not exist", id)
		}
		dropping[id] = true
	}
	for _, id := range ids {
		for _, dep := range c.dependents(id) {
			if !dropping[dep.ID] {
				rel := c.byID[id]
				return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop %s %s because other objects depend on it",
					rel.Kind.noun(), rel.Name).
					WithDetail("%s %s depends on %s %s", dep.Kind.noun(), dep.Name, rel.Kind.noun(), rel.Name).
					WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
			}
		}
	}
	err := c.write(func(b *storage.Batch) error {
		for _, id := range ids {
			if err := b.DeleteKey(storage.CatalogKey(relationKey(id))); err != nil {
				return err
			}
			if err := b.DeleteRange(id); err != nil {
				return err
			}
			for _, st := range c.byID[id].StateTables {
				if err := b.DeleteRange(st); err != nil {
					return err
				}
			}
			if st := c.byID[id].UniqueStore(); st != 0 {
				if err := b.DeleteRange(st); err != nil {
					return err
				}
			}
		}
		for _, st := range stored {
			if err := putRelation(b, st); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, id := range ids {
		c.unindex(c.byID[id])
		delete(c.byID, id)
	}
	for _, st := range stored {
		c.unindex(c.byID[st.ID])
		c.byID[st.ID] = st
		c.index(st)
	}
	return nil
}

// NextStateTableID returns a fresh id for a state table of a streaming
// job. State tables share the table keyspace with relations, so their
// ids come from the same counter and never collide with a relation's.
func (c *Catalog) NextStateTableID() (uint32, error) {
	id, err := c.db.NextID(relationIDCounter)
	if err != nil {
		return 0, err
	}
	if id > 1<<32-1-FirstUserOID {
		return 0, pgerr.New(pgerr.ProgramLimitExceeded, "out of relation ids")
	}
	return uint32(id), nil
}

// Lookup returns the relation named name in schema ("" means public).
func (c *Catalog) Lookup(schema, name string) (*Relation, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	rel, ok := c.byName[normSchema(schema)][name]
	return rel, ok
}

// ByID returns the relation with the given id.
func (c *Catalog) ByID(id uint32) (*Relation, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	rel, ok := c.byID[id]
	return rel, ok
}

// ByOID returns the relation with the given pg_class oid.
func (c *Catalog) ByOID(oid uint32) (*Relation, bool) {
	if oid <= FirstUserOID {
		return nil, false
	}
	return c.ByID(oid - FirstUserOID)
}

// All returns every relation, sorted by ID.
func (c *Catalog) All() []*Relation {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return slices.SortedFunc(maps.Values(c.byID), byID)
}

// Dependents returns the relations whose Deps include id, sorted by ID.
func (c *Catalog) Dependents(id uint32) []*Relation {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.dependents(id)
}

func (c *Catalog) dependents(id uint32) []*Relation {
	var out []*Relation
	for _, rel := range c.byID {
		if slices.Contains(rel.Deps, id) {
			out = append(out, rel)
		}
	}
	slices.SortFunc(out, byID)
	return out
}

func byID(a, b *Relation) int {
	switch {
	case a.ID < b.ID:
		return -1
	case a.ID > b.ID:
		return 1
	}
	return 0
}

// CreateSchema creates a user schema owned by the bootstrap superuser,
// durably. Errors: 42P06 `schema "x" already exists` (also for public
// and the system schemas), 42602 for an empty name.
func (c *Catalog) CreateSchema(name string) error {
	return c.CreateSchemaOwned(name, BootstrapRoleOID)
}

// CreateSchemaOwned is CreateSchema for a schema owned by role owner
// (CREATE SCHEMA ... AUTHORIZATION).
func (c *Catalog) CreateSchemaOwned(name string, owner uint32) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if name == "" {
		return pgerr.New(pgerr.InvalidName, "zero-length delimited identifier")
	}
	if c.schemas[name] || isSystemSchema(name) {
		return pgerr.New(pgerr.DuplicateSchema, "schema \"%s\" already exists", name)
	}
	err := c.write(func(b *storage.Batch) error {
		e := schemaEntry{V: formatVersion, Name: name}
		if owner != BootstrapRoleOID {
			e.Owner = owner
		}
		v, err := json.Marshal(e)
		if err != nil {
			return pgerr.Wrap(pgerr.InternalError, err, "encoding schema")
		}
		return b.Set(storage.CatalogKey(schemaKey(name)), v)
	})
	if err != nil {
		return err
	}
	c.schemas[name] = true
	if owner != BootstrapRoleOID {
		c.schemaOwner[name] = owner
	}
	return nil
}

// SetSchemaOwner gives user schema name to role owner, durably (ALTER
// SCHEMA ... OWNER TO). Errors: 3F000 when it does not exist.
func (c *Catalog) SetSchemaOwner(name string, owner uint32) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.schemas[name] || name == PublicSchema {
		return pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", name)
	}
	e := schemaEntry{V: formatVersion, Name: name}
	if owner != BootstrapRoleOID {
		e.Owner = owner
	}
	err := c.write(func(b *storage.Batch) error {
		v, err := json.Marshal(e)
		if err != nil {
			return pgerr.Wrap(pgerr.InternalError, err, "encoding schema")
		}
		return b.Set(storage.CatalogKey(schemaKey(name)), v)
	})
	if err != nil {
		return err
	}
	if owner != BootstrapRoleOID {
		c.schemaOwner[name] = owner
	} else {
		delete(c.schemaOwner, name)
	}
	return nil
}

// SchemaOwner returns the OID of the role that owns schema name: the
// bootstrap superuser for the schemas created without AUTHORIZATION
// (and for public, which pg_namespace gives to pg_database_owner).
func (c *Catalog) SchemaOwner(name string) uint32 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if o, ok := c.schemaOwner[name]; ok {
		return o
	}
	return BootstrapRoleOID
}

// DropSchema removes an empty user schema, durably. Errors: 3F000 when it
// does not exist, 2BP01 when it still holds relations, 42501 for public
// and the system schemas.
func (c *Catalog) DropSchema(name string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if name == PublicSchema || isSystemSchema(name) {
		return pgerr.New(pgerr.InsufficientPrivilege, "cannot drop schema %s because it is required by the database system", name)
	}
	if !c.schemas[name] {
		return pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", name)
	}
	if rels := c.byName[name]; len(rels) > 0 {
		first := slices.SortedFunc(maps.Values(rels), byID)[0]
		return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop schema %s because other objects depend on it", name).
			WithDetail("%s %s.%s depends on schema %s", first.Kind.noun(), name, first.Name, name).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	err := c.write(func(b *storage.Batch) error {
		if err := b.DeleteKey(storage.CatalogKey(schemaACLKey(name))); err != nil {
			return err
		}
		return b.DeleteKey(storage.CatalogKey(schemaKey(name)))
	})
	if err != nil {
		return err
	}
	delete(c.schemas, name)
	delete(c.schemaACL, name)
	delete(c.schemaOwner, name)
	delete(c.byName, name)
	return nil
}

// Schemas returns the user schemas (public included, the system schemas
// not), sorted by name.
func (c *Catalog) Schemas() []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return slices.Sorted(maps.Keys(c.schemas))
}

// write applies fn to a new batch and commits it durably.
func (c *Catalog) write(fn func(b *storage.Batch) error) error {
	b := c.db.NewBatch()
	defer b.Close()
	if err := fn(b); err != nil {
		return err
	}
	if err := b.Commit(); err != nil {
		return err
	}
	c.gen.Add(1)
	return nil
}

// Clone returns a deep copy of r.
func (r *Relation) Clone() *Relation {
	c := *r
	c.Cols = slices.Clone(r.Cols)
	c.PK = slices.Clone(r.PK)
	c.Deps = slices.Clone(r.Deps)
	c.Funcs = slices.Clone(r.Funcs)
	c.FuncDeps = slices.Clone(r.FuncDeps)
	c.With = maps.Clone(r.With)
	c.StateTables = slices.Clone(r.StateTables)
	c.ACL = slices.Clone(r.ACL)
	c.StateLayout = slices.Clone(r.StateLayout)
	c.ColComments = maps.Clone(r.ColComments)
	c.Rebuild = slices.Clone(r.Rebuild)
	for i := range c.Cols {
		c.Cols[i].SeqACL = slices.Clone(r.Cols[i].SeqACL)
	}
	c.Checks = slices.Clone(r.Checks)
	c.ForeignKeys = slices.Clone(r.ForeignKeys)
	for i := range c.ForeignKeys {
		fk := &c.ForeignKeys[i]
		fk.Cols, fk.RefCols, fk.DeleteSetCols = slices.Clone(fk.Cols), slices.Clone(fk.RefCols), slices.Clone(fk.DeleteSetCols)
	}
	if r.DepCols != nil {
		c.DepCols = map[uint32][]string{}
		for k, v := range r.DepCols {
			c.DepCols[k] = slices.Clone(v)
		}
	}
	return &c
}

// noun is how Postgres names the kind in messages ("table", "view").
func (k Kind) noun() string {
	switch k {
	case KindView:
		return "view"
	case KindMView:
		return "materialized view"
	case KindSource:
		return "source"
	case KindSink:
		return "sink"
	case KindSequence:
		return "sequence"
	case KindIndex:
		return "index"
	}
	return "table"
}

// Storage format of catalog entries. Keys below storage.PrefixCatalog:
//
//	's' schema name          -> schemaEntry as JSON
//	'r' relation id (u32 BE) -> relationEntry as JSON
//
// JSON keeps entries readable in a debugger and lets fields be added
// freely; every entry carries the format version "v", and an entry with a
// version this code does not know is refused rather than misread. Types
// are stored by Postgres type OID and typmod, which never change, rather
// than by weir's TypeID numbering; kinds by name.
const formatVersion = 1

const (
	schemaTag   byte = 's'
	relationTag byte = 'r'
)

func schemaKey(name string) []byte { return append([]byte{schemaTag}, name...) }

func relationKey(id uint32) []byte { return binary.BigEndian.AppendUint32([]byte{relationTag}, id) }

type schemaEntry struct {
	V     int    `json:"v"`
	Name  string `json:"name"`
	Owner uint32 `json:"owner,omitempty"` // 0: the bootstrap superuser
}

type relationEntry struct {
	V      int               `json:"v"`
	ID     uint32            `json:"id"`
	Schema string            `json:"schema"`
	Name   string            `json:"name"`
	Kind   string            `json:"kind"`
	Cols   []columnEntry     `json:"cols"`
	PK     []int             `json:"pk,omitempty"`
	SQL    string            `json:"sql,omitempty"`
	Deps   []uint32          `json:"deps,omitempty"`
	With   map[string]string `json:"with,omitempty"`
	State  []uint32          `json:"state_tables,omitempty"`
	// SearchPath is Relation.SearchPath.
	SearchPath string `json:"search_path,omitempty"`
	// Owner is the owning role's OID; entries written before roles
	// existed have none and belong to the bootstrap superuser.
	Owner uint32 `json:"owner,omitempty"`
	// ACL is the ACL as catalogs before RelACL stored it (read only);
	// RelACL is Relation.ACL.
	ACL    map[uint32]int `json:"acl,omitempty"`
	RelACL aclEntry       `json:"relacl,omitempty"`
	Layout []string       `json:"state_layout,omitempty"`
	// Comment and ColComments are COMMENT ON's texts.
	Comment     string            `json:"comment,omitempty"`
	ColComments map[string]string `json:"column_comments,omitempty"`
	// DepCols is Relation.DepCols.
	DepCols map[uint32][]string `json:"dep_cols,omitempty"`
	// Rebuild is Relation.Rebuild.
	Rebuild []IndexRebuild `json:"rebuild,omitempty"`
	// Temp is Relation.Temp: DropTemp finds the relations a crash left
	// behind by it.
	Temp bool `json:"temp,omitempty"`
	// Building is Relation.Building: DropTemp finds the tables a crash
	// left half built by it.
	Building bool `json:"building,omitempty"`
	// Deparsed is Relation.Deparsed.
	Deparsed bool `json:"deparsed,omitempty"`
	// Unlogged is Relation.Unlogged.
	Unlogged bool `json:"unlogged,omitempty"`
	// Unpopulated is Relation.Unpopulated; entries written before it
	// existed lack it and read as populated.
	Unpopulated bool `json:"unpopulated,omitempty"`
	// Checks is Relation.Checks.
	Checks []checkEntry `json:"checks,omitempty"`
	// ForeignKeys is Relation.ForeignKeys.
	ForeignKeys []fkEntry `json:"foreign_keys,omitempty"`
	// Funcs is Relation.Funcs: the user functions as they were when the
	// definition was bound.
	Funcs []funcEntry `json:"funcs,omitempty"`
	// FuncDeps is Relation.FuncDeps.
	FuncDeps []uint32 `json:"func_deps,omitempty"`
}

type fkEntry struct {
	Name          string `json:"name"`
	Cols          []int  `json:"cols"`
	RefID         uint32 `json:"ref_id"`
	RefCols       []int  `json:"ref_cols"`
	Match         string `json:"match"`
	OnUpdate      string `json:"on_update"`
	OnDelete      string `json:"on_delete"`
	DeleteSetCols []int  `json:"delete_set_cols,omitempty"`
	NotValid      bool   `json:"not_valid,omitempty"`
	Deferrable    bool   `json:"deferrable,omitempty"`
	Deferred      bool   `json:"deferred,omitempty"`
}

type checkEntry struct {
	Name      string `json:"name"`
	Expr      string `json:"expr"`
	NoInherit bool   `json:"no_inherit,omitempty"`
	NotValid  bool   `json:"not_valid,omitempty"`
}

type columnEntry struct {
	Name    string `json:"name"`
	TypeOID uint32 `json:"type_oid"`
	TypMod  int32  `json:"typmod"`
	NotNull bool   `json:"not_null,omitempty"`
	Default string `json:"default,omitempty"`
	Hidden  bool   `json:"hidden,omitempty"`
	// Identity and Seq are the column's identity kind and owned sequence.
	Identity string `json:"identity,omitempty"`
	Seq      string `json:"seq,omitempty"`
	SeqKey   string `json:"seq_key,omitempty"`
	// SeqACL is Column.SeqACL as catalogs before RelACL stored it (read
	// only); SeqRelACL is Column.SeqACL.
	SeqACL    map[uint32]int `json:"seq_acl,omitempty"`
	SeqRelACL aclEntry       `json:"seq_relacl,omitempty"`
	// Added, Missing and Dropped are ALTER TABLE's: Missing is the
	// value's row encoding (types.AppendRow of the one column).
	Added   bool   `json:"added,omitempty"`
	Missing []byte `json:"missing,omitempty"`
	Dropped bool   `json:"dropped,omitempty"`
	// Collation is the column's COLLATE, when not its type's default.
	Collation string `json:"collation,omitempty"`
	// Generated is the expression of a stored generated column.
	Generated string `json:"generated,omitempty"`
	// Domain is Column.Domain.
	Domain uint32 `json:"domain,omitempty"`
	// DomainArray is Column.DomainArray.
	DomainArray bool `json:"domain_array,omitempty"`
}

var kindNames = map[Kind]string{
	KindTable: "table", KindView: "view", KindMView: "mview",
	KindSource: "source", KindSink: "sink", KindSystem: "system",
	KindSequence: "sequence",
	KindIndex:    "index",
}

func putRelation(b *storage.Batch, rel *Relation) error {
	e := relationEntry{V: formatVersion, ID: rel.ID, Schema: rel.Schema, Name: rel.Name, Kind: kindNames[rel.Kind],
		PK: rel.PK, SQL: rel.SQL, Deps: rel.Deps, With: rel.With, SearchPath: rel.SearchPath, State: rel.StateTables, Owner: rel.Owner, Layout: rel.StateLayout,
		Comment: rel.Comment, ColComments: rel.ColComments, DepCols: rel.DepCols, Rebuild: rel.Rebuild, Temp: rel.Temp, Building: rel.Building, Deparsed: rel.Deparsed, Unlogged: rel.Unlogged, Unpopulated: rel.Unpopulated,
		Funcs: pinFuncs(rel.Funcs), FuncDeps: rel.FuncDeps}
	e.RelACL = encodeRelACL(rel.ACL)
	for _, col := range rel.Cols {
		ce := columnEntry{Name: col.Name, TypeOID: col.T.OID(), TypMod: col.T.Mod,
			NotNull: col.NotNull, Default: col.Default, Hidden: col.Hidden, Identity: col.Identity, Seq: col.Seq,
			SeqKey: col.SeqKey, Added: col.Added, Dropped: col.Dropped, Collation: col.Collation, Generated: col.Generated,
			Domain: col.Domain, DomainArray: col.DomainArray}
		if col.Missing != nil {
			ce.Missing = types.AppendRow(nil, types.Row{*col.Missing}, []types.T{col.T})
		}
		ce.SeqRelACL = encodeRelACL(col.SeqACL)
		e.Cols = append(e.Cols, ce)
	}
	for _, c := range rel.Checks {
		e.Checks = append(e.Checks, checkEntry{Name: c.Name, Expr: c.Expr, NoInherit: c.NoInherit, NotValid: c.NotValid})
	}
	for _, f := range rel.ForeignKeys {
		e.ForeignKeys = append(e.ForeignKeys, fkEntry{Name: f.Name, Cols: f.Cols, RefID: f.RefID, RefCols: f.RefCols,
			Match: string(f.Match), OnUpdate: string(f.OnUpdate), OnDelete: string(f.OnDelete), DeleteSetCols: f.DeleteSetCols, NotValid: f.NotValid,
			Deferrable: f.Deferrable, Deferred: f.Deferred})
	}
	v, err := json.Marshal(e)
	if err != nil {
		return pgerr.Wrap(pgerr.InternalError, err, "encoding catalog entry")
	}
	return b.Set(storage.CatalogKey(relationKey(rel.ID)), v)
}

func corrupt(format string, args ...any) error {
	return pgerr.New(pgerr.DataCorrupted, "corrupt catalog entry: "+format, args...)
}

func decodeSchema(v []byte) (string, uint32, error) {
	var e schemaEntry
	if err := json.Unmarshal(v, &e); err != nil {
		return "", 0, corrupt("%v", err)
	}
	if e.V != formatVersion {
		return "", 0, corrupt("schema %q has format version %d", e.Name, e.V)
	}
	return e.Name, e.Owner, nil
}

func decodeRelation(v []byte, typeOf func(uint32) (types.T, bool)) (*Relation, error) {
	var e relationEntry
	if err := json.Unmarshal(v, &e); err != nil {
		return nil, corrupt("%v", err)
	}
	if e.V != formatVersion {
		return nil, corrupt("relation %q has format version %d", e.Name, e.V)
	}
	rel := &Relation{ID: e.ID, OID: FirstUserOID + e.ID, Schema: e.Schema, Name: e.Name,
		PK: e.PK, SQL: e.SQL, Deps: e.Deps, With: e.With, SearchPath: e.SearchPath, StateTables: e.State, Owner: e.Owner, StateLayout: e.Layout,
		Comment: e.Comment, ColComments: e.ColComments, DepCols: e.DepCols, Rebuild: e.Rebuild, Temp: e.Temp, Building: e.Building, Deparsed: e.Deparsed, Unlogged: e.Unlogged, Unpopulated: e.Unpopulated,
		FuncDeps: e.FuncDeps}
	if rel.Owner == 0 {
		rel.Owner = BootstrapRoleOID
	}
	for _, fe := range e.Funcs {
		f, err := decodeFunc(fe, typeOf)
		if err != nil {
			return nil, err
		}
		rel.Funcs = append(rel.Funcs, f)
	}
	kind, ok := kindByName(e.Kind)
	if !ok {
		return nil, corrupt("relation %q has unknown kind %q", e.Name, e.Kind)
	}
	rel.Kind = kind
	if e.RelACL != nil {
		rel.ACL = decodeRelACL(e.RelACL)
	} else {
		all := PrivTableAll
		if kind == KindSequence {
			all = PrivSequenceAll
		}
		rel.ACL = relACLFromMap(e.ACL, rel.Owner, all)
	}
	for _, ce := range e.Cols {
		t, ok := typeOf(ce.TypeOID)
		if !ok {
			return nil, corrupt("column %s.%s has unknown type oid %d", e.Name, ce.Name, ce.TypeOID)
		}
		t.Mod = ce.TypMod
		col := Column{Name: ce.Name, T: t, NotNull: ce.NotNull, Default: ce.Default, Hidden: ce.Hidden,
			Identity: ce.Identity, Seq: ce.Seq, SeqKey: ce.SeqKey, Added: ce.Added, Dropped: ce.Dropped, Collation: ce.Collation,
			Generated: ce.Generated, Domain: ce.Domain, DomainArray: ce.DomainArray}
		if ce.Missing != nil {
			r, err := types.DecodeRow(ce.Missing, []types.T{t})
			if err != nil || len(r) != 1 {
				return nil, corrupt("column %s.%s has a bad missing value", e.Name, ce.Name)
			}
			col.Missing = &r[0]
		}
		if ce.SeqRelACL != nil {
			col.SeqACL = decodeRelACL(ce.SeqRelACL)
		} else {
			col.SeqACL = relACLFromMap(ce.SeqACL, rel.Owner, PrivSequenceAll)
		}
		rel.Cols = append(rel.Cols, col)
	}
	for _, ce := range e.Checks {
		rel.Checks = append(rel.Checks, Check{Name: ce.Name, Expr: ce.Expr, NoInherit: ce.NoInherit, NotValid: ce.NotValid})
	}
	for _, f := range e.ForeignKeys {
		if len(f.Match) != 1 || len(f.OnUpdate) != 1 || len(f.OnDelete) != 1 {
			return nil, corrupt("foreign key %s of %q has a bad action", f.Name, e.Name)
		}
		rel.ForeignKeys = append(rel.ForeignKeys, ForeignKey{Name: f.Name, Cols: f.Cols, RefID: f.RefID, RefCols: f.RefCols,
			Match: f.Match[0], OnUpdate: f.OnUpdate[0], OnDelete: f.OnDelete[0], DeleteSetCols: f.DeleteSetCols, NotValid: f.NotValid,
			Deferrable: f.Deferrable, Deferred: f.Deferred})
	}
	return rel, nil
}

func kindByName(s string) (Kind, bool) {
	for k, n := range kindNames {
		if n == s {
			return k, true
		}
	}
	return 0, false
}

// String returns a one-line description of r for tests and logs:
// "public.t(16385 table: a integer, b text)".
func (r *Relation) String() string {
	var cols []string
	for _, c := range r.Cols {
		cols = append(cols, c.Name+" "+c.T.String())
	}
	return fmt.Sprintf("%s.%s(%d %s: %s)", r.Schema, r.Name, r.OID, r.Kind.noun(), strings.Join(cols, ", "))
}
