package storage

import "encoding/binary"

// Keyspace prefixes: the first byte of every key says which keyspace it
// belongs to. Table data comes last so that one table's rows form one
// contiguous range that a range deletion can drop.
const (
	// PrefixCatalog holds the catalog's entries; their layout below the
	// prefix belongs to package sql/catalog.
	PrefixCatalog byte = 0x01
	// PrefixMeta holds named metadata: the committed epoch and the id
	// counters' high-water marks (see MetaKey).
	PrefixMeta byte = 0x02
	// PrefixSourceOffset holds each source split's committed offset
	// (see SourceOffsetKey).
	PrefixSourceOffset byte = 0x03
	// PrefixSinkTxn holds sink transaction records (see SinkTxnKey).
	PrefixSinkTxn byte = 0x04
	// 0x05 and 0x06 are the spill path's (PrefixSpill, PrefixSpillMark).
	// PrefixTable holds table and state table rows (see TableKey).
	PrefixTable byte = 0x10
)

// CatalogKey returns PrefixCatalog followed by sub.
func CatalogKey(sub []byte) []byte {
	return append([]byte{PrefixCatalog}, sub...)
}

// MetaKey returns the key of the metadata entry name.
func MetaKey(name string) []byte {
	return append([]byte{PrefixMeta}, name...)
}

// SourceOffsetKey returns the key of a source split's offset:
// [PrefixSourceOffset][source id, 4 bytes big-endian][split name].
func SourceOffsetKey(sourceID uint32, split string) []byte {
	k := binary.BigEndian.AppendUint32([]byte{PrefixSourceOffset}, sourceID)
	return append(k, split...)
}

// SinkTxnKey returns the key of a sink's transaction record for an epoch:
// [PrefixSinkTxn][sink id, 4 bytes big-endian][epoch, 8 bytes big-endian],
// so a sink's records scan in epoch order.
func SinkTxnKey(sinkID uint32, epoch uint64) []byte {
	k := binary.BigEndian.AppendUint32([]byte{PrefixSinkTxn}, sinkID)
	return binary.BigEndian.AppendUint64(k, epoch)
}

// TablePrefix returns the prefix shared by every row of a table:
// [PrefixTable][table id, 4 bytes big-endian].
func TablePrefix(tableID uint32) []byte {
	return binary.BigEndian.AppendUint32([]byte{PrefixTable}, tableID)
}

// TableKey returns the storage key of the row of tableID whose
// memcomparable key (types.AppendKey of its key columns) is key.
func TableKey(tableID uint32, key []byte) []byte {
	return append(TablePrefix(tableID), key...)
}

// appendPrefixEnd appends prefixEnd(p) to dst; false when there is none
// (p is all 0xff bytes), with dst as it was.
func appendPrefixEnd(dst, p []byte) ([]byte, bool) {
	n := len(dst)
	dst = append(dst, p...)
	for i := len(dst) - 1; i >= n; i-- {
		dst[i]++
		if dst[i] != 0 {
			return dst[:i+1], true
		}
	}
	return dst[:n], false
}

// prefixEnd returns the smallest key greater than every key starting with
// p, or nil when there is none (p is all 0xFF).
func prefixEnd(p []byte) []byte {
	end := append([]byte(nil), p...)
	for i := len(end) - 1; i >= 0; i-- {
		end[i]++
		if end[i] != 0 {
			return end[:i+1]
		}
	}
	return nil
}
