// Package storage is weir's persistence: one Pebble database
// (github.com/cockroachdb/pebble/v2) per data directory, holding the
// catalog, metadata, table and state table rows, source offsets and sink
// transaction records, each in its own keyspace.
//
// # Data directory
//
//	<data-dir>/
//	    LOCK      flock(2)ed by the running weir, holds its pid; a second
//	              weir on the same directory fails with 55006 object_in_use
//	    pebble/   the Pebble database
//
// # Keyspaces
//
// The first byte of a key names its keyspace:
//
//	0x01 catalog        [0x01][catalog-defined suffix]            -> catalog entry (package sql/catalog)
//	0x02 meta           [0x02][name]                              -> value
//	                         "counter/<name>"                     -> next id not yet reserved (8 bytes BE)
//	                         committed epoch, ...
//	0x03 source offset  [0x03][source id u32 BE][split]           -> offset
//	0x04 sink txn       [0x04][sink id u32 BE][epoch u64 BE]      -> transaction record
//	0x10 table / state  [0x10][table id u32 BE][memcomparable key] -> row value
//
// Table rows come last, and a table's rows share the prefix [0x10][id], so
// a whole table is one contiguous range: DROP and TRUNCATE are one range
// deletion. The key suffix is types.AppendKey of the key columns, so an
// iteration in key order is an iteration in SQL order of the key; the
// value is types.AppendRow of the full row.
//
// # Reading and writing
//
// Reads go through a Snapshot (DB.NewSnapshot): a consistent view as of
// one moment, which is how a SELECT sees every table and materialized view
// at the same committed epoch. Writes go into a Batch (DB.NewBatch), which
// reads its own writes over the committed state and is applied atomically
// by Commit; Commit returns only after the write-ahead log is fsynced, so
// an acknowledged batch survives a crash and an unacknowledged one leaves
// no trace.
//
//	b := db.NewBatch()
//	defer b.Close()
//	b.Put(tableID, types.AppendKey(nil, id, types.TInt8, false), row, ts)
//	b.SetMeta("committed_epoch", epochBytes)
//	err := b.Commit() // durable when nil
//
// A failed write or sync of the write-ahead log or MANIFEST is fatal:
// Pebble cannot know what reached the disk, so the process logs the error
// and exits (as Postgres PANICs), and recovery starts from what was synced.
//
// DB.Checkpoint copies the whole database into a new data directory (a
// Pebble checkpoint: hard links where possible); every batch is atomic,
// so the copy holds whole checkpoints only. It is how BACKUP TO works.
//
// The redo log (redo.go) lies beside Pebble, in preallocated segment
// files: the records of DML statements acknowledged before their
// checkpoint, appended in LSN order and fsynced by the first statement
// waiting; a checkpoint's batch records the LSN it holds, and the
// records past it are what a recovery applies again.
//
// Id counters (DB.NextID) hand out relation ids and hidden row ids that are
// never repeated, even across crashes, by durably reserving them a block
// at a time.
//
// # State tables
//
// A StateTable (state_table.go) holds one stateful operator's state
// (DESIGN.md §4): a read-through cache over the table's keyspace plus the
// epoch's dirty entries, moved into the checkpoint's batch on a barrier.
// All state tables share one memory budget (Cache) that evicts clean
// entries only. A table its operator declares the only writer of its
// keyspace (Exclusive) and that starts empty holds every row in memory
// until one is evicted: until then a key without an entry has no row,
// and the table does not ask Pebble. (A table's entries live in a slab
// of fixed chunks, entries.go: each entry's key and encoding in one
// string, found by an open-addressing index of integers and linked into
// the LRU list and the overlay's B-tree by number, so that the garbage
// collector follows one pointer per entry however many the state
// holds.) From then on it remembers the keys
// of the rows that leave memory in a Bloom filter that grows with them
// (keyfilter.go, counted in the budget, all tables' filters a quarter
// of it at most): a key without an entry that the filter does not hold
// has no row either, so a new group or distinct value still costs no
// Pebble lookup. A table may hold its rows as their
// value encodings (EncodeRows), a few dozen bytes where a row of datums
// takes 72 per column, so that more of them fit in the budget, decoded
// at each read: the values of a DISTINCT aggregate, many small rows read
// by key, a join side, whose rows are written once and mostly never
// read again, and a top-N's rows, read a group's window at a time. In a table held whole, a row written and deleted before it
// reaches a batch or a spill area leaves no tombstone behind. A table
// that is its keyspace's sole writer (one actor) deletes the rows below
// a watermark with one Pebble range deletion (DeleteBefore,
// state_range.go), which its reads of Pebble honour until it is durable:
// an aggregation closing windows, a join dropping rows below its clean
// bound.
package storage
