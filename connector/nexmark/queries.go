package nexmark

import (
	"embed"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The benchmark's queries, as RisingWave runs them (ci/scripts/sql/nexmark),
// in weir's SQL: each file qN.sql holds the query of one Nexmark query,
// which RisingWave's CI wraps in CREATE SINK … WITH (connector =
// 'blackhole'), and a file qN.setup.sql the statements that must run
// before it (q13's side_input table). q10 projects into the sink as
// RisingWave's version does, instead of writing files; q12 adds its
// processing-time column in a WITH query (RisingWave declares it on the
// source), so its result depends on when it runs; q13 joins with
// side_input FOR SYSTEM_TIME AS OF PROCTIME(), a process-time lookup.
// q11 is Flink's formulation (GROUP BY bidder, SESSION(date_time, gap)):
// RisingWave's CI leaves it out.
//
//go:embed queries/*.sql
var queryFiles embed.FS

// Query is one benchmark query.
type Query struct {
	// Name is q0, q1, ….
	Name string
	// SQL is the query (a SELECT over the sources person, auction and
	// bid), with its comment lines.
	SQL string
	// Tables are the sources it reads.
	Tables []TableType
	// Setup are the statements to run before the query (creating and
	// filling the tables it reads besides the sources), in order.
	Setup []string
}

// Queries returns the benchmark's queries in order (q0, q1, …, q22).
func Queries() []Query {
	ents, err := queryFiles.ReadDir("queries")
	if err != nil {
		panic(err) // embedded: cannot fail
	}
	var qs []Query
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), setupSuffix) {
			continue
		}
		b, err := queryFiles.ReadFile("queries/" + e.Name())
		if err != nil {
			panic(err)
		}
		q := Query{Name: strings.TrimSuffix(e.Name(), ".sql"), SQL: string(b)}
		body := stripComments(q.SQL)
		for _, t := range []TableType{Person, Auction, Bid} {
			name := strings.ToLower(t.String())
			for _, re := range sourceRefs {
				if slices.ContainsFunc(re.FindAllStringSubmatch(body, -1), func(m []string) bool { return strings.EqualFold(m[1], name) }) {
					q.Tables = append(q.Tables, t)
					break
				}
			}
		}
		if b, err := queryFiles.ReadFile("queries/" + q.Name + setupSuffix); err == nil {
			q.Setup = splitStatements(stripComments(string(b)))
		}
		qs = append(qs, q)
	}
	slices.SortFunc(qs, func(a, b Query) int { return queryNumber(a.Name) - queryNumber(b.Name) })
	return qs
}

// sourceRefs find the sources a query reads: after FROM or JOIN, as the
// table of a window function, or after a comma as an aliased relation
// (FROM auction A, bid B).
var sourceRefs = []*regexp.Regexp{
	regexp.MustCompile(`(?i)(?:\bfrom|\bjoin|\bhop\(|\btumble\()\s*(person|auction|bid)\b`),
	regexp.MustCompile(`(?i),\s*(person|auction|bid)\s+(?:as\s+)?[a-z]\b`),
}

// setupSuffix ends the name of a query's setup file (q13.setup.sql).
const setupSuffix = ".setup.sql"

// splitStatements splits a setup file at the semicolons that end its
// lines (its statements hold no such semicolon inside).
func splitStatements(s string) []string {
	var out []string
	for _, st := range strings.Split(s, ";\n") {
		if st = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(st), ";")); st != "" {
			out = append(out, st)
		}
	}
	return out
}

// stripComments drops the -- comment lines of a query.
func stripComments(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "--") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

func queryNumber(name string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(name, "q"))
	return n
}

// QueryByName returns the query named name (q5 or 5).
func QueryByName(name string) (Query, bool) {
	if !strings.HasPrefix(name, "q") {
		name = "q" + name
	}
	for _, q := range Queries() {
		if q.Name == name {
			return q, true
		}
	}
	return Query{}, false
}

// SourceOptions are the generator options of the benchmark's sources.
type SourceOptions struct {
	// Events is nexmark.event.num (all kinds count).
	Events int64
	// Splits is nexmark.split.num.
	Splits int
	// MinEventGapNs is nexmark.min.event.gap.in.ns (0: full speed).
	MinEventGapNs int64
	// BaseMillis is nexmark.base.time.
	BaseMillis int64
	// EventRate is nexmark.event.rate, events per second of event time
	// (0: DefaultEventRate).
	EventRate int64
	// Watermark adds WATERMARK FOR date_time AS date_time - INTERVAL '4'
	// SECOND, as RisingWave's and Flink's DDL declare it.
	Watermark bool
	// Table makes the statements CREATE TABLE … APPEND ONLY (the
	// generated events stored) instead of CREATE SOURCE.
	Table bool
}

// DDL returns the statement creating the source (or table) named as
// kind t (person, auction, bid) with all its columns.
func DDL(t TableType, o SourceOptions) string {
	var b strings.Builder
	kw := "SOURCE"
	if o.Table {
		kw = "TABLE"
	}
	fmt.Fprintf(&b, "CREATE %s %s (", kw, strings.ToLower(t.String()))
	for i, c := range Columns(t) {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %s", c.Name, c.T)
	}
	if o.Watermark {
		b.WriteString(", WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND")
	}
	b.WriteString(")")
	if o.Table {
		b.WriteString(" APPEND ONLY")
	}
	rate := o.EventRate
	if rate <= 0 {
		rate = DefaultEventRate
	}
	fmt.Fprintf(&b, " WITH (connector = 'nexmark', nexmark.table.type = '%s', nexmark.event.num = '%d', nexmark.split.num = '%d', nexmark.min.event.gap.in.ns = '%d', nexmark.event.rate = '%d', nexmark.base.time = '%d')",
		t, o.Events, max(o.Splits, 1), o.MinEventGapNs, rate, o.BaseMillis)
	return b.String()
}
