package storage

import (
	"bytes"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/RaduBerinde/btreemap"
	"github.com/cockroachdb/pebble/v2"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// Cache is the memory budget shared by every StateTable of a process
// (DESIGN.md §4: caches evict clean entries under a global budget). It
// only accounts: each table keeps its own entries and evicts its own
// clean ones, least recently used first, on its own goroutine, so no
// table ever touches another's entries. To spread eviction over tables,
// a table that cannot get under the budget by evicting entries idle since
// the last pressure raises the cache's generation; every table then
// evicts, when it next runs, the entries it has not touched since (the
// scheme of RisingWave's memory manager, with generations for its epoch
// watermark). Dirty entries, and entries whose epoch is not yet durable,
// are never evicted; when evicting clean entries is not enough, a table
// holding at least SpillMin bytes of dirty entries flushes them early
// into a spill area (spill.go), so one epoch's writes do not exceed the
// budget by more than about SpillMin per table.
//
// A Cache is safe for concurrent use.
type Cache struct {
	budget int64
	gen    atomic.Uint64
	// used shares no cache line with the other fields (64 bytes either
	// side, whatever the struct's alignment): the tables of actors
	// running at once change it, and every write of an entry reads gen.
	_    [64]byte
	used atomic.Int64
	_    [64]byte
	// filters is the part of used that the state tables' key filters
	// hold (StateTable.left).
	filters atomic.Int64
	// sets is the bytes of the epochs' write sets not yet committed
	// (Batch.Account): copies of dirty entries, in memory besides the
	// entries until their checkpoint commits.
	sets atomic.Int64
	// stats holds a *TableCacheStats per state table id.
	stats sync.Map
}

// usedBatch is the most bytes by which a table's entries may have grown
// or shrunk without the cache's count knowing: a table adds up its
// changes (StateTable.addUsed) and passes them on past it, and whenever
// it evicts, commits or is told an epoch durable, so that the actors
// writing at once do not contend for the count at every write. The
// count is thus short of the entries' bytes by at most this much per
// table.
const usedBatch = 16 << 10

// NewCache returns a cache with a budget of budgetBytes (approximate
// bytes of keys, rows and bookkeeping).
func NewCache(budgetBytes int64) *Cache {
	c := &Cache{budget: budgetBytes}
	c.gen.Store(1)
	return c
}

// OperatorBuffer is the bytes one operator may hold in memory of its
// own between barriers besides its state tables (the groups an
// aggregation is changing, say): 1/16 of the budget. An operator past
// it emits what it holds early rather than grow.
func (c *Cache) OperatorBuffer() int64 { return c.budget / 16 }

// SpillMin is the least bytes of dirty entries a table flushes early
// (1/64 of the budget, at least 256 KiB): smaller flushes would cost
// more writes than the memory they give back.
func (c *Cache) SpillMin() int64 { return max(c.budget/64, 256<<10) }

// Budget returns the cache's budget in bytes.
func (c *Cache) Budget() int64 { return c.budget }

// Used returns the approximate bytes held by all state tables' entries,
// clean and dirty (each table's changes of less than usedBatch bytes
// since it last passed them on aside), and by the write sets not yet
// committed (WriteSets).
func (c *Cache) Used() int64 { return c.used.Load() + c.sets.Load() }

// WriteSets returns the bytes of the write sets counted in the budget
// (Batch.Account) whose checkpoint has not committed or failed yet.
func (c *Cache) WriteSets() int64 { return c.sets.Load() }

func (c *Cache) over() bool { return c.Used() > c.budget }

// stEntry is one key of a state table held in memory: a row, or none for
// a key known to be absent (a deletion not yet durable, or a miss). It
// lives in its table's slab (entries.go) and links to other entries by
// number, so that the collector follows at most its kv and row.
type stEntry struct {
	// kv is the entry's key followed by, in a table that holds its rows
	// encoded (EncodeRows), the row's value encoding (nothing: absent).
	kv  string
	row types.Row // nil: absent (or held encoded, in kv)
	// size is the entry's bytes as the cache counts them.
	size int64
	// flushEpoch is the epoch whose batch holds the entry's last flushed
	// value, until Committed reports that epoch durable; 0 otherwise.
	flushEpoch uint64
	seq        uint64 // cache generation at the last access
	// klen is the key's length in kv.
	klen int32
	// id is the entry's number in the slab; prev and next its
	// neighbours in the LRU list (noEntry: none).
	id, prev, next int32
	// tag is the key's hash in the index.
	tag uint32

	// dirty: written since the last Commit (in the open epoch).
	dirty bool
	// inOverlay: the entry is dirty or flushed and not durable, so it is
	// in the table's overlay (sorted or not yet) and not in its LRU list.
	inOverlay bool
	// inTree: the entry is in the overlay's B-tree.
	inTree bool
	// gone: the entry has left memory (evicted, spilled or dropped once
	// durable); a stale reference in unsorted or flushed is skipped.
	gone bool
	// fresh: the key had no row when the entry was made (in a table
	// held whole), and none of its writes has left memory since (into
	// a batch or a spill area): were it deleted before it does, there
	// is nothing to delete in storage.
	fresh bool
}

// key returns the entry's key (encoded, without the table's prefix).
func (e *stEntry) key() string { return e.kv[:e.klen] }

// enc returns the entry's row encoding in an encoded table ("": none).
func (e *stEntry) enc() string { return e.kv[e.klen:] }

// present reports whether the entry holds a row.
func (e *stEntry) present() bool { return e.row != nil || int(e.klen) < len(e.kv) }

// entryOverhead approximates the bytes of an entry besides its key and
// row: the struct, its map slot and its B-tree or list links.
const entryOverhead = slotBytes + 24

// slotBytes is the memory of an entry's slot in the slab. A released
// slot stays allocated until a new entry reuses it (the slab does not
// shrink), so the table goes on counting it: counted only while held,
// the state of Nexmark q16 fell a third short of its heap (counted 75
// MiB, held 108 MiB in its heap profile, 56 MiB of it the slab).
const slotBytes = int64(unsafe.Sizeof(stEntry{}))

var datumSize = int64(unsafe.Sizeof(types.Datum{}))

func rowSize(r types.Row) int64 {
	n := int64(len(r)) * datumSize
	for i := range r {
		n += int64(len(r[i].S))
		if r[i].D != nil {
			n += 48
		}
	}
	return n
}

// StateTable is the state of one stateful operator (DESIGN.md §4): rows
// keyed by a memcomparable key, stored in the table keyspace of tableID.
// Reads go through an in-memory cache to Pebble; writes stay in memory as
// the epoch's dirty entries until Commit moves them into the
// checkpoint's write batch, so nothing is written to Pebble between
// barriers. The table reads Pebble directly: only its own operator
// writes its keyspace, and its writes not yet durable are held in memory
// and take precedence, so what it sees is its committed state plus its
// own writes.
//
// Keys are rows of the key columns (keyTypes), encoded with
// types.AppendKey (ascending unless SetDesc says otherwise); values are
// whole rows of valueTypes. Rows passed in and returned are shared with
// the table: callers must not modify them (except in a table holding its
// rows encoded: see EncodeRows).
//
// A StateTable belongs to one actor and is not safe for concurrent use.
type StateTable struct {
	db         *DB
	id         uint32
	prefix     []byte
	keyTypes   []types.T
	desc       []bool
	valueTypes []types.T
	cache      *Cache
	// cstats counts this table's cache hits, misses and evictions.
	cstats *TableCacheStats

	// slab holds the entries; index finds those of a key (all but a
	// DropClean table's, which go by no index).
	slab  entrySlab
	index entryIndex
	// The overlay is the entries not yet durable (dirty or flushed into a
	// batch that has not committed), which iteration merges over Pebble:
	// those in the B-tree overlay, in key order, and those in unsorted,
	// which the next iteration moves into the tree first. Writes thus
	// cost no ordered insert unless the table is iterated, and tables
	// written and never scanned (most) never sort anything. unsorted may
	// also hold entries that have left the overlay since (skipped, and
	// pruned at Committed).
	// The B-tree orders entry numbers by their keys; the numbers
	// probeLo and probeHi stand for the keys in probe, to search by.
	overlay  *btreemap.BTreeMap[int32, struct{}]
	probe    [2]string
	unsorted []*stEntry
	dirty    []*stEntry
	flushed  []*stEntry
	// lruHead is the most recently used clean entry; lruTail the least.
	lruHead, lruTail int32
	bytes            int64
	// dropClean: entries leave memory once durable (DropClean).
	dropClean bool
	// encoded: entries hold their rows' value encodings (EncodeRows).
	encoded bool
	// keep, when set, tells the committed rows of this table's partition
	// (SetPartition).
	keep func(types.Row) bool
	// whole: every row of the table that Get can be asked for is an
	// entry (Exclusive), so a key without one has no row and Get does
	// not read Pebble for it. It holds from an Exclusive call that found
	// the keyspace empty until an entry with a row leaves memory. While
	// it holds, clean entries stay in the overlay's B-tree (or in
	// unsorted, on their way into it) too, so that the tree holds every
	// row and iterators read it alone, without Pebble.
	whole bool
	// readPrefix is the key columns AppendRows reads by (SetReadPrefix;
	// 0: none).
	readPrefix int
	// left, once a table held whole lets a row go (whole no longer
	// holds), holds the key of every row that left memory since: a key
	// with neither an entry nor a place in left has no row, and Get
	// answers so without reading Pebble. Its bytes count as the
	// entries' do.
	left *keyFilter
	// unsortedKept is how many entries the last pruneUnsorted kept.
	unsortedKept int
	// sole: no other actor writes the keyspace (SoleWriter);
	// rangeDels are the range deletions not yet durable
	// (state_range.go).
	sole      bool
	rangeDels []rangeDel

	// dirtyBytes is the size of the entries in dirty.
	dirtyBytes int64
	// writes counts the writes taken (Writes).
	writes uint64
	// usedDelta is the change of the entries' bytes not yet added to
	// the cache's count (usedBatch).
	usedDelta int64
	// spillID is the open epoch's spill area (0: none yet); spilled are
	// the areas committed with earlier epochs that the table still reads
	// until Committed tells it they are moved into its rows.
	spillID uint64
	spilled []spillLayer
	// err is a failed early flush, returned by the next Commit.
	err error

	kbuf []byte
	// sbuf and ebuf are AppendRows' scratch for encoded bounds.
	sbuf, ebuf []byte
	// vbuf is the scratch of an encoded table's row encodings, kvbuf
	// of an entry's key and encoding.
	vbuf, kvbuf []byte
	// The last lookup or write: when lastOK holds, the key lkey has the
	// entry last (nil: none), so that a write after a read or a write of
	// the same key (an aggregation's read-modify-write, a join side's
	// update pair) looks it up once. An entry that left memory since is
	// marked gone, and then looked up again.
	lkey   []byte
	last   *stEntry
	lastOK bool
}

// NewStateTable returns the state table tableID of db, with key columns
// keyTypes and rows of valueTypes, whose clean entries count against
// cache.
func NewStateTable(db *DB, tableID uint32, keyTypes, valueTypes []types.T, cache *Cache) *StateTable {
	t := &StateTable{
		db:         db,
		id:         tableID,
		prefix:     TablePrefix(tableID),
		keyTypes:   keyTypes,
		desc:       make([]bool, len(keyTypes)),
		valueTypes: valueTypes,
		cache:      cache,
		cstats:     cache.TableStats(tableID),
		index:      newEntryIndex(),
		lruHead:    noEntry,
		lruTail:    noEntry,
	}
	t.overlay = btreemap.New[int32, struct{}](16, t.compareEntries)
	return t
}

// probeLo and probeHi are the entry numbers that stand for t.probe[0]
// and t.probe[1] in the overlay's B-tree: the bounds and keys it is
// searched by.
const (
	probeLo int32 = -1 - iota
	probeHi
)

// treeKey returns the key of entry number id, or of a probe.
func (t *StateTable) treeKey(id int32) string {
	if id < 0 {
		return t.probe[-1-id]
	}
	return t.slab.at(id).key()
}

// compareEntries orders entry numbers by their keys.
func (t *StateTable) compareEntries(a, b int32) int {
	return strings.Compare(t.treeKey(a), t.treeKey(b))
}

// ge returns the lower bound key >= k of the B-tree.
func (t *StateTable) ge(k string) btreemap.LowerBound[int32] {
	t.probe[0] = k
	return btreemap.GE(probeLo)
}

// lt returns the upper bound key < k of the B-tree.
func (t *StateTable) lt(k string) btreemap.UpperBound[int32] {
	t.probe[1] = k
	return btreemap.LT(probeHi)
}

// SetDesc sets which key columns sort descending (for TopN on ORDER BY
// ... DESC); it must be called before the table is used.
func (t *StateTable) SetDesc(desc []bool) {
	copy(t.desc, desc)
}

// SetReadPrefix declares that the table's reads of several rows go by
// the first n key columns (AppendRows with a prefix of n columns: a join
// side's rows of one join key). A table held whole that lets rows go
// then keeps every row it still holds in its B-tree, and remembers the
// n-column prefixes of the rows that leave along with their keys
// (left): a prefix the filter does not hold has all its rows in memory,
// and AppendRows reads them from the tree alone instead of merging a
// Pebble iterator over every level with it (most probes of a large join
// side, whose state no longer fits, are of keys with no row at all). It
// must be called before the table is used.
func (t *StateTable) SetReadPrefix(n int) {
	if n > 0 && n <= len(t.keyTypes) {
		t.readPrefix = n
	}
}

// treeHoldsAll reports whether every entry the table holds in memory
// belongs in its B-tree: the table is held whole, or its prefix reads
// may be answered from the tree (SetReadPrefix).
func (t *StateTable) treeHoldsAll() bool {
	return t.whole || (t.readPrefix > 0 && t.left != nil)
}

// prefixInMemory reports whether every row of the prefix encoded in
// t.sbuf, of n columns, is an entry in memory: the table was held whole
// and no row of that prefix has left memory since (SetReadPrefix).
func (t *StateTable) prefixInMemory(n int) bool {
	return t.readPrefix > 0 && n == t.readPrefix && t.left != nil && !t.left.mayContain(t.sbuf)
}

// SetPartition makes iterators skip the committed rows for which keep
// returns false. The actors of a parallel fragment share their
// operator's state table keyspace, each holding the rows of its hash
// partition; a scan that is not confined to one partition by its key
// prefix (closing every window below a watermark, say) would otherwise
// also see the rows of the other actors. Rows written by this table
// itself are never filtered, and Get is not affected.
func (t *StateTable) SetPartition(keep func(row types.Row) bool) { t.keep = keep }

// DropClean makes the table keep no clean entries: an entry leaves
// memory as soon as the batch holding its write is durable, and reads
// (Get, and the misses they find) go to Pebble without being cached.
// Writes then go by no index: a key written several times in an epoch
// is held once per write until the epoch is durable (the last write
// wins). It suits tables written blindly, each key about once, and read
// mostly by range scans, whose clean entries would only take the cache
// from tables that are read. It must be called before the table is used.
func (t *StateTable) DropClean() { t.dropClean = true }

// EncodeRows makes the table hold each row in memory as its value
// encoding (what Commit writes to Pebble) instead of a types.Row: a row
// of n columns costs about its encoded bytes instead of n 72-byte
// datums, so several times as many rows fit in the memory budget, and
// Commit copies the encoding without encoding the row again. Reads pay
// for it: Get decodes the row each time (GetCols only the columns
// wanted), and Insert and Update keep no reference to the row passed
// in, which the caller may reuse. It suits tables of many small rows
// read by key (a DISTINCT aggregate's values) and tables written far
// more often than read (a join side, which most probes find no match
// in). It must be called before the table is used.
func (t *StateTable) EncodeRows() { t.encoded = true }

// Exclusive declares that this table is the only writer of the rows
// Get will be asked for (no other code writes its keyspace, and the
// other actors sharing it write keys of their own partitions only), and
// checks whether the keyspace is empty: a new operator's table. If it
// is, every row the table holds is an entry in memory until one leaves
// it (evicted under the memory budget, or spilled), and until then a Get
// of a key without an entry answers "no row" without reading Pebble.
// That is the cost of every new group, join key or distinct value
// otherwise: a Pebble lookup through every level for a key that is not
// there. Iterators then read the rows in memory alone, without opening
// a Pebble iterator (a top-N group's window, a join key's matches). It
// must be called before the table is used.
func (t *StateTable) Exclusive() error {
	if t.dropClean {
		return nil
	}
	it, err := t.db.pdb.NewIter(&pebble.IterOptions{LowerBound: t.prefix, UpperBound: prefixEnd(t.prefix)})
	if err != nil {
		return pgerr.Wrap(pgerr.IOError, err, "opening state table iterator")
	}
	empty := !it.First()
	if err := it.Close(); err != nil {
		return pgerr.Wrap(pgerr.IOError, err, "reading state table")
	}
	t.whole = empty && t.index.len() == 0 && len(t.layers()) == 0
	return nil
}

// ID returns the table's id.
func (t *StateTable) ID() uint32 { return t.id }

// Bytes returns the approximate bytes of the table's in-memory entries.
func (t *StateTable) Bytes() int64 { return t.bytes }

// DirtyLen returns the number of entries written in the open epoch.
func (t *StateTable) DirtyLen() int { return len(t.dirty) }

// Entries returns the number of keys the table holds in memory: its
// rows there, and the deletions and misses it has not forgotten yet.
func (t *StateTable) Entries() int { return t.index.len() }

// Writes returns the number of writes the table has taken (each Insert,
// Update and Delete, each row of a DeletePrefix, each DeleteBefore): a
// reader that keeps rows it read knows they are still the table's while
// the number stays the same. Flushes, commits and evictions change what
// is in memory, not the rows, and do not count.
func (t *StateTable) Writes() uint64 { return t.writes }

// EncodeKey appends the memcomparable encoding of the key columns (or a
// prefix of them) to buf.
func (t *StateTable) EncodeKey(buf []byte, key types.Row) []byte {
	for i, d := range key {
		buf = types.AppendKey(buf, d, t.keyTypes[i], t.desc[i])
	}
	return buf
}

// Get returns the row with the given key, and false when there is none.
func (t *StateTable) Get(key types.Row) (types.Row, bool, error) {
	t.kbuf = t.EncodeKey(t.kbuf[:0], key)
	if t.dropClean {
		// Not yet durable writes are found in the overlay only.
		t.sortOverlay()
		t.probe[0] = bytesView(t.kbuf)
		if id, _, ok := t.overlay.Get(probeLo); ok {
			row, err := t.rowOf(t.slab.at(id))
			return row, row != nil, err
		}
		if t.hidden(t.kbuf) {
			return nil, false, nil
		}
		if row, found, err := t.getSpilled(t.kbuf); found || err != nil {
			return row, row != nil, err
		}
		return getRow(t.db.pdb, nil, t.id, t.kbuf, t.valueTypes)
	}
	return t.getCached(nil, nil)
}

// GetCols is Get for a reader of a few columns: the columns i of the
// row for which want[i] does not hold may be NULL instead of their
// values. In a table holding its rows encoded (EncodeRows) only the
// wanted columns are decoded, into dst's storage when it has room, and
// the row is the caller's; elsewhere it is the table's row, as Get
// returns it.
func (t *StateTable) GetCols(dst types.Row, key types.Row, want []bool) (types.Row, bool, error) {
	if t.dropClean {
		return t.Get(key)
	}
	t.kbuf = t.EncodeKey(t.kbuf[:0], key)
	return t.getCached(dst, want)
}

// getCached looks up the key encoded in t.kbuf through the entries
// (want nil: every column).
func (t *StateTable) getCached(dst types.Row, want []bool) (types.Row, bool, error) {
	t.lkey = append(t.lkey[:0], t.kbuf...)
	t.last, t.lastOK = nil, true
	tag := t.index.tag(bytesView(t.kbuf))
	if e := t.index.get(&t.slab, bytesView(t.kbuf), tag); e != nil {
		t.cstats.Hits.Add(1)
		t.touch(e)
		t.last = e
		// The entry's row or encoding is taken before any eviction,
		// which may give the entry's slot back.
		row, enc := e.row, e.enc()
		if t.cache.over() {
			// Another table raised the pressure: give back idle entries.
			t.maybeEvict()
		}
		if enc != "" {
			row, err := t.decode(dst, enc, want)
			return row, err == nil, err
		}
		return row, row != nil, nil
	}
	t.cstats.Misses.Add(1)
	if t.whole || (t.left != nil && !t.left.mayContain(t.kbuf)) {
		// Known absent, without an entry to remember it by: a write
		// makes one.
		return nil, false, nil
	}
	var row types.Row
	var ok bool
	var err error
	if !t.hidden(t.kbuf) {
		row, ok, err = t.getSpilled(t.kbuf)
		if !ok && err == nil {
			row, ok, err = getRow(t.db.pdb, nil, t.id, t.kbuf, t.valueTypes)
		}
	}
	if err != nil {
		return nil, false, err
	}
	ok = row != nil
	// Misses are cached too: a hash aggregation looks up every new group
	// once before inserting it.
	e := t.newEntry(tag, row)
	t.lruPush(e)
	t.maybeEvict()
	t.last = e
	return row, ok, nil
}

// decode decodes an encoded entry's row (want nil: every column).
func (t *StateTable) decode(dst types.Row, enc string, want []bool) (types.Row, error) {
	b := unsafe.Slice(unsafe.StringData(enc), len(enc))
	if want == nil {
		return types.DecodeRow(b, t.valueTypes)
	}
	return types.DecodeRowCols(dst, b, t.valueTypes, want)
}

// rowOf returns the row an entry holds (nil: none), decoding it in an
// encoded table.
func (t *StateTable) rowOf(e *stEntry) (types.Row, error) {
	if enc := e.enc(); enc != "" {
		return t.decode(nil, enc, nil)
	}
	return e.row, nil
}

// Insert sets the row of key in the open epoch. It is Update under
// another name: operators say which one they mean.
func (t *StateTable) Insert(key, row types.Row) { t.set(key, row) }

// Update sets the row of key in the open epoch.
func (t *StateTable) Update(key, row types.Row) { t.set(key, row) }

// Delete removes the row of key in the open epoch (a no-op when there is
// none).
func (t *StateTable) Delete(key types.Row) { t.set(key, nil) }

// DeletePrefix removes every row whose key starts with prefix (the first
// len(prefix) key columns) in the open epoch, as Delete of each would.
// It works whatever the rows hold, since it deletes by the encoded keys
// an iteration finds.
func (t *StateTable) DeletePrefix(prefix types.Row) error {
	var keys []string
	if t.whole && !t.dropClean {
		// Every row is in the B-tree: its keys, without an iterator.
		t.sbuf = t.EncodeKey(t.sbuf[:0], prefix)
		hi := btreemap.Max[int32]()
		if end := prefixEnd(t.sbuf); end != nil {
			hi = t.lt(string(end))
		}
		t.sortOverlay()
		t.overlay.AscendFunc(t.ge(string(t.sbuf)), hi, func(id int32, _ struct{}) bool {
			if e := t.slab.at(id); e.present() {
				keys = append(keys, e.key())
			}
			return true
		})
		for _, k := range keys {
			t.kbuf = append(t.kbuf[:0], k...)
			t.setEncoded(nil)
		}
		return nil
	}
	it := t.Iter(prefix, false)
	for {
		r, err := it.Next()
		if err != nil {
			it.Close()
			return err
		}
		if r == nil {
			break
		}
		keys = append(keys, string(it.Key()))
	}
	it.Close()
	for _, k := range keys {
		t.kbuf = append(t.kbuf[:0], k...)
		t.setEncoded(nil)
	}
	return nil
}

// DeleteKey removes the row of an encoded key (as RowIter.Key returns
// it) in the open epoch, as Delete of the key's columns would. It must
// not be called while an iterator of the table is open.
func (t *StateTable) DeleteKey(key []byte) {
	t.kbuf = append(t.kbuf[:0], key...)
	t.setEncoded(nil)
}

func (t *StateTable) set(key, row types.Row) {
	t.kbuf = t.EncodeKey(t.kbuf[:0], key)
	t.setEncoded(row)
}

// setEncoded sets the row of the key encoded in t.kbuf.
func (t *StateTable) setEncoded(row types.Row) {
	t.writes++
	var enc []byte
	if t.encoded && row != nil {
		t.vbuf = types.AppendRow(t.vbuf[:0], row, t.valueTypes)
		enc, row = t.vbuf, nil
	}
	if t.dropClean {
		// Each write is an entry of its own, found by no index: the
		// overlay's sort, and Commit writing the epoch's entries in
		// order, let the last write of a key win.
		e := t.allocEntry()
		t.setKV(e, t.kbuf, enc)
		e.row, e.seq, e.dirty, e.inOverlay = row, t.cache.gen.Load(), true, true
		t.account(e)
		t.dirty = append(t.dirty, e)
		t.dirtyBytes += e.size
		t.unsorted = append(t.unsorted, e)
		if t.cache.over() {
			t.maybeEvict()
			t.maybeSpill()
		}
		return
	}
	var e *stEntry
	tag, tagged := uint32(0), false
	if t.lastOK && string(t.lkey) == string(t.kbuf) &&
		(t.last == nil || (!t.last.gone && t.last.key() == string(t.kbuf))) {
		// Read just before: the entry (or its absence) is known. (An
		// entry that left memory since may have given its slot to
		// another key.)
		e = t.last
	} else {
		tag, tagged = t.index.tag(bytesView(t.kbuf)), true
		e = t.index.get(&t.slab, bytesView(t.kbuf), tag)
	}
	t.lastOK = false
	if e == nil {
		if !tagged {
			tag = t.index.tag(bytesView(t.kbuf))
		}
		e = t.newEntry(tag, nil)
		// A whole table holds every row: the key has none.
		e.fresh = t.whole
	} else if !e.inOverlay {
		t.lruRemove(e)
	}
	if !e.inOverlay {
		e.inOverlay = true
		t.unsorted = append(t.unsorted, e)
	}
	t.resize(e, row, len(enc))
	if len(enc) != 0 || int(e.klen) < len(e.kv) {
		// A new encoding, or none after one: the old one is let go.
		t.setKV(e, t.kbuf, enc)
	}
	e.row = row
	e.seq = t.cache.gen.Load()
	if !e.dirty {
		e.dirty = true
		t.dirty = append(t.dirty, e)
		t.dirtyBytes += e.size
	}
	// A write of the same key next (a join side's update pair, its
	// deletion then its insertion) finds the entry without a lookup.
	t.lkey = append(t.lkey[:0], t.kbuf...)
	t.last, t.lastOK = e, true
	if t.cache.over() {
		t.maybeEvict()
		t.maybeSpill()
	}
}

// setKV sets e's key and encoding (none: empty), in one string.
func (t *StateTable) setKV(e *stEntry, key, enc []byte) {
	e.klen = int32(len(key))
	if len(enc) == 0 {
		e.kv = string(key)
		return
	}
	t.kvbuf = append(append(t.kvbuf[:0], key...), enc...)
	e.kv = string(t.kvbuf)
}

// maybeSpill flushes the dirty entries early when the cache is over its
// budget after evicting clean entries and this table holds enough of
// them to be worth a flush.
func (t *StateTable) maybeSpill() {
	if t.err != nil || !t.cache.over() || t.dirtyBytes < t.cache.SpillMin() {
		return
	}
	t.err = t.spill(0)
}

// Commit writes the open epoch's dirty entries into b, the checkpoint's
// batch of epoch, and starts the next epoch. The entries stay in memory,
// and cannot be evicted, until Committed(epoch) reports the batch
// durable.
func (t *StateTable) Commit(b *Batch, epoch uint64) error {
	if err := b.check(); err != nil {
		return err
	}
	if t.err != nil {
		return t.err
	}
	t.flushUsed()
	if t.spillID != 0 || t.dirtyBytes >= max(t.cache.OperatorBuffer(), t.cache.budget-t.cache.Used()) {
		// The epoch flushed early: the rest of its writes join its spill
		// area, which the batch's mark commits. Were they written into
		// the batch, moving the area after it would undo them. An epoch
		// that wrote more than an operator's share of the budget (see
		// OperatorBuffer) and more than the budget has left takes the
		// same way, in bounded pieces: in the batch, its writes would be
		// in memory twice over until the commit, as entries and in the
		// batch. Within what the budget has left, the batch is the
		// cheaper way: the area writes every row twice (into the area,
		// then into the table), and Pebble flushes and compacts both.
		//
		// Under the budget, the entries stay in memory as if their
		// writes were in the batch (flushed, clean once the epoch is
		// durable): only the batch's copies are saved. A table holding
		// all its rows then stays whole, and its next epochs' new keys
		// cost no Pebble lookup.
		keep := uint64(0)
		if !t.cache.over() {
			keep = epoch
		}
		if err := t.spill(keep); err != nil {
			return err
		}
		ref := spillRef{table: t.id, id: t.spillID}
		if err := b.setSpillMark(ref, epoch); err != nil {
			return err
		}
		t.spilled = append(t.spilled, spillLayer{ref: ref, epoch: epoch})
		t.spillID = 0
	}
	t.dirtyBytes = 0
	if err := t.commitRanges(b, epoch); err != nil {
		return err
	}
	for _, e := range t.dirty {
		// Pebble copies keys and values into the batch.
		k := append(t.kbuf[:0], t.prefix...)
		k = append(k, e.key()...)
		enc := e.enc()
		var err error
		switch {
		case !e.present() && e.fresh:
			// Written and deleted before any of it reached storage (a
			// row a top-N window pushed out at the barrier that
			// brought it in): a tombstone would only cost Pebble
			// writes and compactions.
		case enc != "":
			e.fresh = false
			b.buf = append(b.buf[:0], enc...)
			err = b.b.Set(k, b.buf, nil)
		case e.row == nil:
			err = b.b.Delete(k, nil)
		default:
			e.fresh = false
			b.buf = types.AppendRow(b.buf[:0], e.row, t.valueTypes)
			err = b.b.Set(k, b.buf, nil)
		}
		t.kbuf = k
		if err != nil {
			return wrapWrite(err)
		}
		e.dirty = false
		e.flushEpoch = epoch
		t.flushed = append(t.flushed, e)
	}
	clear(t.dirty)
	t.dirty = t.dirty[:0]
	b.recount()
	return nil
}

// Committed reports that the batches of every epoch up to epoch are
// durable: the entries they hold become clean cache entries, which may
// be evicted. The operator calls it when it learns of the commit (a
// barrier is injected only after the previous one committed, so a
// barrier's Epoch.Prev is durable by the time the barrier arrives).
func (t *StateTable) Committed(epoch uint64) {
	defer t.flushUsed()
	// Batch.Commit moved the spill areas of committed epochs into the
	// table's rows before the commit returned.
	ls := t.spilled[:0]
	for _, l := range t.spilled {
		if l.epoch > epoch {
			ls = append(ls, l)
		}
	}
	t.spilled = ls
	t.committedRanges(epoch)
	keep := t.flushed[:0]
	for _, e := range t.flushed {
		switch {
		case e.flushEpoch == 0:
			// Made clean through an earlier occurrence in the list.
		case e.flushEpoch > epoch:
			keep = append(keep, e)
		default:
			e.flushEpoch = 0
			if !e.dirty {
				e.inOverlay = false
				if e.inTree && !t.treeHoldsAll() {
					e.inTree = false
					t.overlay.Delete(e.id)
				}
				if t.dropClean || (t.whole && !e.present()) {
					// A whole table answers "no row" for a key without an
					// entry: a durable deletion there would only stay in
					// the B-tree for every later range scan to step over
					// (a windowed aggregation closing its windows would
					// visit all the groups it ever closed).
					t.drop(e)
				} else {
					t.lruPush(e)
				}
			}
		}
	}
	clear(t.flushed[len(keep):])
	t.flushed = keep
	t.pruneUnsorted()
	t.maybeEvict()
}

// inMemTree reports whether e belongs in the B-tree: it is in the
// overlay, or the table is whole and e is still in memory.
func (t *StateTable) inMemTree(e *stEntry) bool {
	return !e.gone && (e.inOverlay || t.treeHoldsAll())
}

// pruneUnsorted drops the entries that left the overlay from unsorted.
// In a whole table, every entry stays in unsorted until an iterator
// sorts it and only a deleted one leaves, so a prune at every commit
// would read all of them each time (quadratic in a table written key by
// key, an epoch at a time, and never iterated): there it waits until
// unsorted has doubled since the last one.
func (t *StateTable) pruneUnsorted() {
	if t.treeHoldsAll() && len(t.unsorted) < 2*t.unsortedKept+64 {
		return
	}
	defer func() { t.unsortedKept = len(t.unsorted) }()
	keep := t.unsorted[:0]
	for _, e := range t.unsorted {
		if t.inMemTree(e) && !e.inTree {
			keep = append(keep, e)
		}
	}
	clear(t.unsorted[len(keep):])
	t.unsorted = keep
}

// sortOverlay moves the unsorted overlay entries into the B-tree. In a
// DropClean table, where a key may have several entries, unsorted lists
// them in the order they were written and each replaces the one before.
func (t *StateTable) sortOverlay() {
	for _, e := range t.unsorted {
		if t.inMemTree(e) && !e.inTree {
			e.inTree = true
			if old, _, replaced := t.overlay.ReplaceOrInsert(e.id, struct{}{}); replaced && old != e.id {
				t.slab.at(old).inTree = false
			}
		}
	}
	clear(t.unsorted)
	t.unsorted = t.unsorted[:0]
	t.unsortedKept = 0
}

// Iter returns an iterator over the rows whose keys start with prefix
// (the first len(prefix) key columns; empty for all), merging the
// committed state with the table's writes not yet durable, in key order,
// or in reverse key order when reverse is set. It sees the table as of
// the call; later writes do not affect it.
func (t *StateTable) Iter(prefix types.Row, reverse bool) RowIter {
	lo := t.EncodeKey(nil, prefix)
	return t.iter(lo, prefixEnd(TableKey(t.id, lo)), reverse)
}

// IterRange is Iter over the keys k with lo <= k < hi, comparing encoded
// keys: a partial hi excludes every key starting with it. A nil lo or hi
// leaves that end open.
func (t *StateTable) IterRange(lo, hi types.Row, reverse bool) RowIter {
	var hiKey []byte
	if hi != nil {
		hiKey = TableKey(t.id, t.EncodeKey(nil, hi))
	} else {
		hiKey = prefixEnd(t.prefix)
	}
	return t.iter(t.EncodeKey(nil, lo), hiKey, reverse)
}

// AppendRows appends the rows whose keys start with prefix to dst, in
// key order, as Iter(prefix, false) returns them, and returns dst. A
// table held whole reads them from its B-tree alone, without building
// an iterator or a snapshot of its entries.
func (t *StateTable) AppendRows(dst []types.Row, prefix types.Row) ([]types.Row, error) {
	if t.dropClean {
		return appendAll(dst, t.Iter(prefix, false))
	}
	// The bounds view the table's buffers rather than copy them: a probe
	// of a join side is one call, and nothing the walk does writes
	// them.
	t.sbuf = t.EncodeKey(t.sbuf[:0], prefix)
	if !t.whole {
		if !t.prefixInMemory(len(prefix)) {
			return appendAll(dst, t.Iter(prefix, false))
		}
		t.cstats.PrefixHits.Add(1)
	}
	hi := btreemap.Max[int32]()
	var ok bool
	if t.ebuf, ok = appendPrefixEnd(t.ebuf[:0], t.sbuf); ok {
		hi = t.lt(bytesView(t.ebuf))
	}
	return t.appendTree(dst, t.ge(bytesView(t.sbuf)), hi)
}

// bytesView returns b as a string without copying it; b must not change
// while the string is in use.
func bytesView(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// AppendRange is AppendRows over the keys k with lo <= k < hi, as
// IterRange(lo, hi, false) returns them.
func (t *StateTable) AppendRange(dst []types.Row, lo, hi types.Row) ([]types.Row, error) {
	if !t.whole || t.dropClean {
		return appendAll(dst, t.IterRange(lo, hi, false))
	}
	hiB := btreemap.Max[int32]()
	if hi != nil {
		t.sbuf = t.EncodeKey(t.sbuf[:0], hi)
		hiB = t.lt(string(t.sbuf))
	}
	t.sbuf = t.EncodeKey(t.sbuf[:0], lo)
	return t.appendTree(dst, t.ge(string(t.sbuf)), hiB)
}

// Scan calls fn with the key (encoded, without the table's prefix) and
// the row of each row whose key starts with prefix, in key order, as
// Iter(prefix, false) returns them, until fn returns false. A table held
// whole, or whose rows of the prefix are all in memory (SetReadPrefix),
// walks its B-tree alone, without building an iterator or a snapshot of
// its entries. fn must not write to the table; the row is
// shared with the table, as Iter's are.
func (t *StateTable) Scan(prefix types.Row, fn func(key string, row types.Row) bool) error {
	if !t.dropClean {
		t.sbuf = t.EncodeKey(t.sbuf[:0], prefix)
	}
	inMemory := !t.dropClean && !t.whole && t.prefixInMemory(len(prefix))
	if inMemory {
		t.cstats.PrefixHits.Add(1)
	}
	if t.dropClean || (!t.whole && !inMemory) {
		it := t.Iter(prefix, false)
		defer it.Close()
		for {
			r, err := it.Next()
			if err != nil || r == nil {
				return err
			}
			if !fn(string(it.Key()), r) {
				return nil
			}
		}
	}
	hi := btreemap.Max[int32]()
	if end := prefixEnd(t.sbuf); end != nil {
		hi = t.lt(string(end))
	}
	t.sortOverlay()
	var err error
	t.overlay.AscendFunc(t.ge(string(t.sbuf)), hi, func(id int32, _ struct{}) bool {
		e := t.slab.at(id)
		if !e.present() {
			return true
		}
		var row types.Row
		if row, err = t.rowOf(e); err != nil {
			return false
		}
		return fn(e.key(), row)
	})
	return err
}

// appendTree appends the rows of the B-tree between lo and hi to dst: in
// a table held whole, all its rows.
func (t *StateTable) appendTree(dst []types.Row, lo btreemap.LowerBound[int32], hi btreemap.UpperBound[int32]) ([]types.Row, error) {
	t.sortOverlay()
	var err error
	t.overlay.AscendFunc(lo, hi, func(id int32, _ struct{}) bool {
		if e := t.slab.at(id); e.present() {
			var row types.Row
			row, err = t.rowOf(e)
			dst = append(dst, row)
		}
		return err == nil
	})
	return dst, err
}

// appendAll appends the rows of it to dst and closes it.
func appendAll(dst []types.Row, it RowIter) ([]types.Row, error) {
	defer it.Close()
	for {
		r, err := it.Next()
		if err != nil || r == nil {
			return dst, err
		}
		dst = append(dst, r)
	}
}

// iter merges Pebble's rows in [prefix+lo, hiFull) with the overlay's.
func (t *StateTable) iter(lo, hiFull []byte, reverse bool) RowIter {
	it := &stateIter{reverse: reverse, prefix: len(t.prefix), ts: t.valueTypes, keep: t.keep}
	t.sortOverlay()
	loB := t.ge(string(lo))
	hiB := btreemap.Max[int32]()
	if hiFull != nil && bytes.HasPrefix(hiFull, t.prefix) {
		hiB = t.lt(string(hiFull[len(t.prefix):]))
	}
	collect := func(id int32, _ struct{}) bool {
		e := t.slab.at(id)
		it.ovl = append(it.ovl, ovlRow{key: e.key(), row: e.row, enc: e.enc()})
		return true
	}
	if reverse {
		t.overlay.DescendFunc(hiB, loB, collect)
	} else {
		t.overlay.AscendFunc(loB, hiB, collect)
	}
	if t.whole {
		// The tree holds every row: Pebble has nothing more.
		it.lv = &levels{cur: -1}
		return it
	}
	// The spill areas are opened before the table's rows: an area moved
	// into the rows in between is then seen in both, never in neither.
	var hiSuffix []byte
	if hiFull != nil && bytes.HasPrefix(hiFull, t.prefix) {
		hiSuffix = hiFull[len(t.prefix):]
	}
	spills, err := t.spillIters(lo, hiSuffix)
	if err != nil {
		it.done, it.err = true, err
		return it
	}
	pit, err := t.db.pdb.NewIter(&pebble.IterOptions{LowerBound: TableKey(t.id, lo), UpperBound: hiFull})
	if err != nil {
		for _, s := range spills {
			_ = s.Close()
		}
		it.done, it.err = true, pgerr.Wrap(pgerr.IOError, err, "opening state table iterator")
		return it
	}
	it.lv = newLevels(spills, len(spillRef{}.prefix()), pit, len(t.prefix), reverse)
	if len(t.rangeDels) > 0 {
		it.hide = append([]rangeDel(nil), t.rangeDels...)
	}
	return it
}

type ovlRow struct {
	key string
	row types.Row
	// enc is the row's encoding in an encoded table (EncodeRows).
	enc string
}

// stateIter merges a Pebble iterator with a snapshot of the overlay; on
// equal keys the overlay wins, and an overlay deletion hides the row.
type stateIter struct {
	lv      *levels
	ovl     []ovlRow
	i       int
	reverse bool
	prefix  int
	ts      []types.T
	started bool
	done    bool
	err     error
	key     []byte
	keep    func(types.Row) bool
	// hide are the table's pending range deletions (state_range.go):
	// Pebble's and the spill areas' rows in them are deleted.
	hide []rangeDel
}

func (s *stateIter) Next() (types.Row, error) {
	if s.done {
		return nil, s.err
	}
	if !s.started {
		s.started = true
		s.lv.first()
	}
	for {
		pv := s.lv.valid()
		ov := s.i < len(s.ovl)
		if !pv && !ov {
			if err := s.lv.err(); err != nil {
				s.err = pgerr.Wrap(pgerr.IOError, err, "reading state table")
			}
			s.done = true
			return nil, s.err
		}
		c := 0
		switch {
		case !pv:
			c = 1
		case !ov:
			c = -1
		default:
			c = strings.Compare(string(s.lv.key(s.lv.cur)), s.ovl[s.i].key)
			if s.reverse {
				c = -c
			}
		}
		if c < 0 && s.hide != nil && hiddenIn(s.hide, s.lv.key(s.lv.cur)) {
			s.lv.next()
			continue
		}
		if c < 0 {
			s.key = append(s.key[:0], s.lv.key(s.lv.cur)...)
			own := s.lv.own()
			v, isRow, err := s.lv.value()
			if err == nil {
				if !isRow {
					s.lv.next()
					continue
				}
				var row types.Row
				if row, err = types.DecodeRow(v, s.ts); err == nil {
					s.lv.next()
					if !own && s.keep != nil && !s.keep(row) {
						continue
					}
					return row, nil
				}
			}
			s.done, s.err = true, pgerr.Wrap(pgerr.IOError, err, "reading state table")
			return nil, s.err
		}
		if c == 0 {
			s.lv.next()
		}
		o := s.ovl[s.i]
		s.i++
		if o.enc != "" {
			row, err := types.DecodeRow(unsafe.Slice(unsafe.StringData(o.enc), len(o.enc)), s.ts)
			if err != nil {
				s.done, s.err = true, err
				return nil, err
			}
			s.key = append(s.key[:0], o.key...)
			return row, nil
		}
		if o.row != nil {
			s.key = append(s.key[:0], o.key...)
			return o.row, nil
		}
	}
}

func (s *stateIter) Key() []byte { return s.key }

func (s *stateIter) Close() {
	if s.lv != nil {
		s.lv.close()
		s.lv = nil
	}
	s.done = true
}

// newEntry adds an entry for the key in t.kbuf, whose hash in the
// index is tag, to the index (the caller puts it in the overlay or the
// LRU list) and accounts its bytes.
func (t *StateTable) newEntry(tag uint32, row types.Row) *stEntry {
	e := t.allocEntry()
	var enc []byte
	if t.encoded && row != nil {
		t.vbuf = types.AppendRow(t.vbuf[:0], row, t.valueTypes)
		enc, row = t.vbuf, nil
	}
	t.setKV(e, t.kbuf, enc)
	e.row, e.seq, e.tag = row, t.cache.gen.Load(), tag
	t.index.put(e)
	t.account(e)
	return e
}

// allocEntry returns a new, empty entry from the slab. A released slot
// it reuses was still counted (slotBytes): account counts it again with
// the entry.
func (t *StateTable) allocEntry() *stEntry {
	if len(t.slab.free) > 0 {
		t.bytes -= slotBytes
		t.addUsed(-slotBytes)
	}
	return t.slab.alloc()
}

// releaseEntry gives e's slot back to the slab and takes e's bytes out
// of the count but for its slot, which stays allocated (slotBytes).
func (t *StateTable) releaseEntry(e *stEntry) {
	t.bytes -= e.size - slotBytes
	t.cache.used.Add(-(e.size - slotBytes))
	t.slab.release(e)
}

// account sizes a new entry and adds its bytes to the table's and the
// cache's.
func (t *StateTable) account(e *stEntry) {
	e.size = entryOverhead + int64(len(e.kv)) + rowSize(e.row)
	t.bytes += e.size
	t.addUsed(e.size)
}

// addUsed adds d bytes to the cache's count, at once when the table's
// changes not yet passed on reach usedBatch.
func (t *StateTable) addUsed(d int64) {
	t.usedDelta += d
	if t.usedDelta >= usedBatch || t.usedDelta <= -usedBatch {
		t.flushUsed()
	}
}

// flushUsed passes the table's changes of bytes on to the cache's count.
func (t *StateTable) flushUsed() {
	if t.usedDelta != 0 {
		t.cache.used.Add(t.usedDelta)
		t.usedDelta = 0
	}
}

func (t *StateTable) resize(e *stEntry, row types.Row, encLen int) {
	n := entryOverhead + int64(e.klen) + rowSize(row) + int64(encLen)
	if d := n - e.size; d != 0 {
		e.size = n
		t.bytes += d
		t.addUsed(d)
		if e.dirty {
			t.dirtyBytes += d
		}
	}
}

// touch records an access to e: it becomes the most recently used clean
// entry and is stamped with the cache's generation.
func (t *StateTable) touch(e *stEntry) {
	e.seq = t.cache.gen.Load()
	if !e.inOverlay && t.lruHead != e.id {
		t.lruRemove(e)
		t.lruPush(e)
	}
}

func (t *StateTable) lruPush(e *stEntry) {
	e.prev, e.next = noEntry, t.lruHead
	if t.lruHead != noEntry {
		t.slab.at(t.lruHead).prev = e.id
	} else {
		t.lruTail = e.id
	}
	t.lruHead = e.id
}

func (t *StateTable) lruRemove(e *stEntry) {
	if e.prev != noEntry {
		t.slab.at(e.prev).next = e.next
	} else {
		t.lruHead = e.next
	}
	if e.next != noEntry {
		t.slab.at(e.next).prev = e.prev
	} else {
		t.lruTail = e.prev
	}
	e.prev, e.next = noEntry, noEntry
}

// inLRU reports whether e is in the LRU list.
func (t *StateTable) inLRU(e *stEntry) bool {
	return e.prev != noEntry || e.next != noEntry || t.lruHead == e.id
}

func (t *StateTable) evict(e *stEntry) {
	t.cstats.Evictions.Add(1)
	t.lruRemove(e)
	t.drop(e)
}

// drop forgets an entry that is in neither the overlay nor the LRU list,
// and gives its slot back. Its row, if any, is then in Pebble only (or a
// spill area): the table is no longer whole, and a table that was
// remembers the key in left. An entry without a row leaves nothing
// behind.
func (t *StateTable) drop(e *stEntry) {
	if e.present() {
		if t.whole {
			t.whole = false
			t.left = newKeyFilter()
		}
		t.remember(e.key())
	}
	if e.inTree {
		// A clean entry of a whole table.
		e.inTree = false
		t.overlay.Delete(e.id)
	}
	if !t.dropClean {
		t.index.del(e)
	}
	t.releaseEntry(e)
}

// remember adds the key of a row leaving memory to left. A new filter
// it needs counts against the cache's budget, and the filters of all
// tables may take a quarter of it at most: past that, the table forgets
// its filter and reads Pebble for every key without an entry, as a
// table never held whole does.
func (t *StateTable) remember(key string) {
	t.rememberKey(key)
	if t.readPrefix > 0 && t.left != nil {
		// And the key's first readPrefix columns, for AppendRows.
		b := unsafe.Slice(unsafe.StringData(key), len(key))
		rest := b
		for i := range t.readPrefix {
			var err error
			if _, rest, err = types.DecodeKey(rest, t.keyTypes[i], t.desc[i]); err != nil {
				// Unreadable (it never is): no read trusts the
				// filter's prefixes any more.
				t.readPrefix = 0
				return
			}
		}
		t.rememberKey(key[:len(b)-len(rest)])
	}
}

// rememberKey adds key to left.
func (t *StateTable) rememberKey(key string) {
	if t.left == nil {
		return
	}
	if t.left.full() {
		first := max(int(t.cache.budget/2048*8/filterBitsPerKey), 64)
		n := t.left.nextBytes(first)
		if t.cache.filters.Load()+n > t.cache.budget/4 {
			n = -t.left.bytes()
			t.left = nil
		} else {
			t.left.grow(first)
		}
		t.bytes += n
		t.cache.used.Add(n)
		t.cache.filters.Add(n)
		if t.left == nil {
			return
		}
	}
	t.left.add(key)
}

// Release gives the table's memory back to the cache, its entries' and
// its key filter's, and empties it: its operator has stopped (its view
// was dropped, or its job is being recovered), and no read or write of
// the table follows. Without it the cache went on counting a stopped
// operator's entries, and all other tables evicted as if they held
// them.
func (t *StateTable) Release() {
	t.flushUsed()
	t.cache.used.Add(-t.bytes)
	if t.left != nil {
		t.cache.filters.Add(-t.left.bytes())
		t.left = nil
	}
	t.bytes, t.dirtyBytes = 0, 0
	t.slab, t.index = entrySlab{}, newEntryIndex()
	t.overlay = btreemap.New[int32, struct{}](16, t.compareEntries)
	t.unsorted, t.dirty, t.flushed = nil, nil, nil
	t.lruHead, t.lruTail = noEntry, noEntry
	t.last, t.lastOK = nil, false
	t.whole = false
}

// maybeEvict brings the cache under its budget if it is over: first by
// evicting this table's clean entries idle since the last pressure
// (generation), then, raising the generation so that other tables give
// back their idle entries too, by evicting this table's least recently
// used clean entries.
func (t *StateTable) maybeEvict() {
	// Evictions change the count at once (drop): the loops below stop
	// as soon as it is under the budget.
	t.flushUsed()
	if !t.cache.over() {
		return
	}
	gen := t.cache.gen.Load()
	for t.lruTail != noEntry && t.slab.at(t.lruTail).seq < gen && t.cache.over() {
		t.evict(t.slab.at(t.lruTail))
	}
	if !t.cache.over() {
		return
	}
	t.cache.gen.Add(1)
	for t.lruTail != noEntry && t.cache.over() {
		t.evict(t.slab.at(t.lruTail))
	}
}

// StateTables is the set of state tables of one operator. The operator
// creates its tables through New (or registers them with Add) once, and
// commits all of them with one call to Barrier, so no table can be left
// out of a checkpoint, or keep entries pinned in memory because nobody
// told it its epoch committed. The zero value is an empty set.
type StateTables struct {
	ts []*StateTable
}

// New returns a new state table registered in the set; see
// NewStateTable.
func (s *StateTables) New(db *DB, tableID uint32, keyTypes, valueTypes []types.T, cache *Cache) *StateTable {
	return s.Add(NewStateTable(db, tableID, keyTypes, valueTypes, cache))
}

// Add registers t in the set and returns it.
func (s *StateTables) Add(t *StateTable) *StateTable {
	s.ts = append(s.ts, t)
	return t
}

// Barrier is what an operator does with its state on a barrier: it
// reports epoch prev durable to every table (Committed) and then moves
// every table's dirty entries into b, the checkpoint batch of epoch curr
// (Commit).
func (s *StateTables) Barrier(b *Batch, prev, curr uint64) error {
	for _, t := range s.ts {
		t.Committed(prev)
	}
	for _, t := range s.ts {
		if err := t.Commit(b, curr); err != nil {
			return err
		}
	}
	return nil
}
