package executor

import (
	"context"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// HashJoin joins its left input with its right input on LeftKeys =
// RightKeys (a NULL key never matches), keeping the pairs for which the
// residual condition (over the left columns followed by the right ones)
// is true. It reads the whole right input into a hash table on the first
// Next (the build side, with a matched flag per row), then streams the
// left input through it (the probe side):
//
//   - Inner: each matching pair.
//   - Left / Full: also each left row without a match, null-extended.
//   - Right / Full: at the end, each right row never matched,
//     null-extended on the left.
//   - Semi: each left row with at least one match, once; Anti: each left
//     row without one. NOT IN's NULL semantics are the binder's business.
//
// Without equi-join keys every right row is a candidate for every left
// row: that is the nested-loop join (see NewNestedLoopJoin), used for
// cross joins and non-equi conditions. Output rows follow the probe order.
//
// With keys, a build side beyond ExecCtx.WorkMem makes it a hybrid hash
// join, as PostgreSQL's: the rows are split by their key's hash into
// hashFanout batches, batch 0 stays in memory and the others go to
// tapes; the probe side is split likewise, its batch-0 rows joined at
// once and the others written to their batch's tape. Each batch is then
// joined on its own, so a row's matches, and a right row's matched flag,
// are all within its batch; a batch still too large is split again
// with another seed. A batch that cannot be split (its build rows share
// one key hash, or it is joinMaxLevel levels deep) is joined block by
// block: the build tape is read a WorkMem's worth at a time, and the
// probe tape read once per block, its rows' matches remembered across
// blocks, then once more for the left rows without any. Build rows with
// a NULL key never match: an inner, left, semi or anti join drops them,
// a right or full join emits them null-extended at the end. Spilling
// changes the order of the output, never its rows.
//
// The nested-loop join's build side beyond WorkMem goes whole to one
// tape, and its probe side to another, as one batch that is joined
// block by block: each WorkMem's worth of build rows is joined with
// every probe row, read again from its tape, as PostgreSQL's nested
// loop rescans a materialized inner side for each outer row.
type HashJoin struct {
	endState
	plan        *planner.Join
	left, right Operator
	ec          *ExecCtx
	lkeys       []Evaluator
	rkeys       []Evaluator
	keyTs       []types.T
	cond        Evaluator
	leftTs      []types.T
	rightTs     []types.T
	outTs       []types.T
	nested      bool

	// The build side of the batch being joined (of one block of it when
	// joining block by block).
	built    bool
	rrows    []types.Row
	rmatched []bool
	table    map[uint64][]int32
	rkeyRows []types.Row
	rbytes   int64
	// usage is what the join used, for EXPLAIN ANALYZE.
	usage spillUsage
	// sameHash is set while every keyed build row of the batch had the
	// key hash firstHash.
	sameHash  bool
	firstHash uint64

	// Spilling. level is the batch's recursion level (0: the inputs);
	// once partitioned, rows of the batch whose partition is not memBatch
	// (-1: none is) go to bparts (build) and pparts (probe).
	level       int
	partitioned bool
	memBatch    int
	bparts      *partitionSet
	pparts      *partitionSet
	cur         *joinBatch    // the batch being joined; nil at level 0
	batches     []joinBatch   // the batches still to join, the last first
	nulls       *partitionSet // right or full join: build rows with a NULL key, once partitioned
	nullRows    *partReader   // reading nulls at the end
	// Block by block: blockMore says the build tape has rows beyond the
	// block in memory; seen holds each probe row's having matched in an
	// earlier block (by its place on the probe tape); final is the last
	// pass over the probe tape, for the rows without a match.
	blocks    bool
	blockMore bool
	seen      []bool
	final     bool
	probeOrd  int
	lords     []int
	scratch   types.Row
	allDone   bool
	// blockJoins counts the batches joined block by block (for tests).
	blockJoins int

	// Probe state, kept across Next calls so that a left chunk with many
	// matches yields its output a chunk at a time.
	leftDone bool
	lrows    []types.Row
	lkeyRows []types.Row // nil entry: a NULL key, no match
	lmatched []bool
	li, ci   int
	cands    []int32
	pairs    []joinPair
	out      *types.Chunk
	queue    []*types.Chunk
}

// joinBatch is a spilled batch of a HashJoin: its build and probe rows.
type joinBatch struct {
	build, probe *partReader
	level        int
}

// discard removes the batch's tapes.
func (b *joinBatch) discard() {
	for _, r := range []*partReader{b.build, b.probe} {
		if r != nil && r.tape != nil {
			_ = r.tape.Discard()
		}
	}
}

// joinMaxLevel is how many times a hash join splits a batch before it
// joins it block by block.
const joinMaxLevel = 4

type joinPair struct {
	l int
	r int32
}

var _ Operator = (*HashJoin)(nil)

// NewHashJoin returns a HashJoin of left and right for p; p has equi-join
// keys, or none for a nested-loop join.
func NewHashJoin(left, right Operator, p *planner.Join, ec *ExecCtx) (*HashJoin, error) {
	j := &HashJoin{
		plan: p, left: left, right: right, ec: ec,
		keyTs:    exprTypes(p.LeftKeys),
		leftTs:   p.Left.Schema().Types(),
		rightTs:  p.Right.Schema().Types(),
		outTs:    p.Out.Types(),
		nested:   len(p.LeftKeys) == 0,
		memBatch: -1,
	}
	var err error
	if j.lkeys, err = compileAll(p.LeftKeys); err != nil {
		return nil, err
	}
	if j.rkeys, err = compileAll(p.RightKeys); err != nil {
		return nil, err
	}
	if p.Cond != nil {
		if j.cond, err = Compile(p.Cond); err != nil {
			return nil, err
		}
	}
	return j, nil
}

// Next implements Operator.
func (j *HashJoin) Next(ctx context.Context) (*types.Chunk, error) {
	if j.done {
		return nil, j.err
	}
	c, err := j.next(ctx)
	if err != nil || c == nil {
		j.release()
	}
	return j.finish(c, err)
}

// keepsUnmatchedRight reports whether the join emits right rows without
// a match.
func (j *HashJoin) keepsUnmatchedRight() bool {
	return j.plan.Kind == planner.RightJoin || j.plan.Kind == planner.FullJoin
}

// keepsUnmatchedLeft reports whether the join emits left rows without a
// match.
func (j *HashJoin) keepsUnmatchedLeft() bool {
	k := j.plan.Kind
	return k == planner.LeftJoin || k == planner.FullJoin || k == planner.AntiJoin
}

// resetTable empties the in-memory build side.
func (j *HashJoin) resetTable() {
	j.rrows, j.rmatched, j.rkeyRows, j.rbytes = nil, nil, nil, 0
	j.table = make(map[uint64][]int32)
	j.sameHash, j.firstHash = true, 0
}

// addBuild puts a build row and its key (nil: a NULL key) in the table.
func (j *HashJoin) addBuild(row, key types.Row, h uint64) {
	idx := int32(len(j.rrows))
	j.rrows = append(j.rrows, row)
	j.rbytes += types.RowMemSize(row) + hashTableEntry
	j.usage.held(j.rbytes)
	if j.nested {
		return
	}
	j.rkeyRows = append(j.rkeyRows, key)
	if key == nil {
		return
	}
	j.rbytes += types.RowMemSize(key)
	j.usage.held(j.rbytes)
	if len(j.table) == 0 {
		j.firstHash = h
	} else if h != j.firstHash {
		j.sameHash = false
	}
	j.table[h] = append(j.table[h], idx)
}

// build reads the build side of the batch, from the right input at level
// 0, into the table and, once partitioned, its partitions.
func (j *HashJoin) build(ctx context.Context) error {
	j.built = true
	j.resetTable()
	j.partitioned, j.memBatch, j.bparts, j.pparts = false, -1, nil, nil
	read := func(ctx context.Context) (*types.Chunk, error) { return nextVisible(ctx, j.right) }
	if j.cur != nil {
		read = j.cur.build.chunk
	} else {
		j.usage.batches = 1
	}
	for {
		c, err := read(ctx)
		if err != nil {
			return err
		}
		if c == nil {
			break
		}
		kv, err := evalAll(j.ec, j.rkeys, c)
		if err != nil {
			return err
		}
	rows:
		for i := 0; i < c.Len(); i++ {
			if !c.Visible(i) {
				continue
			}
			if j.nested {
				if j.partitioned {
					j.scratch = scratchRow(c, i, j.scratch)
					if err := j.bparts.add(0, j.scratch); err != nil {
						return err
					}
					continue
				}
				j.addBuild(detachRow(c, i), nil, 0)
				continue
			}
			key := make(types.Row, len(kv))
			for k, v := range kv {
				if key[k] = copyDatum(v.Get(i)); key[k].Null {
					// Never matched: kept only to be emitted unmatched.
					if !j.keepsUnmatchedRight() {
						continue rows
					}
					if j.partitioned {
						if err := j.spillNull(scratchRow(c, i, j.scratch)); err != nil {
							return err
						}
						continue rows
					}
					j.addBuild(detachRow(c, i), nil, 0)
					continue rows
				}
			}
			h := hashRow(key, j.keyTs)
			if j.partitioned {
				if p := hashPartition(h, j.level, hashFanout); p != j.memBatch {
					j.scratch = scratchRow(c, i, j.scratch)
					if err := j.bparts.add(p, j.scratch); err != nil {
						return err
					}
					continue
				}
			}
			j.addBuild(detachRow(c, i), key, h)
		}
		if j.ec.spillable(j.rbytes) {
			if j.cur != nil && !j.partitioned && (j.nested || j.sameHash || j.level >= joinMaxLevel) {
				// Splitting would not help: join the batch block by block.
				return j.startBlocks()
			}
			if j.nested {
				if err := j.overflowNested(); err != nil {
					return err
				}
				continue
			}
			if err := j.overflow(); err != nil {
				return err
			}
		}
	}
	if j.cur == nil {
		j.right.Close()
	}
	j.rmatched = make([]bool, len(j.rrows))
	return nil
}

// spillNull keeps a right or full join's NULL-keyed build row for the
// end.
func (j *HashJoin) spillNull(row types.Row) error {
	if j.nulls == nil {
		j.nulls = newPartitionSet(j.ec.Temp, j.rightTs, 1)
	}
	return j.nulls.add(0, row)
}

// overflow handles a table beyond WorkMem: the first time, the batch is
// partitioned and only partition 0 stays in memory; the second, that
// one goes to its tape too.
func (j *HashJoin) overflow() error {
	rows, keys := j.rrows, j.rkeyRows
	j.resetTable()
	if !j.partitioned {
		j.partitioned, j.memBatch = true, 0
		j.bparts = newPartitionSet(j.ec.Temp, j.rightTs, hashFanout)
		j.pparts = newPartitionSet(j.ec.Temp, j.leftTs, hashFanout)
	} else {
		j.memBatch = -1
	}
	for i, row := range rows {
		key := keys[i]
		if key == nil {
			if err := j.spillNull(row); err != nil {
				return err
			}
			continue
		}
		h := hashRow(key, j.keyTs)
		p := hashPartition(h, j.level, hashFanout)
		if p == j.memBatch {
			j.addBuild(row, key, h)
			continue
		}
		if err := j.bparts.add(p, row); err != nil {
			return err
		}
	}
	if j.memBatch == 0 && j.ec.spillable(j.rbytes) {
		return j.overflow()
	}
	return nil
}

// overflowNested handles a nested-loop join's build side beyond
// WorkMem: its rows so far, and every one after them, go to the tape of
// one batch (which endProbe joins block by block), and so will the
// probe rows.
func (j *HashJoin) overflowNested() error {
	rows := j.rrows
	j.resetTable()
	j.partitioned, j.memBatch = true, -1
	j.bparts = newPartitionSet(j.ec.Temp, j.rightTs, 1)
	j.pparts = newPartitionSet(j.ec.Temp, j.leftTs, 1)
	for _, row := range rows {
		if err := j.bparts.add(0, row); err != nil {
			return err
		}
	}
	return nil
}

// startBlocks starts joining the current batch block by block.
func (j *HashJoin) startBlocks() error {
	j.blocks, j.seen, j.final = true, nil, false
	j.blockJoins++
	j.cur.build.rewind()
	return j.loadBlock()
}

// loadBlock reads the next WorkMem's worth of build rows (at least one)
// into the table.
func (j *HashJoin) loadBlock() error {
	j.resetTable()
	j.blockMore = false
	for {
		row, err := j.cur.build.row()
		if err != nil {
			return err
		}
		if row == nil {
			break
		}
		if j.nested {
			j.addBuild(row, nil, 0)
		} else {
			key := make(types.Row, len(j.rkeys))
			if err := j.rowKey(j.rkeys, row, j.rightTs, key); err != nil {
				return err
			}
			j.addBuild(row, key, hashRow(key, j.keyTs))
		}
		if j.ec.spillable(j.rbytes) {
			j.blockMore = j.cur.build.off < j.cur.build.tape.Size()
			break
		}
	}
	j.rmatched = make([]bool, len(j.rrows))
	return nil
}

// rowKey evaluates the key expressions evs over row (of types ts) into
// key. Rows on a batch's tapes have non-NULL keys.
func (j *HashJoin) rowKey(evs []Evaluator, row types.Row, ts []types.T, key types.Row) error {
	c := types.NewChunk(ts, 1)
	c.AppendRow(types.OpInsert, row)
	kv, err := evalAll(j.ec, evs, c)
	if err != nil {
		return err
	}
	for k, v := range kv {
		key[k] = copyDatum(v.Get(0))
	}
	return nil
}

// endProbe runs when the probe side of the batch (or block) is read: it
// emits the unmatched build rows of a right or full join and moves on to
// the next block, pass or batch, setting allDone after the last.
func (j *HashJoin) endProbe(ctx context.Context) error {
	if j.keepsUnmatchedRight() && !j.final {
		for r, m := range j.rmatched {
			if !m {
				j.emit(concatRows(nullRow(len(j.leftTs)), j.rrows[r]))
			}
		}
	}
	if j.cur == nil {
		j.left.Close()
	}
	if j.blocks {
		switch {
		case j.blockMore:
			if err := j.loadBlock(); err != nil {
				return err
			}
		case !j.final && j.keepsUnmatchedLeft():
			j.final = true
			j.resetTable()
		default:
			j.blocks = false
			return j.nextBatch(ctx)
		}
		j.cur.probe.rewind()
		j.leftDone, j.probeOrd = false, 0
		return nil
	}
	if j.partitioned {
		for p := len(j.bparts.tapes) - 1; p >= 0; p-- {
			bt, bn := j.bparts.take(p)
			pt, pn := j.pparts.take(p)
			if (bn == 0 && !j.keepsUnmatchedLeft()) || (pn == 0 && !j.keepsUnmatchedRight()) {
				// Nothing of this batch reaches the output.
				for _, t := range []*storage.Tape{bt, pt} {
					if t != nil {
						_ = t.Discard()
					}
				}
				continue
			}
			j.batches = append(j.batches, joinBatch{
				build: newPartReader(bt, j.rightTs), probe: newPartReader(pt, j.leftTs), level: j.level + 1,
			})
			j.usage.batches++
			for _, t := range []*storage.Tape{bt, pt} {
				if t != nil {
					j.usage.disk += t.Size()
				}
			}
		}
		j.bparts, j.pparts, j.partitioned = nil, nil, false
	}
	return j.nextBatch(ctx)
}

// nextBatch starts joining the next spilled batch, or the NULL-keyed
// build rows after the last.
func (j *HashJoin) nextBatch(ctx context.Context) error {
	if j.cur != nil {
		j.cur.discard()
		j.cur = nil
	}
	j.resetTable()
	if len(j.batches) == 0 {
		if j.nulls != nil && j.nullRows == nil {
			t, _ := j.nulls.take(0)
			j.nulls = nil
			j.nullRows = newPartReader(t, j.rightTs)
			return nil
		}
		j.allDone = true
		return nil
	}
	b := j.batches[len(j.batches)-1]
	j.batches = j.batches[:len(j.batches)-1]
	j.cur, j.level = &b, b.level
	j.leftDone, j.probeOrd, j.final = false, 0, false
	return j.build(ctx)
}

// explainUsage implements usageReporter: the batches the join processed
// (its table, then each spilled pair of partitions) and the most memory
// a build side held, as PostgreSQL prints a hash join's Hash node.
func (j *HashJoin) explainUsage() string { return j.usage.hashText() }

// release drops the tables and removes every tape still held.
func (j *HashJoin) release() {
	j.rrows, j.table, j.rkeyRows, j.lrows, j.queue, j.seen = nil, nil, nil, nil, nil, nil
	j.bparts.discard()
	j.pparts.discard()
	j.nulls.discard()
	j.bparts, j.pparts, j.nulls = nil, nil, nil
	if j.cur != nil {
		j.cur.discard()
		j.cur = nil
	}
	for i := range j.batches {
		j.batches[i].discard()
	}
	j.batches = nil
	if j.nullRows != nil {
		_ = j.nullRows.tape.Discard()
		j.nullRows = nil
	}
}

// emit appends an output row, queueing full chunks.
func (j *HashJoin) emit(r types.Row) {
	if j.out == nil {
		j.out = types.NewChunk(j.outTs, types.ChunkCap)
	}
	j.out.AppendRow(types.OpInsert, r)
	if j.out.Len() == types.ChunkCap {
		j.queue = append(j.queue, j.out)
		j.out = nil
	}
}

func (j *HashJoin) flushOut() {
	if j.out != nil && j.out.Len() > 0 {
		j.queue = append(j.queue, j.out)
	}
	j.out = nil
}

func concatRows(l, r types.Row) types.Row {
	out := make(types.Row, 0, len(l)+len(r))
	return append(append(out, l...), r...)
}

func nullRow(n int) types.Row {
	r := make(types.Row, n)
	for i := range r {
		r[i] = types.NullDatum
	}
	return r
}

func (j *HashJoin) next(ctx context.Context) (*types.Chunk, error) {
	if !j.built {
		if err := j.build(ctx); err != nil {
			return nil, err
		}
	}
	for len(j.queue) == 0 {
		if j.allDone {
			j.flushOut()
			if len(j.queue) == 0 {
				return nil, nil
			}
			break
		}
		if j.nullRows != nil {
			c, err := j.nullRows.chunk(ctx)
			if err != nil {
				return nil, err
			}
			if c == nil {
				_ = j.nullRows.tape.Discard()
				j.nullRows, j.allDone = nil, true
				continue
			}
			for i := 0; i < c.Len(); i++ {
				j.emit(concatRows(nullRow(len(j.leftTs)), c.Row(i)))
			}
			j.flushOut()
			continue
		}
		if j.lrows == nil {
			if j.leftDone {
				if err := j.endProbe(ctx); err != nil {
					return nil, err
				}
				j.flushOut()
				continue
			}
			if err := j.loadLeft(ctx); err != nil {
				return nil, err
			}
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		j.probe()
		if err := j.flushPairs(); err != nil {
			return nil, err
		}
		if j.li == len(j.lrows) {
			j.finishLeftChunk()
		}
	}
	c := j.queue[0]
	j.queue = j.queue[1:]
	return c, nil
}

// loadLeft reads the next probe chunk of the batch and its keys into the
// probe state; once partitioned, the rows of other batches go to their
// tapes instead.
func (j *HashJoin) loadLeft(ctx context.Context) error {
	var c *types.Chunk
	var err error
	if j.cur == nil {
		c, err = nextVisible(ctx, j.left)
	} else {
		c, err = j.cur.probe.chunk(ctx)
	}
	if err != nil {
		return err
	}
	if c == nil {
		j.leftDone = true
		return nil
	}
	if j.final {
		// The last pass of a batch joined block by block: the rows that
		// matched in no block.
		for i := 0; i < c.Len(); i++ {
			if !j.seen[j.probeOrd+i] {
				if j.plan.Kind == planner.AntiJoin {
					j.emit(c.Row(i))
				} else {
					j.emit(concatRows(c.Row(i), nullRow(len(j.rightTs))))
				}
			}
		}
		j.probeOrd += c.Len()
		j.flushOut()
		return nil
	}
	kv, err := evalAll(j.ec, j.lkeys, c)
	if err != nil {
		return err
	}
	semi := j.plan.Kind == planner.SemiJoin || j.plan.Kind == planner.AntiJoin
	j.lrows, j.lkeyRows, j.lords = j.lrows[:0], j.lkeyRows[:0], j.lords[:0]
	var decided []int // nested loop, block by block: semi or anti join rows decided in an earlier block
rows:
	for i := 0; i < c.Len(); i++ {
		if !c.Visible(i) {
			continue
		}
		if j.nested {
			if j.partitioned {
				j.scratch = scratchRow(c, i, j.scratch)
				if err := j.pparts.add(0, j.scratch); err != nil {
					return err
				}
				continue
			}
			if j.blocks {
				ord := j.probeOrd + i
				if ord == len(j.seen) {
					j.seen = append(j.seen, false)
				}
				j.lords = append(j.lords, ord)
				if semi && j.seen[ord] {
					decided = append(decided, len(j.lrows))
				}
			}
			j.lrows = append(j.lrows, detachRow(c, i))
			continue
		}
		key := make(types.Row, len(kv))
		for k, v := range kv {
			if key[k] = v.Get(i); key[k].Null {
				j.lrows = append(j.lrows, detachRow(c, i))
				j.lkeyRows = append(j.lkeyRows, nil)
				continue rows
			}
		}
		if j.partitioned {
			if p := hashPartition(hashRow(key, j.keyTs), j.level, hashFanout); p != j.memBatch {
				j.scratch = scratchRow(c, i, j.scratch)
				if err := j.pparts.add(p, j.scratch); err != nil {
					return err
				}
				continue
			}
		}
		if j.blocks {
			ord := j.probeOrd + i
			if ord == len(j.seen) {
				j.seen = append(j.seen, false)
			}
			j.lords = append(j.lords, ord)
			if semi && j.seen[ord] {
				key = nil // decided in an earlier block
			}
		}
		j.lrows = append(j.lrows, detachRow(c, i))
		j.lkeyRows = append(j.lkeyRows, key)
	}
	j.probeOrd += c.Len()
	j.lmatched = make([]bool, len(j.lrows))
	for _, l := range decided {
		// Probed no more: a semi or anti join needs one match only.
		j.lmatched[l] = true
	}
	j.li, j.ci, j.cands = 0, 0, nil
	if len(j.lrows) == 0 {
		j.lrows = nil
	}
	return nil
}

// probe collects up to ChunkCap candidate pairs from the current left
// chunk, resuming where the last call stopped.
func (j *HashJoin) probe() {
	semi := j.plan.Kind == planner.SemiJoin || j.plan.Kind == planner.AntiJoin
	for j.li < len(j.lrows) && len(j.pairs) < types.ChunkCap {
		if j.ci == 0 && !j.nested {
			j.cands = nil
			if key := j.lkeyRows[j.li]; key != nil {
				for _, r := range j.table[hashRow(key, j.keyTs)] {
					if sameRow(j.rkeyRows[r], key, j.keyTs) {
						j.cands = append(j.cands, r)
					}
				}
			}
		}
		n := len(j.cands)
		if j.nested {
			n = len(j.rrows)
		}
		if semi && j.lmatched[j.li] {
			n = j.ci // a semi or anti join needs one match only
		}
		for j.ci < n && len(j.pairs) < types.ChunkCap {
			r := int32(j.ci)
			if !j.nested {
				r = j.cands[j.ci]
			}
			j.pairs = append(j.pairs, joinPair{j.li, r})
			j.ci++
		}
		if j.ci >= n {
			j.li++
			j.ci = 0
		}
	}
}

// flushPairs evaluates the residual condition over the collected pairs
// and records and emits the matches.
func (j *HashJoin) flushPairs() error {
	if len(j.pairs) == 0 {
		return nil
	}
	var pass *types.Vec
	if j.cond != nil {
		pc := types.NewChunk(append(append([]types.T(nil), j.leftTs...), j.rightTs...), len(j.pairs))
		for _, p := range j.pairs {
			pc.AppendRow(types.OpInsert, concatRows(j.lrows[p.l], j.rrows[p.r]))
		}
		v, err := j.cond.Eval(&j.ec.Eval, pc)
		if err != nil {
			return err
		}
		pass = v
	}
	emitPairs := j.plan.Kind != planner.SemiJoin && j.plan.Kind != planner.AntiJoin
	for i, p := range j.pairs {
		if pass != nil && !isTrue(pass, i) {
			continue
		}
		j.lmatched[p.l] = true
		j.rmatched[p.r] = true
		if emitPairs {
			j.emit(concatRows(j.lrows[p.l], j.rrows[p.r]))
		}
	}
	j.pairs = j.pairs[:0]
	return nil
}

// finishLeftChunk emits what depends on all of a left row's matches.
// Joining block by block, a semi join emits a row at its first match in
// any block, and the rows without one wait for the last pass.
func (j *HashJoin) finishLeftChunk() {
	if j.blocks {
		for l, r := range j.lrows {
			ord := j.lords[l]
			if j.plan.Kind == planner.SemiJoin && j.lmatched[l] && !j.seen[ord] {
				j.emit(r)
			}
			j.seen[ord] = j.seen[ord] || j.lmatched[l]
		}
		j.lrows = nil
		j.flushOut()
		return
	}
	for l, r := range j.lrows {
		switch j.plan.Kind {
		case planner.LeftJoin, planner.FullJoin:
			if !j.lmatched[l] {
				j.emit(concatRows(r, nullRow(len(j.rightTs))))
			}
		case planner.SemiJoin:
			if j.lmatched[l] {
				j.emit(r)
			}
		case planner.AntiJoin:
			if !j.lmatched[l] {
				j.emit(r)
			}
		}
	}
	j.lrows = nil
	j.flushOut()
}

// Close implements Operator.
func (j *HashJoin) Close() {
	j.done = true
	j.release()
	j.left.Close()
	j.right.Close()
}
