package stream

import (
	"context"
	"runtime"
	"sync"
	"time"

	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// Env is what Build needs from the engine to build a job's actors.
type Env struct {
	Job   types.JobID
	DB    *storage.DB
	Cache *storage.Cache
	// Sink receives the actors' barrier acknowledgements and failures.
	Sink BarrierSink
	// Errors records expression errors turned into NULLs; may be nil.
	Errors ErrorRecorder
	// Eval is the expression context shared by the job's operators (time
	// zone); nil means UTC.
	Eval *executor.EvalCtx
	// Parallelism is the number of actors per fragment
	// (streaming_parallelism); 0 means the number of CPUs. A fragment
	// with a single distribution gets one actor.
	Parallelism int
	// NewActorID returns a fresh actor id; nil numbers the job's actors
	// 1, 2, ... (enough when one job runs, as in tests).
	NewActorID func() (types.ActorID, error)
	// Progress receives backfill progress; may be nil.
	Progress func(BackfillProgress)
	// OpenSource and OpenSink connect source and sink nodes to their
	// connectors; a plan with such a node fails to build without them.
	OpenSource OpenSourceFunc
	OpenSink   OpenSinkFunc
	// Watermarks learns of the sources' watermarks and late rows; may be
	// nil.
	Watermarks WatermarkRecorder
	// Unaligned skips barrier alignment in the job's exchange receivers
	// and multi-input operators (see Merge): an input that delivered
	// barrier e is read on while the others catch up, so rows after e may
	// fall into epoch e. Only for at-least-once jobs (the view or sink
	// option streaming.barrier_alignment = 'false'); false aligns.
	Unaligned bool
	// Now reads the clock (nil: time.Now) and ExpansionHold is how long
	// a ProjectSet holds a barrier behind an expansion in progress, read
	// at each barrier (nil: DefaultExpansionHold). Past it the barrier
	// passes mid-expansion, so that one huge expansion does not hold up
	// every checkpoint.
	Now           func() time.Time
	ExpansionHold func() time.Duration
	// Decoupling makes the job's sinks decoupled (DESIGN.md §5a) unless
	// their options say otherwise; the zero value leaves them coupled.
	Decoupling SinkDecoupling
}

// Job is a built streaming job: its fragments' actors wired by channels,
// waiting for their first barrier. The engine runs it (Run), hands
// Spec() to the checkpoint coordinator, injects barriers (Inject) and
// pushes the scanned tables' changes (PushDML).
type Job struct {
	ID types.JobID
	// Fragments are in build order: the root fragment (holding the plan's
	// root) first.
	Fragments []*Fragment
	// Tables are the entry points of the tables the job scans, one per
	// StreamTableScan.
	Tables []*TableInput
	// entries are the barrier inputs of source actors other than table
	// scans (Values, Source).
	entries []chan<- types.Message
	// sinks are the job's sink operators, told of committed checkpoints.
	sinks []*Sink
	// hold pauses the job's sources while a sink's log store is full.
	hold *JobHold
	// gates are the job's sink gates.
	gates sinkGates
	// stats are the operators' counters, by plan node (see Stats).
	stats map[planner.StreamNode]*OperatorStats
	// tap opens Output's taps (TapFrom).
	tap tapGate
}

// Fragment is a part of the dataflow between exchanges, run by
// Parallelism actors with identical operator chains.
type Fragment struct {
	ID          int
	Root        planner.StreamNode
	Parallelism int
	Actors      []*Actor
}

// Spec returns the job as the coordinator sees it: its id and the actors
// that acknowledge every barrier.
func (j *Job) Spec() types.Job {
	return types.Job{ID: j.ID, Actors: j.ActorIDs()}
}

// Held reports whether the job's sources are paused because one of its
// sinks' log stores is full.
func (j *Job) Held() bool { return j.hold.Held() }

// ActorIDs returns the ids of every actor of the job.
func (j *Job) ActorIDs() []types.ActorID {
	var ids []types.ActorID
	for _, f := range j.Fragments {
		for _, a := range f.Actors {
			ids = append(ids, a.ID())
		}
	}
	return ids
}

// Inject delivers a barrier to every source actor of the job (table
// scans, external sources and values); the other actors get it through
// the dataflow. It blocks while a source's input is full, unless ctx is
// done first.
func (j *Job) Inject(ctx context.Context, b types.Barrier) error {
	for _, t := range j.Tables {
		if t.Relayed {
			continue
		}
		if err := t.inject(ctx, b); err != nil {
			return err
		}
	}
	return broadcastAll(ctx, j.entries, b)
}

// Committed tells the job that the checkpoint of epoch committed, so
// that its sinks commit their transactions of that epoch and older
// (phase two of DESIGN.md §5). The engine calls it after every committed
// checkpoint. It never blocks (the sinks commit in goroutines of their
// own) and is safe from any goroutine.
func (j *Job) Committed(epoch uint64) {
	for _, s := range j.sinks {
		s.Committed(epoch)
	}
}

// PushDML sends a chunk of changes of table relID (whole rows in
// Relation.Cols order) in the open epoch to every scan of that table in
// the job. The chunk is copied.
func (j *Job) PushDML(ctx context.Context, relID uint32, c *types.Chunk) error {
	for _, t := range j.Tables {
		if t.Rel.ID == relID {
			if n := len(t.Rel.Cols); len(c.Cols) > n {
				// The table has columns the job was planned without
				// (ALTER TABLE ... ADD COLUMN): it reads the others.
				narrow := types.NewChunkFromVecs(c.Cols[:n], c.Len())
				narrow.Ops, narrow.Vis = c.Ops, c.Vis
				c = narrow
			}
			if err := t.Push(ctx, c); err != nil {
				return err
			}
		}
	}
	return nil
}

// Scans reports whether the job reads table relID.
func (j *Job) Scans(relID uint32) bool {
	for _, t := range j.Tables {
		if t.Rel.ID == relID {
			return true
		}
	}
	return false
}

// Run runs every actor of the job, each in its own goroutine, until all
// have ended: after the barrier stopping the job, when ctx is cancelled,
// or after an actor failed (its error is reported to the sink by the
// actor; Run then stops the other actors and returns the error).
func (j *Job) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for _, f := range j.Fragments {
		for _, a := range f.Actors {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := a.Run(ctx); err != nil {
					once.Do(func() { first = err })
					cancel()
				}
			}()
		}
	}
	wg.Wait()
	return first
}

// Build turns a stream plan into a job: fragments split at
// StreamExchange nodes, at StreamShares (the shared subplan's fragment
// built once, dispatching to each of them) and at the inputs of
// multi-input operators (each input runs in actors of its own, so the
// operator can read all of them without blocking on one), Parallelism
// actors per fragment (one for a fragment with a single distribution),
// operators created from the nodes, and channels and dispatchers wired
// between fragments. State table ids come from the plan's
// StateTableDescs.
func Build(root planner.StreamNode, env Env) (*Job, error) {
	if env.DB == nil || env.Sink == nil {
		return nil, pgerr.New(pgerr.InternalError, "stream build: no storage or barrier sink")
	}
	if env.Parallelism <= 0 {
		env.Parallelism = runtime.NumCPU()
	}
	if env.Eval == nil {
		env.Eval = &executor.EvalCtx{Context: functions.Context{Location: time.UTC}}
	}
	if env.Cache == nil {
		env.Cache = storage.NewCache(64 << 20)
	}
	if env.NewActorID == nil {
		var next types.ActorID
		env.NewActorID = func() (types.ActorID, error) {
			next++
			return next, nil
		}
	}
	b := &builder{env: env, job: &Job{ID: env.Job, hold: &JobHold{}}, edges: map[planner.StreamNode]*edge{},
		shared: map[planner.StreamNode]*fragSpec{}}
	rootFrag := b.fragment(root)
	b.sizeAll(rootFrag)
	for _, f := range b.frags {
		if err := b.buildFragment(f); err != nil {
			return nil, err
		}
	}
	return b.job, nil
}

// fragSpec is a fragment being built; edge is a fragment boundary: the
// node consuming it (an exchange, or an input of a multi-input operator)
// reads the exchange x fed by fragment from.
type fragSpec struct {
	frag   *Fragment
	single bool
	// outs are the edges this fragment feeds: none for the root
	// fragment, one per consumer for a shared subplan's, one otherwise.
	outs []*edge
	ins  []*edge
}

type edge struct {
	from *fragSpec
	dist planner.Distribution
	// forward: no repartitioning (an input of a multi-input operator that
	// is not an exchange, or a StreamShare).
	forward bool
	// share: the edge reads a shared subplan (a StreamShare); its two
	// ends run with one parallelism, actor i feeding actor i.
	share bool
	x     *exchange
}

type builder struct {
	env   Env
	job   *Job
	frags []*fragSpec
	edges map[planner.StreamNode]*edge
	// shared are the fragments of shared subplans, by their root (the
	// Input of their StreamShares).
	shared map[planner.StreamNode]*fragSpec
	// tables are the scans' entry points, created with the first actor of
	// each scan's fragment.
	tables []*tableEntry
}

// fragment creates the fragment rooted at node and, recursively, the
// fragments feeding it. The fragment of a shared subplan (node a
// StreamShare) is created once, by its first StreamShare.
func (b *builder) fragment(node planner.StreamNode) *fragSpec {
	if s, ok := node.(*planner.StreamShare); ok {
		if f := b.shared[s.Input]; f != nil {
			return f
		}
		f := b.fragment(s.Input)
		b.shared[s.Input] = f
		return f
	}
	f := &fragSpec{frag: &Fragment{ID: len(b.frags), Root: node}}
	b.frags = append(b.frags, f)
	b.job.Fragments = append(b.job.Fragments, f.frag)
	b.walk(f, node)
	return f
}

// connect records that f reads the output of fragment from at node (an
// exchange, a StreamShare or an input of a multi-input operator).
func (b *builder) connect(f, from *fragSpec, node planner.StreamNode, e *edge) {
	e.from = from
	from.outs = append(from.outs, e)
	f.ins = append(f.ins, e)
	b.edges[node] = e
}

func (b *builder) walk(f *fragSpec, node planner.StreamNode) {
	if node.Base().Dist.Kind == planner.DistSingle {
		f.single = true
	}
	switch x := node.(type) {
	case *planner.StreamExchange:
		// An exchange over a shared subplan reads the subplan's
		// fragment, which dispatches to it as to its other consumers.
		b.connect(f, b.fragment(x.Input), node, &edge{dist: x.Dist})
		return
	case *planner.StreamShare:
		b.connect(f, b.fragment(x), node, &edge{forward: true, share: true, dist: planner.Distribution{Kind: planner.DistAny}})
		return
	}
	inputs := node.StreamInputs()
	multi := len(inputs) > 1
	if _, ok := node.(*planner.StreamUnion); ok {
		multi = true
	}
	for _, in := range inputs {
		switch in.(type) {
		case *planner.StreamExchange, *planner.StreamShare:
			// Read by a Merge of their own.
			b.walk(f, in)
			continue
		}
		if multi {
			b.connect(f, b.fragment(in), in, &edge{forward: true, dist: planner.Distribution{Kind: planner.DistAny}})
			continue
		}
		b.walk(f, in)
	}
}

// sizeAll sets every fragment's parallelism and creates the exchanges.
func (b *builder) sizeAll(root *fragSpec) {
	for _, f := range b.frags {
		f.frag.Parallelism = b.env.Parallelism
		if f.single {
			f.frag.Parallelism = 1
		}
	}
	for _, f := range b.frags {
		for _, e := range f.ins {
			if e.dist.Kind == planner.DistSingle {
				f.frag.Parallelism = 1
			}
		}
	}
	// A shared subplan's fragment and its StreamShares' consumers pair
	// their actors (no repartitioning), as when the subplan ran inside
	// each consumer's fragment: they all get the least parallelism among
	// them.
	for changed := true; changed; {
		changed = false
		for _, f := range b.frags {
			for _, e := range f.ins {
				if p := min(e.from.frag.Parallelism, f.frag.Parallelism); e.share && (e.from.frag.Parallelism != p || f.frag.Parallelism != p) {
					e.from.frag.Parallelism, f.frag.Parallelism = p, p
					changed = true
				}
			}
		}
	}
	for _, f := range b.frags {
		for _, e := range f.ins {
			e.x = newExchange(e.from.frag.Parallelism, f.frag.Parallelism)
		}
	}
}

func (b *builder) buildFragment(f *fragSpec) error {
	p := f.frag.Parallelism
	for i := 0; i < p; i++ {
		id, err := b.env.NewActorID()
		if err != nil {
			return err
		}
		actx := &ActorContext{
			Job: b.env.Job, Actor: id, Index: i, Parallelism: p,
			DB: b.env.DB, Cache: b.env.Cache, Errors: b.env.Errors, Eval: b.env.Eval,
			Watermarks: b.env.Watermarks, Hold: b.job.hold, sinkGates: &b.job.gates,
			Now: b.env.Now, ExpansionHold: b.env.ExpansionHold,
		}
		root, err := b.op(actx, f, f.frag.Root)
		if err != nil {
			return err
		}
		a := &Actor{ctx: actx, root: root, sink: b.env.Sink, blocked: &b.statsOf(f.frag.Root).BlockedNanos}
		switch len(f.outs) {
		case 0:
		case 1:
			a.out = newDispatcher(f.outs[0], i)
		default:
			md := make(multiDispatcher, len(f.outs))
			for k, e := range f.outs {
				md[k] = newDispatcher(e, i)
			}
			a.out = md
		}
		f.frag.Actors = append(f.frag.Actors, a)
	}
	return nil
}

func newDispatcher(e *edge, i int) dispatcher {
	outs := e.x.outputs(i)
	switch {
	case e.forward || e.dist.Kind == planner.DistAny:
		return &simpleDispatcher{outs: outs, target: i % len(outs)}
	case e.dist.Kind == planner.DistHash:
		return &hashDispatcher{outs: outs, keys: e.dist.Keys}
	case e.dist.Kind == planner.DistBroadcast:
		return &broadcastDispatcher{outs: outs}
	}
	return &simpleDispatcher{outs: outs}
}

// op creates the operator of node (and its inputs within the fragment)
// for one actor of f, counting the rows it emits (Job.Stats).
func (b *builder) op(actx *ActorContext, f *fragSpec, node planner.StreamNode) (Operator, error) {
	if _, ok := b.edges[node]; ok && node != f.frag.Root {
		return b.newOp(actx, f, node)
	}
	o, err := b.newOp(actx, f, node)
	if err != nil {
		return nil, err
	}
	return counted{Operator: o, s: b.statsOf(node)}, nil
}

// newOp creates the operator of node for one actor of f.
func (b *builder) newOp(actx *ActorContext, f *fragSpec, node planner.StreamNode) (Operator, error) {
	if e, ok := b.edges[node]; ok && node != f.frag.Root {
		m := newMerge(e.x.inputs(actx.Index))
		if b.env.Unaligned {
			m.unaligned()
		}
		return m, nil
	}
	input := func(in planner.StreamNode) (Operator, error) { return b.op(actx, f, in) }
	switch n := node.(type) {
	case *planner.StreamExchange, *planner.StreamShare:
		// The root of a fragment is never an exchange or a StreamShare:
		// walk put its input at the root of the child fragment.
		return nil, pgerr.New(pgerr.InternalError, "stream build: %T at the root of a fragment", node)
	case *planner.StreamTableScan:
		te := b.tableInput(n, f)
		src := &TableSource{ch: te.chans[actx.Index]}
		return NewBackfill(actx, src, n, te.seq, b.env.Progress)
	case *planner.StreamValues:
		ch := make(chan types.Message, ChannelCap)
		b.job.entries = append(b.job.entries, ch)
		return NewValues(actx, newMerge([]<-chan types.Message{ch}), n)
	case *planner.StreamSource:
		ch := make(chan types.Message, ChannelCap)
		b.job.entries = append(b.job.entries, ch)
		return NewSource(actx, ch, n, b.env.OpenSource)
	case *planner.StreamSink:
		in, err := input(n.Input)
		if err != nil {
			return nil, err
		}
		s, err := NewSink(actx, in, n, b.env.OpenSink)
		if err != nil {
			return nil, err
		}
		s.setDecoupling(b.env.Decoupling)
		b.job.sinks = append(b.job.sinks, s)
		return s, nil
	case *planner.StreamProject:
		in, err := input(n.Input)
		if err != nil {
			return nil, err
		}
		return NewProject(actx, in, n)
	case *planner.StreamFilter:
		in, err := input(n.Input)
		if err != nil {
			return nil, err
		}
		return NewFilter(actx, in, n)
	case *planner.StreamDynamicFilter:
		in, err := input(n.Input)
		if err != nil {
			return nil, err
		}
		return NewDynamicFilter(actx, in, n)
	case *planner.StreamProjectSet:
		in, err := input(n.Input)
		if err != nil {
			return nil, err
		}
		return NewProjectSet(actx, in, n)
	case *planner.StreamExpand:
		in, err := input(n.Input)
		if err != nil {
			return nil, err
		}
		return NewExpand(in, n), nil
	case *planner.StreamReplicate:
		in, err := input(n.Input)
		if err != nil {
			return nil, err
		}
		return NewReplicate(in, n), nil
	case *planner.StreamHopWindow:
		in, err := input(n.Input)
		if err != nil {
			return nil, err
		}
		return NewHopWindow(actx, in, n)
	case *planner.StreamSessionWindow:
		in, err := input(n.Input)
		if err != nil {
			return nil, err
		}
		return NewSessionWindow(actx, in, n)
	case *planner.StreamMaterialize:
		in, err := input(n.Input)
		if err != nil {
			return nil, err
		}
		return NewMaterialize(actx, in, n)
	case *planner.StreamUnion:
		ins := make([]Operator, len(n.Inputs))
		for i, x := range n.Inputs {
			var err error
			if ins[i], err = input(x); err != nil {
				return nil, err
			}
		}
		return NewUnion(actx, ins)
	case *planner.StreamHashAgg:
		in, err := input(n.Input)
		if err != nil {
			return nil, err
		}
		// The aggregation folds each input chunk before it asks for the
		// next, keeping copies of the values only.
		reuseOutput(in)
		return NewHashAgg(actx, in, n)
	case *planner.StreamTopN:
		in, err := input(n.Input)
		if err != nil {
			return nil, err
		}
		return NewTopN(actx, in, n)
	case *planner.StreamOverWindow:
		in, err := input(n.Input)
		if err != nil {
			return nil, err
		}
		return NewOverWindow(actx, in, n)
	case *planner.StreamLookupJoin:
		in, err := input(n.Input)
		if err != nil {
			return nil, err
		}
		return NewLookupJoin(actx, in, n)
	case *planner.StreamHashJoin:
		l, err := input(n.Left)
		if err != nil {
			return nil, err
		}
		r, err := input(n.Right)
		if err != nil {
			return nil, err
		}
		return NewHashJoin(actx, l, r, n)
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "stream operator %T is not supported", node)
}

// tableInput returns the entry point of scan n, creating it with the
// first actor of the scan's fragment.
func (b *builder) tableInput(n *planner.StreamTableScan, f *fragSpec) *tableEntry {
	for _, te := range b.tables {
		if te.node == n {
			return te
		}
	}
	p := f.frag.Parallelism
	te := &tableEntry{node: n, seq: len(b.tables), chans: make([]chan types.Message, p)}
	outs := make([]chan<- types.Message, p)
	for i := range te.chans {
		te.chans[i] = make(chan types.Message, ChannelCap)
		outs[i] = te.chans[i]
	}
	ti := &TableInput{Rel: n.Rel, outs: outs, disp: &hashDispatcher{outs: outs, keys: n.Rel.PK}}
	b.tables = append(b.tables, te)
	b.job.Tables = append(b.job.Tables, ti)
	return te
}

type tableEntry struct {
	node  *planner.StreamTableScan
	seq   int
	chans []chan types.Message
}
