package planner

import (
	"sync/atomic"

	"github.com/weirdb/weir/types"
)

// Expr is a bound, typed scalar expression. Expressions are plain data: the
// executor compiles them into vectorized evaluators over chunks, for batch
// queries and stream operators alike.
//
// Every Expr is evaluated against the output row of its node's input (for
// a Join's Cond: the left columns followed by the right columns).
type Expr interface {
	// Type returns the result type.
	Type() types.T
}

// ColRef reads column Idx of the input row.
type ColRef struct {
	Idx int
	T   types.T
	// Name is for EXPLAIN output only.
	Name string
}

// OuterRef reads column Idx of an enclosing query's current row, for a
// correlated subquery. Depth 1 is the immediately enclosing query.
type OuterRef struct {
	Depth int
	Idx   int
	T     types.T
	// Name is for EXPLAIN output only.
	Name string
}

// Const is a literal of type T. A NULL literal of a yet unknown type has
// T = types.TUnknown until coercion gives it one.
type Const struct {
	V types.Datum
	T types.T
}

// Param is the statement parameter $N (1-based).
type Param struct {
	N int
	T types.T
}

// Call applies a scalar function or operator. Fn is the canonical name in
// the function registry (see functions.go): operators use their symbol
// ("+", "=", "||", "~~" for LIKE), functions their lower-case Postgres name
// ("upper", "date_trunc"). Args are already coerced to the overload's
// parameter types, and T is its result type.
type Call struct {
	Fn   string
	Args []Expr
	T    types.T
	// ArgNames, when set, records how a call in named notation or one
	// leaving out defaulted parameters was written, for deparsing:
	// ArgNames[i] is the name Args[i] was given, "" for a positional
	// argument and DefaultArg for a parameter's default.
	ArgNames []string
	// CLocale marks a call whose input collation is C, POSIX or
	// ucs_basic, whose LC_CTYPE is C: case mapping and character classes
	// are then ASCII's (functions.InCLocale), not the database's
	// C.UTF-8's. Only calls that consult them
	// (functions.CTypeSensitive) are marked.
	CLocale bool
}

// DefaultArg marks in Call.ArgNames an argument the call left out, which
// holds the parameter's default.
const DefaultArg = "-"

// Cast converts Arg to T with Postgres's cast semantics (explicit casts:
// text to anything parses with 22P02 on bad input; overflow is 22003;
// varchar(n) truncates on explicit cast).
type Cast struct {
	Arg Expr
	T   types.T
	// Domain, when set, makes the cast a coercion to that domain (T is
	// its base type): the value must then satisfy its constraints.
	Domain *Domain
	// Assign marks an assignment cast (INSERT/UPDATE targets): types.Cast
	// with explicit=false, so text that overflows varchar(n) is 22001
	// instead of being truncated.
	Assign bool
}

// And is the three-valued logical AND of Args (two or more).
type And struct{ Args []Expr }

// Or is the three-valued logical OR of Args (two or more).
type Or struct{ Args []Expr }

// Not is the logical negation of Arg.
type Not struct{ Arg Expr }

// IsNull is Arg IS NULL, or Arg IS NOT NULL when Not is set.
type IsNull struct {
	Arg Expr
	Not bool
}

// IsBool is Arg IS [NOT] TRUE / FALSE / UNKNOWN, never NULL itself.
type IsBool struct {
	Arg Expr
	// Want is "true", "false" or "unknown".
	Want string
	Not  bool
}

// When is one WHEN Cond THEN Then arm of a Case.
type When struct {
	Cond Expr
	Then Expr
}

// Case is a searched CASE (the simple form CASE x WHEN v ... is bound into
// Conds x = v). Else is nil for ELSE NULL. Only the chosen arm is evaluated
// per row, so errors in other arms do not surface (as in Postgres).
type Case struct {
	Whens []When
	Else  Expr
	T     types.T
}

// Coalesce returns its first non-NULL argument, evaluating lazily.
type Coalesce struct {
	Args []Expr
	T    types.T
}

// InList is Arg [NOT] IN (List...), with SQL's NULL rules.
type InList struct {
	Arg  Expr
	List []Expr
	Not  bool
}

// SubqueryKind says how a subquery's rows become a value.
type SubqueryKind uint8

// Subquery kinds.
const (
	// SubScalar yields the single column of at most one row (NULL for no
	// row, 21000 for more than one).
	SubScalar SubqueryKind = iota
	// SubExists yields whether the plan returns any row.
	SubExists
	// SubAny is Arg Op ANY (plan); IN is SubAny with Op "=".
	SubAny
	// SubAll is Arg Op ALL (plan); NOT IN is SubAll with Op "<>".
	SubAll
	// SubArray yields a text[] of the single column (ARRAY(subquery)).
	SubArray
	// SubRow is Row Op (plan) for a plan of at most one row: (a, b) =
	// (SELECT x, y ...). No row compares as a row of NULLs; more than one
	// is 21000.
	SubRow
)

// Subquery is a nested query used as an expression. When Correlated is
// set, Plan contains OuterRefs and is re-evaluated per outer row; otherwise
// the executor evaluates it once per execution.
type Subquery struct {
	Kind SubqueryKind
	Plan Plan
	Arg  Expr   // SubAny / SubAll only
	Op   string // comparison operator for SubAny / SubAll / SubRow
	// Row holds the left row's fields when a row constructor is compared
	// with the plan's rows, (a, b) IN (SELECT x, y ...), field i with
	// column i; Arg is nil then. SubRow always has it.
	Row        []Expr
	Correlated bool
	T          types.T
}

// Let computes each of Vals once per row, then Body, in which a LetRef
// of the same ID reads the value of Vals[Idx] for the row. An inlined
// SQL function call is one when an argument must be computed once
// though its body reads it more than once (a volatile argument, such as
// nextval(...), that a STRICT function's null check reads too), or not
// at all (a constant whose errors PostgreSQL raises): PostgreSQL, which
// does not inline such a call, evaluates each argument once. Vals are
// computed for every row the Let is evaluated on, before Body, as a
// function's arguments are. IDs are unique in the process (NewLetID),
// so a Let copied by the rewrite rules keeps its references.
type Let struct {
	ID   int64
	Vals []Expr
	Body Expr
	// Names name the values in EXPLAIN (the function's parameters).
	Names []string
}

// LetRef reads value Idx of the Let of the same ID that encloses it.
type LetRef struct {
	ID  int64
	Idx int
	T   types.T
}

// letIDs numbers Lets.
var letIDs atomic.Int64

// NewLetID returns an ID no other Let of the process has.
func NewLetID() int64 { return letIDs.Add(1) }

// Resolve returns l's Body with each LetRef of l's ID replaced by ref's
// result for it, for the executor to compile the references to the
// values it computes.
func (l *Let) Resolve(ref func(r *LetRef) Expr) Expr {
	// A Let of the same ID inside the body (a copy of an inlined call
	// passed to a copy of itself) has references of its own.
	return mapExprOutside(l.Body, func(x Expr) Expr {
		if r, ok := x.(*LetRef); ok && r.ID == l.ID {
			return ref(r)
		}
		return x
	}, l.ID)
}

// Type implementations.
func (e *ColRef) Type() types.T   { return e.T }
func (e *OuterRef) Type() types.T { return e.T }
func (e *Const) Type() types.T    { return e.T }
func (e *Param) Type() types.T    { return e.T }
func (e *Call) Type() types.T     { return e.T }
func (e *Cast) Type() types.T     { return e.T }
func (e *And) Type() types.T      { return types.TBool }
func (e *Or) Type() types.T       { return types.TBool }
func (e *Not) Type() types.T      { return types.TBool }
func (e *IsNull) Type() types.T   { return types.TBool }
func (e *IsBool) Type() types.T   { return types.TBool }
func (e *Case) Type() types.T     { return e.T }
func (e *Coalesce) Type() types.T { return e.T }
func (e *InList) Type() types.T   { return types.TBool }
func (e *Subquery) Type() types.T { return e.T }
func (e *Let) Type() types.T      { return e.Body.Type() }
func (e *LetRef) Type() types.T   { return e.T }
