package sql

import "strings"

// QuoteIdent quotes an identifier when Postgres would need it to be read
// back as the same name: anything but a lower-case identifier (letters,
// digits after the first character, underscores) is double-quoted, with
// inner quotes doubled. Key words are not quoted.
func QuoteIdent(s string) string {
	ok := s != ""
	for i, r := range s {
		if !(r == '_' || (r >= 'a' && r <= 'z') || (i > 0 && r >= '0' && r <= '9')) {
			ok = false
		}
	}
	if ok {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
