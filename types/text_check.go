package types

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/weirdb/weir/internal/pgerr"
)

// CheckText verifies that s is text weir may store: valid UTF-8 (the
// only encoding weir speaks) without NUL characters. Otherwise it returns
// Postgres's 22021 `invalid byte sequence for encoding "UTF8": 0x..`,
// showing the bytes of the sequence the offending lead byte announces, as
// pg_verify_mbstr does. Every path that brings text in from outside
// (statement text, parameters in either format, COPY, sources) checks it,
// so invalid bytes never reach stored values.
func CheckText(s string) error {
	i := 0
	for i < len(s) {
		c := s[i]
		if c != 0 && c < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 || r == 0 {
			return invalidSequence(s[i:])
		}
		i += n
	}
	return nil
}

// invalidSequence is CheckText's error for the bad sequence starting s.
func invalidSequence(s string) error {
	want := 1
	switch b := s[0]; {
	case b >= 0xc0 && b < 0xe0:
		want = 2
	case b >= 0xe0 && b < 0xf0:
		want = 3
	case b >= 0xf0 && b < 0xf8:
		want = 4
	}
	var hex strings.Builder
	for j, b := range []byte(s[:min(want, len(s))]) {
		if j > 0 {
			hex.WriteByte(' ')
		}
		fmt.Fprintf(&hex, "0x%02x", b)
	}
	return pgerr.New(pgerr.CharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\": %s", hex.String())
}
