package engine

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// Sequences back serial and identity columns. Such a sequence belongs to
// its column (catalog.Column.Seq names it) and counts from 1 by 1 up to
// its column type's maximum. CREATE SEQUENCE makes one that is a relation
// of its own (catalog.KindSequence), counting from its START by 1 up to
// the maximum of its AS type. Its position is durable the way PostgreSQL's
// sequence cache is: before handing out a value beyond the last recorded
// limit, the sequence records a new limit seqLogAhead values further in
// one synced write, and after a restart it starts above the recorded
// limit. A crash may therefore skip values, but never hands one out
// twice. nextval and setval are not transactional, as in PostgreSQL: a
// rolled-back INSERT does not give its values back.

// seqLogAhead is how many values one durable write covers (PostgreSQL's
// SEQ_LOG_VALS).
const seqLogAhead = 32

// seqState is a sequence's position in memory: next is the value nextval
// returns next, limit the highest value the durable record covers.
type seqState struct {
	next, limit int64
	// called is PostgreSQL's is_called: false until the first nextval
	// and after setval(..., false), when next is also last_value.
	called bool
}

// seqTable holds the positions of the sequences used since the start.
type seqTable struct {
	mu sync.Mutex
	m  map[string]*seqState
}

// seqMeta is the storage metadata name of the sequence of column col of
// table relID.
func seqMeta(relID uint32, col string) string { return fmt.Sprintf("sequence/%d/%s", relID, col) }

// seqMax is the largest value of a sequence feeding a column of type t.
func seqMax(t types.T) int64 {
	switch t.ID {
	case types.Int2:
		return math.MaxInt16
	case types.Int4:
		return math.MaxInt32
	}
	return math.MaxInt64
}

// seqName reads a sequence name as nextval's text argument gives it
// (regclass input): an optional schema, a quoted name kept as written,
// an unquoted one folded to lower case.
func seqName(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndex(s, "."); i >= 0 && !strings.HasSuffix(s[:i], "\"") || strings.HasPrefix(s, "public.") {
		if strings.HasPrefix(s, "public.") || strings.HasPrefix(s, "\"public\".") {
			s = s[strings.Index(s, ".")+1:]
		}
	}
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
	}
	return strings.ToLower(s)
}

// findSequence returns the sequence name: a sequence made by CREATE
// SEQUENCE (col -1), or the table and column owning it; 42P01 when there
// is none.
func (e *Engine) findSequence(name string) (*catalog.Relation, int, error) {
	n := seqName(name)
	schema := catalog.PublicSchema
	if i := strings.LastIndexByte(n, '.'); i >= 0 && !strings.HasSuffix(strings.TrimSpace(name), `"`) {
		// schema.name (seqName has dropped a public. already).
		schema, n = seqName(name[:strings.LastIndexByte(name, '.')]), n[i+1:]
	}
	if rel, ok := e.cat.Lookup(schema, n); ok {
		if rel.Kind != catalog.KindSequence {
			return nil, 0, pgerr.New(pgerr.WrongObjectType, "\"%s\" is not a sequence", n)
		}
		return rel, -1, nil
	}
	for _, rel := range e.cat.All() {
		if rel.Kind != catalog.KindTable {
			continue
		}
		for i, c := range rel.Cols {
			if c.Seq != "" && c.Seq == n {
				return rel, i, nil
			}
		}
	}
	return nil, 0, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", n)
}

// findSequence is the engine's findSequence as the session sees names:
// an unqualified name is looked for through the session's search path
// (sessionSearch; the temporary schema first), one in pg_temp in the
// session's temporary schema: a sequence of CREATE SEQUENCE, or the
// sequence of a serial or identity column of a table of the schema. An
// unqualified name of a serial column's sequence the path does not find
// is still found in any schema, as the engine's findSequence finds it:
// column defaults keep such names unqualified.
func (s *Session) findSequence(name string) (*catalog.Relation, int, error) {
	n, schema := seqName(name), ""
	quoted := false
	for i, r := range name {
		switch {
		case r == '"':
			quoted = !quoted
		case r == '.' && !quoted:
			schema, n = seqName(name[:i]), seqName(name[i+1:])
		}
	}
	var schemas []string
	switch {
	case schema == "":
		schemas = s.sessionSearch()
	case schema == catalog.TempSchemaAlias || (schema == s.tempSchema && s.tempSchema != ""):
		if s.tempSchema != "" {
			schemas = []string{s.tempSchema}
		}
	default:
		return s.eng.findSequence(name)
	}
	for _, sc := range schemas {
		if rel, ok := s.eng.cat.Lookup(sc, n); ok {
			if rel.Kind != catalog.KindSequence {
				return nil, 0, pgerr.New(pgerr.WrongObjectType, "\"%s\" is not a sequence", n)
			}
			return rel, -1, nil
		}
		for _, rel := range s.eng.cat.InSchema(sc) {
			if rel.Kind != catalog.KindTable {
				continue
			}
			for i, c := range rel.Cols {
				if c.Seq != "" && c.Seq == n && !c.Dropped {
					return rel, i, nil
				}
			}
		}
	}
	if schema != "" {
		return nil, 0, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", n)
	}
	rel, col, err := s.eng.findSequence(name)
	if err == nil && col < 0 {
		// A sequence of CREATE SEQUENCE off the path.
		return nil, 0, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", n)
	}
	return rel, col, err
}

// nextvalArg finds the sequence names of nextval('name') calls in a
// column default's text (stored as "nextval"('name'), or as
// "nextval"(pg_cast('name', 'regclass')) for nextval('name'::regclass)).
var nextvalArg = regexp.MustCompile(`(?i)(?:\b|")nextval"?\s*\(\s*(?:pg_cast\s*\(\s*)?'((?:[^']|'')*)'`)

// sequenceUse is a column whose default calls nextval on a sequence.
type sequenceUse struct {
	rel *catalog.Relation
	col int
}

// sequenceUses returns the columns whose defaults call nextval on seq, a
// sequence made by CREATE SEQUENCE, as PostgreSQL's dependencies of a
// default on the sequence it names. Called under writeMu.
func (e *Engine) sequenceUses(seq *catalog.Relation) []sequenceUse {
	var uses []sequenceUse
	for _, rel := range e.cat.All() {
		if rel.Kind != catalog.KindTable {
			continue
		}
		for i, c := range rel.Cols {
			for _, m := range nextvalArg.FindAllStringSubmatch(c.Default, -1) {
				if r, col, err := e.findSequence(strings.ReplaceAll(m[1], "''", "'")); err == nil && col < 0 && r.ID == seq.ID {
					uses = append(uses, sequenceUse{rel: rel, col: i})
					break
				}
			}
		}
	}
	return uses
}

// dropSequenceDefaults handles the column defaults that call nextval on
// the sequences being dropped: without cascade they are 2BP01, as in
// PostgreSQL, their detail listing every one; with it the defaults are
// removed (the columns stay) and notice gets one "drop cascades to" line
// for each. Called under writeMu.
func (e *Engine) dropSequenceDefaults(seqs []*catalog.Relation, cascade bool, notice func(lines []string)) error {
	changed := map[uint32]*catalog.Relation{}
	var detail, lines []string
	for _, seq := range seqs {
		for _, u := range e.sequenceUses(seq) {
			what := fmt.Sprintf("default value for column %s of table %s", u.rel.Cols[u.col].Name, sql.QuoteIdent(u.rel.Name))
			detail = append(detail, what+" depends on sequence "+sql.QuoteIdent(seq.Name))
			lines = append(lines, "drop cascades to "+what)
			rel := changed[u.rel.ID]
			if rel == nil {
				cp := *u.rel
				cp.Cols = append([]catalog.Column(nil), u.rel.Cols...)
				rel = &cp
				changed[u.rel.ID] = rel
			}
			rel.Cols[u.col].Default = ""
		}
	}
	if len(detail) > 0 && !cascade {
		err := pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop desired object(s) because other objects depend on them")
		if len(seqs) == 1 {
			err = pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop sequence %s because other objects depend on it", sql.QuoteIdent(seqs[0].Name))
		}
		return err.WithDetail("%s", strings.Join(detail, "\n")).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	if len(lines) > 0 {
		notice(lines)
	}
	if len(changed) == 0 {
		return nil
	}
	rels := make([]*catalog.Relation, 0, len(changed))
	for _, r := range changed {
		rels = append(rels, r)
	}
	return e.cat.ReplaceAll(rels...)
}

// seqInfo describes the sequence of rel's column col, or rel itself when
// it is a sequence (col -1): its name, the largest and the first value,
// and the storage metadata name of its position.
func seqInfo(rel *catalog.Relation, col int) (name string, max, start int64, key string) {
	if col < 0 {
		start, _ = strconv.ParseInt(rel.With["start"], 10, 64)
		if start == 0 {
			start = 1
		}
		return rel.Name, seqMax(sequenceType(rel.With["as"])), start, seqMeta(rel.ID, "")
	}
	c := rel.Cols[col]
	if c.SeqKey != "" {
		// A renamed column's sequence stays where it was.
		return c.Seq, seqMax(c.T), c.SeqFirst(), seqMeta(rel.ID, c.SeqKey)
	}
	return c.Seq, seqMax(c.T), c.SeqFirst(), seqMeta(rel.ID, c.Name)
}

// sequenceType is the type of CREATE SEQUENCE ... AS name.
func sequenceType(name string) types.T {
	switch name {
	case "smallint":
		return types.T{ID: types.Int2, Mod: -1}
	case "integer":
		return types.T{ID: types.Int4, Mod: -1}
	}
	return types.T{ID: types.Int8, Mod: -1}
}

// seqStateOf returns the position of a sequence, loading it from storage
// the first time. Called with e.seqs.mu held.
func (e *Engine) seqStateOf(rel *catalog.Relation, col int) (*seqState, string, error) {
	_, _, start, key := seqInfo(rel, col)
	if e.seqs.m == nil {
		e.seqs.m = map[string]*seqState{}
	}
	if st := e.seqs.m[key]; st != nil {
		return st, key, nil
	}
	st := &seqState{next: start, limit: start - 1}
	v, ok, err := e.db.Meta(key)
	if err != nil {
		return nil, "", err
	}
	if ok {
		if len(v) != 8 {
			return nil, "", pgerr.New(pgerr.DataCorrupted, "corrupt sequence record %q", key)
		}
		st.limit = int64(binary.BigEndian.Uint64(v))
		st.next = st.limit + 1
		st.called = true
	}
	e.seqs.m[key] = st
	return st, key, nil
}

// sequenceLast returns the last value the sequence of rel's column col
// (-1: rel itself) handed out or reserved, and false before its first.
func (e *Engine) sequenceLast(rel *catalog.Relation, col int) (int64, bool) {
	e.seqs.mu.Lock()
	defer e.seqs.mu.Unlock()
	st, _, err := e.seqStateOf(rel, col)
	if err != nil {
		return 0, false
	}
	_, _, start, _ := seqInfo(rel, col)
	if st.next-1 < start {
		return 0, false
	}
	return st.next - 1, true
}

// nextval returns the next value of the sequence of rel's column col.
func (e *Engine) nextval(rel *catalog.Relation, col int) (int64, error) {
	e.seqs.mu.Lock()
	defer e.seqs.mu.Unlock()
	st, key, err := e.seqStateOf(rel, col)
	if err != nil {
		return 0, err
	}
	name, max, _, _ := seqInfo(rel, col)
	if st.next > max || st.next < 1 {
		return 0, pgerr.New(pgerr.SequenceGeneratorLimit, "nextval: reached maximum value of sequence \"%s\" (%d)", name, max)
	}
	v := st.next
	if v > st.limit {
		// v and the seqLogAhead values after it, as PostgreSQL logs.
		limit := v + seqLogAhead
		if limit > max || limit < v {
			limit = max
		}
		if err := e.db.PutMetaSync(key, binary.BigEndian.AppendUint64(nil, uint64(limit))); err != nil {
			return 0, err
		}
		st.limit = limit
	}
	st.next = v + 1
	st.called = true
	return v, nil
}

// setval moves the sequence of rel's column col so that nextval returns
// v+1 (isCalled) or v, recording the position durably at once.
func (e *Engine) setval(rel *catalog.Relation, col int, v int64, isCalled bool) error {
	if name, max, _, _ := seqInfo(rel, col); v < 1 || v > max {
		return pgerr.New(pgerr.NumericValueOutOfRange, "setval: value %d is out of bounds for sequence \"%s\" (1..%d)", v, name, max)
	}
	e.seqs.mu.Lock()
	defer e.seqs.mu.Unlock()
	st, key, err := e.seqStateOf(rel, col)
	if err != nil {
		return err
	}
	next := v
	if isCalled {
		next = v + 1
	}
	if err := e.db.PutMetaSync(key, binary.BigEndian.AppendUint64(nil, uint64(next-1))); err != nil {
		return err
	}
	st.next, st.limit, st.called = next, next-1, isCalled
	return nil
}

// sequenceRow is the one row of a sequence read as a relation (SELECT *
// FROM seq): last_value, log_cnt and is_called as PostgreSQL shows them.
// log_cnt is how many values after last_value the durable record already
// covers, which counts down from seqLogAhead as PostgreSQL's does; it
// differs from PostgreSQL's after a restart or a checkpoint there, since
// PostgreSQL also writes a record at the first nextval after each
// checkpoint.
//
// id is the sequence's relation id, or "<table id>/<column index>" for a
// serial or identity column's sequence, whose SELECT privilege is checked
// here (the binder checks a CREATE SEQUENCE sequence's).
func (s *Session) sequenceRow(id string) ([]types.Row, error) {
	e := s.eng
	tid, colText, owned := strings.Cut(id, "/")
	n, err := strconv.ParseUint(tid, 10, 32)
	col := -1
	if owned && err == nil {
		col, err = strconv.Atoi(colText)
	}
	if err != nil {
		return nil, pgerr.New(pgerr.InternalError, "bad sequence id %q", id)
	}
	rel, ok := e.cat.ByID(uint32(n))
	if !ok || (col < 0 && rel.Kind != catalog.KindSequence) || (col >= 0 && (col >= len(rel.Cols) || rel.Cols[col].Seq == "")) {
		return nil, pgerr.New(pgerr.UndefinedTable, "sequence %q does not exist", id)
	}
	if col >= 0 && !s.internal {
		if err := s.checkSequence(rel, col, catalog.PrivSelect); err != nil {
			return nil, err
		}
	}
	e.seqs.mu.Lock()
	defer e.seqs.mu.Unlock()
	st, _, err := e.seqStateOf(rel, col)
	if err != nil {
		return nil, err
	}
	last, logCnt := st.next, int64(0)
	if st.called {
		last = st.next - 1
		if st.limit > last {
			logCnt = st.limit - last
		}
	}
	return []types.Row{{types.DInt(last), types.DInt(logCnt), types.DBool(st.called)}}, nil
}

// NextVal implements functions.Sequences: it needs USAGE or UPDATE on
// the sequence.
func (s *Session) NextVal(name string) (int64, error) {
	return s.nextVal(name, true)
}

// IdentityNextVal implements functions.Sequences: an identity column's
// next value, taken without checking privileges on its sequence, as
// PostgreSQL's NextValueExpr (INSERT on the table is what counts).
func (s *Session) IdentityNextVal(name string) (int64, error) {
	return s.nextVal(name, false)
}

func (s *Session) nextVal(name string, check bool) (int64, error) {
	rel, col, err := s.findSequence(name)
	if err != nil {
		return 0, err
	}
	if check {
		if err := s.checkSequence(rel, col, catalog.PrivUsage|catalog.PrivUpdate); err != nil {
			return 0, err
		}
	}
	v, err := s.eng.nextval(rel, col)
	if err != nil {
		return 0, err
	}
	if s.seqLast == nil {
		s.seqLast = map[string]int64{}
	}
	seq, _, _, _ := seqInfo(rel, col)
	s.seqLast[seq] = v
	s.seqLastName = seq
	return v, nil
}

// LastVal implements functions.Sequences: the value of the sequence
// nextval was last applied to in this session, as currval gives it.
func (s *Session) LastVal() (int64, error) {
	if s.seqLastName == "" {
		return 0, pgerr.New(pgerr.ObjectNotInPrerequisiteState, "lastval is not yet defined in this session")
	}
	if rel, col, err := s.findSequence(sql.QuoteIdent(s.seqLastName)); err == nil {
		if err := s.checkSequence(rel, col, catalog.PrivSelect|catalog.PrivUsage); err != nil {
			return 0, err
		}
	}
	return s.seqLast[s.seqLastName], nil
}

// CurrVal implements functions.Sequences: the value nextval last returned
// in this session.
func (s *Session) CurrVal(name string) (int64, error) {
	rel, col, err := s.findSequence(name)
	if err != nil {
		return 0, err
	}
	if err := s.checkSequence(rel, col, catalog.PrivSelect|catalog.PrivUsage); err != nil {
		return 0, err
	}
	seq, _, _, _ := seqInfo(rel, col)
	v, ok := s.seqLast[seq]
	if !ok {
		return 0, pgerr.New(pgerr.ObjectNotInPrerequisiteState, "currval of sequence \"%s\" is not yet defined in this session", seq)
	}
	return v, nil
}

// SetVal implements functions.Sequences.
func (s *Session) SetVal(name string, v int64, isCalled bool) (int64, error) {
	rel, col, err := s.findSequence(name)
	if err != nil {
		return 0, err
	}
	if err := s.checkSequence(rel, col, catalog.PrivUpdate); err != nil {
		return 0, err
	}
	if err := s.eng.setval(rel, col, v, isCalled); err != nil {
		return 0, err
	}
	if isCalled {
		if s.seqLast == nil {
			s.seqLast = map[string]int64{}
		}
		name, _, _, _ := seqInfo(rel, col)
		s.seqLast[name] = v
	}
	return v, nil
}

// SerialSequence implements functions.Sequences: table is read as a
// regclass literal (an optional schema, unquoted names folded to lower
// case), column literally, as PostgreSQL's pg_get_serial_sequence does.
func (s *Session) SerialSequence(table, column string) (string, bool, error) {
	schema, name := "", table
	if i := strings.LastIndexByte(table, '.'); i >= 0 {
		schema, name = table[:i], table[i+1:]
	}
	fold := func(x string) string {
		if len(x) >= 2 && x[0] == '"' && x[len(x)-1] == '"' {
			return strings.ReplaceAll(x[1:len(x)-1], `""`, `"`)
		}
		return strings.ToLower(x)
	}
	rel, ok := s.catalogView().Relation(fold(schema), fold(name))
	if !ok {
		return "", false, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", table)
	}
	for i, c := range rel.Cols {
		if c.Name != column || c.Hidden {
			continue
		}
		if c.Seq == "" {
			// A sequence OWNED BY the column.
			for _, q := range s.eng.ownedSequences(rel.ID, i) {
				return sql.QuoteIdent(q.Schema) + "." + sql.QuoteIdent(q.Name), true, nil
			}
			return "", false, nil
		}
		schema := rel.Schema
		if rel.Temp {
			// PostgreSQL names any temporary schema pg_temp here.
			schema = catalog.TempSchemaAlias
		}
		return sql.QuoteIdent(schema) + "." + sql.QuoteIdent(c.Seq), true, nil
	}
	return "", false, pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", column, rel.Name)
}

// ownedSequenceName picks the name of the sequence of a new serial or
// identity column, as PostgreSQL does: table_column_seq, with a number
// added when a relation or another sequence has that name.
func (e *Engine) ownedSequenceName(schema, table, col string, taken map[string]bool) string {
	base := table + "_" + col + "_seq"
	used := func(n string) bool {
		if taken[n] {
			return true
		}
		if _, ok := e.cat.Lookup(schema, n); ok {
			return true
		}
		_, _, err := e.findSequence(`"` + strings.ReplaceAll(n, `"`, `""`) + `"`)
		return err == nil
	}
	name := base
	for i := 1; used(name); i++ {
		name = fmt.Sprintf("%s%d", base, i)
	}
	return name
}

// createSequence runs CREATE SEQUENCE: a relation of kind sequence (in
// pg_class with relkind 'S') whose position is kept like a serial
// column's, under its own id.
func (s *Session) createSequence(ctx context.Context, st *sql.CreateSequence, text string, io wire.ExecIO) (wire.Result, error) {
	if err := s.noDDLInBlock("CREATE SEQUENCE"); err != nil {
		return nil, err
	}
	name, max, _, _ := seqInfo(&catalog.Relation{Name: st.Name.Name, With: map[string]string{"as": st.As}}, -1)
	if st.Start < 1 {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "START value (%d) cannot be less than MINVALUE (1)", st.Start)
	}
	if st.Start > max {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "START value (%d) cannot be greater than MAXVALUE (%d)", st.Start, max)
	}
	e := s.eng
	if err := e.ddlMu.lockContext(ctx); err != nil {
		return nil, err
	}
	defer e.ddlMu.Unlock()
	if err := e.writeMu.lockContext(ctx); err != nil {
		return nil, err
	}
	defer e.writeMu.Unlock()
	schema, temp, err := s.creationSchema(st.Name, st.Temp)
	if err != nil {
		return nil, err
	}
	// A temporary sequence's name is looked up in the session's
	// temporary schema (Session.findSequence) and clashes only with the
	// names there.
	owned := false
	if temp {
		for _, r := range e.cat.InSchema(schema) {
			owned = owned || slices.ContainsFunc(r.Cols, func(c catalog.Column) bool { return c.Seq == name })
		}
	} else {
		_, owned = e.findOwnedSequence(name)
	}
	if _, ok := e.cat.Lookup(schema, name); ok || owned {
		if st.IfNotExists {
			io.Notice("NOTICE", "42P07", fmt.Sprintf("relation \"%s\" already exists, skipping", name))
			return done("CREATE SEQUENCE")
		}
		return nil, pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", name)
	}
	rel := &catalog.Relation{Schema: schema, Name: name, Kind: catalog.KindSequence, SQL: text,
		With: map[string]string{"as": st.As, "start": strconv.FormatInt(st.Start, 10)}, Owner: s.role().OID}
	if st.OwnedBy != nil {
		if err := s.setOwnedBy(rel, st.OwnedBy); err != nil {
			return nil, err
		}
	}
	if err := e.cat.Create(rel); err != nil {
		return nil, err
	}
	return done("CREATE SEQUENCE")
}

// findOwnedSequence reports whether a serial or identity column owns a
// sequence called name.
func (e *Engine) findOwnedSequence(name string) (*catalog.Relation, bool) {
	for _, rel := range e.cat.All() {
		for _, c := range rel.Cols {
			if c.Seq == name {
				return rel, true
			}
		}
	}
	return nil, false
}

// implicitSequence finds the sequence n names when it is a serial or
// identity column's, which has no relation of its own: the table and
// the column's index. An unqualified name is looked for through the
// session's search path, as schemaOf does.
func (s *Session) implicitSequence(n sql.ObjectName) (*catalog.Relation, int, bool) {
	schemas := []string{s.schemaOf(n)}
	if n.Schema == "" {
		schemas = s.sessionSearch()
	}
	for _, schema := range schemas {
		for _, rel := range s.eng.cat.InSchema(schema) {
			if rel.Kind != catalog.KindTable {
				continue
			}
			for i, c := range rel.Cols {
				if c.Seq != "" && c.Seq == n.Name {
					return rel, i, true
				}
			}
		}
	}
	return nil, 0, false
}

// alterImplicitSequence runs ALTER SEQUENCE on the sequence of rel's
// serial or identity column col: its table's owner may RESTART it; OWNED
// BY cannot move an identity column's sequence (PostgreSQL's 0A000) nor,
// in weir, a serial column's, which is part of its column. Called under
// ddlMu.
func (s *Session) alterImplicitSequence(st *sql.AlterSequence, rel *catalog.Relation, col int) (wire.Result, error) {
	name, max, start, _ := seqInfo(rel, col)
	if !s.superuser() && !s.owns(rel) {
		return nil, pgerr.New(pgerr.InsufficientPrivilege, "must be owner of sequence %s", name)
	}
	v := start
	if st.Restart {
		var err error
		if v, err = restartValue(st, start, max); err != nil {
			return nil, err
		}
	}
	if st.OwnedBy != nil {
		if rel.Cols[col].Identity != "" {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "cannot change ownership of identity sequence").
				WithDetail("Sequence \"%s\" is linked to table \"%s\".", name, rel.Name)
		}
		return nil, pgerr.New(pgerr.FeatureNotSupported, "cannot change ownership of the sequence of serial column \"%s\" of table \"%s\"", rel.Cols[col].Name, rel.Name)
	}
	if st.Restart {
		if err := s.eng.setval(rel, col, v, false); err != nil {
			return nil, err
		}
	}
	return done("ALTER SEQUENCE")
}

// dropImplicitSequence refuses DROP SEQUENCE of a serial or identity
// column's sequence, n, as PostgreSQL does: an identity column requires
// its sequence (2BP01, CASCADE or not); a serial column's default
// depends on it (2BP01 without CASCADE; weir cannot drop the default
// alone, so CASCADE is 0A000). It returns nil when n is no such
// sequence.
func (s *Session) dropImplicitSequence(n sql.ObjectName, cascade bool) error {
	rel, col, ok := s.implicitSequence(n)
	if !ok {
		return nil
	}
	c := rel.Cols[col]
	// PostgreSQL's object descriptions qualify names its search path
	// does not find.
	seq, table := c.Seq, rel.Name
	if !s.relVisible(rel.Schema, c.Seq) {
		seq = rel.Schema + "." + seq
	}
	if !s.relVisible(rel.Schema, rel.Name) {
		table = rel.Schema + "." + table
	}
	switch {
	case c.Identity != "":
		return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop sequence %s because column %s of table %s requires it", seq, c.Name, table).
			WithHint("You can drop column %s of table %s instead.", c.Name, table)
	case !cascade:
		return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop sequence %s because other objects depend on it", seq).
			WithDetail("default value for column %s of table %s depends on sequence %s", c.Name, table, seq).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	return pgerr.New(pgerr.FeatureNotSupported, "DROP SEQUENCE ... CASCADE of the sequence of serial column \"%s\" of table \"%s\" is not supported", c.Name, rel.Name)
}

// alterSequence runs ALTER SEQUENCE ... RESTART [WITH n] and OWNED BY:
// RESTART makes nextval return n next (the sequence's start without
// WITH), recorded durably at once; OWNED BY ties the sequence to a
// column (setOwnedBy) or, with NONE, unties it.
func (s *Session) alterSequence(ctx context.Context, st *sql.AlterSequence, io wire.ExecIO) (wire.Result, error) {
	if err := s.noDDLInBlock("ALTER SEQUENCE"); err != nil {
		return nil, err
	}
	e := s.eng
	if err := e.ddlMu.lockContext(ctx); err != nil {
		return nil, err
	}
	defer e.ddlMu.Unlock()
	rel, ok := e.cat.Lookup(s.schemaOf(st.Name), st.Name.Name)
	if !ok {
		if t, col, ok := s.implicitSequence(st.Name); ok {
			return s.alterImplicitSequence(st, t, col)
		}
		if st.IfExists {
			io.Notice("NOTICE", "00000", fmt.Sprintf("relation \"%s\" does not exist, skipping", st.Name.Name))
			return done("ALTER SEQUENCE")
		}
		return nil, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", st.Name.Name)
	}
	if rel.Kind != catalog.KindSequence {
		return nil, pgerr.New(pgerr.WrongObjectType, "\"%s\" is not a sequence", rel.Name)
	}
	if !s.superuser() && !s.owns(rel) {
		return nil, pgerr.New(pgerr.InsufficientPrivilege, "must be owner of sequence %s", rel.Name)
	}
	v := int64(0)
	if st.Restart {
		_, max, start, _ := seqInfo(rel, -1)
		var err error
		if v, err = restartValue(st, start, max); err != nil {
			return nil, err
		}
	}
	if st.OwnedBy != nil {
		e.writeMu.Lock()
		defer e.writeMu.Unlock()
		up := rel.Clone()
		if err := s.setOwnedBy(up, st.OwnedBy); err != nil {
			return nil, err
		}
		if err := e.cat.Replace(up); err != nil {
			return nil, err
		}
	}
	if st.Restart {
		if err := e.setval(rel, -1, v, false); err != nil {
			return nil, err
		}
	}
	return done("ALTER SEQUENCE")
}

// setOwnedBy records in sequence seq the column OWNED BY names, after
// PostgreSQL's checks: a table or view (42809) in the sequence's schema
// with the sequence's owner (55000), and a column of it (42703). OWNED
// BY NONE removes the link.
func (s *Session) setOwnedBy(seq *catalog.Relation, o *sql.OwnedBy) error {
	if o.Column == "" {
		delete(seq.With, catalog.SeqOwnedByOption)
		return nil
	}
	if err := s.systemCatalogError(o.Table); err != nil {
		return err
	}
	rel, ok := s.eng.cat.Lookup(s.schemaOf(o.Table), o.Table.Name)
	if !ok {
		return pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", o.Table.Name)
	}
	if rel.Kind != catalog.KindTable && rel.Kind != catalog.KindView {
		kinds := kindWords[rel.Kind] + "s"
		if rel.Kind == catalog.KindIndex {
			kinds = "indexes"
		}
		return pgerr.New(pgerr.WrongObjectType, "sequence cannot be owned by relation \"%s\"", rel.Name).
			WithDetail("This operation is not supported for %s.", kinds)
	}
	owner := func(r *catalog.Relation) uint32 {
		if r.Owner == 0 {
			// Made before relations had owners: the bootstrap superuser's.
			return catalog.BootstrapRoleOID
		}
		return r.Owner
	}
	if owner(rel) != owner(seq) {
		return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "sequence must have same owner as table it is linked to")
	}
	if rel.Schema != seq.Schema {
		return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "sequence must be in same schema as table it is linked to")
	}
	i := visibleColumn(rel, o.Column)
	if i < 0 {
		return pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", o.Column, rel.Name)
	}
	if seq.With == nil {
		seq.With = map[string]string{}
	}
	seq.With[catalog.SeqOwnedByOption] = fmt.Sprintf("%d/%d", rel.ID, i)
	return nil
}

// ownedSequences returns the sequences OWNED BY a column of table
// tableID: any column when col is negative, else column col.
func (e *Engine) ownedSequences(tableID uint32, col int) []*catalog.Relation {
	var out []*catalog.Relation
	for _, r := range e.cat.All() {
		if t, c, ok := r.SeqOwner(); ok && t == tableID && (col < 0 || c == col) {
			out = append(out, r)
		}
	}
	return out
}

// dropOwnedSequences adds to order, a DROP's relations, the sequences
// OWNED BY columns of its tables and views, as PostgreSQL's automatic
// dependencies drop them without a notice. A default of a table order
// does not drop that calls nextval on one of them is, with cascade,
// removed (its table's entry in replace, the catalog entries the drop
// overwrites, updated or added, and a "drop cascades to" line added to
// lines); without cascade it is added to blockers. Called under writeMu.
func (e *Engine) dropOwnedSequences(order, replace []*catalog.Relation, lines, blockers []string, cascade bool) ([]*catalog.Relation, []*catalog.Relation, []string, []string) {
	dropping := map[uint32]bool{}
	for _, r := range order {
		dropping[r.ID] = true
	}
	var seqs []*catalog.Relation
	for _, r := range order {
		if r.Kind != catalog.KindTable && r.Kind != catalog.KindView {
			continue
		}
		for _, q := range e.ownedSequences(r.ID, -1) {
			if !dropping[q.ID] {
				dropping[q.ID] = true
				seqs = append(seqs, q)
			}
		}
	}
	for _, q := range seqs {
		for _, u := range e.sequenceUses(q) {
			if dropping[u.rel.ID] {
				continue
			}
			what := fmt.Sprintf("default value for column %s of table %s", u.rel.Cols[u.col].Name, u.rel.Name)
			if !cascade {
				blockers = append(blockers, what+" depends on sequence "+q.Name)
				continue
			}
			lines = append(lines, "drop cascades to "+what)
			k := slices.IndexFunc(replace, func(r *catalog.Relation) bool { return r.ID == u.rel.ID })
			if k < 0 {
				replace = append(replace, u.rel.Clone())
				k = len(replace) - 1
			}
			replace[k].Cols[u.col].Default = ""
		}
	}
	return append(seqs, order...), replace, lines, blockers
}

// restartValue is the value ALTER SEQUENCE ... RESTART [WITH v] sets a
// sequence of the given start and maximum to, checked against its bounds
// (weir's sequences have MINVALUE 1) with PostgreSQL's errors.
func restartValue(st *sql.AlterSequence, start, max int64) (int64, error) {
	v := start
	if st.RestartWith != nil {
		v = *st.RestartWith
	}
	if v < 1 {
		return 0, pgerr.New(pgerr.InvalidParameterValue, "RESTART value (%d) cannot be less than MINVALUE (1)", v)
	}
	if v > max {
		return 0, pgerr.New(pgerr.InvalidParameterValue, "RESTART value (%d) cannot be greater than MAXVALUE (%d)", v, max)
	}
	return v, nil
}

// renamedSequenceDefaults returns the tables whose column defaults call
// nextval on seq, a sequence made by CREATE SEQUENCE, with each such
// call's name rewritten to newName (a schema the text named is kept),
// and the tables as they were. PostgreSQL's defaults hold the
// sequence's oid and print its current name; weir's hold the name, so
// a rename rewrites them. Called under writeMu.
func (e *Engine) renamedSequenceDefaults(seq *catalog.Relation, newName string) (after, before []*catalog.Relation) {
	changed := map[uint32]*catalog.Relation{}
	for _, u := range e.sequenceUses(seq) {
		rel := changed[u.rel.ID]
		if rel == nil {
			rel = u.rel.Clone()
			changed[u.rel.ID] = rel
			after, before = append(after, rel), append(before, u.rel)
		}
		def := rel.Cols[u.col].Default
		var b strings.Builder
		last := 0
		for _, m := range nextvalArg.FindAllStringSubmatchIndex(def, -1) {
			name := strings.ReplaceAll(def[m[2]:m[3]], "''", "'")
			if r, col, err := e.findSequence(name); err != nil || col >= 0 || r.ID != seq.ID {
				continue
			}
			b.WriteString(def[last:m[2]])
			b.WriteString(strings.ReplaceAll(renameLastPart(name, newName), "'", "''"))
			last = m[3]
		}
		b.WriteString(def[last:])
		rel.Cols[u.col].Default = b.String()
	}
	return after, before
}

// renameLastPart returns a regclass name (schema.name, each part quoted
// or not) with its last part replaced by newName, quoted where needed.
func renameLastPart(name, newName string) string {
	quoted, dot := false, -1
	for i, r := range name {
		switch {
		case r == '"':
			quoted = !quoted
		case r == '.' && !quoted:
			dot = i
		}
	}
	return name[:dot+1] + sql.QuoteIdent(newName)
}

// seqCallArg finds the sequence names of nextval, currval and setval
// calls whose first argument is a literal ('s' or 's'::regclass) in a
// view's text.
var seqCallArg = regexp.MustCompile(`(?i)(?:\b|")(?:nextval|currval|setval)"?\s*\(\s*'((?:[^']|'')*)'`)

// renamedSequenceLiterals returns text, the definition of view or
// materialized view d, with each literal of a nextval, currval or setval
// call that names seq (a sequence made by CREATE SEQUENCE) as d's own
// search path finds it rewritten to newName (a schema the text named is
// kept), and whether there was one. PostgreSQL's views hold such a
// regclass constant as the sequence's oid and print its current name;
// weir's hold the text, so a rename rewrites it.
func (e *Engine) renamedSequenceLiterals(d *catalog.Relation, text string, seq *catalog.Relation, newName string) (string, bool) {
	ms := seqCallArg.FindAllStringSubmatchIndex(text, -1)
	if len(ms) == 0 {
		return text, false
	}
	s := e.definitionSession(d, nil)
	if d.Temp {
		s.tempSchema = d.Schema
	}
	var b strings.Builder
	last := 0
	for _, m := range ms {
		name := strings.ReplaceAll(text[m[2]:m[3]], "''", "'")
		if r, col, err := s.findSequence(name); err != nil || col >= 0 || r.ID != seq.ID {
			continue
		}
		b.WriteString(text[last:m[2]])
		renamed := renameLastPart(name, newName)
		if renamed == sql.QuoteIdent(newName) && seq.Schema != catalog.PublicSchema && !seq.Temp {
			// The name is read again where the view is queried, under
			// that session's search path: one of another schema is
			// written qualified, as PostgreSQL prints a regclass its
			// path does not find.
			renamed = sql.QuoteIdent(seq.Schema) + "." + renamed
		}
		b.WriteString(strings.ReplaceAll(renamed, "'", "''"))
		last = m[3]
	}
	if last == 0 {
		return text, false
	}
	b.WriteString(text[last:])
	return b.String(), true
}
