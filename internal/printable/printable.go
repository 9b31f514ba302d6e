package printable

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Safe reports whether s prints as itself: valid UTF-8 with no control, format (bidi overrides,
// zero-width characters) or other non-graphic characters.
func Safe(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			return false
		}
		if !unicode.IsGraphic(r) || unicode.Is(unicode.Cf, r) {
			return false
		}
		i += size
	}
	return true
}

// String returns s unchanged when it is Safe, else s with each unsafe character escaped Go-style
// (\x00, \u202e, \xff for a byte that is not UTF-8) and a backslash escaped as \\, so the result
// is one printable line that cannot reorder or hide the text around it.
func String(s string) string {
	if Safe(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatUint(uint64(s[i])|0x100, 16)[1:])
		case r == '\\':
			b.WriteString(`\\`)
		case !unicode.IsGraphic(r) || unicode.Is(unicode.Cf, r):
			q := strconv.QuoteRuneToASCII(r) // 'x' with the escape inside the quotes
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}
