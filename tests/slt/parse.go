// Package slt runs sqllogictest files against a server that speaks the
// PostgreSQL protocol, through pgx.
//
// The format follows sqllogictest (https://sqlite.org/sqllogictest/doc/trunk/about.wiki)
// as extended by sqllogictest-rs, the dialect RisingWave's tests use.
// Records are separated by blank lines; lines starting with '#' are
// comments.
//
//	statement ok
//	CREATE TABLE t (a int PRIMARY KEY, b text)
//
//	statement error 23505
//	INSERT INTO t VALUES (1, 'x'), (1, 'y')
//
//	statement error duplicate key value
//	INSERT INTO t VALUES (1, 'x'), (1, 'y')
//
//	query IT rowsort
//	SELECT a, b FROM t
//	----
//	1 x
//	2 NULL
//
//	query I
//	SELECT a FROM t WHERE a = $1 AND b = $2
//	params: [1, "x"]
//	----
//	1
//
// `statement error` and `query error` take a five-character SQLSTATE
// (matched exactly) or a regular expression matched against the error
// message; with neither, any error passes. A query's header names one type
// letter per column (I integer, T text, R real, B boolean, ...; only the
// count is checked), an optional sort mode (nosort, the default; rowsort;
// valuesort) and an optional label, which is ignored. Expected values are
// the text format a server sends, exactly as psql shows them, joined by one
// space per row; NULL is NULL and the empty string is (empty). valuesort
// compares the multisets of single values, one or more per line.
//
// A record without parameters runs through the simple query protocol. A
// `params:` line after the SQL holds a JSON array of parameter values
// (numbers without a fraction become int64, other numbers float64, strings,
// booleans, null); the record then runs through the extended protocol the
// way pgx does by default (Parse/Describe/Bind/Execute with a cached
// statement), with results requested in text format.
//
// Control records:
//
//	include <glob>         run the matching files here (relative to this file)
//	halt                   stop running this file
//	sleep <duration>       sleep, e.g. 100ms
//	restart                stop the server cleanly, start it on the same data, reconnect
//	kill                   SIGKILL the server, start it again, reconnect
//	connection <name>      run the following records on session <name>
//	                       (created on first use; the first session is "default")
package slt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Kind is the kind of a record.
type Kind int

// Record kinds.
const (
	Statement Kind = iota
	Query
	Include
	Halt
	Sleep
	Restart
	Kill
	Connection
)

// SortMode says how a query's rows are compared.
type SortMode int

// Sort modes of sqllogictest.
const (
	NoSort SortMode = iota
	RowSort
	ValueSort
)

// Record is one parsed record of a test file.
type Record struct {
	Kind Kind
	File string // path of the file that holds the record
	Line int    // 1-based line of the record's header

	SQL string
	// Params are the extended-protocol parameter values; nil means the
	// simple protocol is used.
	Params    []any
	HasParams bool

	// ExpectError is set for `statement error` and `query error`;
	// ErrPattern is the SQLSTATE or regular expression (may be empty).
	ExpectError bool
	ErrPattern  string

	Types    string // query column type letters
	Sort     SortMode
	Label    string
	Expected []string // expected result lines, as written

	// Arg is the argument of include, sleep and connection.
	Arg string

	// resultFrom and resultTo delimit (0-based, half-open) the lines that
	// -rewrite replaces for a query: the `----` line, if any, and the
	// expected result lines.
	resultFrom, resultTo int
}

var sqlstateRE = regexp.MustCompile(`^[0-9A-Z]{5}$`)

// IsSQLSTATE reports whether an error pattern is a SQLSTATE code rather
// than a regular expression.
func IsSQLSTATE(pattern string) bool { return sqlstateRE.MatchString(pattern) }

// Parse parses the text of one test file.
func Parse(file string, text []byte) ([]Record, error) {
	lines := strings.Split(strings.ReplaceAll(string(text), "\r\n", "\n"), "\n")
	var recs []Record
	i := 0
	errf := func(line int, format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", file, line+1, fmt.Sprintf(format, args...))
	}
	for i < len(lines) {
		line := strings.TrimSpace(lines[i])
		if line == "" || strings.HasPrefix(line, "#") {
			i++
			continue
		}
		fields := strings.Fields(line)
		rec := Record{File: file, Line: i + 1}
		head := i
		i++
		// sqlBlock collects SQL lines up to a blank line or `----`, taking
		// a trailing `params:` line off.
		sqlBlock := func() error {
			var sql []string
			for i < len(lines) && strings.TrimSpace(lines[i]) != "" && strings.TrimSpace(lines[i]) != "----" {
				l := lines[i]
				if strings.HasPrefix(l, "params:") {
					dec := json.NewDecoder(strings.NewReader(strings.TrimPrefix(l, "params:")))
					dec.UseNumber()
					var raw []any
					if err := dec.Decode(&raw); err != nil {
						return errf(i, "params: want a JSON array: %v", err)
					}
					rec.Params = convertParams(raw)
					rec.HasParams = true
					i++
					continue
				}
				if rec.HasParams {
					return errf(i, "params: must follow the SQL")
				}
				sql = append(sql, l)
				i++
			}
			if len(sql) == 0 {
				return errf(head, "%s record without SQL", fields[0])
			}
			rec.SQL = strings.Join(sql, "\n")
			return nil
		}
		switch fields[0] {
		case "statement":
			rec.Kind = Statement
			if len(fields) < 2 {
				return nil, errf(head, "statement needs ok or error")
			}
			switch fields[1] {
			case "ok":
			case "error":
				rec.ExpectError = true
				rec.ErrPattern = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(strings.TrimPrefix(line, "statement")), "error"))
			default:
				return nil, errf(head, "statement %s: want ok or error", fields[1])
			}
			if err := sqlBlock(); err != nil {
				return nil, err
			}
			if i < len(lines) && strings.TrimSpace(lines[i]) == "----" {
				return nil, errf(i, "statement records have no result section")
			}
		case "query":
			rec.Kind = Query
			if len(fields) < 2 {
				return nil, errf(head, "query needs type letters or error")
			}
			if fields[1] == "error" {
				rec.ExpectError = true
				rec.ErrPattern = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(strings.TrimPrefix(line, "query")), "error"))
			} else {
				rec.Types = fields[1]
				for _, f := range fields[2:] {
					switch f {
					case "nosort":
						rec.Sort = NoSort
					case "rowsort":
						rec.Sort = RowSort
					case "valuesort":
						rec.Sort = ValueSort
					default:
						if rec.Label != "" {
							return nil, errf(head, "unexpected %q in query header", f)
						}
						rec.Label = f
					}
				}
			}
			if err := sqlBlock(); err != nil {
				return nil, err
			}
			rec.resultFrom, rec.resultTo = i, i
			if i < len(lines) && strings.TrimSpace(lines[i]) == "----" {
				if rec.ExpectError {
					return nil, errf(i, "query error records have no result section")
				}
				i++
				for i < len(lines) && strings.TrimSpace(lines[i]) != "" {
					rec.Expected = append(rec.Expected, strings.TrimRight(lines[i], " \t"))
					i++
				}
				rec.resultTo = i
			}
		case "include", "sleep", "connection":
			if len(fields) != 2 {
				return nil, errf(head, "%s takes one argument", fields[0])
			}
			rec.Kind = map[string]Kind{"include": Include, "sleep": Sleep, "connection": Connection}[fields[0]]
			rec.Arg = fields[1]
		case "halt", "restart", "kill":
			if len(fields) != 1 {
				return nil, errf(head, "%s takes no argument", fields[0])
			}
			rec.Kind = map[string]Kind{"halt": Halt, "restart": Restart, "kill": Kill}[fields[0]]
		default:
			return nil, errf(head, "unknown record %q", fields[0])
		}
		recs = append(recs, rec)
	}
	return recs, nil
}

// convertParams turns decoded JSON into Go values pgx encodes: integral
// numbers become int64 so that pgx sends them as integers.
func convertParams(raw []any) []any {
	out := make([]any, len(raw))
	for i, v := range raw {
		if n, ok := v.(json.Number); ok {
			if iv, err := n.Int64(); err == nil {
				out[i] = iv
			} else if fv, err := n.Float64(); err == nil {
				out[i] = fv
			} else {
				out[i] = n.String()
			}
			continue
		}
		out[i] = v
	}
	return out
}

// FormatValue renders one text-format value the way the files expect it.
func FormatValue(v []byte, isNull bool) string {
	switch {
	case isNull:
		return "NULL"
	case len(v) == 0:
		return "(empty)"
	}
	return string(v)
}

// rewriteFile returns text with each query record's result section
// replaced by the given lines (keyed by the record's resultFrom).
func rewriteFile(text []byte, repl map[int]struct {
	to    int
	lines []string
}) []byte {
	lines := strings.Split(strings.ReplaceAll(string(text), "\r\n", "\n"), "\n")
	var out bytes.Buffer
	for i := 0; i < len(lines); {
		if r, ok := repl[i]; ok {
			for _, l := range r.lines {
				out.WriteString(l)
				out.WriteByte('\n')
			}
			delete(repl, i)
			if r.to > i {
				// The old section is replaced; an empty one (a query
				// without `----`) is an insertion before line i.
				i = r.to
				continue
			}
		}
		out.WriteString(lines[i])
		if i < len(lines)-1 {
			out.WriteByte('\n')
		}
		i++
	}
	if r, ok := repl[len(lines)]; ok {
		// A query at the very end of a file without a final newline.
		out.WriteByte('\n')
		for _, l := range r.lines {
			out.WriteString(l)
			out.WriteByte('\n')
		}
	}
	return out.Bytes()
}
