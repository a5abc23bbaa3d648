package functions

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"sort"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/internal/pgsort"
	"github.com/weirdb/weir/types"
)

var errBigintRange = pgerr.New(pgerr.NumericValueOutOfRange, "bigint out of range")

// countAcc is count(*) (every row) and count(x) (non-NULL x).
type countAcc struct {
	star bool
	n    int64
}

func (a *countAcc) Add(args []types.Datum) error {
	if a.star || !args[0].Null {
		a.n++
	}
	return nil
}

func (a *countAcc) Retract(args []types.Datum) error {
	if a.star || !args[0].Null {
		a.n--
	}
	return nil
}

func (a *countAcc) Result() types.Datum { return types.DInt(a.n) }

// sumIntAcc is sum(smallint|integer): a bigint, with Postgres's 22003
// "bigint out of range" on overflow.
type sumIntAcc struct {
	sum, n int64
}

func (a *sumIntAcc) Add(args []types.Datum) error {
	if args[0].Null {
		return nil
	}
	s, ok := AddInt64(a.sum, args[0].I)
	if !ok {
		return errBigintRange
	}
	a.sum = s
	a.n++
	return nil
}

func (a *sumIntAcc) Retract(args []types.Datum) error {
	if args[0].Null {
		return nil
	}
	s, ok := AddInt64(a.sum, -args[0].I)
	if !ok {
		return errBigintRange
	}
	a.sum = s
	a.n--
	return nil
}

func (a *sumIntAcc) Result() types.Datum {
	if a.n == 0 {
		return types.NullDatum
	}
	return types.DInt(a.sum)
}

// sumInt128Acc is sum(bigint), a numeric: the sum is kept as a 128-bit
// two's complement integer, which cannot overflow for fewer than 2^64
// rows and is much cheaper than decimal arithmetic.
type sumInt128Acc struct {
	hi int64
	lo uint64
	n  int64
}

func (a *sumInt128Acc) add(x int64) {
	var carry uint64
	a.lo, carry = bits.Add64(a.lo, uint64(x), 0)
	a.hi += x>>63 + int64(carry)
}

func (a *sumInt128Acc) sub(x int64) {
	var borrow uint64
	a.lo, borrow = bits.Sub64(a.lo, uint64(x), 0)
	a.hi -= x>>63 + int64(borrow)
}

func (a *sumInt128Acc) Add(args []types.Datum) error {
	if !args[0].Null {
		a.add(args[0].I)
		a.n++
	}
	return nil
}

func (a *sumInt128Acc) Retract(args []types.Datum) error {
	if !args[0].Null {
		a.sub(args[0].I)
		a.n--
	}
	return nil
}

// decimal returns the sum as a decimal.
func (a *sumInt128Acc) decimal() *apd.Decimal {
	if (a.hi == 0 && a.lo <= math.MaxInt64) || (a.hi == -1 && a.lo > math.MaxInt64) {
		return apd.New(int64(a.lo), 0)
	}
	b := new(big.Int).SetInt64(a.hi)
	b.Lsh(b, 64)
	b.Or(b, new(big.Int).SetUint64(a.lo))
	d := new(apd.Decimal)
	d.Coeff.SetMathBigInt(b.Abs(b))
	d.Negative = a.hi < 0
	return d
}

func (a *sumInt128Acc) Result() types.Datum {
	if a.n == 0 {
		return types.NullDatum
	}
	return types.DDecimal(a.decimal())
}

// sumDecAcc is sum(numeric); the result keeps the largest input scale,
// as Postgres's does.
type sumDecAcc struct {
	sum apd.Decimal
	n   int64
	// scales counts the inputs by display scale (scales[s] inputs of
	// scale s). After a retraction the sum is shown at the largest scale
	// of the inputs it still holds, as PostgreSQL's sum of those inputs:
	// {1.5000, 2, 0.25} less 1.5000 is 2.25, not 2.2500.
	scales []int64
	// untracked is set for a sum restored from state written before
	// scales were counted: its scales are unknown, so it keeps the scale
	// of the sum (the behaviour it was created with) until it is empty.
	untracked bool
	// nf counts the NaN and infinite inputs, which sum holds no part of.
	nf nonFinite
}

func (a *sumDecAcc) Add(args []types.Datum) error {
	if args[0].Null {
		return nil
	}
	if a.nf.stepDec(args[0].D, 1) {
		a.n++
		return nil
	}
	if _, err := apd.BaseContext.Add(&a.sum, &a.sum, args[0].D); err != nil {
		return pgerr.Wrap(pgerr.NumericValueOutOfRange, err, "numeric sum")
	}
	a.n++
	s := aggDscale(args[0].D)
	for len(a.scales) <= s {
		a.scales = append(a.scales, 0)
	}
	a.scales[s]++
	return nil
}

func (a *sumDecAcc) Retract(args []types.Datum) error {
	if args[0].Null {
		return nil
	}
	if !a.nf.stepDec(args[0].D, -1) {
		if _, err := apd.BaseContext.Sub(&a.sum, &a.sum, args[0].D); err != nil {
			return pgerr.Wrap(pgerr.NumericValueOutOfRange, err, "numeric sum")
		}
		if s := aggDscale(args[0].D); s < len(a.scales) && a.scales[s] > 0 {
			a.scales[s]--
		}
	}
	a.n--
	if a.n == 0 {
		a.untracked, a.scales = false, a.scales[:0]
		a.sum.SetInt64(0)
		a.nf = nonFinite{}
	}
	return nil
}

// value returns the sum at the largest scale of the inputs it holds
// (the digits dropped are zeros: every input has at most that scale),
// or NaN or an infinity when such inputs remain (nonFinite.decimal).
func (a *sumDecAcc) value() *apd.Decimal {
	if a.nf.any() || a.sum.Form != apd.Finite {
		return a.nf.decimal(&a.sum)
	}
	d := new(apd.Decimal).Set(&a.sum)
	if a.untracked {
		if d.IsZero() {
			d.Negative = false
		}
		return d
	}
	top := len(a.scales) - 1
	for top >= 0 && a.scales[top] == 0 {
		top--
	}
	if k := -int(d.Exponent) - top; top >= 0 && k > 0 {
		ten := new(apd.BigInt).Exp(apd.NewBigInt(10), apd.NewBigInt(int64(k)), nil)
		d.Coeff.Quo(&d.Coeff, ten)
		d.Exponent += int32(k)
	}
	if d.IsZero() {
		d.Negative = false
	}
	return d
}

func (a *sumDecAcc) Result() types.Datum {
	if a.n == 0 {
		return types.NullDatum
	}
	return types.DDecimal(a.value())
}

// scalesText and setScales serialise sumDecAcc.scales as "scale:count"
// pairs, for the state row.
func (a *sumDecAcc) scalesText() types.Datum {
	if a.untracked {
		return types.NullDatum
	}
	var b strings.Builder
	for s, c := range a.scales {
		if c > 0 {
			if b.Len() > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%d:%d", s, c)
		}
	}
	return types.DString(b.String())
}

func (a *sumDecAcc) setScales(d types.Datum) {
	a.scales = a.scales[:0]
	a.untracked = d.Null && a.n > 0
	if d.Null {
		return
	}
	for _, p := range strings.Split(d.S, ",") {
		var s int
		var c int64
		if _, err := fmt.Sscanf(p, "%d:%d", &s, &c); err != nil || s < 0 || s > 1<<14 {
			continue
		}
		for len(a.scales) <= s {
			a.scales = append(a.scales, 0)
		}
		a.scales[s] = c
	}
}

// floatSum is the running sum of a float sum's or average's finite
// inputs. sum is what PostgreSQL's float8pl (float4pl: rounded to float4
// after each step) gives adding the inputs one by one, which is the
// result while rows only come in. Beside it hi+lo keeps the same sum
// compensated (each step's rounding error is added into lo, a
// double-double), and a retraction sets sum to hi+lo: deleting 1e20 from
// {1e20, 1} leaves 1, where subtracting from sum would leave 0.
type floatSum struct {
	f32    bool
	sum    float64
	hi, lo float64
	n      int64
	nf     nonFinite
}

// twoSum returns a+b rounded and the rounding error (Knuth's TwoSum).
func twoSum(a, b float64) (float64, float64) {
	s := a + b
	bb := s - a
	return s, (a - (s - bb)) + (b - bb)
}

func (a *floatSum) round(f float64) float64 {
	if a.f32 {
		return float64(float32(f))
	}
	return f
}

func (a *floatSum) Add(args []types.Datum) error {
	if args[0].Null {
		return nil
	}
	if x := args[0].F; !a.nf.stepFloat(x, 1) {
		a.sum = a.round(a.sum + x)
		var e float64
		a.hi, e = twoSum(a.hi, x)
		a.lo += e
	}
	a.n++
	return nil
}

func (a *floatSum) Retract(args []types.Datum) error {
	if args[0].Null {
		return nil
	}
	if x := args[0].F; !a.nf.stepFloat(x, -1) {
		var e float64
		a.hi, e = twoSum(a.hi, -x)
		a.hi, a.lo = twoSum(a.hi, a.lo+e)
		a.sum = a.round(a.hi)
	}
	if a.n--; a.n == 0 {
		*a = floatSum{f32: a.f32}
	}
	return nil
}

// setSum restores the sum from a state row without its compensation.
func (a *floatSum) setSum(f float64) {
	a.sum, a.hi, a.lo, a.nf = f, f, 0, nonFinite{}
}

// overflowed reports whether the sum of the finite inputs has passed
// the type's range while no input was infinite: PostgreSQL's float8pl
// (float4pl) fails there with 22003 (a NaN input met before the
// overflow would have hidden it; one met after it comes too late, as
// here). An infinity stays one as
// more finite inputs come, so checking the result finds what checking
// each step would; a view's sum brought back in range by a retraction
// (hi+lo) is in range again.
func (a *floatSum) overflowed() bool {
	return a.n > 0 && math.IsInf(a.sum, 0) && a.nf.pinf == 0 && a.nf.ninf == 0
}

// sumFloatAcc is sum(real) and sum(double precision).
type sumFloatAcc struct{ floatSum }

// ResultErr returns the sum, or 22003 when it overflowed.
func (a *sumFloatAcc) ResultErr() (types.Datum, error) {
	if a.overflowed() {
		return types.NullDatum, ErrFloatOverflow
	}
	return a.Result(), nil
}

func (a *sumFloatAcc) Result() types.Datum {
	if a.n == 0 {
		return types.NullDatum
	}
	return types.DFloat(a.nf.float(a.sum))
}

// sumIntervalAcc is sum(interval): months, days and microseconds add
// separately (Postgres's interval_pl). The running sum is kept wider
// than an interval (64-bit months and days, 128-bit microseconds), so a
// streaming aggregation's sum can pass out of the interval range and
// come back with a retraction; only the result is checked (22008). A
// batch aggregation (wide unset) fails as soon as the running sum is out
// of range, as interval_pl does.
type sumIntervalAcc struct {
	wide         bool
	months, days int64
	us           sumInt128Acc // microseconds; its n is unused
	n            int64
}

func (a *sumIntervalAcc) step(iv types.IntervalVal, sign int64) error {
	m, ok1 := AddInt64(a.months, sign*int64(iv.Months))
	d, ok2 := AddInt64(a.days, sign*int64(iv.Days))
	if !ok1 || !ok2 {
		return ErrIntervalRange // only after 2^32 inputs
	}
	old := *a
	a.months, a.days = m, d
	if sign > 0 {
		a.us.add(iv.Micros)
	} else {
		a.us.sub(iv.Micros)
	}
	a.n += sign
	if _, ok := a.value(); !ok && !a.wide {
		*a = old // interval_pl fails and the sum stays
		return ErrIntervalRange
	}
	return nil
}

// value returns the sum as an interval, and false when it is out of
// the interval range.
func (a *sumIntervalAcc) value() (types.IntervalVal, bool) {
	us := int64(a.us.lo)
	if a.months != int64(int32(a.months)) || a.days != int64(int32(a.days)) || a.us.hi != us>>63 {
		return types.IntervalVal{}, false
	}
	return types.IntervalVal{Months: int32(a.months), Days: int32(a.days), Micros: us}, true
}

func (a *sumIntervalAcc) Add(args []types.Datum) error {
	if args[0].Null {
		return nil
	}
	return a.step(args[0].Iv, 1)
}

func (a *sumIntervalAcc) Retract(args []types.Datum) error {
	if args[0].Null {
		return nil
	}
	return a.step(args[0].Iv, -1)
}

func (a *sumIntervalAcc) Result() types.Datum {
	d, _ := a.ResultErr()
	return d
}

// ResultErr returns the sum, or 22008 when it is out of the interval
// range.
func (a *sumIntervalAcc) ResultErr() (types.Datum, error) {
	if a.n == 0 {
		return types.NullDatum, nil
	}
	v, ok := a.value()
	if !ok {
		return types.NullDatum, ErrIntervalRange
	}
	return types.DInterval(v), nil
}

// setValue sets the sum to iv.
func (a *sumIntervalAcc) setValue(iv types.IntervalVal) {
	a.months, a.days = int64(iv.Months), int64(iv.Days)
	a.us.lo, a.us.hi = uint64(iv.Micros), iv.Micros>>63
}

// wideText and setWideText serialise a sum out of the interval range
// as "months days hi lo" (NULL when it is in range: the state's
// interval column holds it).
func (a *sumIntervalAcc) wideText() types.Datum {
	if _, ok := a.value(); ok {
		return types.NullDatum
	}
	return types.DString(fmt.Sprintf("%d %d %d %d", a.months, a.days, a.us.hi, a.us.lo))
}

func (a *sumIntervalAcc) setWideText(d types.Datum) {
	if d.Null {
		return
	}
	var m, dd, hi int64
	var lo uint64
	if _, err := fmt.Sscanf(d.S, "%d %d %d %d", &m, &dd, &hi, &lo); err == nil {
		a.months, a.days, a.us.hi, a.us.lo = m, dd, hi, lo
	}
}

// avgAcc is avg over integers and numeric, a numeric: the sum divided by
// the count with Postgres's division scale (select_div_scale), so avg of
// integers 1 and 2 is 1.5000000000000000.
type avgAcc struct {
	numeric bool
	sum     sumInt128Acc // integer inputs
	dec     sumDecAcc    // numeric inputs
}

func (a *avgAcc) Add(args []types.Datum) error {
	if a.numeric {
		return a.dec.Add(args)
	}
	return a.sum.Add(args)
}

func (a *avgAcc) Retract(args []types.Datum) error {
	if a.numeric {
		return a.dec.Retract(args)
	}
	return a.sum.Retract(args)
}

func (a *avgAcc) Result() types.Datum {
	var sum *apd.Decimal
	var n int64
	if a.numeric {
		sum, n = a.dec.value(), a.dec.n
		if n > 0 && sum.Form != apd.Finite {
			return types.DDecimal(sum) // NaN or an infinity, as numeric_avg
		}
	} else {
		sum, n = a.sum.decimal(), a.sum.n
	}
	if n == 0 {
		return types.NullDatum
	}
	return types.DDecimal(numericDiv(sum, apd.New(n, 0)))
}

// avgFloatAcc is avg(real | double precision), a double precision.
type avgFloatAcc struct{ floatSum }

func (a *avgFloatAcc) Result() types.Datum {
	if a.n == 0 {
		return types.NullDatum
	}
	return types.DFloat(a.nf.float(a.sum) / float64(a.n))
}

// ResultErr returns the average, or 22003 when the sum overflowed (as
// float8_accum's sum does).
func (a *avgFloatAcc) ResultErr() (types.Datum, error) {
	if a.overflowed() {
		return types.NullDatum, ErrFloatOverflow
	}
	return a.Result(), nil
}

// avgIntervalAcc is avg(interval): the interval sum divided by the count
// with Postgres's interval_div.
type avgIntervalAcc struct{ sumIntervalAcc }

func (a *avgIntervalAcc) Result() types.Datum {
	d, _ := a.ResultErr()
	return d
}

// ResultErr returns the average, or 22008 when the sum is out of the
// interval range (PostgreSQL's interval_accum fails on such a sum).
func (a *avgIntervalAcc) ResultErr() (types.Datum, error) {
	if a.n == 0 {
		return types.NullDatum, nil
	}
	v, ok := a.value()
	if !ok {
		return types.NullDatum, ErrIntervalRange
	}
	return types.DInterval(intervalDiv(v, float64(a.n))), nil
}

// intervalDiv divides an interval by a factor the way Postgres 15's
// interval_div does: fractional months cascade into days (30 per month)
// and fractional days into microseconds, rounded to microseconds.
func intervalDiv(span types.IntervalVal, factor float64) types.IntervalVal {
	const daysPerMonth, secsPerDay = 30.0, 86400.0
	tsround := func(j float64) float64 { return math.RoundToEven(j*1e6) / 1e6 }
	var r types.IntervalVal
	r.Months = int32(float64(span.Months) / factor)
	r.Days = int32(float64(span.Days) / factor)
	monthRemainderDays := tsround((float64(span.Months)/factor - float64(r.Months)) * daysPerMonth)
	secRemainder := tsround((float64(span.Days)/factor - float64(r.Days) +
		monthRemainderDays - float64(int32(monthRemainderDays))) * secsPerDay)
	if math.Abs(secRemainder) >= secsPerDay {
		r.Days += int32(secRemainder / secsPerDay)
		secRemainder -= float64(int32(secRemainder/secsPerDay)) * secsPerDay
	}
	r.Days += int32(monthRemainderDays)
	r.Micros = int64(math.RoundToEven(float64(span.Micros)/factor + secRemainder*1e6))
	return r
}

// minMaxAcc is min and max over any ordered type. A retractable one keeps
// the sorted multiset of its non-NULL inputs (value and count), so a
// retraction of the current extreme finds the next one exactly.
type minMaxAcc struct {
	t           types.T
	max         bool
	retractable bool
	// unordered marks arrays of an element type without ordering
	// (jsonpath): comparing two of them fails (42883), as
	// array_larger does, while a single value is the result.
	unordered bool
	cur       types.Datum
	has       bool
	ms        []msEntry
}

type msEntry struct {
	d types.Datum
	n int64
}

func (a *minMaxAcc) search(d types.Datum) (int, bool) {
	i := sort.Search(len(a.ms), func(i int) bool { return types.Compare(a.ms[i].d, d, a.t) >= 0 })
	return i, i < len(a.ms) && types.Compare(a.ms[i].d, d, a.t) == 0
}

func (a *minMaxAcc) Add(args []types.Datum) error {
	d := args[0]
	if d.Null {
		return nil
	}
	if a.unordered && (a.has || len(a.ms) > 0) {
		return pgerr.New(pgerr.UndefinedFunction, "could not identify a comparison function for type %s", a.t.Elem())
	}
	if !a.retractable {
		if !a.has {
			a.cur, a.has = copyDatum(d), true
			return nil
		}
		c := types.Compare(d, a.cur, a.t)
		if (a.max && c > 0) || (!a.max && c < 0) {
			a.cur = copyDatum(d)
		}
		return nil
	}
	i, found := a.search(d)
	if found {
		a.ms[i].n++
		return nil
	}
	a.ms = append(a.ms, msEntry{})
	copy(a.ms[i+1:], a.ms[i:])
	a.ms[i] = msEntry{d: copyDatum(d), n: 1}
	return nil
}

func (a *minMaxAcc) Retract(args []types.Datum) error {
	d := args[0]
	if d.Null {
		return nil
	}
	if !a.retractable {
		return pgerr.New(pgerr.InternalError, "%s accumulator built without retraction support", map[bool]string{true: "max", false: "min"}[a.max])
	}
	i, found := a.search(d)
	if !found {
		return pgerr.New(pgerr.InternalError, "retracting a value that was never added")
	}
	if a.ms[i].n--; a.ms[i].n == 0 {
		a.ms = append(a.ms[:i], a.ms[i+1:]...)
	}
	return nil
}

func (a *minMaxAcc) Result() types.Datum {
	if !a.retractable {
		if !a.has {
			return types.NullDatum
		}
		return a.cur
	}
	if len(a.ms) == 0 {
		return types.NullDatum
	}
	if a.max {
		return a.ms[len(a.ms)-1].d
	}
	return a.ms[0].d
}

// stringAggAcc is string_agg(value, delimiter) over text or bytea: NULL
// values are skipped, each value after the first is preceded by its own
// row's delimiter (NULL meaning empty), and no value gives NULL.
type stringAggAcc struct {
	parts []saPart
	bytes int64 // of the result, within maxValueBytes
}

type saPart struct{ val, delim string }

func (a *stringAggAcc) Add(args []types.Datum) error {
	if !args[0].Null {
		if err := growBuffer(&a.bytes, int64(len(args[0].S)+len(args[1].S))); err != nil {
			return err
		}
		a.parts = append(a.parts, saPart{args[0].S, args[1].S})
	}
	return nil
}

func (a *stringAggAcc) Retract(args []types.Datum) error {
	if args[0].Null {
		return nil
	}
	for i, p := range a.parts {
		if p.val == args[0].S && p.delim == args[1].S {
			a.parts = append(a.parts[:i], a.parts[i+1:]...)
			a.bytes -= int64(len(p.val) + len(p.delim))
			return nil
		}
	}
	return pgerr.New(pgerr.InternalError, "retracting a value that was never added")
}

func (a *stringAggAcc) Result() types.Datum {
	if len(a.parts) == 0 {
		return types.NullDatum
	}
	var b strings.Builder
	for i, p := range a.parts {
		if i > 0 {
			b.WriteString(p.delim)
		}
		b.WriteString(p.val)
	}
	return types.DString(b.String())
}

// stringAggBuf is string_agg for an accumulator that is never
// retracted: each value goes into the result as it comes, preceded by
// its own delimiter from the second one on, as string_agg_transfn
// appends it.
type stringAggBuf struct {
	b     strings.Builder
	any   bool
	bytes int64 // of the result, within maxValueBytes
}

func (a *stringAggBuf) Add(args []types.Datum) error {
	if args[0].Null {
		return nil
	}
	if a.any {
		if err := growBuffer(&a.bytes, int64(len(args[1].S))); err != nil {
			return err
		}
	}
	if err := growBuffer(&a.bytes, int64(len(args[0].S))); err != nil {
		return err
	}
	if a.any {
		a.b.WriteString(args[1].S)
	}
	a.b.WriteString(args[0].S)
	a.any = true
	return nil
}

// Retract is not supported: the parts are gone.
func (a *stringAggBuf) Retract([]types.Datum) error {
	return pgerr.New(pgerr.InternalError, "string_agg built without retraction cannot retract")
}

func (a *stringAggBuf) Result() types.Datum {
	if !a.any {
		return types.NullDatum
	}
	return types.DString(a.b.String())
}

// groupValueAcc is the planner's pg_group_value(column): a column that is
// functionally dependent on the group keys (the same in every row of the
// group), read as the value of the group's rows.
type groupValueAcc struct {
	v types.Datum
	n int64
}

func (a *groupValueAcc) Add(args []types.Datum) error {
	if a.n == 0 {
		a.v = copyDatum(args[0])
	}
	a.n++
	return nil
}

func (a *groupValueAcc) Retract([]types.Datum) error {
	if a.n == 0 {
		return pgerr.New(pgerr.InternalError, "retracting a value that was never added")
	}
	a.n--
	return nil
}

func (a *groupValueAcc) Result() types.Datum {
	if a.n == 0 {
		return types.NullDatum
	}
	return a.v
}

// boolAcc is bool_and / every (and) and bool_or: it counts true and false
// inputs, so retraction is exact.
type boolAcc struct {
	and          bool
	nTrue, nFals int64
}

func (a *boolAcc) step(d types.Datum, by int64) {
	if d.Null {
		return
	}
	if d.Bool() {
		a.nTrue += by
	} else {
		a.nFals += by
	}
}

func (a *boolAcc) Add(args []types.Datum) error     { a.step(args[0], 1); return nil }
func (a *boolAcc) Retract(args []types.Datum) error { a.step(args[0], -1); return nil }

func (a *boolAcc) Result() types.Datum {
	if a.nTrue+a.nFals == 0 {
		return types.NullDatum
	}
	if a.and {
		return types.DBool(a.nFals == 0)
	}
	return types.DBool(a.nTrue > 0)
}

// varKind selects one of the variance and standard deviation aggregates.
type varKind struct{ sample, variance bool }

// varDecAcc is the variance/stddev family over integers and numeric, a
// numeric computed as Postgres's numeric_stddev_internal does: exact sums
// of X and X², then (N·ΣX² − (ΣX)²) / (N·(N−1)) (or N² for the population
// forms) at select_div_scale's scale, and a square root at the same scale.
type varDecAcc struct {
	kind    varKind
	n       int64 // the finite inputs, which sx and sx2 sum
	sx, sx2 apd.Decimal
	// nf counts the NaN and infinite inputs: while one remains the
	// result is NaN, as numeric_stddev_internal's.
	nf nonFinite
}

func (a *varDecAcc) step(d types.Datum, sign int64) error {
	if d.Null {
		return nil
	}
	x := d.D
	if x == nil {
		x = apd.New(d.I, 0)
	} else if a.nf.stepDec(x, sign) {
		return nil
	}
	var x2 apd.Decimal
	if _, err := apd.BaseContext.Mul(&x2, x, x); err != nil {
		return pgerr.Wrap(pgerr.NumericValueOutOfRange, err, "numeric variance")
	}
	op := apd.BaseContext.Add
	if sign < 0 {
		op = apd.BaseContext.Sub
	}
	if _, err := op(&a.sx, &a.sx, x); err != nil {
		return pgerr.Wrap(pgerr.NumericValueOutOfRange, err, "numeric variance")
	}
	if _, err := op(&a.sx2, &a.sx2, &x2); err != nil {
		return pgerr.Wrap(pgerr.NumericValueOutOfRange, err, "numeric variance")
	}
	a.n += sign
	return nil
}

func (a *varDecAcc) Add(args []types.Datum) error     { return a.step(args[0], 1) }
func (a *varDecAcc) Retract(args []types.Datum) error { return a.step(args[0], -1) }

// total is the number of non-NULL inputs.
func (a *varDecAcc) total() int64 { return a.n + a.nf.nan + a.nf.pinf + a.nf.ninf }

func (a *varDecAcc) Result() types.Datum {
	if n := a.total(); n == 0 || (a.kind.sample && n == 1) {
		return types.NullDatum
	}
	if a.nf.any() || a.sx.Form != apd.Finite || a.sx2.Form != apd.Finite {
		return types.DDecimal(&apd.Decimal{Form: apd.NaN})
	}
	ctx := apd.BaseContext
	n := apd.New(a.n, 0)
	var sq, num, den apd.Decimal
	ctx.Mul(&sq, &a.sx, &a.sx)
	ctx.Mul(&num, n, &a.sx2)
	ctx.Sub(&num, &num, &sq)
	if num.Sign() <= 0 {
		return types.DDecimal(apd.New(0, 0))
	}
	if a.kind.sample {
		ctx.Mul(&den, n, apd.New(a.n-1, 0))
	} else {
		ctx.Mul(&den, n, n)
	}
	rscale := selectDivScale(&num, &den)
	v := aggDivScale(&num, &den, rscale)
	if !a.kind.variance {
		v = sqrtScale(v, rscale)
	}
	return types.DDecimal(v)
}

// varFloatAcc is the variance/stddev family over floats, a double
// precision, with the Youngs-Cramer update Postgres's float8_accum uses;
// retraction applies the update's inverse.
type varFloatAcc struct {
	kind       varKind
	n, sx, sxx float64 // over the finite inputs
	// nf counts the NaN and infinite inputs: while one remains the
	// result is NaN, as float8_accum makes it.
	nf nonFinite
}

func (a *varFloatAcc) Add(args []types.Datum) error {
	if args[0].Null {
		return nil
	}
	x := args[0].F
	if a.nf.stepFloat(x, 1) {
		return nil
	}
	n := a.n + 1
	sx := a.sx + x
	if a.n > 0 {
		tmp := x*n - sx
		a.sxx += tmp * tmp / (a.n * n)
	} else {
		a.sxx = 0
	}
	a.n, a.sx = n, sx
	return nil
}

func (a *varFloatAcc) Retract(args []types.Datum) error {
	if args[0].Null {
		return nil
	}
	x := args[0].F
	if a.nf.stepFloat(x, -1) {
		return nil
	}
	n := a.n - 1
	if n > 0 {
		tmp := x*a.n - a.sx
		a.sxx -= tmp * tmp / (n * a.n)
	} else {
		a.sxx = 0
	}
	a.n, a.sx = n, a.sx-x
	return nil
}

// total is the number of non-NULL inputs.
func (a *varFloatAcc) total() float64 {
	return a.n + float64(a.nf.nan+a.nf.pinf+a.nf.ninf)
}

func (a *varFloatAcc) Result() types.Datum {
	if n := a.total(); n == 0 || (a.kind.sample && n == 1) {
		return types.NullDatum
	}
	if a.nf.any() {
		return types.DFloat(math.NaN())
	}
	d := a.n
	if a.kind.sample {
		d = a.n - 1
	}
	v := a.sxx / d
	if !a.kind.variance {
		v = math.Sqrt(v)
	}
	return types.DFloat(v)
}

// ResultErr returns the statistic, or 22003 when the running sum or
// sum of squared differences of finite inputs overflowed, as
// float8_accum fails.
func (a *varFloatAcc) ResultErr() (types.Datum, error) {
	if a.n > 0 && a.nf.pinf == 0 && a.nf.ninf == 0 && (math.IsInf(a.sx, 0) || math.IsInf(a.sxx, 0)) {
		return types.NullDatum, ErrFloatOverflow
	}
	return a.Result(), nil
}

// distinctAcc feeds each distinct argument tuple to its inner accumulator
// once; it counts duplicates so that retraction takes a tuple back only
// when its last copy goes.
type distinctAcc struct {
	seen   *rowSet
	counts []int64
	inner  Accumulator
}

func (a *distinctAcc) Add(args []types.Datum) error {
	i, added := a.seen.findOrInsert(args)
	if added {
		a.counts = append(a.counts, 0)
	}
	a.counts[i]++
	if a.counts[i] == 1 {
		return a.inner.Add(a.seen.rows[i])
	}
	return nil
}

func (a *distinctAcc) Retract(args []types.Datum) error {
	i := a.seen.find(args)
	if i < 0 || a.counts[i] == 0 {
		return pgerr.New(pgerr.InternalError, "retracting a value that was never added")
	}
	a.counts[i]--
	if a.counts[i] == 0 {
		return a.inner.Retract(a.seen.rows[i])
	}
	return nil
}

func (a *distinctAcc) Result() types.Datum { return a.inner.Result() }

// orderedAcc implements an aggregate's ORDER BY: it buffers the argument
// rows and, for Result, feeds them sorted (stably) into a fresh inner
// accumulator.
type orderedAcc struct {
	nargs int
	keys  []OrderSpec
	keyAt int // index of the first sort key in a buffered row
	mk    func() Accumulator
	rows  []types.Row
}

func (a *orderedAcc) Add(args []types.Datum) error {
	r := make(types.Row, len(args))
	for i, d := range args {
		r[i] = copyDatum(d)
	}
	a.rows = append(a.rows, r)
	return nil
}

func (a *orderedAcc) Retract(args []types.Datum) error {
	for i, r := range a.rows {
		if sameRowLoose(r, args) {
			a.rows = append(a.rows[:i], a.rows[i+1:]...)
			return nil
		}
	}
	return pgerr.New(pgerr.InternalError, "retracting a value that was never added")
}

// sameRowLoose compares rows field by field without type knowledge (every
// Datum field), for finding a buffered copy of a row.
func sameRowLoose(a, b types.Row) bool {
	for i := range a {
		x, y := a[i], b[i]
		if x.Null != y.Null || x.I != y.I || x.S != y.S || x.Iv != y.Iv ||
			(x.F != y.F && !(math.IsNaN(x.F) && math.IsNaN(y.F))) {
			return false
		}
		if (x.D == nil) != (y.D == nil) || (x.D != nil && x.D.Cmp(y.D) != 0) {
			return false
		}
	}
	return true
}

func (a *orderedAcc) Result() types.Datum {
	rows := make([]types.Row, len(a.rows))
	copy(rows, a.rows)
	// Postgres sorts an aggregate's input with its own quicksort; equal
	// keys come out in the same order.
	pgsort.Sort(len(rows), func(i, j int) int {
		x, y := rows[i][a.keyAt:], rows[j][a.keyAt:]
		for k, key := range a.keys {
			c := cmpNulls(x[k], y[k], key.T, key.NullsFirst != key.Desc)
			if key.Desc {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		return 0
	}, func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	// The aggregates that take ORDER BY here (string_agg, count, min,
	// max, bool_*) cannot fail in Add, so there is no error to lose.
	inner := a.mk()
	for _, r := range rows {
		_ = inner.Add(r[:a.nargs])
	}
	return inner.Result()
}

// Postgres numeric arithmetic at its display scales (src/backend/utils/
// adt/numeric.c). Postgres stores numerics as base-10000 digits; its
// division picks the result scale from the inputs' weights in that base.

// dscale returns a decimal's display scale (digits after the point).
func aggDscale(d *apd.Decimal) int {
	return max(0, -int(d.Exponent))
}

// weightAndFirst returns the base-10000 weight of d's first non-zero digit
// and that digit, as select_div_scale computes them (0, 0 for zero).
func weightAndFirst(d *apd.Decimal) (int, int) {
	if d.IsZero() {
		return 0, 0
	}
	s := d.Coeff.String()
	e := len(s) - 1 + int(d.Exponent) // power of ten of the leading digit
	w := e / 4
	if e < 0 && e%4 != 0 {
		w--
	}
	k := e - 4*w + 1
	for len(s) < k {
		s += "0"
	}
	first, _ := strconv.Atoi(s[:k])
	return w, first
}

// selectDivScale is Postgres's select_div_scale: the result scale of
// x / y.
func selectDivScale(x, y *apd.Decimal) int {
	w1, f1 := weightAndFirst(x)
	w2, f2 := weightAndFirst(y)
	qweight := w1 - w2
	if f1 <= f2 {
		qweight--
	}
	rscale := NumericMinSigDigits - qweight*4
	rscale = max(rscale, aggDscale(x), aggDscale(y), 0)
	return min(rscale, NumericMaxDisplayScale)
}

// numericDiv returns x / y (y non-zero) at Postgres's division scale.
func numericDiv(x, y *apd.Decimal) *apd.Decimal {
	return aggDivScale(x, y, selectDivScale(x, y))
}

// divScale returns x / y rounded half away from zero to rscale digits.
// The quotient is first truncated to a few more digits than needed, which
// makes the final rounding exact.
func aggDivScale(x, y *apd.Decimal, rscale int) *apd.Decimal {
	intDigits := int(x.NumDigits()) + int(x.Exponent) - int(y.NumDigits()) - int(y.Exponent) + 1
	prec := uint32(max(intDigits, 1) + rscale + 4)
	ctx := apd.BaseContext.WithPrecision(prec)
	ctx.Rounding = apd.RoundDown
	q := new(apd.Decimal)
	ctx.Quo(q, x, y)
	return quantize(q, rscale)
}

// sqrtScale returns the square root of non-negative x rounded to rscale
// digits.
func sqrtScale(x *apd.Decimal, rscale int) *apd.Decimal {
	intDigits := (int(x.NumDigits())+int(x.Exponent))/2 + 1
	ctx := apd.BaseContext.WithPrecision(uint32(max(intDigits, 1) + rscale + 8))
	r := new(apd.Decimal)
	ctx.Sqrt(r, x)
	return quantize(r, rscale)
}

func quantize(x *apd.Decimal, rscale int) *apd.Decimal {
	digits := int(x.NumDigits()) + int(x.Exponent) + rscale + 2
	ctx := apd.BaseContext.WithPrecision(uint32(max(digits, 1)))
	ctx.Rounding = apd.RoundHalfUp
	r := new(apd.Decimal)
	ctx.Quantize(r, x, int32(-rscale))
	if r.IsZero() {
		r.Negative = false
	}
	return r
}

// arrayAggAcc is array_agg(x): the input values, NULLs included, in input
// order (or the aggregate's ORDER BY, applied by orderedAcc); NULL over no
// rows. The result is the array's stored text form (types.FormatArray,
// timestamptz elements in UTC).
type arrayAggAcc struct {
	t     types.T
	elems []types.Datum
	bytes int64 // of the elements, within maxValueBytes
}

func (a *arrayAggAcc) Add(args []types.Datum) error {
	if err := growArray(len(a.elems), &a.bytes, valueBytes(args[0])); err != nil {
		return err
	}
	a.elems = append(a.elems, args[0])
	return nil
}

func (a *arrayAggAcc) Retract(args []types.Datum) error {
	for i, e := range a.elems {
		if e.Null == args[0].Null && (e.Null || types.Compare(e, args[0], a.t) == 0) {
			a.elems = append(a.elems[:i], a.elems[i+1:]...)
			a.bytes -= valueBytes(e)
			return nil
		}
	}
	return pgerr.New(pgerr.InternalError, "retracting a value that was never added")
}

func (a *arrayAggAcc) Result() types.Datum {
	if len(a.elems) == 0 {
		return types.NullDatum
	}
	return types.DString(types.FormatArray(a.elems, a.t, nil))
}

// bitAcc is bit_and, bit_or and bit_xor over integers. It counts, for
// each of the 64 bits, the inputs that have it set, and the inputs
// themselves, so retraction is exact: a bit is in the AND when every input
// has it, in the OR when one does, in the XOR when an odd number do. The
// result of no input is NULL.
type bitAcc struct {
	op   string
	n    int64
	ones [64]int64
}

func (a *bitAcc) step(d types.Datum, by int64) {
	if d.Null {
		return
	}
	a.n += by
	x := uint64(d.I)
	for x != 0 {
		i := bits.TrailingZeros64(x)
		a.ones[i] += by
		x &^= 1 << i
	}
}

func (a *bitAcc) Add(args []types.Datum) error { a.step(args[0], 1); return nil }

func (a *bitAcc) Retract(args []types.Datum) error { a.step(args[0], -1); return nil }

func (a *bitAcc) Result() types.Datum {
	if a.n == 0 {
		return types.NullDatum
	}
	var r uint64
	for i, c := range a.ones {
		var set bool
		switch a.op {
		case "bit_and":
			set = c == a.n
		case "bit_or":
			set = c > 0
		default:
			set = c%2 != 0
		}
		if set {
			r |= 1 << i
		}
	}
	return types.DInt(int64(r))
}

// bitsText and setBitsText write and read the per-bit counts as text
// ("bit:count" pairs for the bits with a count), the state's second value.
func (a *bitAcc) bitsText() types.Datum {
	var b strings.Builder
	for i, c := range a.ones {
		if c != 0 {
			if b.Len() > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%d:%d", i, c)
		}
	}
	return types.DString(b.String())
}

func (a *bitAcc) setBitsText(d types.Datum) error {
	a.ones = [64]int64{}
	if d.Null || d.S == "" {
		return nil
	}
	for _, p := range strings.Split(d.S, ",") {
		i, c, ok := strings.Cut(p, ":")
		bit, err1 := strconv.Atoi(i)
		n, err2 := strconv.ParseInt(c, 10, 64)
		if !ok || err1 != nil || err2 != nil || bit < 0 || bit >= 64 {
			return pgerr.New(pgerr.DataCorrupted, "bad %s state %q", a.op, d.S)
		}
		a.ones[bit] = n
	}
	return nil
}

// jsonbAggAcc is jsonb_agg(x), the jsonb array of the inputs in order
// (NULL as null), and jsonb_object_agg(k, v), the object of the pairs (a
// NULL key is 22023); with json set, json_agg and json_object_agg, whose
// json text keeps the pairs in order with their duplicates. All are NULL
// over no rows.
type jsonbAggAcc struct {
	t      types.T
	kt     types.T // the key's type: keys are kept as their object key text
	object bool
	json   bool
	keys   []string
	vals   []types.Datum
	bytes  int64 // of the keys and values, within maxValueBytes
}

func (a *jsonbAggAcc) Add(args []types.Datum) error {
	if a.object {
		if args[0].Null {
			return pgerr.New(pgerr.InvalidParameterValue, "field name must not be null")
		}
		k, err := JSONObjectKey(nil, args[0], a.kt)
		if err != nil {
			return err
		}
		if err := growBuffer(&a.bytes, int64(len(k))+valueBytes(args[1])); err != nil {
			return err
		}
		a.keys = append(a.keys, k)
		a.vals = append(a.vals, args[1])
		return nil
	}
	if err := growBuffer(&a.bytes, valueBytes(args[0])); err != nil {
		return err
	}
	a.vals = append(a.vals, args[0])
	return nil
}

func (a *jsonbAggAcc) Retract(args []types.Datum) error {
	v, key := args[0], ""
	if a.object {
		k, err := JSONObjectKey(nil, args[0], a.kt)
		if err != nil {
			return err
		}
		v, key = args[1], k
	}
	for i, e := range a.vals {
		if (!a.object || a.keys[i] == key) && e.Null == v.Null && (e.Null || types.Compare(e, v, a.t) == 0) {
			a.vals = append(a.vals[:i], a.vals[i+1:]...)
			a.bytes -= int64(len(key)) + valueBytes(e)
			if a.object {
				a.keys = append(a.keys[:i], a.keys[i+1:]...)
			}
			return nil
		}
	}
	return pgerr.New(pgerr.InternalError, "retracting a value that was never added")
}

func (a *jsonbAggAcc) Result() types.Datum {
	if len(a.vals) == 0 {
		return types.NullDatum
	}
	if a.json {
		var s string
		var err error
		if a.object {
			keys := make([]types.Datum, len(a.keys))
			for i, k := range a.keys {
				keys[i] = types.DString(k)
			}
			s, err = JSONObjectAgg(keys, types.TText, a.vals, a.t)
		} else {
			s, err = JSONArrayAgg(a.vals, a.t)
		}
		if err != nil {
			// The values were checked when they were added (Add).
			return types.NullDatum
		}
		return types.DString(s)
	}
	if a.object {
		return types.DString(JSONBObject(a.keys, a.vals, a.t))
	}
	return types.DString(JSONBArray(a.vals, a.t))
}
