package functions

import (
	"strings"
	"testing"
)

// TestProcs checks pg_proc's list: abs's six overloads with their
// types, no binder helper or operator in it, and OIDs that stay below
// the OIDs engine/syscat gives the Kafka wrapper and server (16299).
func TestProcs(t *testing.T) {
	var abs []string
	for i, p := range Procs() {
		if p.OID != uint32(ProcOIDBase+i) {
			t.Fatalf("%s: OID %d at %d", p.Name, p.OID, i)
		}
		if q, ok := ProcByOID(p.OID); !ok || q.Name != p.Name || q.Arguments != p.Arguments {
			t.Errorf("ProcByOID(%d) = %v, %v", p.OID, q, ok)
		}
		if p.Name == "abs" {
			abs = append(abs, p.Arguments+" -> "+p.Result)
		}
		if p.Name == "neg" || p.Name == "pg_subscript" || strings.HasPrefix(p.Name, "pg_json_") || !(p.Name[0] >= 'a' && p.Name[0] <= 'z') {
			t.Errorf("pg_proc lists %s", p.Name)
		}
	}
	want := "bigint -> bigint,double precision -> double precision,integer -> integer,numeric -> numeric,real -> real,smallint -> smallint"
	if got := strings.Join(abs, ","); got != want {
		t.Errorf("abs: %s, want %s", got, want)
	}
	if n := len(Opers()); n == 0 || Opers()[n-1].OID >= 16299 {
		t.Errorf("%d operators, last OID %d", n, Opers()[n-1].OID)
	}
}
