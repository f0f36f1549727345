package anthropic

import (
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/tidwall/gjson"
)

// bytesString views b as a string without copying. The string is valid only
// while b is; use it for transient reads and copy whatever is kept.
func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// stringBytes views s as a byte slice without copying; the slice must not
// be written to.
func stringBytes(s string) []byte {
	if s == "" {
		return nil
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// writeStr appends the decoded value of the JSON string v to sb without an
// intermediate allocation. v must be a gjson string result from valid JSON.
func writeStr(sb *strings.Builder, v gjson.Result) {
	raw := v.Raw
	if len(raw) < 2 {
		return
	}
	s := raw[1 : len(raw)-1]
	if strings.IndexByte(s, '\\') < 0 {
		sb.WriteString(s)
		return
	}
	for len(s) > 0 {
		i := strings.IndexByte(s, '\\')
		if i < 0 {
			sb.WriteString(s)
			return
		}
		sb.WriteString(s[:i])
		s = s[i:]
		if len(s) < 2 {
			return
		}
		switch s[1] {
		case '"', '\\', '/':
			sb.WriteByte(s[1])
		case 'b':
			sb.WriteByte('\b')
		case 'f':
			sb.WriteByte('\f')
		case 'n':
			sb.WriteByte('\n')
		case 'r':
			sb.WriteByte('\r')
		case 't':
			sb.WriteByte('\t')
		case 'u':
			r, n := unicodeEscape(s)
			sb.WriteRune(r)
			s = s[n:]
			continue
		}
		s = s[2:]
	}
}

// unicodeEscape decodes the \uXXXX escape (and a following low surrogate)
// at the start of s, returning the rune and the bytes consumed. Lone or
// broken surrogates become U+FFFD, as encoding/json does.
func unicodeEscape(s string) (rune, int) {
	r, ok := hex4(s)
	if !ok {
		return utf8.RuneError, 2
	}
	if r >= 0xD800 && r < 0xDC00 {
		if len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
			if r2, ok := hex4(s[6:]); ok && r2 >= 0xDC00 && r2 < 0xE000 {
				return (r-0xD800)<<10 | (r2 - 0xDC00) + 0x10000, 12
			}
		}
		return utf8.RuneError, 6
	}
	if r >= 0xDC00 && r < 0xE000 {
		return utf8.RuneError, 6
	}
	return r, 6
}

func hex4(s string) (rune, bool) {
	if len(s) < 6 {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[2:6]) {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
