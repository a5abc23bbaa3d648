package durability

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weirdb/weir/tests/testenv"
)

// uuidViews are the materialized views of TestUUIDViewsSurviveKill: a
// uuid as the group key, as a join key and as a DISTINCT key.
var uuidViews = []struct{ name, query string }{
	{"by_acct", "SELECT acct, count(*) AS n, sum(amount) AS s FROM ev GROUP BY acct"},
	{"named", "SELECT a.id, a.name, count(*) AS n FROM acct a JOIN ev e ON e.acct = a.id GROUP BY a.id, a.name"},
	{"accts", "SELECT DISTINCT acct FROM ev"},
}

// accountIDs returns n uuids whose first bytes differ in the high bit
// and in their last byte only, so that bytewise order, the sign of the
// first byte and long common prefixes all matter.
func accountIDs(n int) [][16]byte {
	out := make([][16]byte, n)
	for i := range out {
		out[i][0] = byte(i%2) << 7
		out[i][6] = 0x40
		out[i][8] = 0x80
		out[i][15] = byte(i)
	}
	return out
}

func uuidText(b [16]byte) string {
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// uuidModel is what the events table holds: per account, the amounts of
// its events.
type uuidModel map[[16]byte][]int

// byAcct is the expected content of the by_acct view.
func (m uuidModel) byAcct() []string {
	out := []string{}
	for acct, amounts := range m {
		if len(amounts) == 0 {
			continue
		}
		s := 0
		for _, a := range amounts {
			s += a
		}
		out = append(out, fmt.Sprintf("%s|%d|%d", uuidText(acct), len(amounts), s))
	}
	slices.Sort(out)
	return out
}

// checkUUIDViews compares each view with its query run as a batch query
// and by_acct with the model.
func checkUUIDViews(t *testing.T, ctx context.Context, conn *pgx.Conn, m uuidModel, when string) {
	t.Helper()
	exec1(t, ctx, conn, "FLUSH")
	for _, v := range uuidViews {
		got, err := testenv.TextRows(ctx, conn, "SELECT * FROM "+v.name)
		if err != nil {
			t.Fatalf("%s: %s: %v", when, v.name, err)
		}
		want, err := testenv.TextRows(ctx, conn, v.query)
		if err != nil {
			t.Fatalf("%s: %s query: %v", when, v.name, err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s: view %s differs from its query:\nview:  %v\nquery: %v", when, v.name, got, want)
		}
	}
	got, err := testenv.TextRows(ctx, conn, "SELECT * FROM by_acct")
	if err != nil {
		t.Fatal(err)
	}
	if want := m.byAcct(); !slices.Equal(got, want) {
		t.Fatalf("%s: by_acct\ngot:  %v\nwant: %v", when, got, want)
	}
}

// TestUUIDViewsSurviveKill keeps materialized views grouped, joined and
// made distinct by uuid columns across a SIGKILL and a clean restart:
// the views' state, keyed by uuid, must come back and go on taking
// changes, including retractions from groups written before the crash.
// Parameters travel in pgx's binary uuid format and results are read in
// binary too.
func TestUUIDViewsSurviveKill(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	target := testenv.Start(t, testenv.Options{})
	conn := connect(t, ctx, target)
	exec1(t, ctx, conn, "CREATE TABLE acct (id uuid PRIMARY KEY, name text)")
	exec1(t, ctx, conn, "CREATE TABLE ev (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), acct uuid, amount int)")
	accts := accountIDs(6)
	for i, a := range accts {
		exec1(t, ctx, conn, "INSERT INTO acct VALUES ($1, $2)", a, fmt.Sprintf("acct%d", i))
	}
	for _, v := range uuidViews {
		exec1(t, ctx, conn, "CREATE MATERIALIZED VIEW "+v.name+" AS "+v.query)
	}
	m := uuidModel{}
	// Events for the first five accounts: account i gets i+1 events of
	// amounts 10*i+k. The ids come from gen_random_uuid.
	for i, a := range accts[:5] {
		for k := 0; k <= i; k++ {
			exec1(t, ctx, conn, "INSERT INTO ev (acct, amount) VALUES ($1, $2)", a, 10*i+k)
			m[a] = append(m[a], 10*i+k)
		}
	}
	checkUUIDViews(t, ctx, conn, m, "before the kill")
	checkBinaryUUIDs(t, ctx, conn)

	target.Kill()
	target.Restart()
	conn = connect(t, ctx, target)
	checkUUIDViews(t, ctx, conn, m, "after the kill")

	// Retract from groups written before the crash and add a new group.
	exec1(t, ctx, conn, "DELETE FROM ev WHERE acct = $1", accts[1])
	delete(m, accts[1])
	exec1(t, ctx, conn, "UPDATE ev SET amount = amount + 1 WHERE acct = $1", accts[4])
	for k := range m[accts[4]] {
		m[accts[4]][k]++
	}
	exec1(t, ctx, conn, "UPDATE ev SET acct = $1 WHERE acct = $2", accts[5], accts[2])
	m[accts[5]], m[accts[2]] = m[accts[2]], nil
	exec1(t, ctx, conn, "INSERT INTO ev (acct, amount) VALUES ($1, 7)", accts[0])
	m[accts[0]] = append(m[accts[0]], 7)
	checkUUIDViews(t, ctx, conn, m, "after changes following the kill")

	target.Restart()
	conn = connect(t, ctx, target)
	checkUUIDViews(t, ctx, conn, m, "after a clean restart")
	checkBinaryUUIDs(t, ctx, conn)
	// The uuid primary key still refuses a duplicate after the restarts.
	var id [16]byte
	if err := conn.QueryRow(ctx, "SELECT id FROM ev LIMIT 1").Scan(&id); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO ev VALUES ($1, NULL, 0)", id); sqlstateOf(err) != "23505" {
		t.Fatalf("duplicate uuid key: err=%v, want SQLSTATE 23505", err)
	}
}

// checkBinaryUUIDs reads uuids in binary result format: a uuid column is
// OID 2950, its value the 16 bytes whose text form is the column's
// ::text, and ORDER BY orders the bytes as memcmp does.
func checkBinaryUUIDs(t *testing.T, ctx context.Context, conn *pgx.Conn) {
	t.Helper()
	rs, err := conn.Query(ctx, "SELECT id, id::text AS txt, acct FROM ev ORDER BY id",
		pgx.QueryResultFormats{pgx.BinaryFormatCode, pgx.BinaryFormatCode, pgx.BinaryFormatCode})
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	if fd := rs.FieldDescriptions(); fd[0].DataTypeOID != 2950 || fd[0].Format != pgx.BinaryFormatCode || fd[0].DataTypeSize != 16 {
		t.Fatalf("uuid column described as %+v", fd[0])
	}
	var prev []byte
	n := 0
	for rs.Next() {
		raw := rs.RawValues()
		if len(raw[0]) != 16 {
			t.Fatalf("binary uuid of %d bytes: %x", len(raw[0]), raw[0])
		}
		var id [16]byte
		copy(id[:], raw[0])
		if uuidText(id) != string(raw[1]) {
			t.Fatalf("binary uuid %x, text %q", raw[0], raw[1])
		}
		if prev != nil && bytes.Compare(prev, raw[0]) >= 0 {
			t.Fatalf("ORDER BY id: %x before %x", prev, raw[0])
		}
		// The version 4 nibble and the RFC 4122 variant of gen_random_uuid.
		if id[6]>>4 != 4 || id[8]>>6 != 2 {
			t.Fatalf("gen_random_uuid gave %s", uuidText(id))
		}
		var acct *[16]byte
		if err := rs.Scan(nil, nil, &acct); err != nil {
			t.Fatal(err)
		}
		prev = append(prev[:0], raw[0]...)
		n++
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no events read")
	}
}
