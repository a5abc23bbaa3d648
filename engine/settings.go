package engine

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/weirdb/weir/internal/pgerr"
)

// setting is a session variable (a Postgres GUC).
type setting struct {
	// name is the canonical spelling, which SHOW uses as its column name.
	name string
	def  string
	desc string
	// check validates and normalises a new value; nil accepts anything.
	check func(v string) (string, error)
	// readOnly settings can be shown but not set.
	readOnly bool
	// noShowAll settings are left out of SHOW ALL and pg_settings, and
	// RESET ALL leaves them be (PostgreSQL's GUC_NO_SHOW_ALL and
	// GUC_NO_RESET_ALL).
	noShowAll bool
}

var settingList = []setting{
	{name: "application_name", def: "", desc: "Sets the application name to be reported in statistics and logs."},
	// role is SET ROLE's: "none" or the name of the role the session
	// acts as (Session.role); changeSetting checks the membership.
	{name: "role", def: "none", desc: "Sets the current role.", noShowAll: true},
	// session_authorization is SET SESSION AUTHORIZATION's: "" (the
	// authenticated role) or the name of the role the session is
	// (Session.sessionRole); changeSetting checks the permission.
	{name: "session_authorization", def: "", desc: "Sets the session user name.", noShowAll: true},
	{name: "client_encoding", def: "UTF8", desc: "Sets the client's character set encoding.", check: checkEncoding},
	{name: "client_min_messages", def: "notice", desc: "Sets the message levels that are sent to the client."},
	{name: "DateStyle", def: "ISO, MDY", desc: "Sets the display format for date and time values.", check: checkDateStyle},
	{name: "extra_float_digits", def: "1", desc: "Sets the number of digits displayed for floating-point values.", check: checkInt(-15, 3)},
	{name: "IntervalStyle", def: "postgres", desc: "Sets the display format for interval values.", check: checkOneOf("postgres")},
	{name: "search_path", def: `"$user", public`, desc: "Sets the schema search order for names that are not schema-qualified."},
	{name: "work_mem", def: "4MB", desc: "Sets the maximum memory to be used for query workspaces.", check: checkMemory},
	{name: "statement_timeout", def: "0", desc: "Sets the maximum allowed duration of any statement.", check: checkDuration("statement_timeout")},
	{name: "TimeZone", def: "UTC", desc: "Sets the time zone for displaying and interpreting time stamps.", check: checkTimeZone},
	{name: "standard_conforming_strings", def: "on", desc: "Causes '...' strings to treat backslashes literally.", check: checkOneOf("on")},
	{name: "transaction_isolation", def: "read committed", desc: "Sets the current transaction's isolation level."},
	{name: "default_transaction_isolation", def: "read committed", desc: "Sets the transaction isolation level of each new transaction."},
	{name: "transaction_read_only", def: "off", desc: "Sets the current transaction's read-only status."},
	{name: "lock_timeout", def: "0", desc: "Sets the maximum allowed duration of any wait for a lock.", check: checkDuration("lock_timeout")},
	{name: "idle_in_transaction_session_timeout", def: "0", desc: "Sets the maximum allowed idle time between queries, when in a transaction.", check: checkDuration("idle_in_transaction_session_timeout")},
	{name: "idle_session_timeout", def: "0", desc: "Sets the maximum allowed idle time between queries, when not in a transaction.", check: checkDuration("idle_session_timeout")},
	{name: "row_security", def: "on", desc: "Enable row security."},
	{name: "bytea_output", def: "hex", desc: "Sets the output format for bytea.", check: checkOneOf("hex")},
	{name: "server_version", def: ServerVersion, desc: "Shows the server version.", readOnly: true},
	{name: "server_version_num", def: "150000", desc: "Shows the server version as an integer.", readOnly: true},
	{name: "server_encoding", def: "UTF8", desc: "Shows the server (database) character set encoding.", readOnly: true},
	{name: "integer_datetimes", def: "on", desc: "Shows whether datetimes are integer based.", readOnly: true},
	{name: "max_connections", def: "100", desc: "Sets the maximum number of concurrent connections.", readOnly: true},
	{name: "superuser_reserved_connections", def: "3", desc: "Sets the number of connection slots reserved for superusers.", readOnly: true},
	{name: "max_identifier_length", def: "63", desc: "Shows the maximum identifier length.", readOnly: true},
	{name: "lc_collate", def: "C", desc: "Shows the collation order locale.", readOnly: true},
	{name: "lc_ctype", def: "C.UTF-8", desc: "Shows the character classification and case conversion locale.", readOnly: true},
	{name: "lc_messages", def: "C", desc: "Sets the language in which messages are displayed."},
	{name: "is_superuser", def: "on", desc: "Shows whether the current user is a superuser.", readOnly: true},
	// pg_dump's header sets these four; weir has one table access
	// method, one tablespace, and neither function bodies to check at
	// creation nor xml, so they only hold PostgreSQL's values.
	{name: "check_function_bodies", def: "on", desc: "Check routine bodies during CREATE FUNCTION and CREATE PROCEDURE.", check: checkBool("check_function_bodies")},
	{name: "xmloption", def: "content", desc: "Sets whether XML data in implicit parsing and serialization operations is to be considered as documents or content fragments.", check: checkEnum("xmloption", "content", "document")},
	{name: "default_tablespace", def: "", desc: "Sets the default tablespace to create tables and indexes in.", check: checkTablespace},
	{name: "default_table_access_method", def: "heap", desc: "Sets the default table access method for new tables.", check: checkTableAM},
	{name: "streaming_parallelism", def: "0", desc: "Sets the number of actors per fragment of new streaming jobs (0: number of cores).", check: checkInt(0, MaxStreamingParallelism)},
}

var settingsByName = func() map[string]*setting {
	m := make(map[string]*setting, len(settingList))
	for i := range settingList {
		m[strings.ToLower(settingList[i].name)] = &settingList[i]
	}
	return m
}()

// listSettings are the settings that take a list of values
// (PostgreSQL's GUC_LIST_INPUT); the others take one.
var listSettings = map[string]bool{"search_path": true, "datestyle": true}

// checkArgs refuses n values for a setting that takes one, as
// PostgreSQL's flatten_set_variable_args does (42601).
func checkArgs(st *setting, n int) error {
	if n > 1 && !listSettings[strings.ToLower(st.name)] {
		return pgerr.New(pgerr.SyntaxError, "SET %s takes only one argument", strings.ToLower(st.name))
	}
	return nil
}

// lookupSetting finds a setting by case-insensitive name.
func lookupSetting(name string) (*setting, error) {
	st, ok := settingsByName[strings.ToLower(name)]
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedObject, "unrecognized configuration parameter \"%s\"", name)
	}
	return st, nil
}

func sortedSettingNames() []string {
	names := make([]string, 0, len(settingList))
	for _, s := range settingList {
		if !s.noShowAll {
			names = append(names, s.name)
		}
	}
	sort.Slice(names, func(i, j int) bool { return strings.ToLower(names[i]) < strings.ToLower(names[j]) })
	return names
}

func checkOneOf(allowed ...string) func(string) (string, error) {
	return func(v string) (string, error) {
		for _, a := range allowed {
			if strings.EqualFold(v, a) {
				return a, nil
			}
		}
		return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value: \"%s\"", v).WithDetail("Only %s is supported.", strings.Join(allowed, ", "))
	}
}

func checkEncoding(v string) (string, error) {
	switch strings.ToUpper(strings.ReplaceAll(v, "-", "")) {
	case "UTF8", "UNICODE":
		return "UTF8", nil
	}
	return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"client_encoding\": \"%s\"", v).WithDetail("weir supports only UTF8.")
}

func checkDateStyle(v string) (string, error) {
	norm := strings.ToUpper(strings.ReplaceAll(v, " ", ""))
	switch norm {
	case "ISO", "ISO,MDY", "MDY,ISO", "ISO,US":
		return "ISO, MDY", nil
	}
	return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"DateStyle\": \"%s\"", v).WithDetail("weir supports only ISO, MDY.")
}

func checkInt(lo, hi int) func(string) (string, error) {
	return func(v string) (string, error) {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for integer parameter: \"%s\"", v)
		}
		if n < lo || n > hi {
			return "", pgerr.New(pgerr.InvalidParameterValue, "%d is outside the valid range for parameter (%d .. %d)", n, lo, hi)
		}
		return strconv.Itoa(n), nil
	}
}

// parseMemorySetting reads a PostgreSQL memory setting in bytes, as
// guc.c's parse_int reads work_mem (kilobytes, 64 .. 2147483647): a
// number as C's strtol reads it (leading blanks, a sign, 0x for hex, a
// leading 0 for octal) or, with a fraction or an exponent, as strtod
// does; then optionally blanks and a unit, B, kB, MB, GB or TB (kB
// without one). A fraction of a unit is rounded to the next smaller
// unit (1.5MB is 1536kB, 0.1GB is 102MB) and the result to whole
// kilobytes, half to even.
func parseMemorySetting(v string) (int64, error) {
	v = strings.Trim(v, "'")
	invalid := func() *pgerr.Error {
		return pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"work_mem\": \"%s\"", v)
	}
	val, rest, ok := parseCNumber(v)
	if !ok {
		return 0, invalid()
	}
	rest = strings.TrimLeft(rest, cSpace)
	if rest != "" {
		// The unit runs to the first blank; only blanks may follow it.
		unit, after := strings.TrimRight(rest, cSpace), ""
		if i := strings.IndexAny(unit, cSpace); i >= 0 {
			unit, after = unit[:i], unit[i:]
		}
		u, ok := memoryUnits[unit]
		if !ok || after != "" {
			return 0, invalid().WithHint("Valid units for this parameter are \"B\", \"kB\", \"MB\", \"GB\", and \"TB\".")
		}
		val *= u[0]
		if u[1] != 0 {
			val = math.RoundToEven(val/u[1]) * u[1]
		}
	}
	val = math.RoundToEven(val)
	if val > math.MaxInt32 || val < math.MinInt32 {
		return 0, invalid().WithHint("Value exceeds integer range.")
	}
	if kb := int64(val); kb < 64 {
		return 0, pgerr.New(pgerr.InvalidParameterValue, "%d kB is outside the valid range for parameter \"work_mem\" (64 .. 2147483647)", kb)
	}
	return int64(val) << 10, nil
}

// memoryUnits are the units of a memory setting: each in kilobytes, and
// the next smaller unit a fraction is rounded to (none for B).
var memoryUnits = map[string][2]float64{"B": {1.0 / 1024, 0}, "kB": {1, 1.0 / 1024}, "MB": {1 << 10, 1}, "GB": {1 << 20, 1 << 10}, "TB": {1 << 30, 1 << 20}}

// durationUnits are the units of a time setting (a number alone is in
// milliseconds).
var durationUnits = map[string]time.Duration{"": time.Millisecond, "us": time.Microsecond, "ms": time.Millisecond, "s": time.Second, "min": time.Minute, "h": time.Hour, "d": 24 * time.Hour}

// cSpace is what C's isspace accepts.
const cSpace = " \t\n\v\f\r"

// parseCNumber reads a number at the start of s as parse_int does: with
// strtol (base 0), and again with strtod when a '.', 'e' or 'E' follows
// or the integer overflows. It returns the value and the rest of s, or
// false when s does not start with a number.
func parseCNumber(s string) (float64, string, bool) {
	t := strings.TrimLeft(s, cSpace)
	i := 0
	if i < len(t) && (t[i] == '+' || t[i] == '-') {
		i++
	}
	sign := t[:i]
	base, digits := 10, "0123456789"
	switch {
	case len(t) > i+2 && t[i] == '0' && (t[i+1] == 'x' || t[i+1] == 'X') && strings.IndexByte("0123456789abcdefABCDEF", t[i+2]) >= 0:
		base, digits = 16, "0123456789abcdefABCDEF"
		i += 2
	case len(t) > i+1 && t[i] == '0':
		base, digits = 8, "01234567"
	}
	j := i
	for j < len(t) && strings.IndexByte(digits, t[j]) >= 0 {
		j++
	}
	if j == i {
		// strtol read nothing and leaves its end at s's start: only a
		// '.' there sends s to strtod.
		if s == "" || s[0] != '.' {
			return 0, s, false
		}
	} else {
		n, err := strconv.ParseInt(sign+t[i:j], base, 64)
		if err == nil && (j == len(t) || strings.IndexByte(".eE", t[j]) < 0) {
			return float64(n), t[j:], true
		}
	}
	// strtod: digits, an optional fraction, an optional exponent.
	k := 0
	if k < len(t) && (t[k] == '+' || t[k] == '-') {
		k++
	}
	d0 := k
	for k < len(t) && t[k] >= '0' && t[k] <= '9' {
		k++
	}
	nd := k - d0
	if k < len(t) && t[k] == '.' {
		k++
		f0 := k
		for k < len(t) && t[k] >= '0' && t[k] <= '9' {
			k++
		}
		nd += k - f0
	}
	if nd == 0 {
		return 0, s, false
	}
	if k < len(t) && (t[k] == 'e' || t[k] == 'E') {
		e := k + 1
		if e < len(t) && (t[e] == '+' || t[e] == '-') {
			e++
		}
		e0 := e
		for e < len(t) && t[e] >= '0' && t[e] <= '9' {
			e++
		}
		if e > e0 {
			k = e
		}
	}
	f, err := strconv.ParseFloat(t[:k], 64)
	if err != nil {
		// strtod's ERANGE: parse_int refuses the value.
		return 0, s, false
	}
	return f, t[k:], true
}

// checkMemory normalises a memory setting as SHOW prints it: in the
// largest unit that divides it (4MB, 1GB, 640kB).
func checkMemory(v string) (string, error) {
	b, err := parseMemorySetting(v)
	if err != nil {
		return "", err
	}
	kb := b >> 10
	switch {
	case kb%(1<<30) == 0:
		return strconv.FormatInt(kb>>30, 10) + "TB", nil
	case kb%(1<<20) == 0:
		return strconv.FormatInt(kb>>20, 10) + "GB", nil
	case kb%(1<<10) == 0:
		return strconv.FormatInt(kb>>10, 10) + "MB", nil
	}
	return strconv.FormatInt(kb, 10) + "kB", nil
}

// parseDurationSetting reads a Postgres time setting: a bare number is
// milliseconds; units ms, s, min, h, d are accepted.
func parseDurationSetting(v string) (time.Duration, error) {
	v = strings.TrimSpace(strings.Trim(v, "'"))
	i := 0
	for i < len(v) && (v[i] >= '0' && v[i] <= '9') {
		i++
	}
	n, err := strconv.ParseInt(v[:i], 10, 64)
	if err != nil || i == 0 {
		return 0, pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter: \"%s\"", v)
	}
	unit := strings.TrimSpace(v[i:])
	m, ok := durationUnits[unit]
	if !ok {
		return 0, pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter: \"%s\"", v).WithHint("Valid units for this parameter are \"us\", \"ms\", \"s\", \"min\", \"h\", and \"d\".")
	}
	return time.Duration(n) * m, nil
}

// checkDuration checks a time setting of milliseconds, as guc.c's
// parse_int does, with its messages: a value that does not read as one
// names the setting (22023), and so does one outside 0 .. 2147483647
// milliseconds, which it gives in milliseconds.
func checkDuration(name string) func(string) (string, error) {
	return func(v string) (string, error) {
		t := strings.TrimSpace(strings.Trim(v, "'"))
		neg := strings.HasPrefix(t, "-")
		d, err := parseDurationSetting(strings.TrimPrefix(t, "-"))
		if err != nil {
			pe := pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", name, t)
			if h := pgerr.As(err).Hint; h != "" {
				pe = pe.WithHint("%s", h)
			}
			return "", pe
		}
		ms := d.Milliseconds()
		if ms > math.MaxInt32 {
			return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", name, t).
				WithHint("Value exceeds integer range.")
		}
		if neg && ms > 0 {
			return "", pgerr.New(pgerr.InvalidParameterValue, "%d ms is outside the valid range for parameter \"%s\" (0 .. 2147483647)", -ms, name)
		}
		return formatDurationSetting(d), nil
	}
}

// formatDurationSetting prints a duration as SHOW does (0, 5s, 100ms, 1min).
func formatDurationSetting(d time.Duration) string {
	switch {
	case d == 0:
		return "0"
	case d%(24*time.Hour) == 0:
		return strconv.FormatInt(int64(d/(24*time.Hour)), 10) + "d"
	case d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	case d%time.Minute == 0:
		return strconv.FormatInt(int64(d/time.Minute), 10) + "min"
	case d%time.Second == 0:
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	return strconv.FormatInt(int64(d/time.Millisecond), 10) + "ms"
}

// loadLocation resolves a TimeZone value: IANA names, UTC/GMT/Z, and
// numeric offsets (which, as in Postgres's POSIX reading, count hours
// west of Greenwich when written as a plain number like '-8': we follow
// Postgres's SET TIME ZONE reading, where '-8' means UTC-8).
func loadLocation(v string) (*time.Location, string, error) {
	s := strings.TrimSpace(strings.Trim(v, "'"))
	switch strings.ToUpper(s) {
	case "UTC", "GMT", "Z", "ZULU", "UCT", "ETC/UTC":
		return time.UTC, canonicalUTC(s), nil
	case "LOCAL", "DEFAULT":
		return time.UTC, "UTC", nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		secs := int(f * 3600)
		name := "<" + formatOffsetName(secs) + ">" + formatPosixOffset(-secs)
		return time.FixedZone(name, secs), name, nil
	}
	loc, err := time.LoadLocation(s)
	if err != nil {
		return nil, "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"TimeZone\": \"%s\"", v)
	}
	return loc, s, nil
}

func canonicalUTC(s string) string {
	if strings.EqualFold(s, "utc") {
		return "UTC"
	}
	if strings.EqualFold(s, "gmt") {
		return "GMT"
	}
	return s
}

func formatOffsetName(secs int) string {
	sign := "+"
	if secs < 0 {
		sign = "-"
		secs = -secs
	}
	h, m := secs/3600, (secs%3600)/60
	if m != 0 {
		return sign + strconv.Itoa(h/10) + strconv.Itoa(h%10) + ":" + strconv.Itoa(m/10) + strconv.Itoa(m%10)
	}
	return sign + strconv.Itoa(h/10) + strconv.Itoa(h%10)
}

func formatPosixOffset(secs int) string {
	sign := ""
	if secs < 0 {
		sign = "-"
		secs = -secs
	} else {
		sign = "+"
	}
	h, m := secs/3600, (secs%3600)/60
	if m != 0 {
		return sign + strconv.Itoa(h) + ":" + strconv.Itoa(m/10) + strconv.Itoa(m%10)
	}
	return sign + strconv.Itoa(h)
}

func checkTimeZone(v string) (string, error) {
	_, name, err := loadLocation(v)
	return name, err
}

// checkBool reads a boolean setting as PostgreSQL's parse_bool does:
// true, false, yes, no, on, off (a prefix of each long enough to tell
// them apart), 1 and 0, in any case; SHOW then prints on or off.
func checkBool(name string) func(string) (string, error) {
	return func(v string) (string, error) {
		l := strings.ToLower(v)
		is := func(word string, min int) bool { return len(l) >= min && strings.HasPrefix(word, l) }
		switch {
		case is("true", 1), is("yes", 1), is("on", 2), l == "1":
			return "on", nil
		case is("false", 1), is("no", 1), is("off", 2), l == "0":
			return "off", nil
		}
		return "", pgerr.New(pgerr.InvalidParameterValue, "parameter \"%s\" requires a Boolean value", name)
	}
}

// checkEnum reads an enum setting as PostgreSQL does: one of allowed,
// in any case.
func checkEnum(name string, allowed ...string) func(string) (string, error) {
	return func(v string) (string, error) {
		for _, a := range allowed {
			if strings.EqualFold(v, a) {
				return a, nil
			}
		}
		return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", name, v).
			WithHint("Available values: %s.", strings.Join(allowed, ", "))
	}
}

// checkTablespace accepts the tablespaces PostgreSQL has (weir stores
// everything in one place) or none, as check_default_tablespace does.
func checkTablespace(v string) (string, error) {
	switch v {
	case "", "pg_default", "pg_global":
		return v, nil
	}
	return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"default_tablespace\": \"%s\"", v).
		WithDetail("Tablespace \"%s\" does not exist.", v)
}

// checkTableAM accepts heap, PostgreSQL's one table access method, as
// check_default_table_access_method does.
func checkTableAM(v string) (string, error) {
	invalid := pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"default_table_access_method\": \"%s\"", v)
	switch {
	case v == "":
		return "", invalid.WithDetail("default_table_access_method cannot be empty.")
	case len(v) > 63:
		return "", invalid.WithDetail("default_table_access_method is too long (maximum 63 characters).")
	case v == "btree" || v == "hash" || v == "gist" || v == "gin" || v == "spgist" || v == "brin":
		// An index access method: PostgreSQL's lookup refuses it first.
		return "", pgerr.New(pgerr.WrongObjectType, "access method \"%s\" is not of type TABLE", v)
	case v != "heap":
		return "", invalid.WithDetail("Table access method \"%s\" does not exist.", v)
	}
	return v, nil
}
