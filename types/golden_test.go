package types

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/weirdb/weir/internal/pgerr"
)

// The golden files under testdata/ hold what PostgreSQL 15 answers for
// every case below. Regenerate them against a real server with
//
//	go test ./types -run 'TestGolden' -rewrite -pg 'postgres://postgres@127.0.0.1:5432/postgres'
//
// which runs, per parse case, `SELECT CAST('input' AS type)` and, per cast
// case, `SELECT CAST(CAST('input' AS from) AS to)`, in a session with
// DateStyle 'ISO, MDY', IntervalStyle postgres, extra_float_digits 1 and
// TimeZone America/Los_Angeles, recording the text-format result or the
// error's SQLSTATE and message.
var (
	rewrite = flag.Bool("rewrite", false, "regenerate golden files from the server given by -pg")
	pgDSN   = flag.String("pg", "", "PostgreSQL 15 connection string for -rewrite")
)

const goldenZone = "America/Los_Angeles"

type parseCase struct {
	typ   T
	input string
}

func tm(id TypeID, mod int32) T { return T{id, mod} }

func numMod(p, s int32) int32 { return (p<<16 | s) + 4 }

var parseCases = func() []parseCase {
	var cs []parseCase
	add := func(t T, inputs ...string) {
		for _, in := range inputs {
			cs = append(cs, parseCase{t, in})
		}
	}
	add(TBool, "t", "true", "TRUE", " yes ", "on", "1", "f", "false", "no", "off", "0", "tr", "y", "of", "o", "x", "", "2", "truex", "NO")
	add(TInt2, "0", "32767", "-32768", "32768", "-32769", " 12 ", "+5", "1.5", "x", "", "99999", "--1", "1e2")
	add(TInt4, "0", "2147483647", "-2147483648", "2147483648", "  -42", "1 2", "abc", "0x10", "007")
	add(TInt8, "9223372036854775807", "-9223372036854775808", "9223372036854775808", "12", "1_000")
	add(TOid, "0", "4294967295", "4294967296", "-1", "-2147483648", "12", "x")
	add(TFloat8, "0", "-0", "1", "0.1", "1e16", "1e15", "1e14", "123456789012345678", "1.5e-7", "0.0001", "0.00001",
		"3.141592653589793", "1e308", "1e309", "1e-400", "2.2250738585072014e-308", "5e-324", "NaN", "nan", "Infinity",
		"-Infinity", "inf", "-inf", " 1.5 ", "1.", ".5", "abc", "", "1e", "0.30000000000000004", "100", "1e+2", "-1.25e-10")
	add(TFloat4, "0", "-0", "1.1", "0.1", "1e6", "100000", "123456", "1234567", "3.4028235e38", "1e39", "1e-46",
		"1.17549435e-38", "NaN", "-Infinity", "16777217", "0.333333333", "x")
	add(TNumeric, "0", "-0", "1.50", "  -12.3400 ", "1e3", "1.5e-7", "NaN", "nan", "Infinity", "-inf", ".5", "5.", "x",
		"", "1e", "123456789012345678901234567890.123456789", "0.000", "-0.001")
	add(tm(Numeric, numMod(5, 2)), "123.456", "123.455", "-123.455", "999.995", "999.994", "1000", "0.001", "NaN", "Infinity")
	add(tm(Numeric, numMod(3, 3)), "0.9995", "0.5", "1")
	add(tm(Numeric, numMod(1, 0)), "1.5", "9.5", "-2.5")
	add(TText, "", "abc", " padded ", "ünïcödé")
	add(TName, strings.Repeat("x", 70), "pg_class")
	add(TChar, "a", "abc", "")
	add(TBytea, `\x`, `\x0a0b`, `\xDEADbeef`, `\x0 a`, `\x0a 0b`, `\xabc`, `\xzz`, `abc`, `a\\b`, `\001\377`, `\q`, ``)
	add(TDate, "2024-01-02", "January 2, 2024", "1/2/2024", "01/02/24", "2 January 2024", "Jan 2 2024", "20240102",
		"2024-1-2", "epoch", "infinity", "-infinity", "0044-03-15 BC", "4714-11-24 BC", "4714-11-23 BC", "5874897-12-31",
		"2024-02-29", "2023-02-29", "2024-13-01", "2024-01-02 13:04:05", "1999.12.31", "x", "", "0000-01-01",
		"1/2/70", "1/2/69", "12/31/1999 BC", "2024-01-02T10:00:00Z")
	add(TTime, "04:05", "04:05:06.789", "04:05:06.7891236", "allballs", "23:59:59.999999", "24:00:00", "24:00:01",
		"4:05 PM", "12:00 AM", "12:30 pm", "04:05:06 PST", "2024-01-02 04:05:06", "25:00", "x", "04:60", "040506")
	add(TTimestamp, "2024-01-02 13:04:05", "2024-01-02T13:04:05.5", "2024-01-02 13:04:05.123456789",
		"2024-01-02 13:04:05+02", "2024-01-02", "epoch", "infinity", "-infinity", "0044-03-15 12:00 BC",
		"January 2, 2024 10:00 PM", "1/2/2024 1:02:03", "2024-01-02 25:00", "x", "2024-01-02 13:04:05 America/New_York",
		"294246-12-31 23:59:59", "4714-11-24 00:00:00 BC", "4714-11-23 23:59:59 BC")
	add(tm(Timestamp, 2), "2024-01-02 13:04:05.125", "2024-01-02 13:04:05.995", "2024-01-02 23:59:59.999")
	add(TTimestamptz, "2024-01-02 13:04:05", "2024-01-02 13:04:05Z", "2024-01-02T13:04:05.5+02", "2024-01-02 13:04:05+05:30",
		"2024-01-02 13:04:05 -0800", "2024-01-02 13:04:05 UTC", "2024-01-02 13:04:05 PST", "2024-07-02 13:04:05",
		"2024-01-02 13:04:05 Europe/Paris", "2024-01-02 13:04:05 Foo/Bar", "1800-01-01", "0044-03-15 BC",
		"2024-03-10 02:30:00", "2024-11-03 01:30:00", "epoch", "infinity", "2024-01-02 13:04:05-07:52:58", "2024-01-02 13:04:05 GMT")
	add(TInterval, "1 year 2 mons 3 days 04:05:06.5", "-1 days +02:00:00", "00:00:00", "1 day", "-00:00:01", "0",
		"1 day 2 hours 3 minutes", "1h 30m", "1h30m", "2 mons", "1 mon", "@ 1 hour ago", "@ 1 day 2 hours ago", "1 day 02:03:04",
		"02:03", "02:03:04.5", "-02:03", "P1Y2M3DT4H5M6S", "PT1H", "P1W", "P0.5Y", "PT1.5S", "P1DT12H", "1.5 months",
		"1.5 years", "1.5 days", "1.5 weeks", "0.1 seconds", "1.5", "5", "1 2", "x", "", "1 day -1 hours", "100 hours",
		"-1 year -2 mons", "1 decade", "2 centuries", "1 millennium", "3 ms", "10 us", "1-2", "1 week 2 days",
		"1 yr 2 mon 3 d 4 hr 5 min 6 sec", "1.25 hours", "-1.5 days", "1 day ago", "2147483647 days", "2147483648 days",
		"1 mon 15 days 12:00:00", "178000000 years")
	add(TJsonb, `{"b":1,"aa":[1,2.50,1e2],"a":"x\u00e9\n"}`, `{"a":1,"a":2}`, `[]`, `{}`, `null`, `true`, `"str"`, `1.0`,
		`-0`, `1E-2`, ` [1 , 2] `, `{"a":{"c":null,"b":[true,false]}}`, `"\u0041\ud83d\ude00"`, `"tab\there"`, `"\u0001"`,
		`{"a"}`, `[1,]`, `01`, `"abc`, `nul`, `{"a":1}x`, `"\u0000"`, `1.5e400`, `"\/"`)
	add(TTextArray, `{a,b}`, `{a,"b c",NULL,"",null}`, `{}`, ` { a , b } `, `{"a\"b","x\\y"}`, `{a b,c}`,
		`{NULL,"NULL"}`, `{a`, `a,b`, `{a,}`, `{"a",b}x`, `[1:2]={x,y}`, `{\,}`)
	add(TUuid, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11",
		"{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}", "a0eebc999c0b4ef8bb6d6bb9bd380a11", "a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11",
		"{A0EEBC999C0B4EF8BB6D6BB9BD380A11}", "00000000-0000-0000-0000-000000000000",
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a111", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11-",
		"-a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "a0e-ebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "a0eebc99--9c0b-4ef8-bb6d-6bb9bd380a11",
		"{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}", " a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11 ", "g0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "", "{}", "x")
	add(T{UuidArray, -1}, "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11,NULL,A0EEBC999C0B4EF8BB6D6BB9BD380A11}", "{}", "{x}")
	return cs
}()

type castCase struct {
	from, to T
	input    string
}

var castCases = func() []castCase {
	var cs []castCase
	add := func(from, to T, inputs ...string) {
		for _, in := range inputs {
			cs = append(cs, castCase{from, to, in})
		}
	}
	add(TInt4, TInt2, "32767", "32768", "-5")
	add(TInt8, TInt4, "2147483648", "-2147483648")
	add(TInt8, TInt2, "40000")
	add(TInt2, TInt8, "7")
	add(TFloat8, TInt4, "2.5", "3.5", "-2.5", "2147483647.4", "2147483647.5", "NaN", "-Infinity", "1e10")
	add(TFloat8, TInt2, "32767.5", "-32768.5", "1.49")
	add(TFloat8, TInt8, "9.2233720368547758e18", "-9.2233720368547758e18", "12345.5")
	add(TFloat4, TInt4, "2.5", "1e10")
	add(TNumeric, TInt4, "2.5", "-2.5", "3.5", "2147483647.5", "NaN", "Infinity")
	add(TNumeric, TInt2, "NaN", "32767.4")
	add(TNumeric, TInt8, "9223372036854775807.4", "9223372036854775807.5")
	add(TFloat8, TNumeric, "0.1", "1e16", "1.5e-7", "NaN", "Infinity", "3.141592653589793", "123456789012345678", "-0")
	add(TFloat4, TNumeric, "0.1", "1.1", "1e10", "3.4028235e38")
	add(TFloat8, tm(Numeric, numMod(5, 2)), "3.14159", "1234.5")
	add(TNumeric, TFloat8, "0.1", "1.50", "NaN", "-Infinity", "1e400")
	add(TNumeric, TFloat4, "1.1", "1e39")
	add(TNumeric, tm(Numeric, numMod(4, 1)), "123.45", "999.95", "-999.94")
	add(TFloat8, TFloat4, "0.1", "1e39", "1e-46", "NaN")
	add(TFloat4, TFloat8, "0.1", "1.1", "16777217")
	add(TInt8, TFloat4, "16777217", "9223372036854775807")
	add(TInt4, TFloat8, "123")
	add(TInt8, TNumeric, "-9223372036854775808")
	add(TInt4, TBool, "0", "1", "-7")
	add(TBool, TInt4, "t", "f")
	add(TInt8, TBool, "1")
	add(TInt2, TBool, "1")
	add(TInt4, TOid, "-1", "12")
	add(TInt8, TOid, "4294967295", "4294967296", "-1")
	add(TOid, TInt4, "4294967295", "12")
	add(TOid, TInt8, "4294967295")
	add(TInt4, TChar, "65", "0", "-1", "128")
	add(TChar, TInt4, "A", "")
	add(TText, TChar, "hello")
	add(TChar, TText, "x")
	add(TText, tm(Varchar, 7), "abcdefghij", "abc   ", "ünïcödéxx")
	add(tm(Varchar, 14), tm(Varchar, 7), "abcdefghij")
	add(TText, TName, strings.Repeat("y", 70))
	add(TName, TText, "pg_class")
	add(TDate, TTimestamp, "2024-01-02", "infinity", "0044-03-15 BC")
	add(TDate, TTimestamptz, "2024-01-02", "2024-07-02", "-infinity")
	add(TTimestamp, TDate, "2024-01-02 13:04:05", "0044-03-15 12:00 BC", "infinity")
	add(TTimestamp, TTimestamptz, "2024-01-02 13:04:05", "2024-03-10 02:30:00", "infinity")
	add(TTimestamptz, TTimestamp, "2024-01-02 13:04:05+00", "2024-07-02 13:04:05+00")
	add(TTimestamptz, TDate, "2024-01-02 03:04:05+00")
	add(TTimestamp, TTime, "2024-01-02 13:04:05.25")
	add(TTimestamptz, TTime, "2024-01-02 03:04:05+00")
	add(TTimestamp, tm(Timestamp, 0), "2024-01-02 13:04:05.5", "2024-01-02 13:04:05.4")
	add(TTime, TInterval, "13:04:05.5")
	add(TInterval, TTime, "1 day 13:04:05", "-01:00:00", "25:00:00", "1 mon")
	add(TInterval, tm(Interval, 1), "00:00:01.25", "-00:00:01.25")
	add(TUuid, TText, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")
	add(TText, TUuid, "{A0EEBC99-9C0B4EF8-BB6D6BB9-BD380A11}", "nope")
	add(tm(Varchar, 40), TUuid, "a0eebc999c0b4ef8bb6d6bb9bd380a11")
	add(TUuid, tm(Varchar, 12), "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")
	add(TJsonb, TText, `{"b":1, "a":2}`)
	add(TText, TJsonb, `[1, 2.50]`)
	add(TJsonb, TNumeric, `1.50`, `"1"`, `null`, `{}`)
	add(TJsonb, TInt4, `12`, `12.5`, `true`, `[]`)
	add(TJsonb, TBool, `true`, `1`)
	add(TJsonb, TFloat8, `1.5`, `"x"`)
	add(TJsonb, TInt8, `9223372036854775808`)
	add(TDate, TText, "0044-03-15 BC")
	add(TFloat8, TText, "1e16")
	add(TTimestamptz, TText, "2024-01-02 13:04:05+00")
	add(TText, TInt4, " 12 ")
	add(TText, TBool, "yes")
	add(TText, TTextArray, `{a,b}`)
	add(TTextArray, TText, `{"a b",c}`)
	add(TBool, TText, "t")
	add(TInt4, TDate, "1")
	add(TDate, TInt4, "2024-01-02")
	add(TBool, TNumeric, "t")
	add(TInterval, TInt8, "1 day")
	add(TBytea, TText, `\x6162`)
	add(TText, TBytea, `\x6162`)
	add(TJsonb, TInterval, `1`)
	add(TTime, TTimestamp, "13:00")
	return cs
}()

func quoteLit(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func errResult(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return "err " + pe.Code + " " + strconv.Quote(pe.Message) + withDetail(pe.Detail) + withContext(pe.Where)
	}
	e := pgerr.As(err)
	return "err " + string(e.Code) + " " + strconv.Quote(e.Message) + withDetail(e.Detail) + withContext(e.Where)
}

func withContext(w string) string {
	if w == "" {
		return ""
	}
	return " context " + strconv.Quote(w)
}

func withDetail(d string) string {
	if d == "" {
		return ""
	}
	return " detail " + strconv.Quote(d)
}

func goldenLoc(t testing.TB) *time.Location {
	loc, err := time.LoadLocation(goldenZone)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// ourParse is what weir answers for a parse case.
func ourParse(c parseCase, loc *time.Location) string {
	d, err := ParseText(c.input, c.typ, loc)
	if err != nil {
		return errResult(err)
	}
	return "ok " + strconv.Quote(FormatText(d, c.typ, loc))
}

func ourCast(c castCase, loc *time.Location) string {
	d, err := ParseText(c.input, c.from, loc)
	if err != nil {
		return "from " + errResult(err)
	}
	r, err := Cast(d, c.from, c.to, true, loc)
	if err != nil {
		return errResult(err)
	}
	return "ok " + strconv.Quote(FormatText(r, c.to, loc))
}

func sqlType(t T) string {
	if t.ID == Varchar && t.Mod >= 0 {
		return fmt.Sprintf("varchar(%d)", t.Mod-4)
	}
	return t.String()
}

func goldenLine(key, result string) string { return key + "\t" + result }

func parseKey(c parseCase) string { return sqlType(c.typ) + "\t" + strconv.Quote(c.input) }

func castKey(c castCase) string {
	return sqlType(c.from) + "\t" + sqlType(c.to) + "\t" + strconv.Quote(c.input)
}

func readGolden(t *testing.T, name string) map[string]string {
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, '\t')
		m[line[:i]] = line[i+1:]
	}
	return m
}

func pgQuery(t *testing.T, conn *pgx.Conn, sql string) string {
	rows, err := conn.Query(context.Background(), sql, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return errResult(err)
	}
	defer rows.Close()
	var out string
	for rows.Next() {
		v := rows.RawValues()[0]
		if v == nil {
			out = "null"
		} else {
			out = "ok " + strconv.Quote(string(v))
		}
	}
	if err := rows.Err(); err != nil {
		return errResult(err)
	}
	return out
}

func pgConnect(t *testing.T) *pgx.Conn {
	if *pgDSN == "" {
		t.Fatal("-rewrite needs -pg with a PostgreSQL 15 connection string")
	}
	conn, err := pgx.Connect(context.Background(), *pgDSN)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"SET DateStyle = 'ISO, MDY'", "SET IntervalStyle = postgres",
		"SET extra_float_digits = 1", "SET TimeZone = '" + goldenZone + "'"} {
		if _, err := conn.Exec(context.Background(), s); err != nil {
			t.Fatal(err)
		}
	}
	return conn
}

func writeGolden(t *testing.T, name, header string, lines []string) {
	body := header + strings.Join(lines, "\n") + "\n"
	if err := os.WriteFile("testdata/"+name, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestGoldenParse checks ParseText followed by FormatText against
// PostgreSQL 15's answers for the same input.
func TestGoldenParse(t *testing.T) {
	loc := goldenLoc(t)
	if *rewrite {
		conn := pgConnect(t)
		defer conn.Close(context.Background())
		var lines []string
		for _, c := range parseCases {
			r := pgQuery(t, conn, "SELECT CAST("+quoteLit(c.input)+" AS "+sqlType(c.typ)+")")
			lines = append(lines, goldenLine(parseKey(c), r))
		}
		writeGolden(t, "parse.golden", "# type\tinput\tPostgreSQL 15 result of SELECT CAST('input' AS type)\n", lines)
	}
	want := readGolden(t, "parse.golden")
	for _, c := range parseCases {
		w, ok := want[parseKey(c)]
		if !ok {
			t.Errorf("%s: not in golden file; rerun with -rewrite", parseKey(c))
			continue
		}
		if got := ourParse(c, loc); got != w {
			t.Errorf("%s %q:\n got %s\nwant %s", sqlType(c.typ), c.input, got, w)
		}
	}
}

// TestGoldenCast checks Cast (explicit) against PostgreSQL 15's answers.
func TestGoldenCast(t *testing.T) {
	loc := goldenLoc(t)
	if *rewrite {
		conn := pgConnect(t)
		defer conn.Close(context.Background())
		var lines []string
		for _, c := range castCases {
			r := pgQuery(t, conn, "SELECT CAST("+quoteLit(c.input)+" AS "+sqlType(c.from)+")")
			if strings.HasPrefix(r, "err") {
				r = "from " + r
			} else {
				r = pgQuery(t, conn, "SELECT CAST(CAST("+quoteLit(c.input)+" AS "+sqlType(c.from)+") AS "+sqlType(c.to)+")")
			}
			lines = append(lines, goldenLine(castKey(c), r))
		}
		writeGolden(t, "cast.golden", "# from\tto\tinput\tPostgreSQL 15 result of SELECT CAST(CAST('input' AS from) AS to)\n", lines)
	}
	want := readGolden(t, "cast.golden")
	for _, c := range castCases {
		w, ok := want[castKey(c)]
		if !ok {
			t.Errorf("%s: not in golden file; rerun with -rewrite", castKey(c))
			continue
		}
		if got := ourCast(c, loc); got != w {
			t.Errorf("%s -> %s %q:\n got %s\nwant %s", sqlType(c.from), sqlType(c.to), c.input, got, w)
		}
	}
}
