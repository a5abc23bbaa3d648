package types

import (
	"sort"
	"sync"
	"sync/atomic"

	"github.com/weirdb/weir/internal/pgerr"
)

// Enum types (CREATE TYPE ... AS ENUM) are made at run time, so their
// TypeIDs are too: each one NewEnum registers gets a TypeID of its own
// from FirstEnumID on, for the life of the process. The ID is never
// stored (the catalog stores the type's OID); a catalog opened again
// registers its enums again and gets new IDs.
//
// A value of an enum type is held as its label's sort order
// (pg_enum.enumsortorder) in Datum.F, family FamFloat: comparison,
// hashing, the key encoding and the row encoding are those of a float,
// so values order, group and key by the type's declaration order, and
// renaming a label (ALTER TYPE ... RENAME VALUE) changes no stored
// value. A label added BEFORE or AFTER another takes a sort order
// between its neighbours' and the others keep theirs. Text output and
// input look the label up by the sort order and back (FormatText,
// ParseText), through the type's current label list.

// FirstEnumID is the TypeID of the first enum type registered.
const FirstEnumID TypeID = 256

// FirstEnumArrayID is the TypeID of the array type of the first enum
// type registered: the array of the enum with TypeID FirstEnumID+i has
// TypeID FirstEnumArrayID+i. An enum has an array type once
// SetEnumArrayOID gives it the array's pg_type OID. An array of an enum
// is stored as the other arrays are, in its output form ({happy,sad}),
// and compares element by element in the labels' order.
const FirstEnumArrayID TypeID = 0x8000

// EnumLabel is one label of an enum type, as pg_enum holds it.
type EnumLabel struct {
	OID   uint32  `json:"oid"`
	Sort  float64 `json:"sort"`
	Label string  `json:"label"`
}

type enumInfo struct {
	oid     uint32
	arrOID  atomic.Uint32               // the array type's OID (pg_type.typarray), 0 for none
	name    atomic.Pointer[string]      // as format_type prints it
	typname atomic.Pointer[string]      // pg_type.typname
	labels  atomic.Pointer[[]EnumLabel] // sorted by Sort
}

var enums struct {
	mu   sync.RWMutex
	list []*enumInfo
}

func enumOf(id TypeID) *enumInfo {
	if id >= FirstEnumArrayID {
		return nil
	}
	enums.mu.RLock()
	defer enums.mu.RUnlock()
	i := int(id) - int(FirstEnumID)
	if i < 0 || i >= len(enums.list) {
		return nil
	}
	return enums.list[i]
}

// NewEnum registers an enum type with pg_type OID oid, the name
// format_type prints for it (typname, qualified when its schema is not
// public), and its labels, and returns the type.
func NewEnum(oid uint32, typname, name string, labels []EnumLabel) T {
	e := &enumInfo{oid: oid}
	e.name.Store(&name)
	e.typname.Store(&typname)
	enums.mu.Lock()
	id := FirstEnumID + TypeID(len(enums.list))
	enums.list = append(enums.list, e)
	enums.mu.Unlock()
	t := T{ID: id, Mod: -1}
	SetEnumLabels(t, labels)
	return t
}

// SetEnumLabels replaces the labels of enum type t (ALTER TYPE ... ADD
// VALUE, RENAME VALUE); labels need not be sorted.
func SetEnumLabels(t T, labels []EnumLabel) {
	e := enumOf(t.ID)
	if e == nil {
		return
	}
	l := append([]EnumLabel(nil), labels...)
	sort.SliceStable(l, func(i, j int) bool { return l[i].Sort < l[j].Sort })
	e.labels.Store(&l)
}

// SetEnumArrayOID gives enum type t its array type, whose pg_type OID is
// oid (typarray).
func SetEnumArrayOID(t T, oid uint32) {
	if e := enumOf(t.ID); e != nil {
		e.arrOID.Store(oid)
	}
}

// enumArrayOf returns the enum an enum array TypeID is the array of.
func enumArrayOf(id TypeID) *enumInfo {
	if id < FirstEnumArrayID {
		return nil
	}
	e := enumOf(id - FirstEnumArrayID + FirstEnumID)
	if e == nil || e.arrOID.Load() == 0 {
		return nil
	}
	return e
}

// SetEnumName changes the names of enum type t (ALTER TYPE ... RENAME).
func SetEnumName(t T, typname, name string) {
	if e := enumOf(t.ID); e != nil {
		e.name.Store(&name)
		e.typname.Store(&typname)
	}
}

// EnumTypname returns enum type t's pg_type.typname.
func EnumTypname(t T) string {
	if e := enumOf(t.ID); e != nil {
		return *e.typname.Load()
	}
	return ""
}

// IsEnum reports whether t is an enum type.
func (t T) IsEnum() bool { return t.ID >= FirstEnumID && t.ID < FirstEnumArrayID }

// EnumLabels returns the labels of enum type t in sort order.
func EnumLabels(t T) []EnumLabel {
	e := enumOf(t.ID)
	if e == nil {
		return nil
	}
	if l := e.labels.Load(); l != nil {
		return *l
	}
	return nil
}

// ParseEnum returns the value of label s of enum type t; a label the
// type lacks is 22P02 `invalid input value for enum mood: "x"`.
func ParseEnum(s string, t T) (Datum, error) {
	for _, l := range EnumLabels(t) {
		if l.Label == s {
			return DFloat(l.Sort), nil
		}
	}
	return NullDatum, pgerr.New(pgerr.InvalidTextRepresentation, "invalid input value for enum %s: %q", t.ID.Name(), s)
}

// FormatEnum returns the label of enum value d of type t.
func FormatEnum(d Datum, t T) string {
	l := EnumLabels(t)
	i := sort.Search(len(l), func(i int) bool { return l[i].Sort >= d.F })
	if i < len(l) && l[i].Sort == d.F {
		return l[i].Label
	}
	return "?"
}

// info returns the typeInfo of id, an enum's included.
func info(id TypeID) typeInfo {
	if id < numTypeIDs {
		return infos[id]
	}
	if e := enumArrayOf(id); e != nil {
		return typeInfo{name: *e.name.Load() + "[]", oid: e.arrOID.Load(), size: -1}
	}
	e := enumOf(id)
	if e == nil {
		return typeInfo{name: "???"}
	}
	return typeInfo{name: *e.name.Load(), oid: e.oid, size: 4, arrOID: e.arrOID.Load()}
}
