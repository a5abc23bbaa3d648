package types

import (
	"bytes"
	"testing"
)

// TestUUIDEncodings checks a uuid is stored as its 16 bytes in keys and
// rows, and that keys of uuid[] order element-wise.
func TestUUIDEncodings(t *testing.T) {
	d := mustParse(t, "{A0EEBC99-9C0B4EF8-BB6D6BB9-BD380A11}", TUuid)
	if d.S != "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11" {
		t.Fatalf("parsed %q", d.S)
	}
	raw := []byte{0xa0, 0xee, 0xbc, 0x99, 0x9c, 0x0b, 0x4e, 0xf8, 0xbb, 0x6d, 0x6b, 0xb9, 0xbd, 0x38, 0x0a, 0x11}
	if k := AppendKey(nil, d, TUuid, false); !bytes.Equal(k, append([]byte{keyNotNull}, raw...)) {
		t.Errorf("key %x, want the marker and the 16 bytes", k)
	}
	r := AppendRow(nil, Row{d}, []T{TUuid})
	// format, column count, null bitmap, length 16, the bytes.
	if want := append([]byte{rowFormatV1, 1, 0, 16}, raw...); !bytes.Equal(r, want) {
		t.Errorf("row %x, want %x", r, want)
	}
	if got, err := DecodeRow(r, []T{TUuid}); err != nil || got[0].S != d.S {
		t.Errorf("row decoded as %q, %v", got[0].S, err)
	}
	b, err := AppendBinary(nil, d, TUuid)
	if err != nil || !bytes.Equal(b, raw) {
		t.Errorf("binary %x, %v", b, err)
	}
	for _, bad := range [][]byte{raw[:15], append(raw, 0)} {
		if _, err := ParseBinary(bad, TUuid); err == nil {
			t.Errorf("%d binary bytes parsed without error", len(bad))
		}
	}
	// uuid[] keys order element by element, bytewise within elements.
	at := T{UuidArray, -1}
	vals := []string{`{}`, `{00000000-0000-0000-0000-000000000000}`,
		`{00000000-0000-0000-0000-000000000000,ffffffff-ffff-ffff-ffff-ffffffffffff}`,
		`{7fffffff-ffff-ffff-ffff-ffffffffffff}`, `{80000000-0000-0000-0000-000000000000}`, `{NULL}`}
	var prev []byte
	for i, v := range vals {
		k := AppendKey(nil, mustParse(t, v, at), at, false)
		if i > 0 && bytes.Compare(prev, k) >= 0 {
			t.Errorf("%s does not key after %s", v, vals[i-1])
		}
		got, rest, err := DecodeKey(k, at, false)
		if err != nil || len(rest) != 0 || got.S != v {
			t.Errorf("%s decoded as %q (%d left, %v)", v, got.S, len(rest), err)
		}
		prev = k
	}
}
