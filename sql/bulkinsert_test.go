package sql

import (
	"strings"
	"testing"
)

func TestScanBulkInsert(t *testing.T) {
	for _, c := range []struct {
		text string
		ok   bool
	}{
		{`INSERT INTO t VALUES (1, 'a'), (2, 'b')`, true},
		{`insert into s."T" AS x (a, "B") OVERRIDING SYSTEM VALUE VALUES (-1, E'\n'), (+2.5e3, $q$x$q$), (NULL, DEFAULT), (TRUE, false)`, true},
		{`INSERT INTO t VALUES ('1'::int, '2020-01-01'::timestamp(3) with time zone), ('x'::double precision, '{1}'::int[]), ('a'::pg_catalog.text, '01'::varbit)`, true},
		{`INSERT INTO t VALUES (1), (2) ON CONFLICT (a) DO UPDATE SET b = excluded.b RETURNING *`, true},
		{`INSERT INTO t VALUES (1), (2) RETURNING a /* c */ -- d`, true},
		{`INSERT INTO t VALUES (N'a', U&'b', .5, 1e5, 1.5E-3, 7, NULL), ('a'::varchar(3), '1'::numeric(10, 2), '1'::"char", '1'::character varying(2)[], 'x'::interval(3), 1::float8, '{}'::text[][])`, true},
		{`INSERT INTO t VALUES ('1'::decimal(3, 1), '1'::timestamptz(2), '1'::time(2), '1'::timetz(2), '1'::char(2), '1'::character(2), '1'::timestamp(3) without time zone, '1'::time with time zone), (1, 2, 3, 4, 5, 6, 7, 8)`, true},
		{`INSERT INTO t VALUES (1), ('1'::int(3))`, false},                // int takes no modifier
		{`INSERT INTO t VALUES (1), ('1'::pg_catalog.numeric(3))`, false}, // nor a qualified name here
		{`INSERT INTO t VALUES (1), ('a' 'b')`, false},                    // two strings
		{`INSERT INTO t VALUES (1), (0x1f)`, false},
		{`INSERT INTO t VALUES (1), (B'01')`, false}, // the parser's to refuse
		{`INSERT INTO t VALUES (1), (X'1f')`, false},
		{`INSERT INTO t VALUES (1), ('1'::bit varying(3))`, false},
		{`INSERT INTO t VALUES (1), (1.2.3)`, false},
		{`INSERT INTO t VALUES (1)`, false},                      // one row: nothing to stream
		{`INSERT INTO t VALUES (1), (2, 3)`, false},              // lengths differ
		{`INSERT INTO t VALUES (1), (1 + 1)`, false},             // an expression
		{`INSERT INTO t VALUES (1), ($1)`, false},                // a parameter
		{`INSERT INTO t VALUES (1), (2) RETURNING $1`, false},    // a parameter after the rows
		{`INSERT INTO t VALUES (1), ((SELECT 1))`, false},        // a subquery
		{`INSERT INTO t VALUES (1), (E'\q')`, true},              // \q is q
		{`INSERT INTO t VALUES (1), (E'\u00')`, false},           // a bad escape
		{`INSERT INTO t VALUES (1), (2) LIMIT 1`, false},         // not ON or RETURNING
		{`INSERT INTO t VALUES (1), (DEFAULT::int)`, false},      // DEFAULT cast
		{`INSERT INTO t VALUES (1), ('a'::int int)`, false},      // not a type name
		{`INSERT INTO t VALUES (1), (date '2020-01-01')`, false}, // a typed literal
		{`INSERT INTO t SELECT 1 UNION VALUES (1), (2)`, false},  // not VALUES
		{`WITH x AS (SELECT 1) INSERT INTO t VALUES (1), (2)`, false},
		{`INSERT INTO t DEFAULT VALUES`, false},
	} {
		b, ok := ScanBulkInsert(c.text)
		if ok != c.ok {
			t.Errorf("%s: %v, want %v", c.text, ok, c.ok)
		}
		if ok {
			// What it takes the ordinary parser takes.
			if _, err := Parse(c.text); err != nil {
				t.Errorf("%s: %v", c.text, err)
			}
			if _, err := Parse(b.Template()); err != nil {
				t.Errorf("%s: template %q: %v", c.text, b.Template(), err)
			}
		}
	}
}

// The pieces of a long statement hold every row after the first once,
// in order, each parsing as an INSERT of its rows, and positions in them
// and in the template map back to the statement.
func TestBulkInsertPieces(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("INSERT INTO t (a, b) VALUES ")
	const n = 20000
	for i := range n {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString("(1, 'é')")
	}
	sb.WriteString(" RETURNING a")
	text := sb.String()
	b, ok := ScanBulkInsert(text)
	if !ok || b.Rows() != n || b.Pieces() < 2 {
		t.Fatalf("rows %d, pieces %d, ok %v", b.Rows(), b.Pieces(), ok)
	}
	head := "INSERT INTO t (a, b) VALUES "
	if got := b.Template(); got != head+"(1, 'é') RETURNING a" {
		t.Fatalf("template %q", got)
	}
	if got := b.First(); got != head+"(1, 'é')" {
		t.Fatalf("first row %q", got)
	}
	// "a" of RETURNING: the last character but one of the statement.
	if got, want := b.TemplatePos(len([]rune(b.Template()))), len([]rune(text)); got != want {
		t.Fatalf("template position %d, want %d", got, want)
	}
	rows := 1
	last := 0
	for i := range b.Pieces() {
		p, shift := b.Piece(i)
		if !strings.HasPrefix(p, head+"(1, 'é')") {
			t.Fatalf("piece %d starts %.40q", i, p)
		}
		rows += strings.Count(p, "(1, 'é')")
		// The piece's last character is its last row's ")".
		if got := len([]rune(p)) + shift; got <= last {
			t.Fatalf("piece %d ends at %d, not after %d", i, got, last)
		} else {
			last = got
		}
		if _, err := Parse(p); err != nil {
			t.Fatalf("piece %d: %v", i, err)
		}
	}
	if rows != n {
		t.Fatalf("pieces hold %d rows, want %d", rows, n)
	}
	if want := len([]rune(text)) - len([]rune(" RETURNING a")); last != want {
		t.Fatalf("last piece ends at %d, want %d", last, want)
	}
	if b.HeadChars() != len([]rune(head)) {
		t.Fatalf("head %d characters", b.HeadChars())
	}
}
