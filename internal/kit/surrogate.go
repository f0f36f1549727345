package kit

// LoneSurrogate reports whether the raw JSON string token raw (with its
// quotes and escapes as they came) holds a `\uD800`-`\uDFFF` escape that is
// not one half of a high-low pair. gjson and encoding/json read such an
// escape as U+FFFD, which alters the bytes of a signature or ciphertext:
// decoders refuse it where bytes are signed.
func LoneSurrogate(raw string) bool {
	for i := 0; i+5 < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		if raw[i+1] != 'u' {
			i++ // skip the escaped character (it may be a backslash)
			continue
		}
		r, ok := hex4(raw[i+2 : i+6])
		if !ok {
			continue
		}
		switch {
		case r >= 0xD800 && r < 0xDC00:
			if i+11 < len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
				if lo, ok := hex4(raw[i+8 : i+12]); ok && lo >= 0xDC00 && lo < 0xE000 {
					i += 11
					continue
				}
			}
			return true
		case r >= 0xDC00 && r < 0xE000:
			return true
		}
		i += 5
	}
	return false
}

func hex4(s string) (rune, bool) {
	var r rune
	for i := 0; i < 4; i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
