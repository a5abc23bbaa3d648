package catalog

import (
	"encoding/binary"
	"encoding/json"
	"slices"
	"sort"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// funcTag is the catalog key tag of user functions (CREATE FUNCTION),
// keyed by OID.
const funcTag byte = 'p'

// Function volatilities, as pg_proc.provolatile spells them.
const (
	Immutable byte = 'i'
	Stable    byte = 's'
	Volatile  byte = 'v'
)

// Function is a scalar SQL-language function a user made (CREATE
// FUNCTION ... LANGUAGE sql): its body is one expression, which the
// binder inlines wherever the function is called. Its OID comes from
// NextOID.
type Function struct {
	OID    uint32
	Schema string
	Name   string
	Owner  uint32
	// ArgNames are the parameters' names, "" for one declared without
	// (read as $n only); ArgTypes their types, without modifiers, as
	// PostgreSQL keeps them in pg_proc.proargtypes.
	ArgNames []string
	ArgTypes []types.T
	// Ret is the declared result type, without modifier.
	Ret types.T
	// Volatility is Immutable, Stable or Volatile.
	Volatility byte
	// Strict functions (STRICT, RETURNS NULL ON NULL INPUT) give NULL
	// when any argument is NULL, without evaluating the body.
	Strict bool
	// Src is the body as written: the text of AS '...' (pg_proc.prosrc),
	// or, when Return is set, the expression of the SQL-standard
	// RETURN expr body.
	Src    string
	Return bool
	// ACL holds the EXECUTE grants to roles other than the owner, who
	// always holds it, when ExplicitACL is set; without it EXECUTE is
	// PUBLIC's (PostgreSQL's NULL proacl).
	ACL         ACL
	ExplicitACL bool
	// Comment is COMMENT ON FUNCTION's text.
	Comment string
}

// Clone returns a deep copy of f.
func (f *Function) Clone() *Function {
	c := *f
	c.ArgNames = slices.Clone(f.ArgNames)
	c.ArgTypes = slices.Clone(f.ArgTypes)
	c.ACL = f.ACL.clone()
	return &c
}

// SameArgs reports whether f takes exactly the argument types ts, which
// is what makes two functions of one name in one schema the same
// function.
func (f *Function) SameArgs(ts []types.T) bool {
	if len(ts) != len(f.ArgTypes) {
		return false
	}
	for i, t := range ts {
		if t.ID != f.ArgTypes[i].ID {
			return false
		}
	}
	return true
}

type funcEntry struct {
	V        int            `json:"v"`
	OID      uint32         `json:"oid"`
	Schema   string         `json:"schema"`
	Name     string         `json:"name"`
	Owner    uint32         `json:"owner,omitempty"`
	ArgNames []string       `json:"arg_names,omitempty"`
	ArgOIDs  []uint32       `json:"arg_oids,omitempty"`
	RetOID   uint32         `json:"ret_oid"`
	Volatile string         `json:"volatility"`
	Strict   bool           `json:"strict,omitempty"`
	Src      string         `json:"src"`
	Return   bool           `json:"return,omitempty"`
	ACL      map[uint32]int `json:"acl,omitempty"`
	ACLSet   bool           `json:"acl_set,omitempty"`
	Comment  string         `json:"comment,omitempty"`
}

func funcKey(oid uint32) []byte { return binary.BigEndian.AppendUint32([]byte{funcTag}, oid) }

func encodeFunc(f *Function) funcEntry {
	e := funcEntry{V: formatVersion, OID: f.OID, Schema: f.Schema, Name: f.Name, Owner: f.Owner, ArgNames: f.ArgNames,
		RetOID: f.Ret.OID(), Volatile: string(f.Volatility), Strict: f.Strict, Src: f.Src, Return: f.Return, Comment: f.Comment,
		ACLSet: f.ExplicitACL}
	for _, t := range f.ArgTypes {
		e.ArgOIDs = append(e.ArgOIDs, t.OID())
	}
	for k, p := range f.ACL {
		if e.ACL == nil {
			e.ACL = map[uint32]int{}
		}
		e.ACL[k] = int(p)
	}
	return e
}

func putFunc(b *storage.Batch, f *Function) error {
	v, err := json.Marshal(encodeFunc(f))
	if err != nil {
		return pgerr.Wrap(pgerr.InternalError, err, "encoding catalog entry")
	}
	return b.Set(storage.CatalogKey(funcKey(f.OID)), v)
}

// decodeFunc turns a stored function entry back into a Function;
// typeOf resolves its type OIDs (built-in types and user enums).
func decodeFunc(e funcEntry, typeOf func(oid uint32) (types.T, bool)) (*Function, error) {
	if e.V != formatVersion || len(e.Volatile) != 1 {
		return nil, corrupt("function %q has format version %d", e.Name, e.V)
	}
	f := &Function{OID: e.OID, Schema: e.Schema, Name: e.Name, Owner: e.Owner, ArgNames: e.ArgNames, Volatility: e.Volatile[0],
		Strict: e.Strict, Src: e.Src, Return: e.Return, Comment: e.Comment, ExplicitACL: e.ACLSet}
	if f.Owner == 0 {
		f.Owner = BootstrapRoleOID
	}
	for _, oid := range e.ArgOIDs {
		t, ok := typeOf(oid)
		if !ok {
			return nil, corrupt("function %q has unknown argument type oid %d", e.Name, oid)
		}
		f.ArgTypes = append(f.ArgTypes, t)
	}
	t, ok := typeOf(e.RetOID)
	if !ok {
		return nil, corrupt("function %q has unknown result type oid %d", e.Name, e.RetOID)
	}
	f.Ret = t
	for k, p := range e.ACL {
		if f.ACL == nil {
			f.ACL = ACL{}
		}
		f.ACL[k] = Privilege(p)
	}
	for len(f.ArgNames) < len(f.ArgTypes) {
		f.ArgNames = append(f.ArgNames, "")
	}
	return f, nil
}

// CreateFunction adds f, whose OID the caller took from NextOID, or, with
// replace, replaces the function of the same schema, name and argument
// types keeping its OID, owner and grants (CREATE OR REPLACE). It returns
// the function as stored. Errors: 3F000 for an unknown schema, 42723
// `function f(integer) already exists with same argument types` without
// replace.
func (c *Catalog) CreateFunction(f *Function, replace bool) (*Function, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f.Schema = normSchema(f.Schema)
	if !c.schemas[f.Schema] && !c.temp[f.Schema] {
		return nil, pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", f.Schema)
	}
	stored := f.Clone()
	if old := c.funcLocked(f.Schema, f.Name, f.ArgTypes); old != nil {
		if !replace {
			return nil, pgerr.New(pgerr.DuplicateFunction, "function %s already exists with same argument types", old.Signature(false))
		}
		stored.OID, stored.Owner, stored.ACL, stored.ExplicitACL, stored.Comment = old.OID, old.Owner, old.ACL.clone(), old.ExplicitACL, old.Comment
	}
	if stored.Owner == 0 {
		stored.Owner = BootstrapRoleOID
	}
	if err := c.write(func(b *storage.Batch) error { return putFunc(b, stored) }); err != nil {
		return nil, err
	}
	c.funcs[stored.OID] = stored
	return stored, nil
}

// DropFunction removes the function with OID oid.
func (c *Catalog) DropFunction(oid uint32) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.funcs[oid]; !ok {
		return nil
	}
	if err := c.write(func(b *storage.Batch) error { return b.DeleteKey(storage.CatalogKey(funcKey(oid))) }); err != nil {
		return err
	}
	delete(c.funcs, oid)
	return nil
}

func (c *Catalog) funcLocked(schema, name string, args []types.T) *Function {
	for _, f := range c.funcs {
		if f.Schema == schema && f.Name == name && f.SameArgs(args) {
			return f
		}
	}
	return nil
}

// FunctionsNamed returns the user functions called name in schema, or
// in every schema when schema is "", by OID. The values are shared and
// read-only.
func (c *Catalog) FunctionsNamed(schema, name string) []*Function {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []*Function
	for _, f := range c.funcs {
		if f.Name == name && (schema == "" || f.Schema == schema) {
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].OID < out[j].OID })
	return out
}

// FunctionByOID returns the user function with pg_proc OID oid.
func (c *Catalog) FunctionByOID(oid uint32) (*Function, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	f, ok := c.funcs[oid]
	return f, ok
}

// Functions returns every user function, by OID.
func (c *Catalog) Functions() []*Function {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]*Function, 0, len(c.funcs))
	for _, f := range c.funcs {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].OID < out[j].OID })
	return out
}

// Signature is the function as PostgreSQL's messages name it:
// name(integer, text), qualified by its schema with qualified (as
// regprocedure prints one outside the search path).
func (f *Function) Signature(qualified bool) string {
	return f.signature(qualified, ", ")
}

// ObjectSignature is the function as PostgreSQL describes the object
// (getObjectDescription, format_procedure): name(integer,text), with no
// space after the commas, in the DETAIL and HINT of a dependency error,
// DROP ... CASCADE's notices and CREATE OR REPLACE's hints.
func (f *Function) ObjectSignature(qualified bool) string {
	return f.signature(qualified, ",")
}

func (f *Function) signature(qualified bool, sep string) string {
	s := sql.QuoteName(f.Name) + "("
	if qualified {
		s = sql.QuoteName(f.Schema) + "." + s
	}
	for i, t := range f.ArgTypes {
		if i > 0 {
			s += sep
		}
		s += t.TypeName()
	}
	return s + ")"
}

// loadFuncs decodes the user functions' catalog entries, after the
// user types their signatures may name.
func (c *Catalog) loadFuncs(vals [][]byte) error {
	for _, v := range vals {
		var e funcEntry
		if err := json.Unmarshal(v, &e); err != nil {
			return corrupt("%v", err)
		}
		f, err := decodeFunc(e, c.typeOf)
		if err != nil {
			return err
		}
		c.funcs[f.OID] = f
	}
	return nil
}

// pinFuncs encodes a relation's Funcs for its entry.
func pinFuncs(fs []*Function) []funcEntry {
	var out []funcEntry
	for _, f := range fs {
		out = append(out, encodeFunc(f))
	}
	return out
}

// SetFunctionACL replaces the grants on function oid by acl, which
// becomes explicit (GRANT and REVOKE ... ON FUNCTION).
func (c *Catalog) SetFunctionACL(oid uint32, acl ACL) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.funcs[oid]
	if !ok {
		return pgerr.New(pgerr.UndefinedFunction, "function with OID %d does not exist", oid)
	}
	f := old.Clone()
	f.ACL, f.ExplicitACL = acl.clone(), true
	if err := c.write(func(b *storage.Batch) error { return putFunc(b, f) }); err != nil {
		return err
	}
	c.funcs[oid] = f
	return nil
}
