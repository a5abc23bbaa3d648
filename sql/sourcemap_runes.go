package sql

import "unicode/utf8"

// runeStride is the spacing, in bytes, of the character counts SourceMap
// keeps to turn byte offsets into character positions.
const runeStride = 256

// runeIndex holds, for the first character that starts at or after every
// runeStride bytes of a text, its byte offset and the number of
// characters before it. The binder asks for the position of almost every
// node, so counting characters from the start each time would make
// binding quadratic in the statement's length.
type runeIndex struct {
	offs   []int
	counts []int
}

// newRuneIndex indexes text.
func newRuneIndex(text string) runeIndex {
	var x runeIndex
	next, c := 0, 0
	for i := range text {
		if i >= next {
			x.offs = append(x.offs, i)
			x.counts = append(x.counts, c)
			next = i - i%runeStride + runeStride
		}
		c++
	}
	x.offs = append(x.offs, len(text))
	x.counts = append(x.counts, c)
	return x
}

// runeCount returns the number of characters in the first n bytes of the
// statement text (m.src from m.base).
func (m *SourceMap) runeCount(n int) int {
	text := m.src[m.base:]
	x := &m.runes
	if len(x.offs) == 0 {
		return utf8.RuneCountInString(text[:n])
	}
	k := min(n/runeStride, len(x.offs)-1)
	for k > 0 && x.offs[k] > n {
		k--
	}
	return x.counts[k] + utf8.RuneCountInString(text[x.offs[k]:n])
}
