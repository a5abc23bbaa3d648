package cluster

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/weirdb/weir/types"
)

// phase is where a key group stands on the node that was assigned it.
type phase uint8

const (
	// phaseFencing: assigned; the node must write a fence record with a
	// fresh nonce into the key group's changelog partition.
	phaseFencing phase = iota
	// phaseRestoring: the fence is written; the node reads the changelog
	// partition with read_committed from its start until it reads its own
	// fence. Every transaction of a previous owner committed before the
	// fence is then applied, and none can commit after it (the previous
	// owner's offsets commit was fenced by the group generation, and its
	// open transaction, if any, is aborted by its timeout or its id's
	// next incarnation, while the fence waits behind it for the LSO).
	phaseRestoring
	// phaseActive: the state is complete; repartition records of the key
	// group may be processed and its rows may be read.
	phaseActive
)

func (p phase) String() string {
	return [...]string{"fencing", "restoring", "active"}[p]
}

// keyGroup is one key group (a repartition partition and its changelog
// partition) owned by this node.
type keyGroup struct {
	part  int32
	phase phase
	nonce string
	// groups is the committed state, by encoded group key.
	groups map[string]*group
	// sinks holds the sinks whose snapshot of this key group is committed.
	sinks map[string]bool
	// epoch is the node epoch that last committed a change of this key
	// group (0 when restored and unchanged since).
	epoch uint64
	// restored counts the changelog records read by the restore.
	restored int
	// revoked is set when the group revoked the key group during an open
	// epoch: the epoch aborts and the key group is dropped at its end.
	revoked bool
}

// action is IO the job loop must do for the state machine.
type action struct {
	kind  string // "fence", "restore" or "drop"
	part  int32
	nonce string
}

func (a action) String() string {
	if a.nonce != "" {
		return fmt.Sprintf("%s p%d %s", a.kind, a.part, a.nonce)
	}
	return fmt.Sprintf("%s p%d", a.kind, a.part)
}

// change is one group whose row changed in an epoch: old is nil for a new
// group.
type change struct {
	part     int32
	key      string
	old, new types.Row
	accs     []acc
}

// keyGroups is the state machine of the key groups one node owns for one
// view: assignment, fencing, restore, epochs (begin, update, commit or
// abort) and revocation. It does no IO: the job loop feeds it events and
// carries out the actions it returns, and the nonces come from the
// caller, so a trace replays exactly (testdata/keygroups.trace).
//
// Invariants: a key group's committed state changes only at the end of a
// committed epoch or by its restore; updates of an epoch live in dirty
// until then, and an aborted epoch leaves committed state as it was.
type keyGroups struct {
	view  *View
	parts map[int32]*keyGroup

	inEpoch bool
	dirty   map[int32]map[string]*group
	// snaps holds the sinks whose snapshot this epoch wrote, per key group.
	snaps map[int32][]string
}

func newKeyGroups(v *View) *keyGroups {
	return &keyGroups{view: v, parts: map[int32]*keyGroup{}, dirty: map[int32]map[string]*group{}, snaps: map[int32][]string{}}
}

// assign starts the lifecycle of a key group given to this node.
func (k *keyGroups) assign(p int32, nonce string) []action {
	if kg := k.parts[p]; kg != nil && !kg.revoked {
		return nil
	}
	delete(k.dirty, p)
	delete(k.snaps, p)
	k.parts[p] = &keyGroup{part: p, phase: phaseFencing, nonce: nonce, groups: map[string]*group{}, sinks: map[string]bool{}}
	return []action{{kind: "fence", part: p, nonce: nonce}}
}

// fenced reports the fence record written.
func (k *keyGroups) fenced(p int32) []action {
	kg := k.parts[p]
	if kg == nil || kg.phase != phaseFencing {
		return nil
	}
	kg.phase = phaseRestoring
	return []action{{kind: "restore", part: p, nonce: kg.nonce}}
}

// restoreRecord applies one changelog record read by the restore of p; it
// returns true when the record is p's own fence, which ends the restore.
func (k *keyGroups) restoreRecord(p int32, key, value []byte) (bool, error) {
	kg := k.parts[p]
	if kg == nil || kg.phase != phaseRestoring {
		return false, fmt.Errorf("changelog record for key group %d, which is not restoring", p)
	}
	kg.restored++
	if len(key) == 0 {
		return false, fmt.Errorf("changelog record without a key in key group %d", p)
	}
	switch key[0] {
	case changelogMeta:
		meta := string(key[1:])
		switch {
		case meta == "fence":
			if string(value) == kg.nonce {
				kg.phase = phaseActive
				return true, nil
			}
		case strings.HasPrefix(meta, "sink:"):
			kg.sinks[meta[len("sink:"):]] = true
		}
		return false, nil
	case changelogGroup:
		gk := key[1:]
		accs, err := decodeAccs(value, len(k.view.Aggs))
		if err != nil {
			return false, err
		}
		keyRow, err := k.view.decodeKey(gk)
		if err != nil {
			return false, err
		}
		kg.groups[string(gk)] = &group{key: keyRow, accs: accs}
		return false, nil
	}
	return false, fmt.Errorf("changelog record with an unknown key kind %#x", key[0])
}

// revoke takes a key group away; during an epoch the drop waits for the
// epoch's end (which aborts, the group session having seen the revocation).
func (k *keyGroups) revoke(p int32) []action {
	kg := k.parts[p]
	if kg == nil {
		return nil
	}
	if k.inEpoch {
		kg.revoked = true
		return nil
	}
	delete(k.parts, p)
	return []action{{kind: "drop", part: p}}
}

// begin opens an epoch.
func (k *keyGroups) begin() {
	k.inEpoch = true
}

// update folds one source row, read from repartition partition p, into
// the epoch's state.
func (k *keyGroups) update(p int32, gk []byte, row types.Row) error {
	kg := k.parts[p]
	if kg == nil || kg.phase != phaseActive || kg.revoked {
		return fmt.Errorf("repartition record for key group %d, which this node does not own in the active phase", p)
	}
	d := k.dirty[p]
	if d == nil {
		d = map[string]*group{}
		k.dirty[p] = d
	}
	g := d[string(gk)]
	if g == nil {
		if c := kg.groups[string(gk)]; c != nil {
			g = c.clone()
		} else {
			key := make(types.Row, len(k.view.Keys))
			for i, c := range k.view.Keys {
				key[i] = row[c]
			}
			g = &group{key: key, accs: make([]acc, len(k.view.Aggs))}
		}
		d[string(gk)] = g
	}
	g.add(k.view, row)
	return nil
}

// needSnapshot lists, per active key group, the sinks whose snapshot is
// not written yet, and marks them written in this epoch.
func (k *keyGroups) needSnapshot(sinks []string) map[int32][]string {
	out := map[int32][]string{}
	for _, p := range k.sortedParts() {
		kg := k.parts[p]
		if kg.phase != phaseActive || kg.revoked {
			continue
		}
		for _, s := range sinks {
			if !kg.sinks[s] && !contains(k.snaps[p], s) {
				out[p] = append(out[p], s)
				k.snaps[p] = append(k.snaps[p], s)
			}
		}
	}
	return out
}

// committedRows returns the committed rows of key group p.
func (k *keyGroups) committedRows(p int32) []types.Row {
	kg := k.parts[p]
	keys := make([]string, 0, len(kg.groups))
	for gk := range kg.groups {
		keys = append(keys, gk)
	}
	sort.Strings(keys)
	rows := make([]types.Row, len(keys))
	for i, gk := range keys {
		rows[i] = kg.groups[gk].row(k.view)
	}
	return rows
}

// changes returns the epoch's changed groups, ordered by key group and key.
func (k *keyGroups) changes() []change {
	var out []change
	for _, p := range k.sortedParts() {
		d := k.dirty[p]
		keys := make([]string, 0, len(d))
		for gk := range d {
			keys = append(keys, gk)
		}
		sort.Strings(keys)
		for _, gk := range keys {
			ch := change{part: p, key: gk, new: d[gk].row(k.view), accs: d[gk].accs}
			if c := k.parts[p].groups[gk]; c != nil {
				ch.old = c.row(k.view)
			}
			out = append(out, ch)
		}
	}
	return out
}

// end closes the epoch: a committed one moves its changes into the
// committed state, stamped with the node epoch; an aborted one drops them.
// Key groups revoked during the epoch are dropped either way.
func (k *keyGroups) end(committed bool, epoch uint64) []action {
	if committed {
		for p, d := range k.dirty {
			kg := k.parts[p]
			for gk, g := range d {
				kg.groups[gk] = g
			}
			kg.epoch = epoch
		}
		for p, ss := range k.snaps {
			for _, s := range ss {
				k.parts[p].sinks[s] = true
			}
			k.parts[p].epoch = epoch
		}
	}
	k.dirty = map[int32]map[string]*group{}
	k.snaps = map[int32][]string{}
	k.inEpoch = false
	var acts []action
	for _, p := range k.sortedParts() {
		if k.parts[p].revoked {
			delete(k.parts, p)
			acts = append(acts, action{kind: "drop", part: p})
		}
	}
	return acts
}

func (k *keyGroups) sortedParts() []int32 {
	ps := make([]int32, 0, len(k.parts))
	for p := range k.parts {
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i] < ps[j] })
	return ps
}

// String dumps the state for traces: one line per key group.
func (k *keyGroups) String() string {
	var b bytes.Buffer
	for _, p := range k.sortedParts() {
		kg := k.parts[p]
		fmt.Fprintf(&b, "p%d %s epoch=%d", p, kg.phase, kg.epoch)
		if kg.revoked {
			b.WriteString(" revoked")
		}
		rows := k.committedRows(p)
		for _, r := range rows {
			b.WriteString(" (")
			for i, d := range r {
				if i > 0 {
					b.WriteString(",")
				}
				b.WriteString(types.FormatText(d, k.view.Schema[i].T, nil))
			}
			b.WriteString(")")
		}
		var ss []string
		for s := range kg.sinks {
			ss = append(ss, s)
		}
		sort.Strings(ss)
		if len(ss) > 0 {
			fmt.Fprintf(&b, " sinks=%s", strings.Join(ss, ","))
		}
		b.WriteString("\n")
	}
	return b.String()
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
