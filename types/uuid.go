package types

import (
	"encoding/hex"

	"github.com/weirdb/weir/internal/pgerr"
)

// uuid values. A Datum holds a uuid as its output text, 36 bytes: the 16
// bytes in lower-case hex, hyphenated 8-4-4-4-12 (uuid_out). Lower-case
// hex digits sort in the order of the nibbles they spell and the hyphens
// sit at fixed places, so comparing two such strings bytewise orders them
// as PostgreSQL's uuid_cmp (memcmp of the 16 bytes) does, and equal
// values have equal strings: Compare, Hash and the casts to text need
// nothing of their own. The key and row encodings keep the 16 bytes.

// UUIDLen is the size of a uuid in bytes.
const UUIDLen = 16

// uuidTextLen is the length of a uuid's output text.
const uuidTextLen = 36

// ParseUUID parses uuid input as PostgreSQL's uuid_in does and returns
// the value in its output form. It accepts 32 hex digits in either case,
// optionally enclosed in braces, with a hyphen allowed after any group of
// four digits but the last ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
// 'A0EEBC999C0B4EF8BB6D6BB9BD380A11', '{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}');
// no white space. Anything else is 22P02 `invalid input syntax for type
// uuid: "..."`.
func ParseUUID(s string) (string, error) {
	var b [UUIDLen]byte
	if !parseUUIDBytes(s, &b) {
		return "", pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type uuid: %q", s)
	}
	return FormatUUID(b[:]), nil
}

// parseUUIDBytes is string_to_uuid: it fills b from s and reports whether
// s is valid uuid input.
func parseUUIDBytes(s string, b *[UUIDLen]byte) bool {
	i := 0
	braces := len(s) > 0 && s[0] == '{'
	if braces {
		i++
	}
	for k := 0; k < UUIDLen; k++ {
		if i+2 > len(s) {
			return false
		}
		hi, ok1 := hexNibble(s[i])
		lo, ok2 := hexNibble(s[i+1])
		if !ok1 || !ok2 {
			return false
		}
		b[k] = hi<<4 | lo
		i += 2
		if i < len(s) && s[i] == '-' && k%2 == 1 && k < UUIDLen-1 {
			i++
		}
	}
	if braces {
		if i >= len(s) || s[i] != '}' {
			return false
		}
		i++
	}
	return i == len(s)
}

func hexNibble(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// FormatUUID returns the output text of the 16 bytes b (uuid_out):
// lower-case hex in groups of 8-4-4-4-12.
func FormatUUID(b []byte) string {
	var out [uuidTextLen]byte
	j := 0
	for k := 0; k < UUIDLen; k++ {
		if k == 4 || k == 6 || k == 8 || k == 10 {
			out[j] = '-'
			j++
		}
		hex.Encode(out[j:j+2], b[k:k+1])
		j += 2
	}
	return string(out[:])
}

// UUIDBytes returns the 16 bytes of a uuid held in its output form (as a
// Datum holds it). ok is false when s is not a valid uuid text.
func UUIDBytes(s string) (b [UUIDLen]byte, ok bool) {
	ok = parseUUIDBytes(s, &b)
	return b, ok
}
