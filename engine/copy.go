package engine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// copyOptions are the parsed options of a COPY statement (Postgres docs,
// "COPY": text and csv formats).
type copyOptions struct {
	csv    bool
	delim  byte
	null   string
	header bool
	quote  byte
	escape byte
}

func parseCopyOptions(o map[string]string) (copyOptions, error) {
	co := copyOptions{delim: '\t', null: `\N`, quote: '"', escape: '"'}
	switch strings.ToLower(o["format"]) {
	case "", "text":
	case "csv":
		co.csv, co.delim, co.null = true, ',', ""
	case "binary":
		return co, pgerr.New(pgerr.FeatureNotSupported, "COPY format \"binary\" is not supported yet")
	default:
		return co, pgerr.New(pgerr.InvalidParameterValue, "COPY format \"%s\" not recognized", o["format"])
	}
	if d, ok := o["delimiter"]; ok {
		if len(d) != 1 {
			return co, pgerr.New(pgerr.FeatureNotSupported, "COPY delimiter must be a single one-byte character")
		}
		co.delim = d[0]
	}
	if n, ok := o["null"]; ok {
		co.null = n
	}
	if h, ok := o["header"]; ok {
		switch strings.ToLower(h) {
		case "", "true", "on", "1", "yes":
			co.header = true
		case "false", "off", "0", "no":
		default:
			return co, pgerr.New(pgerr.InvalidParameterValue, "header requires a Boolean value")
		}
		if !co.csv && co.header {
			return co, pgerr.New(pgerr.FeatureNotSupported, "COPY HEADER available only in CSV mode")
		}
	}
	if q, ok := o["quote"]; ok {
		if len(q) != 1 {
			return co, pgerr.New(pgerr.FeatureNotSupported, "COPY quote must be a single one-byte character")
		}
		co.quote = q[0]
		co.escape = q[0]
	}
	if e, ok := o["escape"]; ok {
		if len(e) != 1 {
			return co, pgerr.New(pgerr.FeatureNotSupported, "COPY escape must be a single one-byte character")
		}
		co.escape = e[0]
	}
	return co, nil
}

func (s *Session) prepareCopy(st *sql.Copy) (wire.Prepared, error) {
	co, err := parseCopyOptions(st.Options)
	if err != nil {
		return nil, err
	}
	if st.Query != nil {
		if st.From {
			return nil, pgerr.New(pgerr.SyntaxError, "COPY (query) FROM is not allowed")
		}
		b, err := planner.Bind(st.Query, s.catalogView(), nil)
		if err != nil {
			return nil, err
		}
		return &utilPrepared{run: func(ctx context.Context, _ []types.Datum, io wire.ExecIO) (wire.Result, error) {
			return s.copyOut(ctx, b, co, io)
		}}, nil
	}
	rel, ok := s.eng.cat.Lookup(s.schemaOf(st.Table), st.Table.Name)
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", st.Table.Name)
	}
	cols, err := copyColumns(rel, st.Columns)
	if err != nil {
		return nil, err
	}
	if st.From {
		// COPY FROM writes rel itself, not through the binder: its
		// privilege is checked here, on the relation resolved.
		if err := s.checkAccess([]planner.Access{{Rel: rel, Priv: catalog.PrivInsert}}); err != nil {
			return nil, err
		}
		if rel.Kind == catalog.KindIndex {
			return nil, pgerr.New(pgerr.WrongObjectType, "\"%s\" is an index", rel.Name)
		}
		return &utilPrepared{run: func(ctx context.Context, _ []types.Datum, io wire.ExecIO) (wire.Result, error) {
			// Again as it runs, for the role of its Execute.
			if err := s.checkAccess([]planner.Access{{Rel: rel, Priv: catalog.PrivInsert}}); err != nil {
				return nil, err
			}
			if rel.Kind != catalog.KindTable {
				return nil, s.copyInRefused(ctx, rel, len(cols), io)
			}
			// ROW EXCLUSIVE, as an INSERT takes (locks.go).
			lctx, cancel := s.withTimeout(ctx)
			err := s.acquire(lctx, rel, lockRowExclusive, false, false)
			cancel()
			defer s.endStatementLocks()
			if err != nil {
				return nil, err
			}
			return s.copyIn(ctx, rel, cols, co, io)
		}}, nil
	}
	switch rel.Kind {
	case catalog.KindView:
		return nil, pgerr.New(pgerr.WrongObjectType, "cannot copy from view \"%s\"", rel.Name).
			WithHint("Try the COPY (SELECT ...) TO variant.")
	case catalog.KindSequence:
		// The privilege first, as PostgreSQL checks it.
		if err := s.checkAccess([]planner.Access{{Rel: rel, Priv: catalog.PrivSelect}}); err != nil {
			return nil, err
		}
		return nil, pgerr.New(pgerr.WrongObjectType, "cannot copy from sequence \"%s\"", rel.Name)
	}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = sql.QuoteIdent(rel.Cols[c].Name)
	}
	q, err := sql.Parse("SELECT " + strings.Join(names, ", ") + " FROM " + sql.QuoteIdent(rel.Schema) + "." + sql.QuoteIdent(rel.Name))
	if err != nil {
		return nil, err
	}
	b, err := planner.Bind(q.(*sql.Query), s.catalogView(), nil)
	if err != nil {
		return nil, err
	}
	return &utilPrepared{run: func(ctx context.Context, _ []types.Datum, io wire.ExecIO) (wire.Result, error) {
		return s.copyOut(ctx, b, co, io)
	}}, nil
}

// copyColumns resolves a COPY column list (all visible columns but the
// generated ones if empty) to indexes into rel.Cols; naming a generated
// column is 42P10, as in PostgreSQL.
func copyColumns(rel *catalog.Relation, names []string) ([]int, error) {
	var cols []int
	if len(names) == 0 {
		for i, c := range rel.Cols {
			if !c.Hidden && c.Generated == "" {
				cols = append(cols, i)
			}
		}
		return cols, nil
	}
	for _, n := range names {
		idx := -1
		for i, c := range rel.Cols {
			if c.Name == n && !c.Hidden {
				idx = i
			}
		}
		if idx < 0 {
			return nil, pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", n, rel.Name)
		}
		if rel.Cols[idx].Generated != "" {
			return nil, pgerr.New(pgerr.InvalidColumnReference, "column \"%s\" is a generated column", n).
				WithDetail("Generated columns cannot be used in COPY.")
		}
		for _, have := range cols {
			if have == idx {
				return nil, pgerr.New(pgerr.DuplicateColumn, "column \"%s\" specified more than once", n)
			}
		}
		cols = append(cols, idx)
	}
	return cols, nil
}

// copyIn reads rows from the client and inserts them in one durable batch.
func (s *Session) copyIn(ctx context.Context, rel *catalog.Relation, cols []int, co copyOptions, io wire.ExecIO) (wire.Result, error) {
	// statement_timeout and a cancel stop the COPY wherever it is:
	// reading the client's data, converting the rows, waiting for the
	// write lock. Nothing is stored then (57014).
	ctx, cancel := s.withTimeout(ctx)
	defer cancel()
	if err := s.eng.checkDiskSpace(); err != nil {
		return nil, err
	}
	r, err := io.CopyIn(0, len(cols))
	if err != nil {
		return nil, err
	}
	// Read everything first: a COPY is one statement and commits as one.
	data, err := readAllCopy(ctx, r)
	var failed *pgerr.Error
	if err != nil {
		// The stream ended with the error while PostgreSQL reads the
		// line after those it had whole, which it names without its
		// text: "COPY t, line 3" after CopyFail, or a cancel, that
		// follows two lines.
		lines, end := copyLinesIn(data, co)
		cp := *pgerr.As(err)
		failed = cp.WithWhere("COPY %s, line %d", rel.Name, lines+1)
		if ctx.Err() != nil {
			return nil, failed
		}
		// PostgreSQL reads the rows as they come, so a bad one among
		// the lines it had whole fails the COPY first (CopyFail, a
		// protocol violation). A cancel is answered at once instead.
		data = data[:end]
	}
	defaults, err := s.defaultsFor(rel, cols)
	if err != nil {
		return nil, err
	}
	bound, err := planner.BindRowRules(ctx, rel, s.catalogView())
	if err != nil {
		return nil, err
	}
	rules, err := executor.NewRowRules(rel, bound)
	if err != nil {
		return nil, err
	}
	ec := s.execCtx(ctx, nil, nil, nil)
	// A role that may not read the table sees in a violation's detail
	// only the columns it copies, and no duplicate key, as in PostgreSQL.
	mayRead := s.hasPrivilege(rel, catalog.PrivSelect)
	if !mayRead {
		ec.MaySelect = func(*catalog.Relation) bool { return false }
	}
	given := make([]bool, len(rel.Cols))
	for _, i := range cols {
		given[i] = true
	}
	// The columns COPY leaves out hold their defaults, which are checked
	// against their domains; those it reads are checked as read.
	notGiven := make([]bool, len(rel.Cols))
	for i := range notGiven {
		notGiven[i] = !given[i]
	}
	ws, err := s.beginWrite(ctx)
	if err != nil {
		return nil, err
	}
	w := ws.w
	committed := false
	defer func() {
		if !committed {
			_ = ws.finish(ctx, false)
		}
	}()
	var n int64
	line, records := 0, 0
	insert := func(fields []*string, text string) error {
		line++
		records++
		if co.csv && line > 1 {
			// The newlines inside the record's quotes, which PostgreSQL
			// counts after the first line (copyLinesIn).
			line += strings.Count(text, "\n")
		}
		// lineWhere is PostgreSQL's context of an error about the line
		// as a whole: the line, cut as limit_printout_length cuts it.
		lineWhere := func(pe *pgerr.Error) *pgerr.Error {
			return pe.WithWhere("COPY %s, line %d: \"%s\"", rel.Name, line, copyPrintout(text))
		}
		if records%1024 == 0 && ctx.Err() != nil {
			// A cancel names the line it stopped at, as PostgreSQL's.
			cp := *pgerr.As(ctxError(ctx))
			return lineWhere(&cp)
		}
		if co.header && line == 1 {
			return nil
		}
		if len(fields) > len(cols) {
			return lineWhere(pgerr.New(pgerr.BadCopyFileFormat, "extra data after last expected column"))
		}
		if len(fields) < len(cols) {
			return lineWhere(pgerr.New(pgerr.BadCopyFileFormat, "missing data for column \"%s\"", rel.Cols[cols[len(fields)]].Name))
		}
		row, err := defaults(ctx)
		if err != nil {
			return err
		}
		for i, f := range fields {
			c := rel.Cols[cols[i]]
			if f == nil {
				row[cols[i]] = types.NullDatum
				if err := rules.Domain(cols[i], types.NullDatum, &ec.Eval); err != nil {
					return pgerr.As(err).WithWhere("COPY %s, line %d, column %s: null input", rel.Name, line, c.Name)
				}
				continue
			}
			d, err := types.ParseText(*f, c.T, s.loc)
			if err == nil {
				// The domain's input function checks the value as it
				// reads it.
				err = rules.Domain(cols[i], d, &ec.Eval)
			}
			if err != nil {
				pe := pgerr.As(err)
				if pe.Code == pgerr.CharacterNotInRepertoire {
					// The bytes are not text: Postgres reports them while
					// reading the line, without echoing them back.
					return pe.WithWhere("COPY %s, line %d", rel.Name, line)
				}
				return pe.WithWhere("COPY %s, line %d, column %s: \"%s\"", rel.Name, line, c.Name, copyPrintout(*f))
			}
			row[cols[i]] = d
		}
		for i, c := range rel.Cols {
			if c.Hidden && !c.Dropped {
				id, err := w.NextRowID(rel.ID)
				if err != nil {
					return err
				}
				row[i] = types.DInt(id)
			}
		}
		if err := rules.Domains(row, &ec.Eval, notGiven); err != nil {
			return lineWhere(pgerr.As(err))
		}
		if err := rules.Apply(row, &ec.Eval, given); err != nil {
			// PostgreSQL's COPY names the line of any error a row
			// raises: with its text for a constraint's or an
			// expression's of the row, without it for an index key's,
			// computed when its buffer of rows is inserted.
			var ike executor.IndexKeyError
			if errors.As(err, &ike) {
				// A copy: an evaluator's error may be shared.
				cp := *pgerr.As(ike.Err)
				return cp.WithWhere("COPY %s, line %d", rel.Name, line)
			}
			if pe, ok := err.(*pgerr.Error); ok {
				cp := *pe
				return lineWhere(&cp)
			}
			return err
		}
		if err := w.Insert(rel.ID, row); err != nil {
			if errors.Is(err, executor.ErrRowDropped) {
				// A late row of an APPEND ONLY table: not copied.
				return nil
			}
			// PostgreSQL finds a duplicate key when it flushes its
			// buffer of rows, where the line is no longer at hand.
			pe := pgerr.As(err)
			if !mayRead && pe.Code == pgerr.UniqueViolation {
				cp := *pe
				cp.Detail = ""
				pe = &cp
			}
			return pe.WithWhere("COPY %s, line %d", rel.Name, line)
		}
		n++
		return nil
	}
	if co.csv {
		err = readCSV(data, co, insert)
	} else {
		err = readCopyText(data, co, insert)
	}
	if err != nil {
		return nil, err
	}
	if failed != nil {
		return nil, failed
	}
	if err := ctx.Err(); err != nil {
		return nil, ctxError(ctx)
	}
	committed = true
	if err := ws.finish(ctx, true); err != nil {
		return nil, err
	}
	return done(fmt.Sprintf("COPY %d", n))
}

// copyPrintout cuts text shown in a COPY error's context to 100 bytes
// (at a character boundary) and "...", as PostgreSQL's
// limit_printout_length does.
func copyPrintout(text string) string {
	const max = 100
	if len(text) <= max {
		return text
	}
	n := max
	for n > 0 && !utf8.RuneStart(text[n]) {
		n--
	}
	return text[:n] + "..."
}

// copyInRefused is COPY FROM into rel, a view, materialized view or
// sequence: as PostgreSQL, which finds out only once the copy has begun
// (CopyFrom), it takes the client's data and drops it, then fails with
// 42809. Failing before the copy began would leave psql to run a
// script's data lines as statements.
func (s *Session) copyInRefused(ctx context.Context, rel *catalog.Relation, ncols int, eio wire.ExecIO) error {
	ctx, cancel := s.withTimeout(ctx)
	defer cancel()
	r, err := eio.CopyIn(0, ncols)
	if err != nil {
		return err
	}
	if cr, ok := r.(wire.ContextReader); ok {
		r = cr.WithContext(ctx)
	}
	if _, err := io.Copy(io.Discard, r); err != nil {
		if ctx.Err() != nil {
			return ctxError(ctx)
		}
		var pe *pgerr.Error
		if errors.As(err, &pe) {
			return pe
		}
		return pgerr.Wrap(pgerr.QueryCanceled, err, "COPY from stdin failed")
	}
	e := pgerr.New(pgerr.WrongObjectType, "cannot copy to %s \"%s\"", kindWords[rel.Kind], rel.Name)
	if rel.Kind == catalog.KindView {
		e = e.WithHint("To enable copying to a view, provide an INSTEAD OF INSERT trigger.")
	}
	return e
}

// readAllCopy reads the client's COPY data to its end. The wire server's
// reader stops when its statement's context ends (a cancel); one that
// reads under a context of its own (wire.ContextReader) is given ctx,
// so that statement_timeout stops a client that sends too slowly, or
// stops sending, as well. When the stream fails (CopyFail, a cancel, a
// protocol violation) the data read until then is returned with the
// error.
func readAllCopy(ctx context.Context, r io.Reader) ([]byte, error) {
	if cr, ok := r.(wire.ContextReader); ok {
		r = cr.WithContext(ctx)
	}
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, r); err != nil {
		if ctx.Err() != nil {
			return buf.Bytes(), ctxError(ctx)
		}
		var pe *pgerr.Error
		if errors.As(err, &pe) {
			return buf.Bytes(), pe
		}
		return buf.Bytes(), pgerr.Wrap(pgerr.QueryCanceled, err, "COPY from stdin failed")
	}
	return buf.Bytes(), nil
}

// copyLinesIn counts the lines PostgreSQL's COPY has read whole from
// data, and returns where the last of them ends. A line ends at a
// newline, not one a backslash escapes (text) or one inside quotes
// (CSV), which PostgreSQL counts as a line all the same once the first
// line has ended (it knows the data's newline style then). A header
// counts as a line.
func copyLinesIn(data []byte, co copyOptions) (lines, end int) {
	quoted := false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case co.csv && c == co.quote:
			quoted = !quoted
		case !co.csv && c == '\\':
			i++
		case c == '\n' && quoted:
			if end > 0 {
				lines++
			}
		case c == '\n':
			lines, end = lines+1, i+1
		}
	}
	return lines, end
}

// defaultsFor returns a function producing a fresh full row holding the
// column defaults of the columns not listed in cols (NULL otherwise).
func (s *Session) defaultsFor(rel *catalog.Relation, cols []int) (func(context.Context) (types.Row, error), error) {
	listed := map[int]bool{}
	for _, c := range cols {
		listed[c] = true
	}
	var exprs []string
	var idx []int
	for i, c := range rel.Cols {
		if d := s.columnDefault(c); !listed[i] && d != "" {
			exprs = append(exprs, d)
			idx = append(idx, i)
		}
	}
	if len(exprs) == 0 {
		return func(context.Context) (types.Row, error) {
			row := make(types.Row, len(rel.Cols))
			for i := range row {
				row[i] = types.NullDatum
			}
			return row, nil
		}, nil
	}
	q, err := sql.ParseStored("SELECT " + strings.Join(exprs, ", "))
	if err != nil {
		return nil, err
	}
	b, err := planner.Bind(q.(*sql.Query), s.catalogView(), nil)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) (types.Row, error) {
		row := make(types.Row, len(rel.Cols))
		for i := range row {
			row[i] = types.NullDatum
		}
		snap := s.eng.db.NewSnapshot()
		defer snap.Close()
		vals, err := s.collect(ctx, b, snap)
		if err != nil {
			return nil, err
		}
		for j, i := range idx {
			v, err := types.Cast(vals[0][j], b.Plan.Schema()[j].T, rel.Cols[i].T, false, s.loc)
			if err != nil {
				return nil, err
			}
			row[i] = v
		}
		return row, nil
	}, nil
}

// readCopyText parses COPY's text format: one row per line, fields split
// by the delimiter, backslash escapes, `\N` (or the NULL option) for NULL,
// and an optional `\.` end marker.
func readCopyText(data []byte, co copyOptions, row func(fields []*string, line string) error) error {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line == `\.` {
			break
		}
		var fields []*string
		for _, raw := range splitUnescaped(line, co.delim) {
			if raw == co.null {
				fields = append(fields, nil)
				continue
			}
			v := unescapeCopy(raw)
			fields = append(fields, &v)
		}
		if err := row(fields, line); err != nil {
			return err
		}
	}
	return sc.Err()
}

// splitUnescaped splits on delim bytes that are not preceded by a backslash
// escape.
func splitUnescaped(line string, delim byte) []string {
	var out []string
	start := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case delim:
			out = append(out, line[start:i])
			start = i + 1
		}
	}
	return append(out, line[start:])
}

func unescapeCopy(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case 'x':
			j := i + 1
			for j < len(s) && j < i+3 && isHex(s[j]) {
				j++
			}
			if j > i+1 {
				v, _ := strconv.ParseUint(s[i+1:j], 16, 8)
				b.WriteByte(byte(v))
				i = j - 1
			} else {
				b.WriteByte('x')
			}
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			v, _ := strconv.ParseUint(s[i:j], 8, 8)
			b.WriteByte(byte(v))
			i = j - 1
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// readCSV parses COPY's csv format. An unquoted field equal to the NULL
// string is NULL; a quoted one is a value.
func readCSV(data []byte, co copyOptions, row func(fields []*string, line string) error) error {
	if co.escape != co.quote {
		return pgerr.New(pgerr.FeatureNotSupported, "COPY ESCAPE different from QUOTE is not supported yet")
	}
	lines := data
	// Drop a trailing end-of-data marker line.
	if i := bytes.Index(lines, []byte("\n\\.\n")); i >= 0 {
		lines = lines[:i+1]
	} else if bytes.HasPrefix(lines, []byte("\\.\n")) {
		lines = nil
	}
	r := csv.NewReader(bytes.NewReader(lines))
	r.Comma = rune(co.delim)
	r.FieldsPerRecord = -1
	r.LazyQuotes = false
	r.ReuseRecord = false
	// encoding/csv skips empty lines, which PostgreSQL reads as a row of
	// one unquoted empty field: NULL with the default NULL string, a
	// missing column if the table copies more.
	blankLines := func(raw string) (string, error) {
		for {
			switch {
			case strings.HasPrefix(raw, "\n"):
				raw = raw[1:]
			case strings.HasPrefix(raw, "\r\n"):
				raw = raw[2:]
			default:
				return raw, nil
			}
			var field *string
			if co.null != "" {
				field = new(string)
			}
			if err := row([]*string{field}, ""); err != nil {
				return "", err
			}
		}
	}
	for {
		offsetBefore := r.InputOffset()
		rec, err := r.Read()
		if err == io.EOF {
			_, err := blankLines(string(lines[offsetBefore:]))
			return err
		}
		if err != nil {
			return pgerr.New(pgerr.BadCopyFileFormat, "invalid CSV input: %v", err)
		}
		rawLine, err := blankLines(string(lines[offsetBefore:r.InputOffset()]))
		if err != nil {
			return err
		}
		fields := make([]*string, len(rec))
		for i := range rec {
			v := rec[i]
			if v == co.null && !csvFieldQuoted(rawLine, i, co) {
				continue
			}
			fields[i] = &v
		}
		if err := row(fields, strings.TrimSuffix(strings.TrimSuffix(rawLine, "\n"), "\r")); err != nil {
			return err
		}
	}
}

// csvFieldQuoted reports whether field i of a raw CSV record was quoted.
func csvFieldQuoted(raw string, i int, co copyOptions) bool {
	field, inQuote, start := 0, false, true
	for j := 0; j < len(raw); j++ {
		c := raw[j]
		if start {
			if field == i {
				return c == co.quote
			}
			start = false
		}
		switch {
		case c == co.quote:
			inQuote = !inQuote
		case c == co.delim && !inQuote:
			field++
			start = true
		}
	}
	return false
}

// copyOut runs a query and streams its rows to the client.
func (s *Session) copyOut(ctx context.Context, b *planner.Bound, co copyOptions, io wire.ExecIO) (wire.Result, error) {
	ctx, cancel := s.withTimeout(ctx)
	defer cancel()
	// Checked again as it runs: a COPY parsed before a SET ROLE (the
	// extended protocol) runs as the role of its Execute.
	if err := s.checkAccess(b.Access); err != nil {
		return nil, err
	}
	if err := s.noSourceReads(b); err != nil {
		return nil, err
	}
	// ACCESS SHARE on what it reads, as a query takes (locks.go).
	lctx, cancel := s.withTimeout(ctx)
	err := s.lockAccesses(lctx, b.Access)
	cancel()
	defer s.endStatementLocks()
	if err != nil {
		return nil, err
	}
	// The snapshot holds every statement acknowledged before (redo.go).
	if err := s.eng.readFence(ctx); err != nil {
		return nil, err
	}
	snap := s.eng.db.NewSnapshot()
	defer snap.Close()
	rows, err := s.collect(ctx, b, snap)
	if err != nil {
		return nil, err
	}
	sc := b.Plan.Schema()
	w, err := io.CopyOut(0, len(sc))
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if co.header {
		for i, c := range sc {
			if i > 0 {
				buf.WriteByte(co.delim)
			}
			buf.WriteString(csvQuote(c.Name, co))
		}
		buf.WriteByte('\n')
		if _, err := w.Write(buf.Bytes()); err != nil {
			return nil, err
		}
	}
	for k, r := range rows {
		if k%1024 == 0 && ctx.Err() != nil {
			return nil, ctxError(ctx)
		}
		buf.Reset()
		for i, d := range r[:len(sc)] {
			if i > 0 {
				buf.WriteByte(co.delim)
			}
			if d.Null {
				buf.WriteString(co.null)
				continue
			}
			v := types.FormatText(d, sc[i].T, s.loc)
			if co.csv {
				buf.WriteString(csvQuote(v, co))
			} else {
				buf.WriteString(escapeCopy(v, co.delim))
			}
		}
		buf.WriteByte('\n')
		if _, err := w.Write(buf.Bytes()); err != nil {
			return nil, err
		}
	}
	return done(fmt.Sprintf("COPY %d", len(rows)))
}

func csvQuote(v string, co copyOptions) string {
	need := v == co.null || strings.ContainsAny(v, string([]byte{co.delim, co.quote, '\n', '\r'})) || v == `\.`
	if !need {
		return v
	}
	q := string(co.quote)
	return q + strings.ReplaceAll(v, q, string(co.escape)+q) + q
}

func escapeCopy(v string, delim byte) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch c {
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\v':
			b.WriteString(`\v`)
		default:
			if c == delim {
				b.WriteByte('\\')
			}
			b.WriteByte(c)
		}
	}
	return b.String()
}
