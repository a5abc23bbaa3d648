package functions

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// Context is what a function may read besides its arguments.
type Context struct {
	// Now is the transaction's start time (now(), current_timestamp,
	// 'now'), microseconds since 1970-01-01 UTC. It does not move within
	// a transaction.
	Now int64
	// Statement is the statement's start time (statement_timestamp());
	// 0 means Now.
	Statement int64
	// ProcTime is the processing time proctime() returns, microseconds
	// since 1970-01-01 UTC: in a stream operator, the time of the epoch
	// the row is processed in; 0 (outside streams) means the clock's
	// time, as clock_timestamp().
	ProcTime int64
	// Location is the session's TimeZone, for timestamptz input, output
	// and arithmetic; nil means UTC.
	Location *time.Location
	// Session answers current_user, current_database(), current_setting().
	Session SessionInfo
	// Cancel is the statement's context: functions that wait (pg_sleep)
	// return its cause (statement_timeout, a cancel request) when it is
	// done. nil means the statement cannot be cancelled.
	Cancel context.Context
	// cLocale is set (InCLocale) for a call whose input collation's
	// LC_CTYPE is C: case mapping and character classes are ASCII's.
	cLocale bool
}

// inCLocale reports whether the call runs under LC_CTYPE C.
func (ctx *Context) inCLocale() bool { return ctx != nil && ctx.cLocale }

// InCLocale returns im running under LC_CTYPE C, for a call whose input
// collation is C, POSIX or ucs_basic: upper, lower, initcap, ILIKE and
// regular expressions then map case and classify characters as in ASCII,
// as PostgreSQL does for those collations.
func InCLocale(im Impl) Impl {
	out := im
	if im.Row != nil {
		row := im.Row
		out.Row = func(ctx *Context, d []types.Datum) (types.Datum, error) {
			c := Context{cLocale: true}
			if ctx != nil {
				c = *ctx
				c.cLocale = true
			}
			return row(&c, d)
		}
	}
	if im.Vec != nil {
		vec := im.Vec
		out.Vec = func(ctx *Context, args []*types.Vec, n int, vis []bool, o *types.Vec) error {
			c := Context{cLocale: true}
			if ctx != nil {
				c = *ctx
				c.cLocale = true
			}
			return vec(&c, args, n, vis, o)
		}
	}
	return out
}

// CTypeSensitive reports whether the function or operator name maps
// case or classifies characters and follows a C collation (InCLocale):
// upper, lower, initcap, ILIKE, the regular expression operators (also
// over ANY and ALL, and SIMILAR TO, which binds to ~) and the scalar
// regexp functions. The set-returning regexp_matches and
// regexp_split_to_table keep C.UTF-8's rules under any collation.
func CTypeSensitive(name string) bool { return ctypeSensitive[name] }

var ctypeSensitive = map[string]bool{
	"upper": true, "lower": true, "initcap": true,
	"~~*": true, "!~~*": true, "~": true, "~*": true, "!~": true, "!~*": true,
	"regexp_replace": true, "regexp_match": true, "regexp_like": true, "regexp_count": true,
	"regexp_instr": true, "regexp_substr": true, "regexp_split_to_array": true, "substring": true,
	// x op ANY/ALL (array) with a pattern-matching op.
	"pg_any": true, "pg_all": true,
}

func (ctx *Context) loc() *time.Location {
	if ctx == nil || ctx.Location == nil {
		return time.UTC
	}
	return ctx.Location
}

// SessionInfo is the part of a session that functions can read.
type SessionInfo interface {
	User() string
	Database() string
	// Setting returns a session variable's current value and whether it exists.
	Setting(name string) (string, bool)
}

// SettingChanger is implemented by sessions whose settings
// set_config changes.
type SettingChanger interface {
	// SetSetting sets name to value (resets it when null), for the
	// transaction only when local, as SET [LOCAL] does, and returns the
	// setting's new value.
	SetSetting(name, value string, null, local bool) (string, error)
}

// CatalogDescriber is implemented by sessions that can describe catalog
// objects by OID, for the functions that print them (docs §9.26, table
// "System Catalog Information Functions"). Functions whose session lacks
// it answer as for an object that does not exist.
type CatalogDescriber interface {
	// DescribeObject returns what fn prints for the object with the
	// given OID, and false (the function returns NULL) when there is no
	// such object. fn is "pg_get_indexdef" (col > 0 asks for the col-th
	// key column alone), "pg_get_constraintdef", "pg_get_viewdef",
	// "pg_get_userbyid", "regclassout", "obj_description", "col_description" (col is the
	// column's number), "pg_table_is_visible" ("t" or "f"), or, the
	// OID ignored, "pg_my_temp_schema" (the session's temporary
	// schema's OID, "0" for none) and "temp_schema_name" (its name, ""
	// for none); pretty is the functions' pretty-print flag.
	DescribeObject(fn string, oid uint32, col int, pretty bool) (string, bool)
}

// RegResolver is implemented by sessions that can read a name as a reg*
// type's input function does (regclassin and its kin).
type RegResolver interface {
	// ResolveReg returns the OID name names as a value of reg* type
	// kind ("regclass"), or the input function's error (42P01 for a
	// relation that does not exist ...).
	ResolveReg(kind, name string) (uint32, error)
	// RegText returns what the output function of reg* type kind
	// prints for oid.
	RegText(kind string, oid uint32) (string, error)
}

// ExprDescriber is implemented by sessions that print a stored
// expression as pg_get_expr(expr, relid, pretty) prints it. A
// relation's (pg_attrdef.adbin, pg_constraint.conbin of a table, which
// hold it in the pretty form) is printed over the row of the relation
// with OID relid; a domain's (conbin with relid 0, held in the plain
// form), as its constraint prints. ok is false when text is neither;
// pg_get_expr then returns text.
type ExprDescriber interface {
	DescribeExpr(text string, relid uint32, pretty bool) (string, bool)
}

// BackendController is implemented by sessions that know the server's
// other sessions (PostgreSQL's backends), for the server signalling
// functions (docs §9.27.2) and pg_backend_pid.
type BackendController interface {
	// BackendPID is the session's pid, the one the client got in
	// BackendKeyData.
	BackendPID() int32
	// SignalBackend cancels the statement session pid runs or, with
	// terminate, ends that session; with terminate and a timeout above
	// zero it then waits until the session is gone, at most that long,
	// or until ctx (the calling statement) ends. It returns false, and
	// has the session send a WARNING, when pid is no session or the
	// wait ran out; 42501 when the caller may not signal it.
	SignalBackend(ctx context.Context, pid int32, terminate bool, timeout time.Duration) (bool, error)
	// ReloadConf is pg_reload_conf(): the settings ALTER SYSTEM wrote
	// become the defaults of every session.
	ReloadConf() (bool, error)
}

// WaitReporter is implemented by sessions that show what their
// statement waits for (pg_stat_activity's wait_event_type and
// wait_event).
type WaitReporter interface {
	// ReportWait records that the statement waits for event of type
	// typ; the returned function records that the wait ended.
	ReportWait(typ, event string) (done func())
}

// PrivilegeChecker is implemented by sessions that keep privileges, for
// has_table_privilege. table is a relation name as written (schema
// qualified or not) unless oid is not zero; privs is a comma-separated
// list such as "SELECT, INSERT" (any of them suffices, as in Postgres).
// Errors: 42P01 for an unknown table, 42704 for an unknown role, 22023
// for an unknown privilege.
type PrivilegeChecker interface {
	HasTablePrivilege(user, table string, oid uint32, privs string) (bool, error)
}

// SequencePrivilegeChecker is implemented by sessions that keep
// privileges on sequences, for has_sequence_privilege: seq is a sequence
// name as written, privs a comma-separated list of SELECT, UPDATE and
// USAGE (any of them suffices). Errors: 42P01 for an unknown sequence,
// 42809 for a relation that is not one, 42704 for an unknown role,
// 22023 for an unknown privilege.
type SequencePrivilegeChecker interface {
	HasSequencePrivilege(user, seq string, privs string) (bool, error)
}

// FunctionPrivilegeChecker is implemented by sessions that keep
// privileges on functions, for has_function_privilege: fn is a function
// as regprocedure reads it ("f(int)") unless oid is not zero; user is a
// role name or "public"; privs a comma-separated list of EXECUTE and
// EXECUTE WITH GRANT OPTION (any of them suffices). found is false for
// an OID that names no function (the result is then NULL). Errors:
// 42883 for an unknown function name, 42704 for an unknown role, 22023
// for an unknown privilege.
type FunctionPrivilegeChecker interface {
	HasFunctionPrivilege(user, fn string, oid uint32, privs string) (held, found bool, err error)
}

// AddInt64 returns a+b and false if the sum overflows.
func AddInt64(a, b int64) (int64, bool) {
	s := a + b
	return s, (s > a) == (b > 0)
}

// RowFn computes a scalar function for one row. Strict functions are never
// called with a NULL argument.
type RowFn func(ctx *Context, args []types.Datum) (types.Datum, error)

// VecFn computes a scalar function over whole vectors: it fills out (n
// rows, allocated by the caller for the result type) for the rows visible
// in vis (nil: all rows), handling NULL arguments itself.
type VecFn func(ctx *Context, args []*types.Vec, n int, vis []bool, out *types.Vec) error

// Impl is the implementation of one scalar overload: Vec when set, else
// Row called for each visible row.
type Impl struct {
	Row RowFn
	Vec VecFn
	// NonStrict implementations are called with NULL arguments.
	NonStrict bool
}

// IndeterminateCollationFn is the function the binder calls in place of
// an operation whose operands' collations conflict: it fails with 42P22
// when it runs on values.
const IndeterminateCollationFn = "pg_indeterminate_collation"

// IdentityNextValFn is the function an identity column's value binds
// to: the next value of the sequence its argument names, taken without
// checking privileges on the sequence (Sequences.IdentityNextVal).
// No query can name it.
const IdentityNextValFn = "pg_identity_nextval"

// CollateFn is the function x COLLATE name binds to: x, with the
// collation's name and the clause's position as further arguments for
// the binder's collation rules (every collation weir knows orders text
// by its bytes, so the value is x's).
const CollateFn = "pg_collate"

// ImplFactory is a scalar overload's implementation (Overload.Fn): it
// returns the Impl for the given argument and result types, and false if
// it has none for them. One factory may serve many overloads (all
// integer widths, say).
type ImplFactory func(args []types.T, ret types.T) (Impl, bool)

// row is the ImplFactory of a strict row function that serves every
// signature it is given.
func row(f RowFn) ImplFactory {
	return func([]types.T, types.T) (Impl, bool) { return Impl{Row: f}, true }
}

// rowNS is row for a non-strict row function.
func rowNS(f RowFn) ImplFactory {
	return func([]types.T, types.T) (Impl, bool) { return Impl{Row: f, NonStrict: true}, true }
}

// syntaxImpl returns the implementation of a function the binder calls
// for a piece of syntax with types it has computed, never by resolving a
// name (f(a, VARIADIC arr), ...), and nil for any other name. These
// functions have no Overload: no call in user text can reach them.
func syntaxImpl(name string) ImplFactory {
	switch name {
	case VariadicCallFn:
		return variadicCall
	case "array":
		return arrayConstructor
	case "pg_row":
		return rowConstructor
	case "pg_current_of":
		return currentOf
	case IndeterminateCollationFn:
		return indeterminateCollation
	case CollateFn:
		return collate
	case IdentityNextValFn:
		return identityNextVal
	case TableSampleFn:
		return tableSample
	}
	return nil
}

// Lookup returns the implementation of scalar function or operator name
// for argument types args and result type ret: 42883 (undefined_function)
// if there is none. It asks the implementations of name's overloads,
// those whose parameter types agree with more of args first (the
// overload the binder chose, whose Args are args, before the others),
// and answers with the first that accepts args; a function the binder
// calls for syntax has its own implementation (syntaxImpl).
func Lookup(name string, args []types.T, ret types.T) (Impl, error) {
	if f := syntaxImpl(name); f != nil {
		if im, ok := f(args, ret); ok {
			return im, nil
		}
		return Impl{}, undefined(name, args)
	}
	for _, o := range candidates(name, args) {
		if im, ok := o.Fn(args, ret); ok {
			return im, nil
		}
	}
	return Impl{}, undefined(name, args)
}

// candidates returns the scalar overloads of name, ordered by how many of
// args their parameter types equal ("any" parameters count for none),
// most first; overloads that agree as much keep their order.
func candidates(name string, args []types.T) []*Overload {
	var os []*Overload
	for _, o := range registry()[name] {
		if o.Kind == Scalar && o.Fn != nil {
			os = append(os, o)
		}
	}
	score := make(map[*Overload]int, len(os))
	for _, o := range os {
		score[o] = agreement(o, args)
	}
	sort.SliceStable(os, func(i, j int) bool { return score[os[i]] > score[os[j]] })
	return os
}

// agreement counts the arguments whose type is o's parameter type at
// their position (the variadic parameter repeating); -1 when o cannot
// take len(args) arguments.
func agreement(o *Overload, args []types.T) int {
	n := len(o.Args)
	if len(args) != n && !(o.Variadic && len(args) >= n-1) {
		return -1
	}
	c := 0
	for i, a := range args {
		p := o.Args[min(i, n-1)]
		if p != types.Unknown && p == a.ID {
			c++
		}
	}
	return c
}

// undefined is the error of a call with no implementation.
func undefined(name string, args []types.T) error {
	names := make([]string, len(args))
	for i, a := range args {
		names[i] = a.ID.Name()
	}
	if len(args) == 1 && isOperator(name) {
		return pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s %s", name, names[0])
	}
	if len(args) == 2 && isOperator(name) {
		return pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s %s %s", names[0], name, names[1])
	}
	return pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", name, strings.Join(names, ", "))
}

func isOperator(name string) bool {
	return name == "neg" || strings.IndexFunc(name, func(r rune) bool { return r >= 'a' && r <= 'z' }) < 0
}

// CmpHolds reports whether comparison operator op holds for a three-way
// comparison result c.
func CmpHolds(op string, c int) bool {
	switch op {
	case "=":
		return c == 0
	case "<>", "!=":
		return c != 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	}
	return false
}

// RelativeTime returns the value of the special date/time input s ('now',
// 'today', 'tomorrow', 'yesterday', in any case and with surrounding
// spaces) for type to, read from the transaction's start time rather than
// the clock, and false if s is not one of them or to is not a date/time
// type. PostgreSQL evaluates these strings when the cast runs, so
// 'now'::timestamptz equals now() within a transaction.
func (ctx *Context) RelativeTime(s string, to types.TypeID) (types.Datum, bool) {
	var days int64
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "now":
		days = -1 << 62
	case "today":
	case "tomorrow":
		days = 1
	case "yesterday":
		days = -1
	default:
		return types.NullDatum, false
	}
	loc := ctx.loc()
	wall := tstzToTS(ctx.Now, loc)
	if days != -1<<62 {
		// Midnight of the session-zone date, stepped by days.
		wall = (FloorDiv64(wall, MicrosPerDay) + days) * MicrosPerDay
	}
	switch to {
	case types.Timestamptz:
		if days == -1<<62 {
			return types.DInt(ctx.Now), true
		}
		return types.DInt(tsToTSTZ(wall, loc)), true
	case types.Timestamp:
		return types.DInt(wall), true
	case types.Date:
		return types.DInt(FloorDiv64(wall, MicrosPerDay)), true
	case types.Time:
		if days != -1<<62 {
			return types.NullDatum, false // 'today'::time is an error in PostgreSQL
		}
		return types.DInt(wall - FloorDiv64(wall, MicrosPerDay)*MicrosPerDay), true
	}
	return types.NullDatum, false
}
