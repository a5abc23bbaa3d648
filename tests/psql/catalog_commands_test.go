package psql

import (
	"regexp"
	"strings"
	"testing"

	"github.com/weirdb/weir/tests/testenv"
)

// catalogCommandCases are psql meta-commands answered from pg_proc,
// pg_operator and the other catalogs psql reads beyond \d: each with
// its title, its header and lines that must be in its output (weir's
// real functions and objects). Lines are matched with runs of spaces
// collapsed.
var catalogCommandCases = []struct {
	cmd, title, header string
	lines              []string
}{
	{`\df abs`, "List of functions", "Schema | Name | Result data type | Argument data types | Type",
		[]string{"pg_catalog | abs | numeric | numeric | func", "pg_catalog | abs | integer | integer | func",
			"pg_catalog | abs | double precision | double precision | func", "(6 rows)"}},
	{`\df jsonb_extract_path`, "List of functions", "Schema | Name | Result data type | Argument data types | Type",
		[]string{"pg_catalog | jsonb_extract_path | jsonb | jsonb, VARIADIC text[] | func", "(1 row)"}},
	{`\df+ random`, "List of functions", "Schema | Name | Result data type | Argument data types | Type | Volatility | Parallel | Owner | Security | Access privileges | Language | Source code | Description",
		[]string{"pg_catalog | random | double precision | | func | volatile | safe | root | invoker | | internal | random |"}},
	// weir has no user-defined functions or aggregates.
	{`\df`, "List of functions", "Schema | Name | Result data type | Argument data types | Type", []string{"(0 rows)"}},
	{`\da`, "List of aggregate functions", "Schema | Name | Result data type | Argument data types | Description", []string{"(0 rows)"}},
	{`\da count`, "List of aggregate functions", "Schema | Name | Result data type | Argument data types | Description",
		[]string{`pg_catalog | count | bigint | "any" |`, "pg_catalog | count | bigint | * |", "(2 rows)"}},
	{`\do +`, "List of operators", "Schema | Name | Left arg type | Right arg type | Result type | Description",
		[]string{"pg_catalog | + | integer | integer | integer |", "pg_catalog | + | numeric | numeric | numeric |"}},
	{`\do`, "List of operators", "Schema | Name | Left arg type | Right arg type | Result type | Description", []string{"(0 rows)"}},
	{`\dx`, "List of installed extensions", "Name | Version | Schema | Description", []string{"(0 rows)"}},
	{`\l+`, "List of databases", "Name | Owner | Encoding | Collate | Ctype | ICU Locale | Locale Provider | Access privileges | Size | Tablespace | Description",
		[]string{"dev | root | UTF8 | C | C.UTF-8 | | libc | | | pg_default |"}},
	{`\db`, "List of tablespaces", "Name | Owner | Location", []string{"pg_default | root |", "(1 row)"}},
	{`\dd`, "Object descriptions", "Schema | Name | Object | Description", []string{"(0 rows)"}},
	{`\dc`, "List of conversions", "Schema | Name | Source | Destination | Default?", []string{"(0 rows)"}},
	{`\dL`, "List of languages", "Name | Owner | Trusted | Description", []string{"(0 rows)"}},
	{`\dy`, "List of event triggers", "Name | Event | Owner | Enabled | Function | Tags", []string{"(0 rows)"}},
	// A source is a foreign table of its connector's server: the
	// generators' (nexmark, datagen) are servers of their own, not
	// Kafka's.
	{`\des`, "List of foreign servers", "Name | Owner | Foreign-data wrapper",
		[]string{"kafka | root | kafka", "nexmark | root | nexmark", "datagen | root | datagen", "(3 rows)"}},
	// A connector has no handler or validator function: OID 0, which
	// regproc prints as "-".
	{`\dew`, "List of foreign-data wrappers", "Name | Owner | Handler | Validator",
		[]string{"kafka | root | - | -", "nexmark | root | - | -", "datagen | root | - | -", "(3 rows)"}},
	{`\det`, "List of foreign tables", "Schema | Table | Server",
		[]string{"public | bids | nexmark", "public | gen | datagen", "public | k | kafka", "(3 rows)"}},
	{`\d bids`, `Foreign table "public.bids"`, "Column | Type | Collation | Nullable | Default | FDW options",
		[]string{"Server: nexmark"}},
	{`\lo_list`, "Large objects", "ID | Owner | Description", []string{"(0 rows)"}},
	// The casts the binder applies, in their contexts; character is
	// format_type's bpchar without a typmod.
	{`\dC`, "List of casts", "Source type | Target type | Function | Implicit?",
		[]string{"integer | bigint | | yes", "bigint | integer | | in assignment", "boolean | integer | | no",
			"text | character | | yes", "timestamp without time zone | timestamp with time zone | | yes"}},
	{`\sf abs(integer)`, "", "CREATE OR REPLACE FUNCTION pg_catalog.abs(integer)",
		[]string{"RETURNS integer", "LANGUAGE internal", "IMMUTABLE PARALLEL SAFE STRICT", "AS $function$abs$function$"}},
	{`\sf concat`, "", `CREATE OR REPLACE FUNCTION pg_catalog.concat(VARIADIC "any")`, []string{"RETURNS text", "IMMUTABLE PARALLEL SAFE"}},
	{`\sv v`, "", "CREATE OR REPLACE VIEW public.v AS", []string{" SELECT t.a", "   FROM t"}},
}

// catalogCommandErrors are meta-commands that fail as on PostgreSQL.
var catalogCommandErrors = map[string]string{
	`\sf abs`:        `ERROR:  more than one function named "abs"`,
	`\sf nosuch`:     `ERROR:  function "nosuch" does not exist`,
	`\sf count(int)`: `ERROR:  function "count(int)" does not exist`,
}

// TestPsqlCatalogCommands runs psql's function, operator and object
// listings against weir: each prints its table (no error) with weir's
// own functions, operators and objects in it.
func TestPsqlCatalogCommands(t *testing.T) {
	if testenv.TargetName() == "postgres" {
		t.Log("weir's function catalog: nothing to check on PostgreSQL")
		return
	}
	dir := t.TempDir()
	w := testenv.Start(t, testenv.Options{})
	if out := psql(t, w, dir, "CREATE TABLE t (a int PRIMARY KEY);\nCREATE VIEW v AS SELECT a FROM t;\n"+
		"CREATE SOURCE bids (auction bigint, price bigint) WITH (connector = 'nexmark', nexmark.table.type = 'Bid');\n"+
		"CREATE SOURCE gen (id int) WITH (connector = 'datagen');\n"); len(out) != 0 {
		t.Fatalf("setup printed:\n%s", out)
	}
	// No broker answers there: the statement warns, and succeeds.
	if out := psql(t, w, dir, "CREATE SOURCE k (a int) WITH (connector = 'kafka', topic = 'k', "+
		"properties.bootstrap.server = '127.0.0.1:1') FORMAT PLAIN ENCODE JSON;\n"); strings.Contains(string(out), "ERROR") {
		t.Fatalf("creating a Kafka source:\n%s", out)
	}
	spaces := regexp.MustCompile(`[ \t]+`)
	norm := func(s string) string { return strings.TrimSpace(spaces.ReplaceAllString(s, " ")) }
	for _, c := range catalogCommandCases {
		out := string(psql(t, w, dir, c.cmd+"\n"))
		lines := map[string]bool{}
		for _, l := range strings.Split(out, "\n") {
			lines[norm(l)] = true
		}
		if strings.Contains(out, "ERROR") {
			t.Errorf("%s: %s", c.cmd, out)
			continue
		}
		for _, want := range append([]string{c.title, c.header}, c.lines...) {
			if want != "" && !lines[norm(want)] {
				t.Errorf("%s: no line %q in:\n%s", c.cmd, want, out)
			}
		}
	}
	for cmd, want := range catalogCommandErrors {
		if out := string(psql(t, w, dir, cmd+"\n")); !strings.Contains(out, want) {
			t.Errorf("%s: %q, want %q", cmd, out, want)
		}
	}
}
