package engine

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// sqlPrepared is a statement prepared with SQL's PREPARE: the same bound
// statement the extended protocol's Parse makes, kept by name in the
// session until DEALLOCATE or DISCARD ALL.
type sqlPrepared struct {
	p wire.Prepared
	// text is the client's query string that held the PREPARE (all of
	// it, as PostgreSQL keeps it) and at when it ran, for
	// pg_prepared_statements.
	text string
	at   time.Time
	// runs counts the executions: pg_prepared_statements shows them as
	// generic plans for a statement without parameters and as custom
	// plans otherwise (PostgreSQL plans the first five with parameters
	// custom).
	runs int64
	// bodyAt is where the statement's body starts in the PREPARE's text:
	// the positions of errors from binding it again are relative to that
	// text, as in Postgres.
	bodyAt int
	// domains[i], when not "", is the domain parameter i was declared
	// of, which EXECUTE casts its argument to: the domain's
	// constraints then hold for it.
	domains []string
}

// shiftPosition moves the error position of err, which is about a text
// that starts at character at of the statement, to the statement's text.
func shiftPosition(err error, at int) error {
	var pe *pgerr.Error
	if errors.As(err, &pe) && pe.Position > 0 {
		pe.Position += at
	}
	return err
}

// prepareSQL runs PREPARE: the statement is parsed and bound now, with
// the given parameter types as the extended protocol's type hints.
func (s *Session) prepareSQL(ctx context.Context, st *sql.Prepare, text string) (wire.Result, error) {
	if _, dup := s.sqlPrepared[st.Name]; dup {
		return nil, pgerr.New(pgerr.DuplicatePreparedStatement, "prepared statement \"%s\" already exists", st.Name)
	}
	hints, err := s.prepareTypes(ctx, st)
	if err != nil {
		return nil, err
	}
	stmt, err := s.parseCtx(ctx, st.Body)
	if err != nil {
		return nil, shiftPosition(err, st.BodyAt)
	}
	if _, ok := stmt.(*sql.Query); !ok {
		// Postgres's grammar takes only SELECT, VALUES, TABLE, INSERT,
		// UPDATE, DELETE and MERGE after AS.
		first, _ := sql.Lex(st.Body)
		return nil, pgerr.New(pgerr.SyntaxError, "syntax error at or near \"%s\"", st.Body[first[0].Off:first[0].End]).
			WithPosition(st.BodyAt + 1)
	}
	// As PostgreSQL's PREPARE, which only analyses the statement, no
	// privilege is checked now: each EXECUTE checks the role running it.
	p, err := s.prepare(planner.WithDeferredAuthorization(ctx), stmt, st.Body, hints)
	if err != nil {
		return nil, shiftPosition(err, st.BodyAt)
	}
	if s.sqlPrepared == nil {
		s.sqlPrepared = map[string]*sqlPrepared{}
	}
	source := s.source
	if source == "" {
		source = text
	}
	s.sqlPrepared[st.Name] = &sqlPrepared{p: p, text: source, at: time.Now(), bodyAt: st.BodyAt, domains: s.paramDomains(st)}
	return done("PREPARE")
}

// prepareTypes reads PREPARE's parameter types. They are read by binding
// NULL casts to them, so every type name a cast accepts is accepted here;
// unknown, which no cast takes, leaves the parameter's type to be
// inferred from its use, as in Postgres.
func (s *Session) prepareTypes(ctx context.Context, st *sql.Prepare) ([]types.T, error) {
	if len(st.Types) == 0 {
		return nil, nil
	}
	hints := make([]types.T, len(st.Types))
	var b strings.Builder
	var texts []string
	var ats, starts, at []int // at: the hint each cast reads
	b.WriteString("SELECT ")
	for i, t := range st.Types {
		if n := strings.ToLower(strings.TrimSpace(t)); n == "unknown" || n == "pg_catalog.unknown" {
			hints[i] = types.TUnknown
			continue
		}
		if len(at) > 0 {
			b.WriteString(", ")
		}
		texts, ats, at = append(texts, t), append(ats, st.TypesAt[i]), append(at, i)
		starts = append(starts, len([]rune(b.String())))
		b.WriteString("NULL::")
		b.WriteString(t)
	}
	if len(at) == 0 {
		return hints, nil
	}
	stmt, err := s.parseCtx(ctx, b.String())
	if err != nil {
		return nil, itemPosition(err, texts, ats, starts, len("NULL::"))
	}
	p, err := s.prepare(ctx, stmt, b.String(), nil)
	if err != nil {
		return nil, itemPosition(err, texts, ats, starts, len("NULL::"))
	}
	for j, f := range p.Fields() {
		// A parameter's type has no modifier: PREPARE p(char(3)) takes
		// any bpchar.
		hints[at[j]] = types.T{ID: f.T.ID, Mod: -1}
	}
	return hints, nil
}

// prepareExecute binds EXECUTE name (args): its result columns are those
// of the prepared statement. The arguments are evaluated when it runs, as
// a query casting each to its parameter's type, and the prepared
// statement then runs with them.
func (s *Session) prepareExecute(ctx context.Context, st *sql.Execute) (wire.Prepared, error) {
	x, err := s.bindExecute(ctx, st)
	if err != nil {
		return nil, err
	}
	return &utilPrepared{fields: x.sp.p.Fields(), params: x.params(), run: func(ctx context.Context, given []types.Datum, io wire.ExecIO) (wire.Result, error) {
		params, err := x.start(ctx, given, io)
		if err != nil {
			return nil, err
		}
		return x.sp.p.Execute(ctx, params, io)
	}}, nil
}

// boundExecute is EXECUTE name (args) bound: the prepared statement and
// the query that evaluates the arguments.
type boundExecute struct {
	st     *sql.Execute
	sp     *sqlPrepared
	rv     wire.Revalidator
	args   wire.Prepared // nil without arguments
	starts []int         // where each argument starts in args' text
}

// bindExecute looks up the prepared statement and binds the query that
// evaluates EXECUTE's arguments.
func (s *Session) bindExecute(ctx context.Context, st *sql.Execute) (*boundExecute, error) {
	sp, ok := s.sqlPrepared[st.Name]
	if !ok {
		return nil, pgerr.New(pgerr.InvalidSQLStatementName, "prepared statement \"%s\" does not exist", st.Name)
	}
	// The statement is revalidated now, so that EXECUTE's result columns
	// are those of the statement as it will run. A failure is reported
	// when it runs, after the arguments are evaluated, which is the order
	// Postgres goes in.
	x := &boundExecute{st: st, sp: sp}
	x.rv, _ = sp.p.(wire.Revalidator)
	if x.rv != nil {
		_ = x.rv.Revalidate(ctx)
	}
	ts := sp.p.ParamTypes()
	if len(st.Args) != len(ts) {
		return nil, pgerr.New(pgerr.SyntaxError, "wrong number of parameters for prepared statement \"%s\"", st.Name).
			WithDetail("Expected %d parameters but got %d.", len(ts), len(st.Args))
	}
	if len(ts) > 0 {
		var b strings.Builder
		b.WriteString("SELECT ")
		for i, a := range st.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			x.starts = append(x.starts, len([]rune(b.String())))
			b.WriteString("(")
			b.WriteString(a)
			b.WriteString(")::")
			if i < len(sp.domains) && sp.domains[i] != "" {
				b.WriteString(sp.domains[i])
			} else {
				b.WriteString(ts[i].String())
			}
		}
		stmt, err := s.parseCtx(ctx, b.String())
		if err == nil {
			x.args, err = s.prepare(ctx, stmt, b.String(), nil)
		}
		if err != nil {
			return nil, itemPosition(err, st.Args, st.ArgsAt, x.starts, 1)
		}
	}
	return x, nil
}

// params is the parameters of EXECUTE itself: its arguments may use them
// (EXECUTE q($1) sent through the extended protocol).
func (x *boundExecute) params() []types.T {
	if x.args != nil {
		return x.args.ParamTypes()
	}
	return nil
}

// start evaluates the arguments with EXECUTE's own parameters given and
// revalidates the prepared statement, returning its parameters.
func (x *boundExecute) start(ctx context.Context, given []types.Datum, io wire.ExecIO) ([]types.Datum, error) {
	st := x.st
	var params []types.Datum
	if x.args != nil {
		r, err := x.args.Execute(ctx, given, io)
		if err != nil {
			return nil, itemPosition(err, st.Args, st.ArgsAt, x.starts, 1)
		}
		row, err := r.Next(ctx)
		r.Close()
		if err != nil {
			return nil, itemPosition(err, st.Args, st.ArgsAt, x.starts, 1)
		}
		params = row
	}
	x.sp.runs++
	if x.rv != nil {
		if err := x.rv.Revalidate(ctx); err != nil {
			return nil, shiftPosition(err, x.sp.bodyAt)
		}
	}
	return params, nil
}

// itemPosition moves an error position inside a query built from the
// items of a list (EXECUTE's arguments, PREPARE's types), where item i
// is written at character starts[i] after prefix characters of its own
// (a cast or a parenthesis), to that item in the statement the list came
// from (texts[i] at character ats[i]); a position elsewhere is dropped.
func itemPosition(err error, texts []string, ats, starts []int, prefix int) error {
	var pe *pgerr.Error
	if !errors.As(err, &pe) || pe.Position == 0 {
		return err
	}
	pos := pe.Position - 1
	pe.Position = 0
	for i := len(starts) - 1; i >= 0; i-- {
		if pos >= starts[i] {
			if d := max(pos-starts[i]-prefix, 0); d <= len([]rune(texts[i])) {
				pe.Position = ats[i] + d + 1
			}
			break
		}
	}
	return err
}

// deallocate runs DEALLOCATE [PREPARE] name | ALL.
func (s *Session) deallocate(st *sql.Deallocate) (wire.Result, error) {
	if st.All {
		s.sqlPrepared = nil
		return done("DEALLOCATE ALL")
	}
	if _, ok := s.sqlPrepared[st.Name]; !ok {
		return nil, pgerr.New(pgerr.InvalidSQLStatementName, "prepared statement \"%s\" does not exist", st.Name)
	}
	delete(s.sqlPrepared, st.Name)
	return done("DEALLOCATE")
}

// paramDomains returns, by parameter of PREPARE st, the qualified name
// of the domain it is declared of, or of its array ("" for other
// types), nil when none is.
func (s *Session) paramDomains(st *sql.Prepare) []string {
	var out []string
	for i, t := range st.Types {
		tn, err := sql.ParseUserTypeName(t)
		if err != nil || tn.User == nil {
			continue
		}
		u, ok := s.lookupUserType(*tn.User)
		if !ok || u.Kind != 'd' {
			continue
		}
		if out == nil {
			out = make([]string, len(st.Types))
		}
		out[i] = sql.QuoteIdent(u.Schema) + "." + sql.QuoteIdent(u.Name)
		if tn.UserArray {
			out[i] += "[]"
		}
	}
	return out
}
