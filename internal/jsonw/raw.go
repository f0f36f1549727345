package jsonw

import "strings"

// RawMember returns the raw JSON text of the member key of the JSON object
// obj (which must be valid JSON, as after gjson.Valid), or "" when obj is not
// an object or has no such member. Unlike gjson's Get it never unescapes a
// string value, so it does not allocate: pair it with WriteUnquoted to copy a
// string's value straight into a builder. Member names written with escapes
// are compared by their value (which allocates; plain names do not).
func RawMember(obj, key string) string {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return ""
	}
	i++
	for {
		i = skipSpace(obj, i)
		if i >= len(obj) || obj[i] != '"' {
			return ""
		}
		kEnd := skipString(obj, i)
		if kEnd < 0 {
			return ""
		}
		k := obj[i:kEnd]
		i = skipSpace(obj, kEnd)
		if i >= len(obj) || obj[i] != ':' {
			return ""
		}
		i = skipSpace(obj, i+1)
		vEnd := skipValue(obj, i)
		if vEnd < 0 {
			return ""
		}
		if keyEquals(k, key) {
			return obj[i:vEnd]
		}
		i = skipSpace(obj, vEnd)
		if i >= len(obj) || obj[i] != ',' {
			return ""
		}
		i++
	}
}

func keyEquals(raw, key string) bool {
	if len(raw) == len(key)+2 && raw[1:len(raw)-1] == key {
		return true
	}
	if strings.IndexByte(raw, '\\') < 0 {
		return false
	}
	var b strings.Builder
	WriteUnquoted(&b, raw)
	return b.String() == key
}

func skipSpace(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

// skipString returns the index after the string literal starting at i, or
// -1. It goes from quote to quote (strings.IndexByte, which reads many
// bytes at a time): a quote ends the literal unless an odd run of
// backslashes comes right before it, the last of which escapes it. Bytes
// a valid literal cannot hold (control bytes) are stepped over.
func skipString(s string, i int) int {
	for j := i + 1; ; {
		k := strings.IndexByte(s[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		odd := false
		for b := j - 1; b > i && s[b] == '\\'; b-- {
			odd = !odd
		}
		if !odd {
			return j + 1
		}
		j++
	}
}

// skipValue returns the index after the JSON value starting at i, or -1.
// In an object or array, strings are skipped with skipString and only the
// bytes between them are scanned for brackets.
func skipValue(s string, i int) int {
	if i >= len(s) {
		return -1
	}
	switch s[i] {
	case '"':
		return skipString(s, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(s); j++ {
			switch s[j] {
			case '"':
				if j = skipString(s, j); j < 0 {
					return -1
				}
				j--
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(s) && s[j] != ',' && s[j] != '}' && s[j] != ']' && !isSpace(s[j]) {
		j++
	}
	if j == i {
		// No value here (`[}`, `{"a":,`): none is found, so that an
		// iterator over text that is not JSON ends.
		return -1
	}
	return j
}

// ExtraMembers returns the members of the JSON object obj (valid JSON)
// whose names are not in known, as one JSON object in source order, or nil
// when there are none. A name repeated in obj is kept once, the first (the
// one gjson reads), so that the result never holds a duplicate. The result
// does not alias obj.
func ExtraMembers(obj string, known ...string) []byte {
	return AppendExtraMembers(nil, obj, known...)
}

// AppendExtraMembers is ExtraMembers appending to dst (which must be
// empty, a reused buffer): it returns dst[:0] when there are none.
func AppendExtraMembers(dst []byte, obj string, known ...string) []byte {
	out := dst[:0]
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return nilIfEmpty(out)
	}
	i++
	var seenBuf [4]string
	seen := seenBuf[:0] // raw names kept so far
	for {
		i = skipSpace(obj, i)
		if i >= len(obj) || obj[i] != '"' {
			break
		}
		kEnd := skipString(obj, i)
		if kEnd < 0 {
			break
		}
		k := obj[i:kEnd]
		i = skipSpace(obj, kEnd)
		if i >= len(obj) || obj[i] != ':' {
			break
		}
		i = skipSpace(obj, i+1)
		vEnd := skipValue(obj, i)
		if vEnd < 0 {
			break
		}
		keep := true
		for _, n := range known {
			if keyEquals(k, n) {
				keep = false
				break
			}
		}
		for _, s := range seen {
			if keep && sameName(s, k) {
				keep = false
			}
		}
		if keep {
			if len(out) == 0 {
				out = append(out, '{')
			} else {
				out = append(out, ',')
			}
			out = append(out, k...)
			out = append(out, ':')
			out = append(out, obj[i:vEnd]...)
			seen = append(seen, k)
		}
		i = skipSpace(obj, vEnd)
		if i >= len(obj) || obj[i] != ',' {
			break
		}
		i++
	}
	if len(out) == 0 {
		return nilIfEmpty(out)
	}
	return append(out, '}')
}

// nilIfEmpty returns nil for a nil slice, else b (empty): a reused buffer
// stays reusable.
func nilIfEmpty(b []byte) []byte {
	if b == nil {
		return nil
	}
	return b[:0]
}

// sameName reports whether two raw member names name the same member.
func sameName(a, b string) bool {
	if a == b {
		return true
	}
	if strings.IndexByte(a, '\\') < 0 && strings.IndexByte(b, '\\') < 0 {
		return false
	}
	var x, y strings.Builder
	WriteUnquoted(&x, a)
	WriteUnquoted(&y, b)
	return x.String() == y.String()
}

// RawMembers reads the object obj (valid JSON) once and sets vals[k] to the
// raw text of member keys[k], or "" when obj has no such member (the first
// occurrence wins). It reports false when obj is not an object. It does not
// allocate when member names carry no escapes.
func RawMembers(obj string, keys []string, vals []string) bool {
	clear(vals)
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	rawMembers(obj, i, keys, vals)
	return true
}

// rawMembers reads the members of the object at s[i] ('{', valid JSON)
// into vals (cleared by the caller) and returns the index after it, or -1.
func rawMembers(s string, i int, keys []string, vals []string) int {
	i++
	for {
		i = skipSpace(s, i)
		if i >= len(s) {
			return -1
		}
		if s[i] == '}' {
			return i + 1
		}
		if s[i] != '"' {
			return -1
		}
		kEnd := skipString(s, i)
		if kEnd < 0 {
			return -1
		}
		k := s[i:kEnd]
		i = skipSpace(s, kEnd)
		if i >= len(s) || s[i] != ':' {
			return -1
		}
		i = skipSpace(s, i+1)
		vEnd := skipValue(s, i)
		if vEnd < 0 {
			return -1
		}
		for n, key := range keys {
			if vals[n] == "" && keyEquals(k, key) {
				vals[n] = s[i:vEnd]
				break
			}
		}
		i = skipSpace(s, vEnd)
		if i >= len(s) {
			return -1
		}
		switch s[i] {
		case ',':
			i++
		case '}':
			return i + 1
		default:
			return -1
		}
	}
}

// NextMembers is [NextElem] for an array of objects: when the element is
// an object, it also sets vals[k] to the raw text of its member keys[k]
// (as [RawMembers] does), in the same walk; otherwise vals are "".
func NextMembers(arr string, pos int, keys, vals []string) (elem string, next int, ok bool) {
	clear(vals)
	i := pos
	if i == 0 {
		i = skipSpace(arr, 0)
		if i >= len(arr) || arr[i] != '[' {
			return "", len(arr), false
		}
		i++
	}
	i = skipSpace(arr, i)
	if i >= len(arr) || arr[i] == ']' {
		return "", len(arr), false
	}
	var end int
	if arr[i] == '{' {
		end = rawMembers(arr, i, keys, vals)
	} else {
		end = skipValue(arr, i)
	}
	if end < 0 {
		return "", len(arr), false
	}
	elem = arr[i:end]
	j := skipSpace(arr, end)
	if j < len(arr) && arr[j] == ',' {
		j++
	}
	return elem, j, true
}

// NextElem iterates over the elements of the array arr (valid JSON): start
// with pos 0; each call returns the next element's raw text and the pos for
// the next call, or ok false when there are no more (or arr is not an
// array).
func NextElem(arr string, pos int) (elem string, next int, ok bool) {
	i, ok := NextValue(arr, pos)
	if !ok {
		return "", len(arr), false
	}
	end := skipValue(arr, i)
	if end < 0 {
		return "", len(arr), false
	}
	return arr[i:end], AfterValue(arr, end), true
}

// NextMember iterates over the members of the object obj (valid JSON) as
// [NextElem] does over an array's elements: start with pos 0; each call
// returns the next member's raw name (quotes included) and raw value and
// the pos for the next call, or ok false when there are no more (or obj is
// not an object). Strings are stepped over eight bytes at a time.
func NextMember(obj string, pos int) (name, val string, next int, ok bool) {
	name, i, ok := NextName(obj, pos)
	if !ok {
		return "", "", len(obj), false
	}
	vEnd := skipValue(obj, i)
	if vEnd < 0 {
		return "", "", len(obj), false
	}
	return name, obj[i:vEnd], AfterValue(obj, vEnd), true
}

// StringEquals reports whether the JSON string literal raw has the value s.
func StringEquals(raw, s string) bool {
	return len(raw) >= 2 && raw[0] == '"' && keyEquals(raw, s)
}

// SplitMembers splits the members of the JSON object obj (valid JSON) in
// two objects: those whose names are not in reserved, and those that are.
// Either is nil when empty.
func SplitMembers(obj []byte, reserved ...string) (plain, taken []byte) {
	s := string(obj)
	i := skipSpace(s, 0)
	if i >= len(s) || s[i] != '{' {
		return obj, nil
	}
	i++
	add := func(dst []byte, k, v string) []byte {
		if dst == nil {
			dst = append(dst, '{')
		} else {
			dst = append(dst, ',')
		}
		dst = append(dst, k...)
		dst = append(dst, ':')
		return append(dst, v...)
	}
	for {
		i = skipSpace(s, i)
		if i >= len(s) || s[i] != '"' {
			break
		}
		kEnd := skipString(s, i)
		if kEnd < 0 {
			break
		}
		k := s[i:kEnd]
		i = skipSpace(s, kEnd)
		if i >= len(s) || s[i] != ':' {
			break
		}
		i = skipSpace(s, i+1)
		vEnd := skipValue(s, i)
		if vEnd < 0 {
			break
		}
		isReserved := false
		for _, r := range reserved {
			if keyEquals(k, r) {
				isReserved = true
				break
			}
		}
		if isReserved {
			taken = add(taken, k, s[i:vEnd])
		} else {
			plain = add(plain, k, s[i:vEnd])
		}
		i = skipSpace(s, vEnd)
		if i >= len(s) || s[i] != ',' {
			break
		}
		i++
	}
	if plain != nil {
		plain = append(plain, '}')
	}
	if taken != nil {
		taken = append(taken, '}')
	}
	return plain, taken
}

// HasMember reports whether the JSON object obj (valid JSON) has a member
// (at its top level) named like one of names.
func HasMember(obj string, names ...string) bool {
	for name, _, pos, ok := NextMember(obj, 0); ok; name, _, pos, ok = NextMember(obj, pos) {
		for _, n := range names {
			if keyEquals(name, n) {
				return true
			}
		}
	}
	return false
}

// Rebuilt reports whether the JSON object obj (valid JSON) is exactly what
// a reader rebuilds from its members, each written "name":value and joined
// by commas (no white space outside the values), and no member is named
// like one of reserved: then its members may stand beside an object's own
// and be read back byte for byte.
func Rebuilt(obj string, reserved ...string) bool {
	if len(obj) < 2 || obj[0] != '{' || obj[len(obj)-1] != '}' {
		return false
	}
	at := 1
	for name, val, pos, ok := NextMember(obj, 0); ok; name, val, pos, ok = NextMember(obj, pos) {
		for _, n := range reserved {
			if keyEquals(name, n) {
				return false
			}
		}
		// The member starts where the one before it ended, after a comma.
		if at > 1 {
			if obj[at] != ',' {
				return false
			}
			at++
		}
		if !strings.HasPrefix(obj[at:], name) || at+len(name) >= len(obj) || obj[at+len(name)] != ':' ||
			!strings.HasPrefix(obj[at+len(name)+1:], val) {
			return false
		}
		at += len(name) + 1 + len(val)
	}
	return at == len(obj)-1
}
