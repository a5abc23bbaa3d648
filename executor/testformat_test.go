package executor

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/weirdb/weir/types"
)

// Local text input and output for the golden tests, covering the literal
// forms the golden file uses, so the tests do not depend on the value
// layer's formatter.

func testParse(s string, t types.T) (types.Datum, error) {
	switch t.ID {
	case types.Int2, types.Int4, types.Int8, types.Oid:
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		return types.DInt(n), err
	case types.Float4, types.Float8:
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		return types.DFloat(roundFloat(f, t.ID)), err
	case types.Numeric:
		d, _, err := apd.NewFromString(strings.TrimSpace(s))
		return types.DDecimal(d), err
	case types.Bool:
		return types.DBool(s == "t" || s == "true"), nil
	case types.Date:
		tm, err := time.Parse("2006-01-02", s)
		return types.DInt(floorDiv64(tm.Unix(), 86400)), err
	case types.Time:
		tm, err := time.Parse("15:04:05.999999", s)
		return types.DInt(int64(tm.Hour())*3600e6 + int64(tm.Minute())*60e6 + int64(tm.Second())*1e6 + int64(tm.Nanosecond()/1000)), err
	case types.Timestamp:
		tm, err := time.Parse("2006-01-02 15:04:05.999999", s)
		if err != nil {
			tm, err = time.Parse("2006-01-02", s)
		}
		return types.DInt(tm.UnixMicro()), err
	case types.Timestamptz:
		tm, err := time.Parse("2006-01-02 15:04:05.999999-07", s)
		if err != nil {
			tm, err = time.Parse("2006-01-02 15:04:05.999999", s)
		}
		return types.DInt(tm.UnixMicro()), err
	case types.Interval:
		return parseTestInterval(s)
	case types.Bytea:
		if strings.HasPrefix(s, `\x`) {
			var b []byte
			for i := 2; i+1 < len(s); i += 2 {
				x, err := strconv.ParseUint(s[i:i+2], 16, 8)
				if err != nil {
					return types.NullDatum, err
				}
				b = append(b, byte(x))
			}
			return types.DString(string(b)), nil
		}
	}
	return types.DString(s), nil
}

// parseTestInterval reads "N unit [N unit...] [hh:mm:ss]" intervals.
func parseTestInterval(s string) (types.Datum, error) {
	var iv types.IntervalVal
	f := strings.Fields(s)
	for i := 0; i < len(f); i++ {
		if strings.Contains(f[i], ":") {
			neg := strings.HasPrefix(f[i], "-")
			p := strings.Split(strings.TrimPrefix(f[i], "-"), ":")
			h, _ := strconv.ParseInt(p[0], 10, 64)
			m, _ := strconv.ParseInt(p[1], 10, 64)
			var sec float64
			if len(p) > 2 {
				sec, _ = strconv.ParseFloat(p[2], 64)
			}
			us := h*3600e6 + m*60e6 + int64(math.Round(sec*1e6))
			if neg {
				us = -us
			}
			iv.Micros += us
			continue
		}
		n, err := strconv.ParseFloat(f[i], 64)
		if err != nil || i+1 >= len(f) {
			return types.NullDatum, fmt.Errorf("bad interval %q", s)
		}
		i++
		switch u := strings.TrimSuffix(f[i], "s"); u {
		case "year":
			iv.Months += int32(n * 12)
		case "mon", "month":
			iv.Months += int32(n)
		case "week":
			iv.Days += int32(n * 7)
		case "day":
			iv.Days += int32(n)
		case "hour":
			iv.Micros += int64(n * 3600e6)
		case "min", "minute":
			iv.Micros += int64(n * 60e6)
		case "sec", "second":
			iv.Micros += int64(math.Round(n * 1e6))
		default:
			return types.NullDatum, fmt.Errorf("bad interval unit %q", u)
		}
	}
	return types.DInterval(iv), nil
}

func testFormat(d types.Datum, t types.T) string {
	if d.Null {
		return ""
	}
	switch t.Family() {
	case types.FamBool:
		if d.I != 0 {
			return "t"
		}
		return "f"
	case types.FamFloat:
		return formatFloat(d.F, t.ID)
	case types.FamDecimal:
		return d.D.Text('f')
	case types.FamInterval:
		return formatInterval(d.Iv)
	}
	switch t.ID {
	case types.Date:
		return formatDate(d.I)
	case types.Time:
		return formatTimeOfDay(d.I)
	case types.Timestamp:
		return formatDate(floorDiv64(d.I, microsPerDay)) + " " + formatTimeOfDay(d.I-floorDiv64(d.I, microsPerDay)*microsPerDay)
	case types.Timestamptz:
		return formatDate(floorDiv64(d.I, microsPerDay)) + " " + formatTimeOfDay(d.I-floorDiv64(d.I, microsPerDay)*microsPerDay) + "+00"
	case types.Bytea:
		return fmt.Sprintf(`\x%x`, d.S)
	}
	if t.Family() == types.FamInt {
		return strconv.FormatInt(d.I, 10)
	}
	return d.S
}

func formatDate(days int64) string {
	return time.Unix(days*86400, 0).UTC().Format("2006-01-02")
}

func formatTimeOfDay(us int64) string {
	s := fmt.Sprintf("%02d:%02d:%02d", us/3600e6, us/60e6%60, us/1e6%60)
	if f := us % 1e6; f != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%06d", f), "0")
	}
	return s
}

// formatFloat prints like Postgres's float8out with extra_float_digits 1:
// the shortest round-trip digits, exponential below 1e-4 and from 1e15.
func formatFloat(f float64, id types.TypeID) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	bits := 64
	if id == types.Float4 {
		bits = 32
	}
	e := strconv.FormatFloat(f, 'e', -1, bits)
	mant, exps, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(exps)
	limit := 15
	if bits == 32 {
		limit = 6
	}
	if exp < -4 || exp >= limit {
		sign := "+"
		if exp < 0 {
			sign, exp = "-", -exp
		}
		return fmt.Sprintf("%se%s%02d", mant, sign, exp)
	}
	return strconv.FormatFloat(f, 'f', -1, bits)
}

// formatInterval prints an interval in IntervalStyle postgres.
func formatInterval(iv types.IntervalVal) string {
	var parts []string
	y, m := iv.Months/12, iv.Months%12
	plural := func(n int64, unit string) {
		if n == 0 {
			return
		}
		s := fmt.Sprintf("%d %s", n, unit)
		if n != 1 {
			s += "s"
		}
		parts = append(parts, s)
	}
	plural(int64(y), "year")
	if m != 0 {
		parts = append(parts, fmt.Sprintf("%d mon", m)+map[bool]string{true: "", false: "s"}[m == 1 || m == -1])
	}
	plural(int64(iv.Days), "day")
	if iv.Micros != 0 || len(parts) == 0 {
		us := iv.Micros
		sign := ""
		if us < 0 {
			us = -us
			sign = "-"
		} else if len(parts) > 0 && (iv.Days < 0 || iv.Months < 0) {
			sign = "+"
		}
		parts = append(parts, sign+formatTimeOfDayLong(us))
	}
	return strings.Join(parts, " ")
}

func formatTimeOfDayLong(us int64) string {
	s := fmt.Sprintf("%02d:%02d:%02d", us/3600e6, us/60e6%60, us/1e6%60)
	if f := us % 1e6; f != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%06d", f), "0")
	}
	return s
}
