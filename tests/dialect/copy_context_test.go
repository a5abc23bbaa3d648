package dialect

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// failingReader gives its chunks, one CopyData message each, and then
// fails, which makes pgx send CopyFail with the error's text.
type failingReader struct{ chunks []string }

func (r *failingReader) Read(p []byte) (int, error) {
	if len(r.chunks) == 0 {
		return 0, errors.New("client gave up")
	}
	n := copy(p, r.chunks[0])
	if r.chunks[0] = r.chunks[0][n:]; r.chunks[0] == "" {
		r.chunks = r.chunks[1:]
	}
	return n, nil
}

// TestCopyFailContext compares with PostgreSQL's the error of a COPY
// FROM STDIN the client abandons (CopyFail after some data) and of one
// with a bad row: the message, the SQLSTATE and the CONTEXT line, which
// names the line COPY was reading when the stream failed (the one after
// the lines it had whole, a header, a blank line and a CSV record over
// two lines counted as PostgreSQL counts them), and the rows of one that
// ends well.
func TestCopyFailContext(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := setup(t, ctx)
	for _, st := range []string{"CREATE TABLE cf (a int, b text)", "CREATE TABLE cf1 (b text)"} {
		for _, c := range []*pgx.Conn{s.weir, s.pg} {
			if pe := pgErr(ctx, c, st); pe != nil {
				t.Fatal(pe)
			}
		}
	}
	const text, csv = "COPY cf FROM STDIN", "COPY cf FROM STDIN (FORMAT csv)"
	for _, c := range []struct {
		name, stmt string
		chunks     []string
		fails      bool // the reader fails (CopyFail) after the chunks; else CopyDone
	}{
		{"no data", text, nil, true},
		{"two lines", text, []string{"1\tx\n2\ty\n"}, true},
		{"part of a line", text, []string{"1\tx\n2\ty\n3\t"}, true},
		{"two messages", text, []string{"1\tx\n", "2\ty\n"}, true},
		{"line split over messages", text, []string{"1\tx\n2\t", "y\n3"}, true},
		{"escaped characters", text, []string{"1\tx\\\\\n2\ty\\t\n"}, true},
		{"bad row then CopyFail", text, []string{"1\tx\nz\ty\n3\t"}, true},
		{"bad part of a line", text, []string{"1\tx\nz\t"}, true},
		{"csv header", "COPY cf FROM STDIN (FORMAT csv, HEADER)", []string{"a,b\n1,x\n"}, true},
		{"csv quoted newline", csv, []string{"1,\"x\ny\"\n2,z\n"}, true},
		{"csv quoted newline later", csv, []string{"1,x\n2,\"y\nz\"\n3,w\n"}, true},
		{"csv in a quoted field", csv, []string{"1,x\n2,\"y\nz"}, true},
		{"csv blank line then CopyFail", csv, []string{"1,x\n\n"}, true},
		{"bad integer", text, []string{"1\tx\n2\ty\nz\tw\n"}, false},
		{"missing column", csv, []string{"1,x\n2\n"}, false},
		{"extra column", text, []string{"1\tx\n2\ty\tz\n"}, false},
		{"csv bad row after quoted newlines", csv, []string{"1,\"a\nb\"\n2,\"c\nd\"\nz,w\n"}, false},
		{"csv blank line", csv, []string{"1,x\n\n2,y\n"}, false},
		{"csv blank lines of one column", "COPY cf1 FROM STDIN (FORMAT csv)", []string{"x\n\n\"\"\n\ny\n\n"}, false},
		{"csv blank line, NULL string", "COPY cf1 FROM STDIN (FORMAT csv, NULL 'N')", []string{"x\n\nN\n"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			run := func(conn *pgx.Conn) string {
				if pe := pgErr(ctx, conn, "TRUNCATE cf, cf1"); pe != nil {
					t.Fatal(pe)
				}
				if c.fails {
					return copyErr(ctx, conn, c.stmt, &failingReader{chunks: append([]string(nil), c.chunks...)})
				}
				data := strings.NewReader(strings.Join(c.chunks, ""))
				tag, err := conn.PgConn().CopyFrom(ctx, data, c.stmt)
				if err != nil {
					return fields(err)
				}
				rows, err := conn.PgConn().Exec(ctx, "SELECT a::text, b, b IS NULL FROM cf UNION ALL SELECT NULL, b, b IS NULL FROM cf1").ReadAll()
				if err != nil {
					return fields(err)
				}
				out := tag.String()
				for _, r := range rows[0].Rows {
					out += fmt.Sprintf(" %q", r)
				}
				return out
			}
			w, p := run(s.weir), run(s.pg)
			if w != p {
				t.Errorf("%q:\n weir     %s\n postgres %s", strings.Join(c.chunks, ""), w, p)
			}
		})
	}
}

// copyErr runs COPY ... FROM STDIN with the reader and returns its
// error's fields.
func copyErr(ctx context.Context, c *pgx.Conn, stmt string, r *failingReader) string {
	_, err := c.PgConn().CopyFrom(ctx, r, stmt)
	return fields(err)
}

// fields renders a server error's severity, SQLSTATE, message, CONTEXT
// and DETAIL.
func fields(err error) string {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		if err == nil {
			return "no error"
		}
		return "not a server error: " + err.Error()
	}
	return pe.Severity + " " + pe.Code + " " + pe.Message + " | CONTEXT " + pe.Where + " | DETAIL " + pe.Detail
}
