package wire

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// fakeHandler is an in-memory Handler that understands a few fixed
// statements, enough to drive every path of the protocol:
//
//	select N              N rows of one int4 column n = 1..N
//	select $1             one row echoing the parameter (text, or the hinted type)
//	add $1 $2             one int8 row: $1 + $2 (both int8)
//	texts                 one row of three text columns: 'héllo', '', NULL
//	typed                 one row with a value of each of typedColumns
//	select bogus          Prepare fails: 42601 at "bogus" (position 8)
//	fail exec             Execute fails: 22012 division by zero, CONTEXT "fake context"
//	fail next             the second row fails: 22012
//	notice                sends a NoticeResponse, tag DO
//	set timezone          reports ParameterStatus TimeZone, tag SET
//	begin / commit        toggles the transaction status, tags BEGIN / COMMIT
//	sleep                 Next blocks until ctx is canceled
//	copy ... from stdin [binary]   reads the copy stream; COPY <rows>
//	copy ... to stdout    writes three text lines; COPY 3
//	select "a" from "t"   no rows, one int8 column (pgx's CopyFrom probe)
type fakeHandler struct {
	sessionsOpened atomic.Int32
	sessionsClosed atomic.Int32
	resultsOpened  atomic.Int32
	resultsClosed  atomic.Int32
	// sleeping receives a value when a sleep statement starts waiting.
	sleeping chan struct{}
	// copied holds the rows read by the last COPY FROM STDIN.
	mu     sync.Mutex
	copied []string
	params []StartupParams
	// openFails makes NewSession fail with this error.
	openFails error
	// roles, when not nil, makes the server see a Handler that keeps
	// these roles (rolesFake).
	roles map[string]Role
	// idle is every session's idle_session_timeout (0: none).
	idle time.Duration
	// stale says what Revalidate does to the "stale" statement: 0
	// nothing, 1 fail with 42P01, 2 rename its column to m.
	stale atomic.Int32
	// txns logs the sessions' ImplicitTransaction calls (under mu).
	txns []string
}

// txnLog returns the ImplicitTransaction calls logged since the last
// call, one word each: "query", "pipeline", "commit", "rollback".
func (h *fakeHandler) txnLog() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := strings.Join(h.txns, " ")
	h.txns = nil
	return out
}

func (h *fakeHandler) logTxn(what string) {
	h.mu.Lock()
	h.txns = append(h.txns, what)
	h.mu.Unlock()
}

func newFakeHandler() *fakeHandler {
	return &fakeHandler{sleeping: make(chan struct{}, 16)}
}

func (h *fakeHandler) NewSession(ctx context.Context, p StartupParams) (Session, error) {
	if h.openFails != nil {
		return nil, h.openFails
	}
	h.mu.Lock()
	h.params = append(h.params, p)
	h.mu.Unlock()
	h.sessionsOpened.Add(1)
	return &fakeSession{h: h}, nil
}

func (h *fakeHandler) ServerParams() [][2]string {
	return [][2]string{
		{"server_version", "15.0"},
		{"server_encoding", "UTF8"},
		{"client_encoding", "UTF8"},
		{"DateStyle", "ISO, MDY"},
		{"TimeZone", "UTC"},
		{"integer_datetimes", "on"},
		{"standard_conforming_strings", "on"},
	}
}

type fakeSession struct {
	h      *fakeHandler
	loc    *time.Location // nil until "set timezone"
	tx     byte
	closed atomic.Bool
}

func (s *fakeSession) Split(_ context.Context, text string) ([]Piece, error) {
	var out []Piece
	start, inQuote := 0, false
	emit := func(end int) {
		t := text[start:end]
		trimmed := strings.TrimLeft(t, " \t\n")
		for strings.HasPrefix(trimmed, "/*") && strings.Contains(trimmed, "*/") {
			trimmed = strings.TrimLeft(trimmed[strings.Index(trimmed, "*/")+2:], " \t\n")
		}
		off := start + len(t) - len(trimmed)
		trimmed = strings.TrimRight(trimmed, " \t\n")
		if trimmed != "" {
			out = append(out, Piece{Text: trimmed, Offset: off})
		}
	}
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\'':
			inQuote = !inQuote
		case ';':
			if !inQuote {
				emit(i)
				start = i + 1
			}
		}
	}
	if inQuote {
		return nil, pgerr.New(pgerr.SyntaxError, "unterminated quoted string at or near \"%s\"", text[start:]).WithPosition(start + 1)
	}
	emit(len(text))
	return out, nil
}

// BeginImplicit implements ImplicitTransaction.
func (s *fakeSession) BeginImplicit() { s.h.logTxn("query") }

// BeginPipeline implements ImplicitTransaction.
func (s *fakeSession) BeginPipeline() { s.h.logTxn("pipeline") }

// EndImplicit implements ImplicitTransaction.
func (s *fakeSession) EndImplicit(_ context.Context, ok bool) error {
	if ok {
		s.h.logTxn("commit")
	} else {
		s.h.logTxn("rollback")
	}
	return nil
}

// IdleSessionTimeout implements IdleTimeouts.
func (s *fakeSession) IdleSessionTimeout() time.Duration { return s.h.idle }

// IdleInTransactionTimeout implements IdleTimeouts.
func (s *fakeSession) IdleInTransactionTimeout() time.Duration { return 0 }

// Location implements SessionLocation.
func (s *fakeSession) Location() *time.Location { return s.loc }

// typedColumns are the columns of the typed statement: the value's text
// input, and its text output in UTC as Postgres prints it.
var typedColumns = []struct {
	name string
	t    types.T
	in   string
	out  string
}{
	{"b", types.TBool, "true", "t"},
	{"i2", types.TInt2, "-7", "-7"},
	{"f8", types.TFloat8, "1.5", "1.5"},
	{"num", types.TNumeric, "12.340", "12.340"},
	{"d", types.TDate, "2024-02-29", "2024-02-29"},
	{"ts", types.TTimestamp, "2024-02-29 13:14:15.5", "2024-02-29 13:14:15.5"},
	{"tstz", types.TTimestamptz, "2024-02-29 13:14:15+00", "2024-02-29 13:14:15+00"},
	{"iv", types.TInterval, "1 day 02:00:00", "1 day 02:00:00"},
	{"by", types.TBytea, "\\x0102", "\\x0102"},
	{"j", types.TJsonb, `{"a":1}`, `{"a": 1}`},
}

func (s *fakeSession) TxStatus() byte {
	if s.tx == 0 {
		return 'I'
	}
	return s.tx
}

func (s *fakeSession) Close() {
	if s.closed.Swap(true) {
		panic("Session.Close called twice")
	}
	s.h.sessionsClosed.Add(1)
}

func (s *fakeSession) Prepare(ctx context.Context, text string, hints []uint32) (Prepared, error) {
	q := strings.ToLower(strings.TrimSpace(text))
	p := &fakePrepared{s: s, q: q}
	int4 := func(name string) []Field { return []Field{{Name: name, T: types.TInt4}} }
	switch {
	case q == "select bogus":
		return nil, pgerr.New(pgerr.SyntaxError, "syntax error at or near \"bogus\"").WithPosition(8)
	case q == "select $1":
		t := types.TText
		if len(hints) > 0 && hints[0] != 0 {
			t, _ = types.ByOID(hints[0])
		}
		p.params = []types.T{t}
		p.fields = []Field{{Name: "?column?", T: t}}
	case q == "add $1 $2":
		p.params = []types.T{types.TInt8, types.TInt8}
		p.fields = []Field{{Name: "sum", T: types.TInt8}}
	case q == "typed":
		for _, col := range typedColumns {
			p.fields = append(p.fields, Field{Name: col.name, T: col.t})
		}
	case q == "texts":
		p.fields = []Field{{Name: "a", T: types.TText}, {Name: "b", T: types.TText}, {Name: "c", T: types.TText}}
	case strings.HasPrefix(q, "select ") && strings.HasPrefix(strings.TrimSpace(q[len("select "):]), "'") && strings.HasSuffix(q, "'"):
		lit := strings.TrimSpace(strings.TrimSpace(text)[len("select "):])
		p.lit = strings.ReplaceAll(lit[1:len(lit)-1], "''", "'")
		p.fields = []Field{{Name: "?column?", T: types.TText}}
	case strings.HasPrefix(q, "select \""):
		p.fields = []Field{{Name: "a", T: types.TInt8, TableOID: 16384, Column: 1}}
		p.n = 0
	case strings.HasPrefix(q, "select "):
		n, err := strconv.Atoi(strings.TrimPrefix(q, "select "))
		if err != nil {
			return nil, pgerr.New(pgerr.UndefinedColumn, "column \"%s\" does not exist", strings.TrimPrefix(text, "select ")).WithPosition(8)
		}
		p.n, p.fields = n, int4("n")
	case q == "stale":
		p.fields = int4("n")
	case q == "fail exec", q == "fail next", q == "notice", q == "sleep", q == "begin", q == "commit", q == "set timezone":
		if q == "fail next" {
			p.fields = int4("n")
		}
	case strings.HasPrefix(q, "copy ") && strings.Contains(q, "from stdin"):
	case strings.HasPrefix(q, "copy ") && strings.Contains(q, "to stdout"):
	default:
		return nil, pgerr.New(pgerr.SyntaxError, "syntax error at or near \"%s\"", strings.SplitN(text, " ", 2)[0]).WithPosition(1)
	}
	return p, nil
}

type fakePrepared struct {
	s      *fakeSession
	q      string
	n      int
	lit    string
	params []types.T
	fields []Field
}

func (p *fakePrepared) ParamTypes() []types.T { return p.params }
func (p *fakePrepared) Fields() []Field       { return p.fields }

// Revalidate does what the handler's stale says to the "stale"
// statement; other statements never go stale.
func (p *fakePrepared) Revalidate(ctx context.Context) error {
	if p.q != "stale" {
		return nil
	}
	switch p.s.h.stale.Load() {
	case 1:
		return pgerr.New(pgerr.UndefinedTable, "relation \"t\" does not exist")
	case 2:
		p.fields = []Field{{Name: "m", T: types.TInt4}}
	}
	return nil
}

func (p *fakePrepared) Execute(ctx context.Context, params []types.Datum, io ExecIO) (Result, error) {
	h := p.s.h
	r := &fakeResult{h: h}
	q := p.q
	switch {
	case q == "fail exec":
		return nil, pgerr.New(pgerr.DivisionByZero, "division by zero").WithWhere("fake context")
	case q == "select $1":
		r.rows, r.tag = []types.Row{{params[0]}}, "SELECT 1"
	case q == "add $1 $2":
		r.rows, r.tag = []types.Row{{types.DInt(params[0].I + params[1].I)}}, "SELECT 1"
	case p.lit != "":
		r.rows, r.tag = []types.Row{{types.DString(p.lit)}}, "SELECT 1"
	case q == "typed":
		var row types.Row
		for _, col := range typedColumns {
			d, err := types.ParseText(col.in, col.t, time.UTC)
			if err != nil {
				return nil, err
			}
			row = append(row, d)
		}
		r.rows, r.tag = []types.Row{row}, "SELECT 1"
	case q == "texts":
		r.rows, r.tag = []types.Row{{types.DString("héllo"), types.DString(""), types.NullDatum}}, "SELECT 1"
	case q == "fail next":
		r.rows, r.failAt, r.tag = []types.Row{{types.DInt(1)}, {types.DInt(2)}}, 1, "SELECT 2"
	case q == "notice":
		io.Notice("", "", "hello from the engine")
		r.tag = "DO"
	case q == "set timezone":
		p.s.loc, _ = time.LoadLocation("Europe/Paris")
		io.ParameterStatus("TimeZone", "Europe/Paris")
		r.tag = "SET"
	case q == "begin":
		p.s.tx, r.tag = 'T', "BEGIN"
	case q == "commit":
		p.s.tx, r.tag = 'I', "COMMIT"
	case q == "sleep":
		r.sleep, r.tag = true, "SLEEP"
	case q == "copy t from stdin timing out":
		// The handler's own context (statement_timeout) ends after the
		// first row: the reader stops with its cause.
		r, err := io.CopyIn(0, 1)
		if err != nil {
			return nil, err
		}
		tctx, stop := context.WithCancelCause(ctx)
		defer stop(nil)
		cr := r.(ContextReader).WithContext(tctx)
		first := make([]byte, 2)
		if _, err := cr.Read(first); err != nil {
			return nil, err
		}
		stop(pgerr.New(pgerr.QueryCanceled, "canceling statement due to statement timeout"))
		_, err = cr.Read(first)
		return nil, err
	case strings.HasPrefix(q, "copy ") && strings.Contains(q, "from stdin"):
		rows, err := fakeCopyIn(io, strings.Contains(q, "binary"))
		if err != nil {
			return nil, err
		}
		h.mu.Lock()
		h.copied = rows
		h.mu.Unlock()
		r.tag = fmt.Sprintf("COPY %d", len(rows))
	case strings.HasPrefix(q, "copy "):
		w, err := io.CopyOut(0, 1)
		if err != nil {
			return nil, err
		}
		for i := 1; i <= 3; i++ {
			fmt.Fprintf(w, "%d\n", i)
		}
		r.tag = "COPY 3"
	default:
		for i := 1; i <= p.n; i++ {
			r.rows = append(r.rows, types.Row{types.DInt(int64(i))})
		}
		r.tag = fmt.Sprintf("SELECT %d", p.n)
	}
	h.resultsOpened.Add(1)
	return r, nil
}

// fakeCopyIn reads a COPY stream: text lines, or Postgres's binary COPY format
// (header, tuples of int8 columns or raw fields, trailer) as pgx writes it.
func fakeCopyIn(eio ExecIO, bin bool) ([]string, error) {
	format := int16(0)
	if bin {
		format = 1
	}
	r, err := eio.CopyIn(format, 1)
	if err != nil {
		return nil, err
	}
	if !bin {
		var rows []string
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			if sc.Text() == `\.` {
				break
			}
			rows = append(rows, sc.Text())
		}
		if err := sc.Err(); err != nil {
			if pe, ok := err.(*pgerr.Error); ok {
				// As the engine does, the error names the line it
				// stopped at, in a copy (a cancel's cause is shared).
				cp := *pe
				return nil, cp.WithWhere("COPY t, line %d", len(rows)+1)
			}
			return nil, err
		}
		// Read to CopyDone.
		if _, err := io.Copy(io.Discard, r); err != nil {
			return nil, err
		}
		return rows, nil
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	bad := pgerr.New(pgerr.InvalidBinaryRepresentation, "invalid COPY file header")
	if len(data) < 19 || string(data[:11]) != "PGCOPY\n\377\r\n\000" {
		return nil, bad
	}
	data = data[19:]
	var rows []string
	for {
		if len(data) == 0 {
			// Like Postgres, accept a stream that ends without the
			// trailer (pgx omits it).
			return rows, nil
		}
		if len(data) < 2 {
			return nil, bad
		}
		n := int16(binary.BigEndian.Uint16(data))
		data = data[2:]
		if n == -1 {
			return rows, nil
		}
		var fields []string
		for range n {
			if len(data) < 4 {
				return nil, bad
			}
			l := int32(binary.BigEndian.Uint32(data))
			data = data[4:]
			if l < 0 {
				fields = append(fields, "NULL")
				continue
			}
			if int(l) > len(data) {
				return nil, bad
			}
			v := data[:l]
			data = data[l:]
			if l == 8 {
				fields = append(fields, strconv.FormatInt(int64(binary.BigEndian.Uint64(v)), 10))
			} else {
				fields = append(fields, string(v))
			}
		}
		rows = append(rows, strings.Join(fields, ","))
	}
}

type fakeResult struct {
	h      *fakeHandler
	rows   []types.Row
	failAt int // fail when reaching this row index (0: never)
	i      int
	tag    string
	sleep  bool
	closed bool
}

func (r *fakeResult) Next(ctx context.Context) (types.Row, error) {
	if r.closed {
		panic("Next after Close")
	}
	if r.sleep {
		select {
		case r.h.sleeping <- struct{}{}:
		default:
		}
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if r.failAt > 0 && r.i == r.failAt {
		return nil, pgerr.New(pgerr.DivisionByZero, "division by zero")
	}
	if r.i >= len(r.rows) {
		return nil, nil
	}
	r.i++
	return r.rows[r.i-1], nil
}

func (r *fakeResult) Tag() string { return r.tag }

func (r *fakeResult) Close() {
	if !r.closed {
		r.closed = true
		r.h.resultsClosed.Add(1)
	}
}
