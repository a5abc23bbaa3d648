package catalog

import (
	"maps"
	"slices"
	"strconv"
	"strings"
)

// TempSchemaPrefix starts the name of a session's temporary schema,
// pg_temp_N as in PostgreSQL, where N is a number the session holds
// while it lives (AddTempSchema). PostgreSQL's search_path calls the
// session's own one pg_temp.
const TempSchemaPrefix = "pg_temp_"

// TempSchemaAlias is the name that means the session's own temporary
// schema (pg_temp in a qualified name or in search_path).
const TempSchemaAlias = "pg_temp"

// TempSchemaNumber returns N of a temporary schema's name pg_temp_N, and
// false for any other name.
func TempSchemaNumber(schema string) (int, bool) {
	rest, ok := strings.CutPrefix(schema, TempSchemaPrefix)
	if !ok || rest == "" || rest[0] == '0' {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n <= 0 {
		return 0, false
	}
	return n, true
}

// AddTempSchema makes a temporary schema pg_temp_N for a session: the
// lowest N no other session holds. It lives in memory only, as long as
// the session calls no DropTempSchema, and the relations created in it
// are temporary (Relation.Temp).
func (c *Catalog) AddTempSchema() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	for n := 1; ; n++ {
		name := TempSchemaPrefix + strconv.Itoa(n)
		if !c.temp[name] {
			c.temp[name] = true
			c.gen.Add(1)
			return name
		}
	}
}

// DropTempSchema forgets the temporary schema name, whose relations its
// session has dropped; the number is free for another session.
func (c *Catalog) DropTempSchema(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.temp, name)
	delete(c.byName, name)
	c.gen.Add(1)
}

// TempSchemas returns the temporary schemas sessions hold now, sorted by
// name.
func (c *Catalog) TempSchemas() []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return slices.Sorted(maps.Keys(c.temp))
}

// TempSchemaCount returns how many temporary schemas sessions hold now.
func (c *Catalog) TempSchemaCount() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.temp)
}

// InSchema returns the relations of schema, sorted by ID.
func (c *Catalog) InSchema(schema string) []*Relation {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return slices.SortedFunc(maps.Values(c.byName[normSchema(schema)]), byID)
}

// DropTemp drops, in one durable batch, every temporary relation with its
// data: those a server that stopped without ending its sessions (a crash,
// a kill) left behind, as PostgreSQL removes its temporary tables' files
// at start-up, and every table a CREATE TABLE AS was still filling
// (Relation.Building). It returns how many it dropped. It must run before any
// session or job uses the catalog.
func (c *Catalog) DropTemp() (int, error) {
	var ids []uint32
	for _, rel := range c.All() {
		if rel.Temp || rel.Building {
			ids = append(ids, rel.ID)
		}
	}
	if len(ids) == 0 {
		return 0, nil
	}
	return len(ids), c.Drop(ids...)
}
