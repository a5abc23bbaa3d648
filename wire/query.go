package wire

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// stmt is a prepared statement (named, or the unnamed one).
type stmt struct {
	empty  bool // the query text held no statement
	prep   Prepared
	params []types.T
	fields []Field
	// text is the Parse message's query, which the log names when the
	// client goes while it runs.
	text string
}

// portal is a bound statement with its parameters and result formats, and
// once executed, its open Result.
type portal struct {
	st      *stmt
	params  []types.Datum
	formats []int16 // one per field: 0 text, 1 binary
	// ctx spans the portal's life, which may cover several Execute
	// messages; cancel ends it with a cause.
	ctx      context.Context
	cancel   context.CancelCauseFunc
	rowDesc  bool // send RowDescription before the rows (simple protocol)
	started  bool
	done     bool
	tag      string
	res      Result
	io       *execIO
	vals     [][]byte // scratch for DataRow
	scratch  []byte
	location *time.Location
}

// simpleQuery runs a simple-protocol Query: every statement in turn until
// the first error, then ReadyForQuery. It reports whether the session goes
// on.
func (c *conn) simpleQuery(q string) bool {
	c.current = q
	// A Query drops the unnamed statement and portal, as in Postgres.
	delete(c.stmts, "")
	c.closePortal("")

	// Splitting (and checking the syntax of) a message of millions of
	// statements takes a while: a cancel, the client's going or shutdown
	// stops it as it stops a statement.
	// (A short message splits in microseconds: it is not worth a context
	// of its own, which a cancel would almost never find running.)
	sctx, scancel := c.ctx, context.CancelCauseFunc(nil)
	if len(q) >= cancelableSplitBytes {
		sctx, scancel = context.WithCancelCause(c.ctx)
		c.setRunning(scancel)
	}
	pieces, err := c.sess.Split(sctx, q)
	if scancel != nil {
		c.setRunning(nil)
	}
	if err != nil {
		err = stmtErr(sctx, err)
	}
	if scancel != nil {
		scancel(nil)
	}
	switch {
	case err != nil:
		c.sendError(err, 0)
	case len(pieces) == 0:
		c.send(&pgproto3.EmptyQueryResponse{})
	}
	// Several statements in one Query run as one implicit transaction in
	// Postgres: an error in any of them undoes the ones before.
	it, implicit := c.sess.(ImplicitTransaction)
	if implicit && len(pieces) > 1 {
		it.BeginImplicit()
	}
	failed := false
	// The statements' character offsets, counted on from the one before:
	// counting each from the start of q took time quadratic in the
	// number of statements.
	var offs runeCounter
	for _, pc := range pieces {
		base := offs.at(q, pc.Offset)
		ctx, cancel := context.WithCancelCause(c.ctx)
		c.setRunning(cancel)
		prep, err := c.sess.Prepare(simpleQuery(ctx), pc.Text, nil)
		c.setRunning(nil)
		if err != nil {
			c.sendError(atSemicolon(stmtErr(ctx, err), q, pc), base)
			cancel(nil)
			failed = true
			break
		}
		if len(prep.ParamTypes()) > 0 {
			// A simple Query binds no parameters: PostgreSQL refuses $n
			// when it analyses the statement.
			n, at := firstParam(pc.Text)
			err := pgerr.New(pgerr.UndefinedParameter, "there is no parameter $%d", paramNumber(n))
			if at >= 0 {
				err = err.WithPosition(utf8.RuneCountInString(pc.Text[:at]) + 1)
			}
			c.sendError(err, base)
			cancel(nil)
			failed = true
			break
		}
		p := &portal{
			st:      &stmt{prep: prep, params: prep.ParamTypes(), fields: prep.Fields()},
			formats: make([]int16, len(prep.Fields())),
			ctx:     ctx,
			cancel:  cancel,
			rowDesc: true,
		}
		ok := c.runPortal(p, 0, base)
		c.dropPortal(p)
		if !ok || c.sentFatal || c.werr != nil {
			failed = true
			break
		}
	}
	if implicit {
		c.endImplicit(it, !failed, len(pieces) > 1)
	}
	if c.sentFatal {
		c.flush()
		return false
	}
	if c.readErr != nil {
		// A statement (a COPY) read the frame stream to its end: the
		// client is gone, or sent a message the stream cannot go past.
		// No ReadyForQuery: the loop ends the connection, with FATAL for
		// a broken stream, as PostgreSQL follows the COPY's error with
		// FATAL once protocol synchronization is lost.
		return true
	}
	c.send(&pgproto3.ReadyForQuery{TxStatus: c.sess.TxStatus()})
	return c.flush() == nil
}

// cancelableSplitBytes is the length from which a Query message's split
// runs under a context of its own, which a CancelRequest cancels.
const cancelableSplitBytes = 64 << 10

// runeOffset converts the byte offset off in q to a count of characters,
// clamped to q, for shifting error positions.
func runeOffset(q string, off int) int {
	off = min(max(off, 0), len(q))
	return utf8.RuneCountInString(q[:off])
}

// runeCounter converts increasing byte offsets in one string to counts
// of characters, counting each on from the last.
type runeCounter struct{ byteOff, runes int }

// at returns runeOffset(q, off) for an off no less than the last one's.
func (r *runeCounter) at(q string, off int) int {
	off = min(max(off, 0), len(q))
	if off < r.byteOff {
		r.byteOff, r.runes = 0, 0
	}
	r.runes += utf8.RuneCountInString(q[r.byteOff:off])
	r.byteOff = off
	return r.runes
}

// stmtErr returns the error to report for a statement that failed with
// err: when its context was canceled with a cause (CancelRequest,
// shutdown), the cause explains the failure better than the context error
// the statement saw, unless the statement reported the cause itself,
// with fields of its own (a COPY's CONTEXT line).
func stmtErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		var pe, own *pgerr.Error
		if errors.As(context.Cause(ctx), &pe) {
			if errors.As(err, &own) && own.Code == pe.Code && own.Message == pe.Message {
				return own
			}
			return pe
		}
	}
	return err
}

// parse handles a Parse message.
func (c *conn) parse(m *pgproto3.Parse) error {
	if m.Name == "" {
		delete(c.stmts, "")
	} else if _, dup := c.stmts[m.Name]; dup {
		return pgerr.New(pgerr.DuplicatePreparedStatement, "prepared statement \"%s\" already exists", m.Name)
	}
	for _, oid := range m.ParameterOIDs {
		if oid == 0 {
			continue
		}
		if _, ok := types.ByOID(oid); !ok {
			return pgerr.New(pgerr.UndefinedObject, "type with OID %d does not exist", oid)
		}
	}
	pieces, err := c.sess.Split(c.ctx, m.Query)
	if err != nil {
		return err
	}
	st := &stmt{text: m.Query}
	switch len(pieces) {
	case 0:
		st.empty = true
	case 1:
		ctx, cancel := context.WithCancelCause(c.ctx)
		c.setRunning(cancel)
		prep, err := c.sess.Prepare(ctx, pieces[0].Text, m.ParameterOIDs)
		c.setRunning(nil)
		cancel(nil)
		if err != nil {
			return shiftPosition(atSemicolon(stmtErr(ctx, err), m.Query, pieces[0]), runeOffset(m.Query, pieces[0].Offset))
		}
		st.prep, st.params, st.fields = prep, prep.ParamTypes(), prep.Fields()
	default:
		return pgerr.New(pgerr.SyntaxError, "cannot insert multiple commands into a prepared statement")
	}
	c.stmts[m.Name] = st
	c.send(&pgproto3.ParseComplete{})
	return nil
}

// atSemicolon turns a statement's syntax error `... at end of input`
// (`syntax error at end of input`, or a lexer's message such as UESCAPE's)
// into Postgres's `... at or near ";"` when the statement was ended
// by a semicolon in q: Postgres parses the whole string, so the token it
// stops at is the ';' (the piece given to Prepare leaves it out).
func atSemicolon(err error, q string, pc Piece) error {
	pe := pgerr.As(err)
	head, ok := strings.CutSuffix(pe.Message, " at end of input")
	if pe.Code != pgerr.SyntaxError || !ok {
		return err
	}
	end := pc.Offset + len(pc.Text)
	i := end
	for i < len(q) && (q[i] == ' ' || q[i] == '\t' || q[i] == '\n' || q[i] == '\r') {
		i++
	}
	if i >= len(q) || q[i] != ';' {
		return err
	}
	out := *pe
	out.Message = head + ` at or near ";"`
	out.Position = utf8.RuneCountInString(q[pc.Offset:i]) + 1
	return &out
}

// shiftPosition returns err with its Position moved by base characters.
func shiftPosition(err error, base int) error {
	pe := *pgerr.As(err)
	if pe.Position > 0 {
		pe.Position += base
	}
	return &pe
}

// bind handles a Bind message: it decodes the parameters and creates the
// portal. The statement itself runs at the first Execute.
func (c *conn) bind(m *pgproto3.Bind) error {
	st := c.stmts[m.PreparedStatement]
	if st == nil {
		return pgerr.New(pgerr.InvalidSQLStatementName, "prepared statement \"%s\" does not exist", m.PreparedStatement)
	}
	if m.DestinationPortal == "" {
		c.closePortal("")
	} else if _, dup := c.portals[m.DestinationPortal]; dup {
		return pgerr.New(codeDuplicateCursor, "portal \"%s\" already exists", m.DestinationPortal)
	}
	if rv, ok := st.prep.(Revalidator); ok {
		ctx, cancel := context.WithCancelCause(c.ctx)
		c.setRunning(cancel)
		err := rv.Revalidate(ctx)
		c.setRunning(nil)
		cancel(nil)
		if err != nil {
			return stmtErr(ctx, err)
		}
		st.fields = st.prep.Fields()
	}
	n := len(m.Parameters)
	if n != len(st.params) {
		return pgerr.New(pgerr.ProtocolViolation,
			"bind message supplies %d parameters, but prepared statement \"%s\" requires %d",
			n, m.PreparedStatement, len(st.params))
	}
	pf := m.ParameterFormatCodes
	if len(pf) > 1 && len(pf) != n {
		return pgerr.New(pgerr.ProtocolViolation, "bind message has %d parameter formats but %d parameters", len(pf), n)
	}
	loc := c.location()
	params := make([]types.Datum, n)
	for i, raw := range m.Parameters {
		if raw == nil {
			params[i] = types.NullDatum
			continue
		}
		f := int16(0)
		if len(pf) == 1 {
			f = pf[0]
		} else if len(pf) > 1 {
			f = pf[i]
		}
		var d types.Datum
		var err error
		switch f {
		case 0:
			if !utf8.Valid(raw) {
				return pgerr.New(pgerr.CharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\"")
			}
			d, err = types.ParseText(string(raw), st.params[i], loc)
		case 1:
			d, err = types.ParseBinary(raw, st.params[i])
		default:
			return pgerr.New(pgerr.InvalidParameterValue, "unsupported format code: %d", f)
		}
		if err != nil {
			return err
		}
		params[i] = d
	}
	formats, err := resultFormats(m.ResultFormatCodes, len(st.fields))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancelCause(c.ctx)
	c.portals[m.DestinationPortal] = &portal{st: st, params: params, formats: formats, ctx: ctx, cancel: cancel}
	c.send(&pgproto3.BindComplete{})
	return nil
}

// resultFormats expands Bind's result format codes to one per column.
func resultFormats(codes []int16, ncols int) ([]int16, error) {
	if len(codes) > 1 && len(codes) != ncols {
		return nil, pgerr.New(pgerr.ProtocolViolation, "bind message has %d result formats but query has %d columns", len(codes), ncols)
	}
	out := make([]int16, ncols)
	for i := range out {
		switch len(codes) {
		case 1:
			out[i] = codes[0]
		case ncols:
			out[i] = codes[i]
		}
		if out[i] != 0 && out[i] != 1 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "unsupported format code: %d", out[i])
		}
	}
	return out, nil
}

// describe handles Describe 'S' and 'P'.
func (c *conn) describe(m *pgproto3.Describe) error {
	switch m.ObjectType {
	case 'S':
		st := c.stmts[m.Name]
		if st == nil {
			return pgerr.New(pgerr.InvalidSQLStatementName, "prepared statement \"%s\" does not exist", m.Name)
		}
		oids := make([]uint32, len(st.params))
		for i, t := range st.params {
			oids[i] = t.OID()
		}
		c.send(&pgproto3.ParameterDescription{ParameterOIDs: oids})
		c.sendRowDescription(st.fields, nil)
	case 'P':
		p := c.portals[m.Name]
		if p == nil {
			return pgerr.New(pgerr.InvalidCursorName, "portal \"%s\" does not exist", m.Name)
		}
		c.sendRowDescription(p.st.fields, p.formats)
	default:
		return pgerr.New(pgerr.ProtocolViolation, "invalid DESCRIBE message subtype %d", m.ObjectType)
	}
	return nil
}

// sendRowDescription sends RowDescription for fields, or NoData when the
// statement returns no rows. formats may be nil (all text).
func (c *conn) sendRowDescription(fields []Field, formats []int16) {
	if fields == nil {
		c.send(&pgproto3.NoData{})
		return
	}
	fd := make([]pgproto3.FieldDescription, len(fields))
	for i, f := range fields {
		fd[i] = pgproto3.FieldDescription{
			Name:                 []byte(f.Name),
			TableOID:             f.TableOID,
			TableAttributeNumber: uint16(f.Column),
			DataTypeOID:          f.T.OID(),
			DataTypeSize:         f.T.Size(),
			TypeModifier:         f.T.Typmod(),
		}
		if formats != nil {
			fd[i].Format = formats[i]
		}
	}
	c.send(&pgproto3.RowDescription{Fields: fd})
}

// execute handles an Execute message; synced is set when the client sent
// Sync right after it.
func (c *conn) execute(name string, maxRows uint32, synced bool) error {
	p := c.portals[name]
	if p == nil {
		return pgerr.New(pgerr.InvalidCursorName, "portal \"%s\" does not exist", name)
	}
	if it, ok := c.sess.(ImplicitTransaction); ok && !synced {
		// More than this Execute may come before Sync: they are one
		// transaction, as in PostgreSQL. (An Execute then Sync is one
		// statement, which the session runs as it runs any.)
		it.BeginPipeline()
	}
	c.current = p.st.text
	if !c.runPortal(p, maxRows, 0) {
		// The error went out already; skip to Sync.
		c.skipToSync = true
	}
	return nil
}

// closeMsg handles Close 'S' and 'P'. Closing something that does not
// exist is not an error.
func (c *conn) closeMsg(m *pgproto3.Close) error {
	switch m.ObjectType {
	case 'S':
		delete(c.stmts, m.Name)
	case 'P':
		c.closePortal(m.Name)
	default:
		return pgerr.New(pgerr.ProtocolViolation, "invalid CLOSE message subtype %d", m.ObjectType)
	}
	c.send(&pgproto3.CloseComplete{})
	return nil
}

// closePortal closes the named portal, if it exists.
func (c *conn) closePortal(name string) {
	if p := c.portals[name]; p != nil {
		delete(c.portals, name)
		c.dropPortal(p)
	}
}

// closeAllPortals closes every portal.
func (c *conn) closeAllPortals() {
	for name, p := range c.portals {
		delete(c.portals, name)
		c.dropPortal(p)
	}
}

// dropPortal releases p's Result (once) and its context.
func (c *conn) dropPortal(p *portal) {
	if p.res != nil {
		p.res.Close()
		p.res = nil
	}
	p.cancel(nil)
}

// location returns the session's TimeZone.
func (c *conn) location() *time.Location {
	if sl, ok := c.sess.(SessionLocation); ok {
		if l := sl.Location(); l != nil {
			return l
		}
	}
	return time.UTC
}

// runPortal executes p for at most maxRows rows (0: all) and sends its
// output: rows then CommandComplete, or PortalSuspended when maxRows
// stopped it, or EmptyQueryResponse. On failure it sends the
// ErrorResponse (positions shifted by base characters), closes the Result
// and reports false. Either way, a COPY FROM STDIN the statement left
// unfinished is drained.
func (c *conn) runPortal(p *portal, maxRows uint32, base int) bool {
	err := c.runPortalRows(p, maxRows)
	if err != nil {
		if p.res != nil {
			p.res.Close()
			p.res = nil
		}
		p.done = true
		p.tag = ""
		if errors.Is(err, ErrCloseConnection) {
			// The statement sent its last word; the connection ends
			// without another (sentFatal makes the loop return).
			c.sentFatal = true
			c.flush()
			return false
		}
		c.sendError(stmtErr(p.ctx, err), base)
	}
	if p.io != nil && p.io.in != nil && !p.io.in.finished {
		c.flush()
		p.io.in.drain()
	}
	return err == nil
}

func (c *conn) runPortalRows(p *portal, maxRows uint32) error {
	if p.st.empty {
		c.send(&pgproto3.EmptyQueryResponse{})
		return nil
	}
	if p.done {
		// Postgres answers a finished portal with an empty completion:
		// "SELECT 0" for a query, the same tag for any other command.
		tag := p.tag
		if strings.HasPrefix(tag, "SELECT ") {
			tag = "SELECT 0"
		}
		c.send(&pgproto3.CommandComplete{CommandTag: []byte(tag)})
		return nil
	}
	c.setRunning(p.cancel)
	defer c.setRunning(nil)
	if !p.started {
		p.started = true
		p.location = c.location()
		p.io = &execIO{c: c, ctx: p.ctx}
		res, err := p.st.prep.Execute(p.ctx, p.params, p.io)
		if err != nil {
			return err
		}
		p.res = res
		if p.rowDesc && p.st.fields != nil {
			c.sendRowDescription(p.st.fields, nil)
		}
	}
	for n := uint32(0); ; n++ {
		if maxRows > 0 && n >= maxRows {
			c.send(&pgproto3.PortalSuspended{})
			return nil
		}
		row, err := p.res.Next(p.ctx)
		if err != nil {
			return err
		}
		if row == nil {
			break
		}
		if err := c.sendRow(p, row); err != nil {
			return err
		}
		if c.maybeFlush() != nil {
			// The client is gone; the loop ends the connection.
			return nil
		}
	}
	p.tag = p.res.Tag()
	p.res.Close()
	p.res = nil
	p.done = true
	if p.io.out {
		c.send(&pgproto3.CopyDone{})
	}
	c.send(&pgproto3.CommandComplete{CommandTag: []byte(p.tag)})
	return nil
}

// sendRow encodes row in the portal's result formats as a DataRow.
func (c *conn) sendRow(p *portal, row types.Row) error {
	fields := p.st.fields
	if len(row) != len(fields) {
		return pgerr.New(pgerr.InternalError, "result row has %d columns, but the statement declared %d", len(row), len(fields))
	}
	if cap(p.vals) < len(row) {
		p.vals = make([][]byte, len(row))
	}
	vals := p.vals[:len(row)]
	buf := p.scratch[:0]
	// ends holds where each value stops in buf; slices are cut afterwards
	// because appending may move buf.
	var endsArr [32]int
	ends := endsArr[:0]
	for i, d := range row {
		if d.Null {
			ends = append(ends, -1)
			continue
		}
		if p.formats[i] == 1 {
			var err error
			if buf, err = types.AppendBinary(buf, d, fields[i].T); err != nil {
				return err
			}
		} else {
			buf = append(buf, types.FormatText(d, fields[i].T, p.location)...)
		}
		ends = append(ends, len(buf))
	}
	start := 0
	for i, e := range ends {
		switch {
		case e < 0:
			vals[i] = nil
			continue
		case e == start:
			vals[i] = []byte{} // an empty value, not NULL
		default:
			vals[i] = buf[start:e:e]
		}
		start = e
	}
	p.scratch = buf
	c.send(&pgproto3.DataRow{Values: vals})
	return nil
}

// firstParam returns the number of the first $n parameter in the SQL text
// and its byte offset, skipping quoted strings, quoted names, dollar
// quotes and comments; ("1", -1) when none is found.
func firstParam(text string) (string, int) {
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '\'' || c == '"':
			// '' inside a string ends it and opens the next: the same.
			escapes := c == '\'' && i > 0 && (text[i-1] == 'e' || text[i-1] == 'E')
			for i++; i < len(text) && text[i] != c; i++ {
				if escapes && text[i] == '\\' {
					i++
				}
			}
		case c == '-' && strings.HasPrefix(text[i:], "--"):
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case c == '/' && strings.HasPrefix(text[i:], "/*"):
			if j := strings.Index(text[i+2:], "*/"); j >= 0 {
				i += j + 3
			} else {
				i = len(text)
			}
		case c == '$':
			j := i + 1
			for j < len(text) && text[j] >= '0' && text[j] <= '9' {
				j++
			}
			if j > i+1 {
				return text[i+1 : j], i
			}
			// A dollar quote $tag$...$tag$.
			for j < len(text) && (text[j] == '_' || text[j] >= 'a' && text[j] <= 'z' || text[j] >= 'A' && text[j] <= 'Z' || text[j] >= '0' && text[j] <= '9') {
				j++
			}
			if j < len(text) && text[j] == '$' {
				tag := text[i : j+1]
				if k := strings.Index(text[j+1:], tag); k >= 0 {
					i = j + k + len(tag)
				} else {
					i = len(text)
				}
			}
		}
	}
	return "1", -1
}

type simpleQueryKey struct{}

// simpleQuery returns ctx marked as a simple Query's, which binds no
// parameters (IsSimpleQuery).
func simpleQuery(ctx context.Context) context.Context {
	return context.WithValue(ctx, simpleQueryKey{}, true)
}

// IsSimpleQuery reports whether Session.Prepare is called for a
// statement of a simple Query, which has no parameters to bind: the
// session may then refuse $n where it binds it, as PostgreSQL's parse
// analysis does, instead of after binding the whole statement.
func IsSimpleQuery(ctx context.Context) bool {
	v, _ := ctx.Value(simpleQueryKey{}).(bool)
	return v
}

// paramNumber is the number of the parameter $digits as PostgreSQL's
// scanner reads it (sql.ParamNumber): atol, saturating, kept in an int.
func paramNumber(digits string) int {
	v, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		v = math.MaxInt64
	}
	return int(int32(v))
}
