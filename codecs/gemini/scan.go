package gemini

import (
	"strings"
)

// A small scanner over JSON text that jsonw.ValidBytes has already
// accepted. It walks members and elements without decoding the values, so
// that long text values are unescaped once (by jsonw.WriteUnquoted),
// straight into the decoder's buffer, instead of once per lookup.

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

// valueEnd returns the end offset of the JSON value starting at s[i].
func valueEnd(s string, i int) int {
	switch s[i] {
	case '"':
		j := i + 1
		for {
			k := strings.IndexByte(s[j:], '"')
			if k < 0 {
				return len(s)
			}
			j += k
			n := 0
			for m := j - 1; m > i && s[m] == '\\'; m-- {
				n++
			}
			if n%2 == 0 {
				return j + 1
			}
			j++
		}
	case '{', '[':
		depth := 0
		for j := i; j < len(s); j++ {
			switch s[j] {
			case '"':
				j = valueEnd(s, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(s)
	}
	j := i
	for j < len(s) && s[j] != ',' && s[j] != '}' && s[j] != ']' && !isSpace(s[j]) {
		j++
	}
	return j
}

// members calls fn with each member of the object obj: the key's raw text
// between its quotes, and the value's raw JSON text. It stops when fn
// returns false. obj must be a valid JSON object.
func members(obj string, fn func(key, val string) bool) {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return
	}
	i++
	for {
		i = skipSpace(obj, i)
		if i >= len(obj) || obj[i] == '}' {
			return
		}
		if obj[i] == ',' {
			i++
			continue
		}
		ke := valueEnd(obj, i)
		key := obj[i+1 : ke-1]
		i = skipSpace(obj, ke)
		i = skipSpace(obj, i+1) // the colon
		ve := valueEnd(obj, i)
		if !fn(key, obj[i:ve]) {
			return
		}
		i = ve
	}
}

// elements calls fn with each element's raw JSON text of the array arr.
func elements(arr string, fn func(val string) bool) {
	i := skipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return
	}
	i++
	for {
		i = skipSpace(arr, i)
		if i >= len(arr) || arr[i] == ']' {
			return
		}
		if arr[i] == ',' {
			i++
			continue
		}
		ve := valueEnd(arr, i)
		if !fn(arr[i:ve]) {
			return
		}
		i = ve
	}
}

func isString(raw string) bool { return len(raw) >= 2 && raw[0] == '"' }
func isObject(raw string) bool { return len(raw) >= 2 && raw[0] == '{' }
func isArray(raw string) bool  { return len(raw) >= 2 && raw[0] == '[' }

// unescapedLen returns an upper bound of the decoded length of the JSON
// string raw (with quotes).
func unescapedLen(raw string) int { return len(raw) - 2 }

// object walks the members of the object that starts at s[i] in one pass:
// fn gets each key and the offset of its value, and returns the value's
// end offset, or -1 to have the value skipped. object returns the end of
// the object. It lets a decoder descend into the members it wants without
// scanning them twice.
func object(s string, i int, fn func(key string, vi int) int) int {
	i = skipSpace(s, i)
	if i >= len(s) || s[i] != '{' {
		return i
	}
	i++
	for {
		i = skipSpace(s, i)
		if i >= len(s) {
			return i
		}
		switch s[i] {
		case '}':
			return i + 1
		case ',':
			i++
			continue
		}
		ke := valueEnd(s, i)
		key := s[i+1 : ke-1]
		i = skipSpace(s, ke)
		i = skipSpace(s, i+1) // the colon
		e := fn(key, i)
		if e < 0 {
			e = valueEnd(s, i)
		}
		i = e
	}
}

// array is [object] for the elements of the array that starts at s[i].
func array(s string, i int, fn func(vi int) int) int {
	i = skipSpace(s, i)
	if i >= len(s) || s[i] != '[' {
		return i
	}
	i++
	for {
		i = skipSpace(s, i)
		if i >= len(s) {
			return i
		}
		switch s[i] {
		case ']':
			return i + 1
		case ',':
			i++
			continue
		}
		e := fn(i)
		if e < 0 {
			e = valueEnd(s, i)
		}
		i = e
	}
}
