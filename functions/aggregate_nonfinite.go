package functions

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/weirdb/weir/types"
)

// nonFinite counts a sum's NaN, +Infinity and -Infinity inputs apart
// from the sum of its finite inputs, as PostgreSQL's numeric aggregates
// do (NaNcount, pInfcount, nInfcount). A retraction of a NaN or an
// infinity then takes it out again and leaves the finite sum, where
// folding it into the sum would leave NaN for good.
type nonFinite struct{ nan, pinf, ninf int64 }

func (c *nonFinite) any() bool { return c.nan != 0 || c.pinf != 0 || c.ninf != 0 }

// bump adds by to *p and reports true; a retraction (by < 0) of a value
// not counted reports false and changes nothing: the value is then in
// the finite part (state restored from a row without counts), and the
// caller takes it out of there as it would have before counts existed.
func bump(p *int64, by int64) bool {
	if by < 0 && *p == 0 {
		return false
	}
	*p += by
	return true
}

// stepFloat counts f (by is +1 or -1) when it is NaN or infinite and
// reports whether it did; finite values are the caller's.
func (c *nonFinite) stepFloat(f float64, by int64) bool {
	switch {
	case math.IsNaN(f):
		return bump(&c.nan, by)
	case math.IsInf(f, 1):
		return bump(&c.pinf, by)
	case math.IsInf(f, -1):
		return bump(&c.ninf, by)
	}
	return false
}

// stepDec is stepFloat for a numeric.
func (c *nonFinite) stepDec(d *apd.Decimal, by int64) bool {
	switch {
	case d.Form == apd.NaN || d.Form == apd.NaNSignaling:
		return bump(&c.nan, by)
	case d.Form == apd.Infinite && !d.Negative:
		return bump(&c.pinf, by)
	case d.Form == apd.Infinite:
		return bump(&c.ninf, by)
	}
	return false
}

// float returns the sum of the counted values and finite, in IEEE
// arithmetic: NaN when a NaN or both infinities remain, an infinity when
// only that one does, else finite.
func (c *nonFinite) float(finite float64) float64 {
	r := finite
	if c.pinf > 0 {
		r += math.Inf(1)
	}
	if c.ninf > 0 {
		r += math.Inf(-1)
	}
	if c.nan > 0 {
		r = math.NaN()
	}
	return r
}

// decimal is float for a numeric sum, as numeric_sum: NaN when a NaN or
// both infinities remain, an infinity when only that one does, else a
// copy of finite.
func (c *nonFinite) decimal(finite *apd.Decimal) *apd.Decimal {
	nan := &apd.Decimal{Form: apd.NaN}
	pinf, ninf := c.pinf > 0, c.ninf > 0
	switch finite.Form {
	case apd.NaN, apd.NaNSignaling:
		return nan
	case apd.Infinite: // a finite part from a row without counts
		pinf, ninf = pinf || !finite.Negative, ninf || finite.Negative
	}
	switch {
	case c.nan > 0 || pinf && ninf:
		return nan
	case pinf:
		return &apd.Decimal{Form: apd.Infinite}
	case ninf:
		return &apd.Decimal{Form: apd.Infinite, Negative: true}
	}
	return new(apd.Decimal).Set(finite)
}

// text returns the counts followed by the given finite state values as
// one text datum, "nan pinf ninf v..." (NULL when no value is counted:
// the state columns then hold the finite state itself).
func (c *nonFinite) text(vals ...string) types.Datum {
	if !c.any() {
		return types.NullDatum
	}
	s := fmt.Sprintf("%d %d %d", c.nan, c.pinf, c.ninf)
	if len(vals) > 0 {
		s += " " + strings.Join(vals, " ")
	}
	return types.DString(s)
}

// setText restores the counts from a text datum and returns the finite
// state values that follow them; want is their number. A NULL datum (no
// value counted, or a row written before counts existed) or a malformed
// one leaves the counts zero and returns nil.
func (c *nonFinite) setText(d types.Datum, want int) []string {
	*c = nonFinite{}
	if d.Null {
		return nil
	}
	f := strings.Fields(d.S)
	if len(f) != 3+want {
		return nil
	}
	var n [3]int64
	for i := range n {
		v, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil || v < 0 {
			return nil
		}
		n[i] = v
	}
	c.nan, c.pinf, c.ninf = n[0], n[1], n[2]
	return f[3:]
}

func floatText(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func parseFloatText(s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return math.NaN()
	}
	return f
}

func parseDecText(s string, dst *apd.Decimal) {
	if _, _, err := dst.SetString(s); err != nil {
		dst.Form = apd.NaN
	}
}
