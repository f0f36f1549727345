package sessions

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/tidwall/gjson"
)

func itoa(i int) string { return strconv.Itoa(i) }

// pointerEscape escapes one JSON Pointer reference token (RFC 6901).
func pointerEscape(tok string) string {
	if !strings.ContainsAny(tok, "~/") {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

// pointer builds a JSON Pointer from reference tokens.
func pointer(toks ...string) string {
	var b strings.Builder
	for _, t := range toks {
		b.WriteByte('/')
		b.WriteString(pointerEscape(t))
	}
	return b.String()
}

// pointerTokens splits a JSON Pointer into its unescaped tokens.
func pointerTokens(p string) []string {
	if p == "" {
		return nil
	}
	parts := strings.Split(p[1:], "/")
	for i, t := range parts {
		if strings.Contains(t, "~") {
			parts[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
		}
	}
	return parts
}

// gjsonPath turns a JSON Pointer into the path syntax of gjson and sjson,
// escaping the characters that syntax gives a meaning to.
func gjsonPath(p string) string {
	toks := pointerTokens(p)
	var b strings.Builder
	for i, t := range toks {
		if i > 0 {
			b.WriteByte('.')
		}
		for j := 0; j < len(t); j++ {
			switch c := t[j]; c {
			case '.', '*', '?', '|', '#', '@', '\\', '!', '=', '<', '>', '%', '(', ')', '[', ']', '{', '}', ',', ':', '"':
				b.WriteByte('\\')
				b.WriteByte(c)
			default:
				b.WriteByte(c)
			}
		}
	}
	return b.String()
}

func jsonUnmarshalString(raw []byte, s *string) error { return json.Unmarshal(raw, s) }

// str returns the string value of v, and whether v is a string.
func str(v gjson.Result) (string, bool) {
	if v.Type != gjson.String {
		return "", false
	}
	return v.Str, true
}

// quote returns s as a JSON string literal (HTML characters left alone).
func quote(s string) []byte {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return []byte(strings.TrimSuffix(b.String(), "\n"))
}

// explainJSON says why data is not JSON the readers take.
func explainJSON(data []byte) string { return jsonw.Explain(string(data)) }

// clone copies a string read from a record, so that keeping it does not
// keep the record's bytes.
func clone(s string) string { return strings.Clone(s) }
