package kafka

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"maps"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// A Kafka broker keeps an ongoing transaction across its own restart: the
// transaction's state is in __transaction_state, and it stays open until
// its producer ends it or transaction.timeout.ms passes. kfake saves open
// transactions only on a clean Close (session_state.json); restarted on
// its data directory after a crash, it aborts every transaction that was
// open, without a marker, and bumps the producer's epoch. A sink that
// pre-committed a transaction in a checkpoint can then never commit it:
// a coupled sink loses the epoch.
//
// restoreOpenTxns makes the restart keep them, as Kafka does, before
// kfake loads the directory. It finds in the partitions' segments the
// transactions left open (transactional batches of a producer with no
// control batch after them) whose producer the pids.log still shows at
// the batches' epoch, and hands them to kfake the way a clean Close
// would have: as in-progress transactions in session_state.json, with
// each partition's first offset and the first batch's timestamp as the
// start (so an expired transaction is aborted at load, as Kafka's
// timeout would). kfake's crash replay takes a batch flagged
// transactional in its index for part of an open transaction and aborts
// it, so the flags of the restored batches are cleared while kfake loads
// and set again once it has (kfake reads the index only at load, and its
// next crash replay needs the flags to find the transaction's aborted
// range should it end in an abort). Should the process die in between,
// the next start finds the same transactions by the batches'
// transactional attribute, which the flags only mirror. Any other
// transaction left open is left to kfake's abort (and abortDanglingTxns
// writes its marker).
//
// Offsets staged in a transaction (TxnOffsetCommit) are not on kfake's
// disk, so a restored transaction has none (DESIGN.md §7 says when that
// matters).
//
// It relies on kfake's on-disk formats (persist.go of the pinned
// version): segment files of raw RecordBatches, index entries of 15
// bytes, framed JSON entries in pids.log, session_state.json and
// seq_windows.json.

// keptTxn is a transaction kept open on one partition: its producer id.
type keptTxn struct {
	topic     string
	partition int32
	pid       int64
}

// keptCount returns how many transactions (producer ids) kept holds.
func keptCount(kept map[keptTxn]bool) int {
	pids := map[int64]bool{}
	for k := range kept {
		pids[k.pid] = true
	}
	return len(pids)
}

// restoreOpenTxns restores the transactions a crash left open in the
// data directory dir, to be loaded by kfake next: it returns where it
// restored them and the index entries whose flags to set again once
// kfake has loaded (restoreFlags). It does nothing after a clean Close
// (session_state.json exists then, or no transaction is open).
func restoreOpenTxns(dir string) (map[keptTxn]bool, []indexFlip, error) {
	if _, err := os.Stat(filepath.Join(dir, "meta.json")); err != nil {
		return nil, nil, nil // a new directory
	}
	if _, err := os.Stat(filepath.Join(dir, sessionStateFile)); err == nil {
		return nil, nil, nil // closed cleanly: kfake restores its own
	}
	pids, err := readPIDsLog(filepath.Join(dir, "pids.log"))
	if err != nil {
		return nil, nil, err
	}
	parts, err := os.ReadDir(filepath.Join(dir, "partitions"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	txns := map[int64]*sessionTxn{}
	kept := map[keptTxn]bool{}
	var (
		flips   []indexFlip
		windows []seqWindow
	)
	for _, pe := range parts {
		i := strings.LastIndexByte(pe.Name(), '-')
		if !pe.IsDir() || i < 0 {
			continue
		}
		topic, err := url.PathUnescape(pe.Name()[:i])
		if err != nil {
			continue
		}
		p, err := strconv.ParseInt(pe.Name()[i+1:], 10, 32)
		if err != nil {
			continue
		}
		open, err := openTxnsOf(filepath.Join(dir, "partitions", pe.Name()))
		if err != nil {
			return nil, nil, fmt.Errorf("partition %s/%d: %w", topic, p, err)
		}
		for pid, o := range open {
			st, ok := pids[pid]
			if !ok || st.txid == "" || st.ended || st.epoch != o.epoch {
				continue // not its producer's current transaction: kfake aborts it
			}
			t := txns[pid]
			if t == nil {
				t = &sessionTxn{PID: pid, TxStart: time.UnixMilli(o.start), TxPartFirstOffsets: map[string]map[int32]int64{}}
				txns[pid] = t
			}
			if t.TxStart.After(time.UnixMilli(o.start)) {
				t.TxStart = time.UnixMilli(o.start)
			}
			if t.TxPartFirstOffsets[topic] == nil {
				t.TxPartFirstOffsets[topic] = map[int32]int64{}
			}
			t.TxPartFirstOffsets[topic][int32(p)] = o.first
			kept[keptTxn{topic, int32(p), pid}] = true
			flips = append(flips, o.flips...)
			w := seqWindow{PID: pid, Topic: topic, Part: int32(p), Count: uint8(len(o.seqs)),
				At: uint8(len(o.seqs) % 5), Epoch: o.epoch, Seen: true}
			copy(w.Entries[:], o.seqs)
			if n := len(o.seqs); n > 0 {
				w.NextSeq = o.seqs[n-1].NextSeq
			}
			windows = append(windows, w)
		}
	}
	if len(txns) == 0 {
		return nil, nil, nil
	}
	ss := sessionStateJSON{ShutdownAt: time.Now()}
	for _, pid := range slices.Sorted(maps.Keys(txns)) {
		ss.InProgressTxns = append(ss.InProgressTxns, *txns[pid])
	}
	// The session state first: should the flags be cleared and this
	// fail, the restart would see the batches as data of no transaction.
	if err := writeFileSync(filepath.Join(dir, sessionStateFile), ss); err != nil {
		return nil, nil, err
	}
	if err := restoreSeqWindows(filepath.Join(dir, seqWindowsFile), windows); err != nil {
		return nil, nil, err
	}
	for _, f := range flips {
		if err := f.apply(false); err != nil {
			return nil, nil, err
		}
	}
	return kept, flips, nil
}

// restoreFlags sets again the flags restoreOpenTxns cleared, once kfake
// has loaded the directory.
func restoreFlags(flips []indexFlip) error {
	for _, f := range flips {
		if err := f.apply(true); err != nil {
			return err
		}
	}
	return nil
}

// sessionStateFile is kfake's file of session state saved at Close.
const sessionStateFile = "session_state.json"

// seqWindowsFile is kfake's file of the producers' idempotence windows,
// saved at Close and loaded at every start.
const seqWindowsFile = "seq_windows.json"

// seqWindow is an entry of seq_windows.json: a producer's idempotence
// window on a partition. Kafka rebuilds it from the log at a restart, so
// that a batch the producer sends again (it did not learn that the first
// attempt landed) is known for a duplicate; kfake keeps it only across a
// clean Close, so without it a restored transaction would take such a
// batch twice.
type seqWindow struct {
	PID     int64       `json:"pid"`
	Topic   string      `json:"topic"`
	Part    int32       `json:"partition"`
	Entries [5]seqEntry `json:"entries"`
	Count   uint8       `json:"count"`
	At      uint8       `json:"at"`
	Epoch   int16       `json:"epoch"`
	Seen    bool        `json:"seen"`
	NextSeq int32       `json:"next_seq"`
}

// restoreSeqWindows writes the windows of the restored transactions into
// the seq_windows.json at path, in place of what it held for the same
// producer and partition (a Close's, older).
func restoreSeqWindows(path string, windows []seqWindow) error {
	var file struct {
		Version int               `json:"version"`
		Windows []json.RawMessage `json:"windows"`
	}
	raw, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		file.Version = 1
	case err != nil:
		return err
	default:
		if err := json.Unmarshal(raw, &file); err != nil {
			return fmt.Errorf("%s: %w", seqWindowsFile, err)
		}
	}
	type key struct {
		pid   int64
		topic string
		part  int32
	}
	ours := map[key]bool{}
	for _, w := range windows {
		ours[key{w.PID, w.Topic, w.Part}] = true
	}
	kept := file.Windows[:0]
	for _, r := range file.Windows {
		var k struct {
			PID   int64  `json:"pid"`
			Topic string `json:"topic"`
			Part  int32  `json:"partition"`
		}
		if json.Unmarshal(r, &k) == nil && ours[key{k.PID, k.Topic, k.Part}] {
			continue
		}
		kept = append(kept, r)
	}
	file.Windows = kept
	for _, w := range windows {
		b, err := json.Marshal(w)
		if err != nil {
			return err
		}
		file.Windows = append(file.Windows, b)
	}
	return writeFileSync(path, file)
}

// sessionStateJSON and sessionTxn are the parts of kfake's
// session_state.json that hold in-progress transactions.
type sessionStateJSON struct {
	ShutdownAt     time.Time    `json:"shutdownAt"`
	InProgressTxns []sessionTxn `json:"inProgressTxns,omitempty"`
}

type sessionTxn struct {
	PID                int64                      `json:"pid"`
	TxStart            time.Time                  `json:"txStart"`
	TxPartFirstOffsets map[string]map[int32]int64 `json:"txPartFirstOffsets"`
}

// writeFileSync writes v as JSON to path through a synced temporary file
// and a rename.
func writeFileSync(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	tmp := path + ".restore"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// pidState is a producer id's state as pids.log leaves it.
type pidState struct {
	txid  string
	epoch int16
	// ended: the last entry ended a transaction at epoch (EndTxn or a
	// timeout) without a newer epoch after it.
	ended bool
}

// readPIDsLog replays kfake's pids.log: framed entries of a 4-byte
// length (of what follows the CRC), a CRC32-C of the version and data, a
// 2-byte version and JSON data, little-endian; a torn last entry ends it.
func readPIDsLog(path string) (map[int64]pidState, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[int64]pidState{}
	for pos := 0; pos+10 <= len(raw); {
		n := int(binary.LittleEndian.Uint32(raw[pos:]))
		if n < 2 || pos+8+n > len(raw) {
			break
		}
		body := raw[pos+8 : pos+8+n]
		if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(raw[pos+4:]) {
			break
		}
		pos += 8 + n
		var e struct {
			Type  string `json:"type"`
			PID   int64  `json:"pid"`
			Epoch int16  `json:"epoch"`
			TxID  string `json:"txid"`
		}
		if json.Unmarshal(body[2:], &e) != nil {
			continue
		}
		switch e.Type {
		case "init":
			out[e.PID] = pidState{txid: e.TxID, epoch: e.Epoch}
		case "endtx", "timeout":
			if s, ok := out[e.PID]; ok {
				s.epoch, s.ended = e.Epoch, true
				out[e.PID] = s
			}
		}
	}
	return out, nil
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// openTxn is a producer's transaction left open in one partition.
type openTxn struct {
	epoch int16
	first int64 // offset of its first batch
	start int64 // its first batch's timestamp, ms
	flips []indexFlip
	// seqs are its last batches' sequence ranges (at most five, oldest
	// first): the producer's idempotence window.
	seqs []seqEntry
}

// seqEntry is one batch in a producer's idempotence window: its first
// sequence number, the one after its last, and its offset.
type seqEntry struct {
	FirstSeq int32 `json:"first_seq"`
	NextSeq  int32 `json:"next_seq"`
	Offset   int64 `json:"offset"`
}

// indexFlip is the transactional flag of one index entry.
type indexFlip struct {
	path string
	at   int64
}

// kfake's index entries: version, checksum (low byte of the CRC32-C of
// the rest), epoch (4), max earlier timestamp (8), flags (bit 0: in a
// transaction).
const indexEntrySize = 15

// apply sets the flag (set) or clears it.
func (f indexFlip) apply(set bool) error {
	file, err := os.OpenFile(f.path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer file.Close()
	var e [indexEntrySize]byte
	if _, err := file.ReadAt(e[:], f.at); err != nil {
		return err
	}
	if set {
		e[14] |= 1
	} else {
		e[14] &^= 1
	}
	e[1] = byte(crc32.Checksum(e[2:], castagnoli))
	if _, err := file.WriteAt(e[:], f.at); err != nil {
		return err
	}
	return file.Sync()
}

// openTxnsOf reads the segments of partition directory pdir and returns,
// by producer id, the transactions with batches and no control batch
// after them.
func openTxnsOf(pdir string) (map[int64]*openTxn, error) {
	ents, err := os.ReadDir(pdir)
	if err != nil {
		return nil, err
	}
	var bases []int64
	for _, e := range ents {
		if b, ok := strings.CutSuffix(e.Name(), ".dat"); ok {
			if n, err := strconv.ParseInt(b, 10, 64); err == nil {
				bases = append(bases, n)
			}
		}
	}
	slices.Sort(bases)
	open := map[int64]*openTxn{}
	for _, base := range bases {
		name := strconv.FormatInt(base, 10)
		raw, err := os.ReadFile(filepath.Join(pdir, name+".dat"))
		if err != nil {
			return nil, err
		}
		idxPath := filepath.Join(pdir, name+".idx")
		idx, _ := os.ReadFile(idxPath)
		for pos, i := 0, 0; pos+12 <= len(raw); i++ {
			n := int(binary.BigEndian.Uint32(raw[pos+8:]))
			if n < 0 || pos+12+n > len(raw) {
				break // a torn write: kfake truncates it
			}
			var b kmsg.RecordBatch
			if err := b.ReadFrom(raw[pos : pos+12+n]); err != nil {
				break
			}
			pos += 12 + n
			const transactional, control = 0x10, 0x20
			switch {
			case b.Attributes&control != 0:
				delete(open, b.ProducerID)
			case b.Attributes&transactional != 0:
				o := open[b.ProducerID]
				if o == nil || o.epoch != b.ProducerEpoch {
					o = &openTxn{epoch: b.ProducerEpoch, first: b.FirstOffset, start: b.FirstTimestamp}
					open[b.ProducerID] = o
				}
				if at := int64(i * indexEntrySize); int(at)+indexEntrySize <= len(idx) {
					o.flips = append(o.flips, indexFlip{path: idxPath, at: at})
				}
				next := int32((int64(b.FirstSequence) + int64(b.NumRecords)) % math.MaxInt32)
				o.seqs = append(o.seqs, seqEntry{FirstSeq: b.FirstSequence, NextSeq: next, Offset: b.FirstOffset})
				if len(o.seqs) > 5 {
					o.seqs = o.seqs[1:]
				}
			}
		}
	}
	return open, nil
}
