package gemini

import (
	"strconv"
	"strings"

	"github.com/reasonreplay/replay/internal/jsonw"
)

// A response is read in one pass by a jsonw.Scanner, which validates it
// as it goes, into a chunk: the raw texts of the members the decoder
// uses. The small walkers below read parts of a text already validated
// (a part's members for its extras, a functionCall's members, partialArgs
// elements) without decoding the values.

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

// members calls fn with each member of the object obj: the key's name
// (its value, escapes decoded), the key's raw text between its quotes, and
// the value's raw JSON text. It stops when fn returns false. obj must be a
// valid JSON object.
func members(obj string, fn func(name, key, val string) bool) {
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
		name := key
		if strings.IndexByte(key, '\\') >= 0 {
			name = jsonw.Unquote(obj[i:ke])
		}
		i = skipSpace(obj, ke)
		i = skipSpace(obj, i+1) // the colon
		ve := valueEnd(obj, i)
		if !fn(name, key, obj[i:ve]) {
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

// chunk is what one pass over a GenerateContentResponse keeps: raw JSON
// texts (views of the text read), "" for a member that is absent.
type chunk struct {
	usage, model, feedback, errObj string
	createTime                     bool // a createTime member (Vertex)
	createFirst                    bool // ... before the candidates member
	candsBad                       bool // candidates is not an array
	cands                          []cand
	parts                          []partFields // the parts of every candidate, in order
}

// cand is one element of candidates, as read.
type cand struct {
	at       int // position in candidates
	idx      int // its index member, or at
	finish   string
	bad      bool // not an object: candidates read stop there
	partsBad bool // content.parts is not an array
	p0, p1   int  // its parts in chunk.parts
}

// fields appends to dst the raw texts of ch, for [shapeview.Views]: the
// fields of its candidates and parts as they are (ch must not read
// another response while the list is in use).
func (ch *chunk) fields(dst []*string) []*string {
	dst = append(dst, &ch.usage, &ch.model, &ch.feedback, &ch.errObj)
	for i := range ch.cands {
		dst = append(dst, &ch.cands[i].finish)
	}
	for i := range ch.parts {
		f := &ch.parts[i]
		dst = append(dst, &f.sig, &f.text, &f.fc, &f.kind, &f.raw)
	}
	return dst
}

// read reads the response in sc (reset on its text) in one pass into ch
// and reports whether the text is valid JSON; object is false when it is
// valid but not an object. ch is meaningful only when both are true.
func (ch *chunk) read(sc *jsonw.Scanner) (valid, object bool) {
	ch.usage, ch.model, ch.feedback, ch.errObj = "", "", "", ""
	ch.createTime, ch.createFirst, ch.candsBad = false, false, false
	ch.cands, ch.parts = ch.cands[:0], ch.parts[:0]
	var top jsonw.Object
	if !sc.Object(&top) {
		return sc.End(), false
	}
	seenCands := false
	for name, ok := sc.Member(&top); ok; name, ok = sc.Member(&top) {
		switch name {
		case "candidates":
			seenCands = true
			var a jsonw.Array
			if !sc.Array(&a) {
				ch.candsBad = true
				continue
			}
			stop := false
			for at := 0; sc.Elem(&a); at++ {
				if !stop {
					stop = ch.readCandidate(sc, at)
				}
			}
		case "usageMetadata":
			ch.usage = sc.Value()
		case "modelVersion":
			ch.model = sc.Value()
		case "promptFeedback":
			ch.feedback = sc.Value()
		case "error":
			ch.errObj = sc.Value()
		case "createTime":
			ch.createTime, ch.createFirst = true, !seenCands
		}
	}
	return sc.End(), true
}

// readCandidate reads the candidate at sc's position, at position at of
// candidates. It reports true when the candidate is not an object: the
// decoder stops there, so the candidates after it are only validated.
func (ch *chunk) readCandidate(sc *jsonw.Scanner, at int) bool {
	var o jsonw.Object
	if !sc.Object(&o) {
		ch.cands = append(ch.cands, cand{at: at, bad: true})
		return true
	}
	cd := cand{at: at, idx: at, p0: len(ch.parts)}
	for name, ok := sc.Member(&o); ok; name, ok = sc.Member(&o) {
		switch name {
		case "index":
			if n, err := strconv.Atoi(sc.Value()); err == nil {
				cd.idx = n
			}
		case "finishReason":
			cd.finish = sc.Value()
		case "content":
			cd.partsBad = !ch.readContent(sc)
		}
	}
	cd.p1 = len(ch.parts)
	ch.cands = append(ch.cands, cd)
	return false
}

// readContent reads the Content object at sc's position (a candidate's
// content, or a model turn of a request), appending its parts to
// ch.parts. It reports false when `parts` is not an array; a content that
// is not an object has no parts.
func (ch *chunk) readContent(sc *jsonw.Scanner) bool {
	var o jsonw.Object
	if !sc.Object(&o) {
		return true
	}
	ok := true
	for name, more := sc.Member(&o); more; name, more = sc.Member(&o) {
		if name != "parts" {
			continue
		}
		var a jsonw.Array
		if !sc.Array(&a) {
			ok = false
			continue
		}
		for sc.Elem(&a) {
			ch.parts = append(ch.parts, readPart(sc))
		}
	}
	return ok
}

// readPart reads the members of the part at sc's position.
func readPart(sc *jsonw.Scanner) partFields {
	var f partFields
	mark := sc.Mark()
	var o jsonw.Object
	if !sc.Object(&o) {
		f.raw = sc.Value()
		return f
	}
	for name, ok := sc.Member(&o); ok; name, ok = sc.Member(&o) {
		f.n++
		v := sc.Value()
		switch name {
		case "thoughtSignature":
			f.sig = v
		case "text":
			f.text = v
		case "thought":
			f.thought = v == "true"
			if v != "true" && v != "false" {
				f.others++ // kept verbatim
			}
		case "functionCall":
			f.fc = v
		default:
			if f.kind == "" {
				f.kind = name
			}
			f.others++
		}
	}
	f.raw = sc.Since(mark)
	return f
}
