package functions

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// The SQL/JSON path functions and operators (docs §9.16.2, PostgreSQL's
// jsonpath_exec.c): jsonb_path_exists, jsonb_path_match,
// jsonb_path_query (set-returning), jsonb_path_query_array,
// jsonb_path_query_first, jsonb @? jsonpath and jsonb @@ jsonpath. A path
// runs over the target decoded as parseJSON does; lax mode unwraps arrays
// and ignores structural errors, strict mode reports them. Errors an
// evaluation may suppress (jsonpath's "jperError") are softJPError: the
// silent argument turns them into an empty result, and inside a filter
// they make a predicate unknown.

// softJPError is an evaluation error that silent suppresses.
type softJPError struct{ err error }

func (e *softJPError) Error() string { return e.err.Error() }

func jpSoft(code pgerr.Code, format string, args ...any) error {
	return &softJPError{pgerr.New(code, format, args...)}
}

type jpBool uint8

const (
	jpFalse jpBool = iota
	jpTrue
	jpUnknown
)

type jpCtx struct {
	root         any
	vars         map[string]any
	strict       bool
	ignoreStruct bool
	current      any
	arraySize    int // the size of the innermost array being subscripted, or -1
	// stopFirst ends the evaluation at the first item the path finds
	// (errJPFound), as lax mode's existence tests do: an error the rest
	// of the path would meet is not reached.
	stopFirst bool
	found     any // the item errJPFound stopped at
	// ids are the ids keyvalue() gives the objects of the target (their
	// offsets) and of the variables (10000000000 plus their offsets in
	// vars), by the objects' identity.
	ids map[uintptr]int64
	// useTz lets comparisons of datetime values with and without a time
	// zone read the latter in loc (the *_tz functions); now is the
	// transaction's start, whose offset in loc a time takes.
	useTz bool
	loc   *time.Location
	now   int64
}

// errJPFound unwinds an evaluation under stopFirst at its first item.
var errJPFound = errors.New("jsonpath item found")

// sub runs f, an evaluation whose items are an operand's, with
// stopFirst off.
func (c *jpCtx) sub(f func() ([]any, error)) ([]any, error) {
	saved := c.stopFirst
	c.stopFirst = false
	defer func() { c.stopFirst = saved }()
	return f()
}

func jpNum(v any) (*apd.Decimal, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, false
	}
	d, _, err := apd.NewFromString(string(n))
	return d, err == nil
}

func jpNumber(d *apd.Decimal) json.Number {
	if d.IsZero() {
		d.Negative = false
	}
	return json.Number(normScale(d).Text('f'))
}

// jsonbKeys returns m's keys in jsonb's order: by length, then bytes.
func jsonbKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if len(keys[i]) != len(keys[j]) {
			return len(keys[i]) < len(keys[j])
		}
		return keys[i] < keys[j]
	})
	return keys
}

// exec applies it, and the items after it, to v (executeItemOptUnwrapTarget).
func (c *jpCtx) exec(it *JPItem, v any, unwrap bool) ([]any, error) {
	switch it.Kind {
	case types.JPNull:
		return c.next(it, nil)
	case types.JPString:
		return c.next(it, it.Str)
	case types.JPNumeric:
		return c.next(it, jpNumber(new(apd.Decimal).Set(it.Num)))
	case types.JPBool:
		return c.next(it, it.Bool)
	case types.JPRoot:
		return c.next(it, c.root)
	case types.JPCurrent:
		return c.next(it, c.current)
	case types.JPVariable:
		val, ok := c.vars[it.Str]
		if !ok {
			return nil, pgerr.New(pgerr.UndefinedObject, "could not find jsonpath variable \"%s\"", it.Str)
		}
		return c.next(it, val)
	case types.JPLast:
		if c.arraySize < 0 {
			return nil, pgerr.New(pgerr.InternalError, "evaluating jsonpath LAST outside of array subscript")
		}
		return c.next(it, jpNumber(apd.New(int64(c.arraySize-1), 0)))
	case types.JPKey:
		switch x := v.(type) {
		case map[string]any:
			if val, ok := x[it.Str]; ok {
				return c.next(it, val)
			}
			if !c.ignoreStruct {
				return nil, jpSoft(pgerr.SQLJSONMemberNotFound, "JSON object does not contain key \"%s\"", it.Str)
			}
			return nil, nil
		case []any:
			if unwrap {
				return c.unwrapArray(it, x)
			}
		}
		if !c.ignoreStruct {
			return nil, jpSoft(pgerr.SQLJSONMemberNotFound, "jsonpath member accessor can only be applied to an object")
		}
		return nil, nil
	case types.JPAnyKey:
		switch x := v.(type) {
		case map[string]any:
			var out []any
			for _, k := range jsonbKeys(x) {
				r, err := c.next(it, x[k])
				if err != nil {
					return append(out, r...), err
				}
				out = append(out, r...)
			}
			return out, nil
		case []any:
			if unwrap {
				return c.unwrapArray(it, x)
			}
		}
		if !c.ignoreStruct {
			return nil, jpSoft(pgerr.SQLJSONObjectNotFound, "jsonpath wildcard member accessor can only be applied to an object")
		}
		return nil, nil
	case types.JPAnyArray:
		if x, ok := v.([]any); ok {
			var out []any
			for _, e := range x {
				r, err := c.next(it, e)
				if err != nil {
					return append(out, r...), err
				}
				out = append(out, r...)
			}
			return out, nil
		}
		if !c.strict {
			return c.next(it, v)
		}
		if !c.ignoreStruct {
			return nil, jpSoft(pgerr.SQLJSONArrayNotFound, "jsonpath wildcard array accessor can only be applied to an array")
		}
		return nil, nil
	case types.JPIndexArray:
		arr, isArr := v.([]any)
		if !isArr && c.strict {
			if !c.ignoreStruct {
				return nil, jpSoft(pgerr.SQLJSONArrayNotFound, "jsonpath array accessor can only be applied to an array")
			}
			return nil, nil
		}
		if !isArr {
			arr = []any{v}
		}
		saved := c.arraySize
		c.arraySize = len(arr)
		defer func() { c.arraySize = saved }()
		var out []any
		for _, sub := range it.Subs {
			from, err := c.arrayIndex(sub[0], v)
			if err != nil {
				return nil, err
			}
			to := from
			if sub[1] != nil {
				if to, err = c.arrayIndex(sub[1], v); err != nil {
					return nil, err
				}
			}
			if from < 0 || from > to || to >= len(arr) {
				if !c.ignoreStruct {
					return nil, jpSoft(pgerr.InvalidSQLJSONSubscript, "jsonpath array subscript is out of bounds")
				}
			}
			from = max(from, 0)
			to = min(to, len(arr)-1)
			for i := from; i <= to; i++ {
				r, err := c.next(it, arr[i])
				if err != nil {
					return append(out, r...), err
				}
				out = append(out, r...)
			}
		}
		return out, nil
	case types.JPAny:
		saved := c.ignoreStruct
		c.ignoreStruct = true
		defer func() { c.ignoreStruct = saved }()
		var out []any
		if it.First == 0 {
			r, err := c.next(it, v)
			if err != nil {
				return append(out, r...), err
			}
			out = append(out, r...)
		}
		if isContainer(v) {
			r, err := c.anyItem(it, v, 1)
			if err != nil {
				return append(out, r...), err
			}
			out = append(out, r...)
		}
		return out, nil
	case types.JPFilter:
		if x, ok := v.([]any); ok && unwrap {
			return c.unwrapArray(it, x)
		}
		saved, savedStop := c.current, c.stopFirst
		c.current, c.stopFirst = v, false
		res, err := c.boolItem(it.Left, v)
		c.current, c.stopFirst = saved, savedStop
		if err != nil {
			return nil, err
		}
		if res != jpTrue {
			return nil, nil
		}
		return c.next(it, v)
	case types.JPAdd, types.JPSub, types.JPMul, types.JPDiv, types.JPMod:
		return c.arith(it, v)
	case types.JPPlus, types.JPMinus:
		vals, err := c.execUnwrapResult(it.Left, v)
		if err != nil {
			return nil, err
		}
		var out []any
		for _, e := range vals {
			d, ok := jpNum(e)
			if !ok {
				op := "+"
				if it.Kind == types.JPMinus {
					op = "-"
				}
				return nil, jpSoft(pgerr.SQLJSONNumberNotFound, "operand of unary jsonpath operator %s is not a numeric value", op)
			}
			if it.Kind == types.JPMinus {
				d.Neg(d)
			}
			r, err := c.next(it, jpNumber(d))
			if err != nil {
				return append(out, r...), err
			}
			out = append(out, r...)
		}
		return out, nil
	case types.JPType:
		return c.next(it, jpTypeName(v))
	case types.JPSize:
		if x, ok := v.([]any); ok {
			return c.next(it, jpNumber(apd.New(int64(len(x)), 0)))
		}
		if c.strict && !c.ignoreStruct {
			return nil, jpSoft(pgerr.SQLJSONArrayNotFound, "jsonpath item method .size() can only be applied to an array")
		}
		return c.next(it, jpNumber(apd.New(1, 0)))
	case types.JPAbs, types.JPFloor, types.JPCeiling, types.JPDouble, types.JPKeyValue:
		if x, ok := v.([]any); ok && unwrap {
			return c.unwrapArray(it, x)
		}
		return c.method(it, v)
	case types.JPDatetime:
		if x, ok := v.([]any); ok && unwrap {
			return c.unwrapArray(it, x)
		}
		str, ok := v.(string)
		if !ok {
			return nil, jpSoft(pgerr.InvalidArgumentForSQLJSONDatetime, "jsonpath item method .datetime() can only be applied to a string")
		}
		tmpl := ""
		if it.HasTemplate {
			tmpl = it.Str
		}
		d, err := jpDatetimeMethod(str, tmpl, it.HasTemplate)
		if err != nil {
			return nil, err
		}
		return c.next(it, d)
	}
	// A predicate used as an expression gives true, false or null.
	savedStop := c.stopFirst
	c.stopFirst = false
	res, err := c.boolItem(it, v)
	c.stopFirst = savedStop
	if err != nil {
		return nil, err
	}
	var b any
	if res != jpUnknown {
		b = res == jpTrue
	}
	return c.next(it, b)
}

// JPItem is a jsonpath item of package types.
type JPItem = types.JPItem

func isContainer(v any) bool {
	switch v.(type) {
	case []any, map[string]any:
		return true
	}
	return false
}

// anyItem is executeAnyItem: the items level levels below v.
func (c *jpCtx) anyItem(it *JPItem, v any, level uint32) ([]any, error) {
	if level > it.Last {
		return nil, nil
	}
	var kids []any
	switch x := v.(type) {
	case []any:
		kids = x
	case map[string]any:
		for _, k := range jsonbKeys(x) {
			kids = append(kids, x[k])
		}
	}
	var out []any
	for _, k := range kids {
		if level >= it.First || (it.First == types.JPAnyLast && it.Last == types.JPAnyLast && !isContainer(k)) {
			r, err := c.next(it, k)
			if err != nil {
				return append(out, r...), err
			}
			out = append(out, r...)
		}
		if isContainer(k) && level < it.Last {
			r, err := c.anyItem(it, k, level+1)
			if err != nil {
				return append(out, r...), err
			}
			out = append(out, r...)
		}
	}
	return out, nil
}

func (c *jpCtx) next(it *JPItem, v any) ([]any, error) {
	if it.Next == nil {
		if c.stopFirst {
			c.found = v
			return nil, errJPFound
		}
		return []any{v}, nil
	}
	return c.exec(it.Next, v, !c.strict)
}

func (c *jpCtx) unwrapArray(it *JPItem, arr []any) ([]any, error) {
	var out []any
	for _, e := range arr {
		r, err := c.exec(it, e, false)
		if err != nil {
			return append(out, r...), err
		}
		out = append(out, r...)
	}
	return out, nil
}

// execUnwrapResult runs it over v and, in lax mode, unwraps the arrays
// among its results.
func (c *jpCtx) execUnwrapResult(it *JPItem, v any) ([]any, error) {
	vals, err := c.sub(func() ([]any, error) { return c.exec(it, v, !c.strict) })
	if err != nil || c.strict {
		return vals, err
	}
	var out []any
	for _, e := range vals {
		if a, ok := e.([]any); ok {
			out = append(out, a...)
		} else {
			out = append(out, e)
		}
	}
	return out, nil
}

func (c *jpCtx) arrayIndex(it *JPItem, v any) (int, error) {
	vals, err := c.sub(func() ([]any, error) { return c.exec(it, v, !c.strict) })
	if err != nil {
		return 0, err
	}
	var d *apd.Decimal
	ok := len(vals) == 1
	if ok {
		d, ok = jpNum(vals[0])
	}
	if !ok {
		return 0, jpSoft(pgerr.InvalidSQLJSONSubscript, "jsonpath array subscript is not a single numeric value")
	}
	// numeric_trunc: toward zero.
	t := new(apd.Decimal)
	tc := apd.BaseContext.WithPrecision(1000)
	tc.Rounding = apd.RoundDown
	_, _ = tc.RoundToIntegralValue(t, d)
	n, err := t.Int64()
	if err != nil || n > math.MaxInt32 || n < math.MinInt32 {
		return 0, jpSoft(pgerr.InvalidSQLJSONSubscript, "jsonpath array subscript is out of integer range")
	}
	return int(n), nil
}

var jpArithNames = map[types.JPKind]string{types.JPAdd: "+", types.JPSub: "-", types.JPMul: "*", types.JPDiv: "/", types.JPMod: "%"}

func (c *jpCtx) arith(it *JPItem, v any) ([]any, error) {
	single := func(e *JPItem, side string) (*apd.Decimal, error) {
		vals, err := c.execUnwrapResult(e, v)
		if err != nil {
			return nil, err
		}
		if len(vals) == 1 {
			if d, ok := jpNum(vals[0]); ok {
				return d, nil
			}
		}
		return nil, jpSoft(pgerr.SingletonSQLJSONItemRequired, "%s operand of jsonpath operator %s is not a single numeric value", side, jpArithNames[it.Kind])
	}
	l, err := single(it.Left, "left")
	if err != nil {
		return nil, err
	}
	r, err := single(it.Right, "right")
	if err != nil {
		return nil, err
	}
	var res *apd.Decimal
	switch it.Kind {
	case types.JPAdd:
		res, err = NumericAdd(l, r)
	case types.JPSub:
		res, err = NumericSub(l, r)
	case types.JPMul:
		res, err = NumericMul(l, r)
	case types.JPDiv:
		res, err = NumericDiv(l, r)
	default:
		res, err = NumericMod(l, r)
	}
	if err != nil {
		return nil, &softJPError{err}
	}
	return c.next(it, jpNumber(res))
}

func jpTypeName(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case jpDatetime:
		return x.typeName()
	}
	return "object"
}

func (c *jpCtx) method(it *JPItem, v any) ([]any, error) {
	name := types.JPMethodName(it.Kind)
	switch it.Kind {
	case types.JPAbs, types.JPFloor, types.JPCeiling:
		d, ok := jpNum(v)
		if !ok {
			return nil, jpSoft(pgerr.NonNumericSQLJSONItem, "jsonpath item method .%s() can only be applied to a numeric value", name)
		}
		r := new(apd.Decimal)
		switch it.Kind {
		case types.JPAbs:
			r.Abs(d)
		case types.JPFloor:
			_, _ = decCtx.Floor(r, d)
		default:
			_, _ = decCtx.Ceil(r, d)
		}
		if r.Exponent < 0 && it.Kind != types.JPAbs {
			_, _ = decCtx.Quantize(r, r, 0)
		}
		return c.next(it, jpNumber(r))
	case types.JPDouble:
		var f float64
		switch x := v.(type) {
		case json.Number:
			d, _ := jpNum(x)
			f, _ = d.Float64()
			if math.IsInf(f, 0) || math.IsNaN(f) {
				return nil, jpSoft(pgerr.NonNumericSQLJSONItem, "numeric argument of jsonpath item method .%s() is out of range for type double precision", name)
			}
		case string:
			pf, err := types.ParseFloat(x, 64)
			if err != nil || math.IsInf(pf, 0) || math.IsNaN(pf) {
				return nil, jpSoft(pgerr.NonNumericSQLJSONItem, "string argument of jsonpath item method .%s() is not a valid representation of a double precision number", name)
			}
			f = pf
		default:
			return nil, jpSoft(pgerr.NonNumericSQLJSONItem, "jsonpath item method .%s() can only be applied to a string or numeric value", name)
		}
		d, _, err := apd.NewFromString(strconv.FormatFloat(f, 'g', 15, 64))
		if err != nil {
			return nil, &softJPError{err}
		}
		return c.next(it, jpNumber(d))
	case types.JPKeyValue:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, jpSoft(pgerr.SQLJSONObjectNotFound, "jsonpath item method .%s() can only be applied to an object", name)
		}
		var out []any
		for _, k := range jsonbKeys(m) {
			id := c.ids[reflect.ValueOf(m).Pointer()]
			kv := map[string]any{"key": k, "value": m[k], "id": json.Number(strconv.FormatInt(id, 10))}
			r, err := c.next(it, kv)
			if err != nil {
				return append(out, r...), err
			}
			out = append(out, r...)
		}
		return out, nil
	}
	return nil, pgerr.New(pgerr.InternalError, "unknown jsonpath item method")
}

// boolItem evaluates the predicate it with @ standing for v
// (executeBoolItem).
func (c *jpCtx) boolItem(it *JPItem, v any) (jpBool, error) {
	switch it.Kind {
	case types.JPAnd:
		l, err := c.boolItem(it.Left, v)
		if err != nil || l == jpFalse {
			return jpFalse, err
		}
		r, err := c.boolItem(it.Right, v)
		if err != nil {
			return 0, err
		}
		if r == jpTrue {
			return l, nil
		}
		return r, nil
	case types.JPOr:
		l, err := c.boolItem(it.Left, v)
		if err != nil || l == jpTrue {
			return jpTrue, err
		}
		r, err := c.boolItem(it.Right, v)
		if err != nil {
			return 0, err
		}
		if r == jpFalse {
			return l, nil
		}
		return r, nil
	case types.JPNot:
		r, err := c.boolItem(it.Left, v)
		if err != nil || r == jpUnknown {
			return r, err
		}
		return 1 - r, nil
	case types.JPIsUnknown:
		r, err := c.boolItem(it.Left, v)
		if err != nil {
			return 0, err
		}
		if r == jpUnknown {
			return jpTrue, nil
		}
		return jpFalse, nil
	case types.JPEqual, types.JPNotEqual, types.JPLess, types.JPGreater, types.JPLessOrEqual, types.JPGreaterOrEqual:
		var cmpErr error
		res, err := c.predicate(it.Left, it.Right, v, true, func(a, b any) jpBool {
			if cmpErr != nil {
				return jpUnknown
			}
			r, err := c.compare(it.Kind, a, b)
			if err != nil {
				cmpErr = err
			}
			return r
		})
		if cmpErr != nil {
			return 0, cmpErr
		}
		return res, err
	case types.JPStartsWith:
		return c.predicate(it.Left, it.Right, v, false, func(a, b any) jpBool {
			s, ok1 := a.(string)
			p, ok2 := b.(string)
			if !ok1 || !ok2 {
				return jpUnknown
			}
			if strings.HasPrefix(s, p) {
				return jpTrue
			}
			return jpFalse
		})
	case types.JPLikeRegex:
		re, err := aregexOpts(it.Str, jpRegexOpts(it.Flags))
		if err != nil {
			return 0, err
		}
		return c.predicate(it.Left, nil, v, false, func(a, _ any) jpBool {
			s, ok := a.(string)
			if !ok {
				return jpUnknown
			}
			if m, err := re.match(s); err != nil {
				return jpUnknown
			} else if m {
				return jpTrue
			}
			return jpFalse
		})
	case types.JPExists:
		// Lax mode stops at the first item (strict mode looks for errors
		// in the whole path).
		c.stopFirst = !c.strict
		vals, err := c.exec(it.Left, v, !c.strict)
		c.stopFirst = false
		if err == errJPFound {
			return jpTrue, nil
		}
		if err != nil {
			var soft *softJPError
			if errors.As(err, &soft) {
				return jpUnknown, nil
			}
			return 0, err
		}
		if len(vals) > 0 {
			return jpTrue, nil
		}
		return jpFalse, nil
	}
	return 0, pgerr.New(pgerr.InternalError, "invalid boolean jsonpath item type")
}

// predicate is executePredicate: f over every pair of the operands' items.
func (c *jpCtx) predicate(l, r *JPItem, v any, unwrapRight bool, f func(a, b any) jpBool) (jpBool, error) {
	soft := func(err error) (jpBool, error) {
		var s *softJPError
		if errors.As(err, &s) {
			return jpUnknown, nil
		}
		return 0, err
	}
	lvals, err := c.execUnwrapResult(l, v)
	if err != nil {
		return soft(err)
	}
	var rvals []any
	if r != nil {
		if unwrapRight {
			rvals, err = c.execUnwrapResult(r, v)
		} else {
			rvals, err = c.exec(r, v, !c.strict)
		}
		if err != nil {
			return soft(err)
		}
	}
	found, failed := false, false
	for _, a := range lvals {
		bs := rvals
		if r == nil {
			bs = []any{nil}
		}
		for _, b := range bs {
			switch f(a, b) {
			case jpUnknown:
				if c.strict {
					return jpUnknown, nil
				}
				failed = true
			case jpTrue:
				if !c.strict {
					return jpTrue, nil
				}
				found = true
			}
		}
	}
	if found {
		return jpTrue, nil
	}
	if failed {
		return jpUnknown, nil
	}
	return jpFalse, nil
}

// compare is compareItems. Comparing datetime values may need the time
// zone, an error when c has not its use.
func (c *jpCtx) compare(op types.JPKind, a, b any) (jpBool, error) {
	da, aIsDT := a.(jpDatetime)
	db, bIsDT := b.(jpDatetime)
	if aIsDT && bIsDT {
		cmp, uncomparable, err := jpCompareDatetime(da, db, c.useTz, c.loc, c.now)
		if err != nil || uncomparable {
			return jpUnknown, err
		}
		return jpCmpResult(op, cmp), nil
	}
	if aIsDT || bIsDT {
		if a == nil || b == nil {
			if op == types.JPNotEqual {
				return jpTrue, nil
			}
			return jpFalse, nil
		}
		return jpUnknown, nil
	}
	return jpCompare(op, a, b), nil
}

// jpCompare is compareItems over items other than datetime values.
func jpCompare(op types.JPKind, a, b any) jpBool {
	ta, tb := jpTypeName(a), jpTypeName(b)
	if ta != tb {
		if a == nil || b == nil {
			if op == types.JPNotEqual {
				return jpTrue
			}
			return jpFalse
		}
		return jpUnknown
	}
	cmp := 0
	switch x := a.(type) {
	case nil:
	case bool:
		y := b.(bool)
		if x != y {
			if x {
				cmp = 1
			} else {
				cmp = -1
			}
		}
	case json.Number:
		da, _ := jpNum(x)
		db, _ := jpNum(b)
		cmp = da.Cmp(db)
	case string:
		cmp = strings.Compare(x, b.(string))
	default:
		return jpUnknown
	}
	return jpCmpResult(op, cmp)
}

// jpCmpResult is the comparison op's result for an order cmp.
func jpCmpResult(op types.JPKind, cmp int) jpBool {
	var r bool
	switch op {
	case types.JPEqual:
		r = cmp == 0
	case types.JPNotEqual:
		r = cmp != 0
	case types.JPLess:
		r = cmp < 0
	case types.JPGreater:
		r = cmp > 0
	case types.JPLessOrEqual:
		r = cmp <= 0
	default:
		r = cmp >= 0
	}
	if r {
		return jpTrue
	}
	return jpFalse
}

// JSONPathRun evaluates the jsonpath path (its canonical text) over the
// jsonb target with the variables of the jsonb object vars. It returns
// the items found as jsonb texts; an error silent suppresses makes
// failed true and the error nil, and the items are those found before
// it (as PostgreSQL's found list). Datetime values that compare with and
// without a time zone are an error (0A000); JSONPathRunTz allows them.
func JSONPathRun(target, path, vars string, silent bool) (items []string, failed bool, err error) {
	return jsonPathRun(jpOpts{}, target, path, vars, silent)
}

// JSONPathRunTz is JSONPathRun for the *_tz functions: comparisons of
// datetime values with and without a time zone read the latter in loc,
// and a time takes loc's offset at the instant now (UTC microseconds).
func JSONPathRunTz(loc *time.Location, now int64, target, path, vars string, silent bool) (items []string, failed bool, err error) {
	return jsonPathRun(jpOpts{useTz: true, loc: loc, now: now}, target, path, vars, silent)
}

// jpOpts are the settings of an evaluation: exists asks only whether
// the path finds an item, which lax mode answers at the first
// (jsonb_path_exists, @?); useTz, loc and now are jpCtx's.
type jpOpts struct {
	exists bool
	useTz  bool
	loc    *time.Location
	now    int64
}

func jsonPathRun(o jpOpts, target, path, vars string, silent bool) (items []string, failed bool, err error) {
	jp, err := types.ParseJSONPath(path)
	if err != nil {
		return nil, false, err
	}
	root, err := parseJSON(target)
	if err != nil {
		return nil, false, err
	}
	vv, err := parseJSON(vars)
	if err != nil {
		return nil, false, err
	}
	vm, ok := vv.(map[string]any)
	if !ok {
		return nil, false, pgerr.New(pgerr.InvalidParameterValue, "\"vars\" argument is not an object").
			WithDetail("Jsonpath parameters should be encoded as key-value pairs of \"vars\" object.")
	}
	loc := o.loc
	if loc == nil {
		loc = time.UTC
	}
	c := &jpCtx{root: root, vars: vm, strict: jp.Strict, ignoreStruct: !jp.Strict, current: root, arraySize: -1,
		stopFirst: o.exists && !jp.Strict, ids: map[uintptr]int64{}, useTz: o.useTz, loc: loc, now: o.now}
	jsonbObjectIDs(root, 0, c.ids)
	jsonbObjectIDs(vm, 10000000000, c.ids)
	vals, err := c.exec(jp.Expr, root, !jp.Strict)
	if err == errJPFound {
		vals, err = []any{c.found}, nil
	}
	if err != nil {
		var soft *softJPError
		if !errors.As(err, &soft) {
			return nil, false, err
		}
		if !silent {
			return nil, false, soft.err
		}
		// The items found before the error are the result.
		failed = true
	}
	for _, v := range vals {
		if d, ok := v.(jpDatetime); ok {
			// A datetime value is written as a string (JsonEncodeDateTime).
			v = d.text()
		}
		items = append(items, jsonText(v))
	}
	return items, failed, nil
}

// jsonPathOverloads lists the SQL/JSON path functions (docs §9.16.2) and
// the @? and @@ operators, which the binder finds as pg_jsonpath_exists
// and pg_jsonpath_match. The *_tz forms read datetime values without a
// time zone in the session's when they compare them with ones that have
// one.
func jsonPathOverloads() []*Overload {
	var os []*Overload
	// run evaluates d's path as the function does: with the time zone
	// for the *_tz ones.
	run := func(ctx *Context, tz bool, d []types.Datum, silent0, exists bool) ([]string, bool, error) {
		vars := "{}"
		if len(d) > 2 {
			vars = d[2].S
		}
		silent := silent0 || len(d) > 3 && d[3].I != 0
		o := jpOpts{exists: exists}
		if tz {
			o.useTz, o.loc = true, ctx.loc()
			if ctx != nil {
				o.now = ctx.Now
			}
		}
		return jsonPathRun(o, d[0].S, d[1].S, vars, silent)
	}
	exists := func(tz, silent0 bool) RowFn {
		return func(ctx *Context, d []types.Datum) (types.Datum, error) {
			items, failed, err := run(ctx, tz, d, silent0, true)
			if err != nil {
				return types.NullDatum, err
			}
			if failed {
				return types.NullDatum, nil
			}
			return types.DBool(len(items) > 0), nil
		}
	}
	match := func(tz, silent0 bool) RowFn {
		return func(ctx *Context, d []types.Datum) (types.Datum, error) {
			silent := silent0 || len(d) > 3 && d[3].I != 0
			items, _, err := run(ctx, tz, d, silent0, false)
			if err != nil {
				return types.NullDatum, err
			}
			if len(items) == 1 {
				switch items[0] {
				case "true", "false":
					return types.DBool(items[0] == "true"), nil
				case "null":
					return types.NullDatum, nil
				}
			}
			if !silent {
				return types.NullDatum, pgerr.New(pgerr.SingletonSQLJSONItemRequired, "single boolean result is expected")
			}
			return types.NullDatum, nil
		}
	}
	queryArray := func(tz bool) RowFn {
		return func(ctx *Context, d []types.Datum) (types.Datum, error) {
			items, _, err := run(ctx, tz, d, false, false)
			if err != nil {
				return types.NullDatum, err
			}
			return types.DString("[" + strings.Join(items, ", ") + "]"), nil
		}
	}
	queryFirst := func(tz bool) RowFn {
		return func(ctx *Context, d []types.Datum) (types.Datum, error) {
			items, _, err := run(ctx, tz, d, false, false)
			if err != nil || len(items) == 0 {
				return types.NullDatum, err
			}
			return types.DString(items[0]), nil
		}
	}
	for _, tz := range []bool{false, true} {
		suffix := ""
		if tz {
			suffix = "_tz"
		}
		// f(target, path [, vars [, silent]]).
		forms := func(name string, im ImplFactory, ret types.TypeID) {
			os = append(os, fn(name, im, ret, tJsonb, types.Jsonpath), fn(name, im, ret, tJsonb, types.Jsonpath, tJsonb),
				fn(name, im, ret, tJsonb, types.Jsonpath, tJsonb, tBool))
		}
		forms("jsonb_path_exists"+suffix, row(exists(tz, false)), tBool)
		forms("jsonb_path_match"+suffix, row(match(tz, false)), tBool)
		forms("jsonb_path_query_array"+suffix, row(queryArray(tz)), tJsonb)
		forms("jsonb_path_query_first"+suffix, row(queryFirst(tz)), tJsonb)
	}
	os = append(os, fn("pg_jsonpath_exists", row(exists(false, true)), tBool, tJsonb, types.Jsonpath))
	os = append(os, fn("pg_jsonpath_match", row(match(false, true)), tBool, tJsonb, types.Jsonpath))
	return os
}

// JSONPathQuery is jsonb_path_query's rows: the items the path finds.
// tz is true for jsonb_path_query_tz, whose comparisons of datetime
// values may read the ones without a time zone in loc; now is the
// transaction's start (UTC microseconds).
func JSONPathQuery(d []types.Datum, tz bool, loc *time.Location, now int64) ([]types.Datum, error) {
	vars := "{}"
	if len(d) > 2 {
		vars = d[2].S
	}
	o := jpOpts{useTz: tz, loc: loc, now: now}
	items, _, err := jsonPathRun(o, d[0].S, d[1].S, vars, len(d) > 3 && d[3].I != 0)
	if err != nil {
		return nil, err
	}
	out := make([]types.Datum, len(items))
	for i, s := range items {
		out[i] = types.DString(s)
	}
	return out, nil
}

// CheckJSONPathRegexes compiles the like_regex patterns of the jsonpath
// text path, whose errors (2201B) PostgreSQL's jsonpath_in reports.
func CheckJSONPathRegexes(path string) error {
	jp, err := types.ParseJSONPath(path)
	if err != nil {
		return err
	}
	var walk func(it *JPItem) error
	walk = func(it *JPItem) error {
		for ; it != nil; it = it.Next {
			if it.Kind == types.JPLikeRegex {
				if _, err := aregexOpts(it.Str, jpRegexOpts(it.Flags)); err != nil {
					return err
				}
			}
			for _, e := range []*JPItem{it.Left, it.Right} {
				if err := walk(e); err != nil {
					return err
				}
			}
			for _, s := range it.Subs {
				for _, e := range s {
					if err := walk(e); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	return walk(jp.Expr)
}

// jpRegexOpts are the options of like_regex's flags: i, s (. matches a
// newline), m (^ and $ match at lines), q (a literal pattern).
func jpRegexOpts(flags string) reOpts {
	return reOpts{icase: strings.Contains(flags, "i"), dotNL: strings.Contains(flags, "s"),
		lineAnchors: strings.Contains(flags, "m"), literal: strings.Contains(flags, "q")}
}

// jsonbObjectIDs records the id keyvalue() gives each object of v: its
// container's byte offset in PostgreSQL's binary jsonb of v (a header of
// 4 bytes, 4-byte entries, an object's keys before its values, containers
// and numerics aligned to 4 bytes), plus base.
func jsonbObjectIDs(v any, base int64, ids map[uintptr]int64) {
	align := func(off int64) int64 { return (off + 3) &^ 3 }
	var layout func(v any, off int64) int64
	layout = func(v any, off int64) int64 {
		switch x := v.(type) {
		case string:
			return off + int64(len(x))
		case json.Number:
			return align(off) + jsonbNumericSize(string(x))
		case []any:
			off = align(off) + 4 + 4*int64(len(x))
			for _, e := range x {
				off = layout(e, off)
			}
			return off
		case map[string]any:
			off = align(off)
			ids[reflect.ValueOf(x).Pointer()] = base + off
			keys := jsonbKeys(x)
			off += 4 + 8*int64(len(keys))
			for _, k := range keys {
				off += int64(len(k))
			}
			for _, k := range keys {
				off = layout(x[k], off)
			}
			return off
		}
		return off
	}
	layout(v, 0)
}

// jsonbNumericSize is the size of the numeric n as a varlena: a 4-byte
// length, a 2-byte header (4 bytes when its weight or scale does not fit
// the short form) and 2 bytes per base-10000 digit.
func jsonbNumericSize(n string) int64 {
	d, _, err := apd.NewFromString(n)
	if err != nil {
		return 8
	}
	coeff := d.Coeff.String()
	dscale := int64(0)
	if d.Exponent < 0 {
		dscale = int64(-d.Exponent)
	}
	intDigits := int64(len(coeff)) + int64(d.Exponent)
	var digits string
	switch {
	case intDigits <= 0:
		digits = strings.Repeat("0", int(-intDigits)) + coeff
		intDigits = 0
	case d.Exponent > 0:
		digits = coeff + strings.Repeat("0", int(d.Exponent))
	default:
		digits = coeff
	}
	lead := (4 - intDigits%4) % 4
	digits = strings.Repeat("0", int(lead)) + digits
	intGroups := (intDigits + lead) / 4
	if r := len(digits) % 4; r != 0 {
		digits += strings.Repeat("0", 4-r)
	}
	var groups []string
	for i := 0; i < len(digits); i += 4 {
		groups = append(groups, digits[i:i+4])
	}
	weight := intGroups - 1
	for len(groups) > 0 && groups[0] == "0000" {
		groups = groups[1:]
		weight--
	}
	for len(groups) > 0 && groups[len(groups)-1] == "0000" {
		groups = groups[:len(groups)-1]
	}
	if len(groups) == 0 {
		weight = 0
	}
	if dscale <= 63 && weight >= -64 && weight <= 63 {
		return 4 + 2 + 2*int64(len(groups))
	}
	return 8 + 2*int64(len(groups))
}
