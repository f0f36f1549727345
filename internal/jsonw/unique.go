package jsonw

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Duplicate reports the first object member whose name repeats an earlier
// member of the same object, anywhere in s (JSON; on other text it reports
// what it can and never fails), as a
// JSON Pointer (RFC 6901) to the repeated member. Names are compared as
// decoded strings, so "a" and "\u0061" are the same name.
//
// This library refuses JSON with a repeated name everywhere it reads
// untrusted input: parsers disagree on which of two members counts (gjson
// reads the first, most servers the last), so a document whose meaning
// depends on the reader is refused rather than read one way and sent on to
// be read the other. The scan is iterative: depth costs no stack.
func Duplicate(s string) (ptr string, found bool) {
	var stack []dupFrame
	var path []string
	var sb strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case isSpace(c) || c == ',' || c == ':':
			i++
		case c == '{' || c == '[':
			stack = append(stack, dupFrame{object: c == '{'})
			if c == '[' {
				path = append(path, "0")
			}
			i++
			if c == '{' {
				path = append(path, "")
			}
		case c == '}' || c == ']':
			if len(stack) == 0 {
				return "", false // not JSON: nothing to say about names
			}
			stack = stack[:len(stack)-1]
			path = path[:len(path)-1]
			i++
			i = afterValue(s, i, stack, path)
		case c == '"':
			j := skipString(s, i)
			if j < 0 {
				return "", false
			}
			top := len(stack) - 1
			if top >= 0 && stack[top].object && isKey(s, j) {
				name := decodeName(&sb, s[i:j])
				if stack[top].seen(name) {
					path[len(path)-1] = escapeToken(name)
					return "/" + strings.Join(path, "/"), true
				}
				path[len(path)-1] = escapeToken(name)
				i = j
				continue
			}
			i = afterValue(s, j, stack, path)
		default:
			j := i
			for j < len(s) && s[j] != ',' && s[j] != '}' && s[j] != ']' && !isSpace(s[j]) {
				j++
			}
			i = afterValue(s, j, stack, path)
		}
	}
	return "", false
}

// dupFrame is one open object or array of the scan.
type dupFrame struct {
	object bool
	keys   []string
	set    map[string]struct{}
	index  int // the element index, in an array
}

// seen reports whether the object already has a member named name, and
// records it. Small objects compare a list; large ones use a set, so that an
// object of many members costs linear time.
func (f *dupFrame) seen(name string) bool {
	if f.set != nil {
		if _, ok := f.set[name]; ok {
			return true
		}
		f.set[name] = struct{}{}
		return false
	}
	for _, k := range f.keys {
		if k == name {
			return true
		}
	}
	f.keys = append(f.keys, name)
	if len(f.keys) > 16 {
		f.set = make(map[string]struct{}, 2*len(f.keys))
		for _, k := range f.keys {
			f.set[k] = struct{}{}
		}
	}
	return false
}

// afterValue advances the array index of the innermost array after one of
// its elements ends at i, and returns i.
func afterValue(_ string, i int, stack []dupFrame, path []string) int {
	if top := len(stack) - 1; top >= 0 && !stack[top].object {
		stack[top].index++
		path[len(path)-1] = strconv.Itoa(stack[top].index)
	}
	return i
}

// isKey reports whether the string that ends at j is followed by a colon.
func isKey(s string, j int) bool {
	j = skipSpace(s, j)
	return j < len(s) && s[j] == ':'
}

// decodeName returns the decoded name of a raw key (with its quotes).
func decodeName(sb *strings.Builder, raw string) string {
	if strings.IndexByte(raw, '\\') < 0 {
		return raw[1 : len(raw)-1]
	}
	sb.Reset()
	WriteUnquoted(sb, raw)
	return sb.String()
}

// escapeToken escapes a name for a JSON Pointer.
func escapeToken(k string) string {
	if !strings.ContainsAny(k, "~/") {
		return k
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
}

// Explain says why [Valid] refuses s, in words a caller can act on: empty
// input, invalid UTF-8 (and where), nesting deeper than the limit, a
// repeated member name (and its JSON Pointer), or not JSON (and where). It
// returns "" when s is valid. It is the slow path: call it only after
// Valid failed.
func Explain(s string) string {
	if len(strings.TrimSpace(s)) == 0 {
		return "empty input"
	}
	if !utf8.ValidString(s) {
		for i := 0; i < len(s); {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n <= 1 {
				return "invalid UTF-8 at byte " + strconv.Itoa(i)
			}
			i += n
		}
	}
	if d := maxNesting(s); d > maxDepth {
		return "JSON nested " + strconv.Itoa(d) + " deep, deeper than the limit of " + strconv.Itoa(maxDepth)
	}
	i, ok := value(s, skipSpace(s, 0), 0)
	if ok && skipSpace(s, i) == len(s) {
		return ""
	}
	if ptr, dup := Duplicate(s); dup {
		return "the member name at " + ptr + " repeats an earlier member of the same object"
	}
	if ok {
		i = skipSpace(s, i)
		return "more than one JSON value (the second at byte " + strconv.Itoa(i) + ")"
	}
	return "not valid JSON (at byte " + strconv.Itoa(i) + ")"
}

// maxNesting returns the deepest nesting of objects and arrays in s,
// counted without recursion (strings skipped).
func maxNesting(s string) int {
	depth, deepest := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			j := skipString(s, i)
			if j < 0 {
				return deepest
			}
			i = j - 1
		case '{', '[':
			depth++
			deepest = max(deepest, depth)
		case '}', ']':
			depth--
		}
	}
	return deepest
}
