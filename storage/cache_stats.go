package storage

import "sync/atomic"

// TableCacheStats counts how one state table (all the actors' instances
// of it) used the cache: lookups answered from memory (hits), lookups
// that read Pebble (misses), and entries evicted to keep the cache within
// its budget, early flushes of dirty entries (spills), and reads of a
// key prefix answered from memory alone by a table that has let rows go
// (prefix hits, by AppendRows or Scan: see StateTable.SetReadPrefix). The counters are updated
// by actors and may be read from any goroutine.
type TableCacheStats struct {
	Hits       atomic.Int64
	Misses     atomic.Int64
	Evictions  atomic.Int64
	Spills     atomic.Int64
	PrefixHits atomic.Int64
}

// TableStats returns the cache statistics of state table tableID,
// creating them (at zero) if no table of that id has used the cache yet.
func (c *Cache) TableStats(tableID uint32) *TableCacheStats {
	if s, ok := c.stats.Load(tableID); ok {
		return s.(*TableCacheStats)
	}
	s, _ := c.stats.LoadOrStore(tableID, &TableCacheStats{})
	return s.(*TableCacheStats)
}

// RangeStats calls fn with the statistics of every state table that has
// used the cache.
func (c *Cache) RangeStats(fn func(tableID uint32, s *TableCacheStats)) {
	c.stats.Range(func(k, v any) bool {
		fn(k.(uint32), v.(*TableCacheStats))
		return true
	})
}
