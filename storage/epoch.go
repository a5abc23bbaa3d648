package storage

import (
	"encoding/binary"

	"github.com/weirdb/weir/internal/pgerr"
)

// MetaCommittedEpoch is the metadata entry holding the last committed
// checkpoint epoch (8 bytes big-endian). A checkpoint writes it in the
// same batch as its write sets, so it names exactly the state on disk.
const MetaCommittedEpoch = "committed_epoch"

// SetCommittedEpoch records epoch as the committed checkpoint epoch, in
// the batch that holds the checkpoint's write sets.
func (b *Batch) SetCommittedEpoch(epoch uint64) error {
	return b.SetMeta(MetaCommittedEpoch, binary.BigEndian.AppendUint64(nil, epoch))
}

// CommittedEpoch returns the last committed checkpoint epoch, 0 when no
// checkpoint has committed yet. Recovery restores state as of it.
func (db *DB) CommittedEpoch() (uint64, error) {
	return db.metaUint64(MetaCommittedEpoch, "committed epoch")
}

// metaUint64 returns the 8-byte big-endian metadata value name (what
// names it in the error when it is corrupt), 0 when there is none.
func (db *DB) metaUint64(name, what string) (uint64, error) {
	v, ok, err := db.Meta(name)
	if err != nil || !ok {
		return 0, err
	}
	if len(v) != 8 {
		return 0, pgerr.New(pgerr.DataCorrupted, "corrupt %s (%d bytes)", what, len(v))
	}
	return binary.BigEndian.Uint64(v), nil
}
