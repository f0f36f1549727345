package chatstream

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/gemsig"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/view"
)

// The edits of this file read a message once, as raw spans (jsonw's
// NextMember and NextElem), and write the result in one buffer. They make
// the bytes the gjson/sjson edits they replace made (FuzzStrip and the
// codecs' FuzzPatch hold them to those): a member is deleted as
// sjson.Delete deleted it, set as sjson.Set set it.

// off returns where the view x lies in s.
func off(s, x string) int {
	i, _ := view.Offset(s, x)
	return i
}

func isWS(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipWS(s string, i int) int {
	for i < len(s) && isWS(s[i]) {
		i++
	}
	return i
}

// IsObject reports whether the JSON value msg (valid JSON) is an object.
func IsObject(msg []byte) bool {
	i := skipWS(view.String(msg), 0)
	return i < len(msg) && msg[i] == '{'
}

// nextElem is jsonw.NextElem, which stops at an empty element (bytes that
// are not JSON: Strip reads what it is given).
func nextElem(arr string, pos int) (string, int, bool) {
	el, next, ok := jsonw.NextElem(arr, pos)
	return el, next, ok && el != ""
}

// cut is a span of a message an edit removes (fill 0) or replaces.
type cut struct {
	a, b int
	fill uint8 // cutContent: the content array rebuilt without its thinking blocks
}

const cutContent = 1

// memberCut returns the span sjson.Delete removed to delete the member of
// the object s[open:] whose name starts at name and whose value ends at
// end: from the comma before it, or, for the first member, from after the
// brace to the comma after it.
func memberCut(s string, open, name, end int) cut {
	i := name - 1
	for i > open && isWS(s[i]) {
		i--
	}
	if i > open && s[i] == ',' {
		return cut{a: i, b: end}
	}
	j := skipWS(s, end)
	if j < len(s) && s[j] == ',' {
		end = j + 1
	}
	return cut{a: open + 1, b: end}
}

// thinking reports whether the content element el is a thinking block: an
// object whose type is "thinking".
func thinking(el string) bool {
	if el[0] != '{' {
		return false
	}
	for name, val, pos, ok := jsonw.NextMember(el, 0); ok; name, val, pos, ok = jsonw.NextMember(el, pos) {
		if jsonw.StringEquals(name, "type") {
			return jsonw.StringEquals(val, "thinking")
		}
	}
	return false
}

// member returns the value of the first member of the object obj named
// name, or "" (also when obj is not an object).
func member(obj, name string) string {
	if obj == "" || obj[0] != '{' {
		return ""
	}
	for n, val, pos, ok := jsonw.NextMember(obj, 0); ok; n, val, pos, ok = jsonw.NextMember(obj, pos) {
		if jsonw.StringEquals(n, name) {
			return val
		}
	}
	return ""
}

// sigCut returns the cut that deletes thought_signature from the object
// host (a view of s), if it has one.
func sigCut(s, host string) (cut, bool) {
	if host == "" || host[0] != '{' {
		return cut{}, false
	}
	for n, val, pos, ok := jsonw.NextMember(host, 0); ok; n, val, pos, ok = jsonw.NextMember(host, pos) {
		if jsonw.StringEquals(n, "thought_signature") {
			return memberCut(s, off(s, host), off(s, n), off(s, val)+len(val)), true
		}
	}
	return cut{}, false
}

var stripNames = [...]string{"reasoning_details", "reasoning_content", "reasoning"}

var stripChanges = [...]codecs.Change{
	{Pointer: "/reasoning_details", Removed: true, Detail: "reasoning_details removed"},
	{Pointer: "/reasoning_content", Removed: true, Detail: "reasoning_content removed"},
	{Pointer: "/reasoning", Removed: true, Detail: "reasoning removed"},
}

// Strip removes the reasoning of a chat assistant message: the reasoning
// members, the thinking blocks of a typed content array (Mistral, Cohere),
// and the thought signatures Gemini's OpenAI-compatible endpoints attach
// to tool calls (`extra_content.google` or `.vertex`). raw is an element
// of a request (valid JSON); a message with nothing to strip is returned
// as it is, and bytes that are not a JSON object are too.
func Strip(raw []byte) ([]byte, []codecs.Change) { return strip(raw, true) }

// StripContent removes the thinking blocks of a typed content array (as
// Strip does, and nothing else). It returns empty changes, not nil, when
// there are none.
func StripContent(raw []byte) ([]byte, []codecs.Change) {
	out, ch := strip(raw, false)
	if ch == nil {
		ch = []codecs.Change{}
	}
	return out, ch
}

// strip is Strip, or StripContent when all is false.
func strip(raw []byte, all bool) ([]byte, []codecs.Change) {
	s := view.String(raw)
	open := skipWS(s, 0)
	if open >= len(s) || s[open] != '{' {
		return raw, nil
	}
	var found [len(stripNames)]string // each reasoning member's name, as a view
	content, calls := "", ""
	nfound := 0
	for name, val, pos, ok := jsonw.NextMember(s, 0); ok; name, val, pos, ok = jsonw.NextMember(s, pos) {
		for k, f := range stripNames {
			if all && found[k] == "" && jsonw.StringEquals(name, f) {
				found[k] = name
				nfound++
			}
		}
		if content == "" && jsonw.StringEquals(name, "content") {
			content = val
		} else if all && calls == "" && jsonw.StringEquals(name, "tool_calls") {
			calls = val
		}
	}
	// The content's thinking blocks.
	nthink := 0
	if content != "" && content[0] == '[' {
		for el, pos, ok := nextElem(content, 0); ok; el, pos, ok = nextElem(content, pos) {
			if thinking(el) {
				nthink++
			}
		}
	}
	// The tool calls' signatures.
	var sigBuf [8]cut
	sigs := sigBuf[:0]
	var sigAt [8]int // by sig: its call's index, times two, plus one for vertex
	sigIdx := sigAt[:0]
	if calls != "" && calls[0] == '[' {
		i := 0
		for el, pos, ok := nextElem(calls, 0); ok; el, pos, ok = nextElem(calls, pos) {
			if ec := member(el, "extra_content"); ec != "" && ec[0] == '{' {
				if c, ok := sigCut(s, member(ec, "google")); ok {
					sigs, sigIdx = append(sigs, c), append(sigIdx, 2*i)
				}
				if c, ok := sigCut(s, member(ec, "vertex")); ok {
					sigs, sigIdx = append(sigs, c), append(sigIdx, 2*i+1)
				}
			}
			i++
		}
	}
	if nfound == 0 && nthink == 0 && len(sigs) == 0 {
		return raw, nil
	}
	changes := make([]codecs.Change, 0, nfound+nthink+len(sigs))
	var cutBuf [16]cut
	cuts := cutBuf[:0]
	if nfound > 0 {
		cuts = topCuts(s, open, found[:], cuts)
		for k, f := range found {
			if f != "" {
				changes = append(changes, stripChanges[k])
			}
		}
	}
	if nthink > 0 {
		i := 0
		for el, pos, ok := nextElem(content, 0); ok; el, pos, ok = nextElem(content, pos) {
			if thinking(el) {
				changes = append(changes, codecs.Change{Pointer: "/content/" + strconv.Itoa(i), Removed: true, Detail: "thinking block removed"})
			}
			i++
		}
		a := off(s, content)
		cuts = append(cuts, cut{a: a, b: a + len(content), fill: cutContent})
	}
	for k, c := range sigs {
		host := "google"
		if sigIdx[k]&1 != 0 {
			host = "vertex"
		}
		changes = append(changes, codecs.Change{Pointer: "/tool_calls/" + strconv.Itoa(sigIdx[k]/2) + "/extra_content/" + host + "/thought_signature",
			Removed: true, Detail: "thought signature removed"})
		cuts = append(cuts, c)
	}
	// Within one call Google's signature may follow Vertex AI's.
	for i := 1; i < len(cuts); i++ {
		for j := i; j > 0 && cuts[j].a < cuts[j-1].a; j-- {
			cuts[j], cuts[j-1] = cuts[j-1], cuts[j]
		}
	}
	out := make([]byte, 0, len(raw))
	at := 0
	for _, c := range cuts {
		out = append(out, s[at:c.a]...)
		if c.fill == cutContent {
			out = append(out, '[')
			n := 0
			for el, pos, ok := nextElem(content, 0); ok; el, pos, ok = nextElem(content, pos) {
				if !thinking(el) {
					if n > 0 {
						out = append(out, ',')
					}
					out = append(out, el...)
					n++
				}
			}
			out = append(out, ']')
		}
		at = c.b
	}
	return append(out, s[at:]...), changes
}

// topCuts appends the spans deleting the members found names (views of s,
// "" for none) removes from the object s[open:], deleted one after the other
// in that order as sjson.Delete deleted them: a deletion may take the white
// space another left.
func topCuts(s string, open int, found []string, cuts []cut) []cut {
	// The object as segments: for each member, the white space before it,
	// the member, the white space after it, and its comma.
	var segBuf [64]cut
	segs := segBuf[:0]
	gap := open + 1
	for name, val, pos, ok := jsonw.NextMember(s, 0); ok; name, val, pos, ok = jsonw.NextMember(s, pos) {
		a, end := off(s, name), off(s, val)+len(val)
		j := skipWS(s, end)
		comma := j
		if j >= len(s) || s[j] != ',' {
			comma = -1
		}
		segs = append(segs, cut{a: gap, b: a}, cut{a: a, b: end}, cut{a: end, b: j})
		if comma < 0 {
			break
		}
		segs = append(segs, cut{a: comma, b: comma + 1})
		gap = comma + 1
	}
	dead := make([]bool, len(segs)) // small: the object's members times four
	for _, f := range found {
		if f == "" {
			continue
		}
		a := off(s, f)
		p := 0
		for p < len(segs) && !(segs[p].a == a && p%4 == 1) {
			p++
		}
		if p == len(segs) {
			continue
		}
		q := p - 1
		for q >= 0 && (dead[q] || q%4 != 3) {
			q--
		}
		if q >= 0 {
			for k := q; k <= p; k++ {
				dead[k] = true
			}
			continue
		}
		for k := 0; k <= p; k++ {
			dead[k] = true
		}
		r := p + 1
		for r < len(segs) && (dead[r] || r%4 == 0 || r%4 == 2) {
			r++
		}
		if r < len(segs) && r%4 == 3 {
			for k := p + 1; k <= r; k++ {
				dead[k] = true
			}
		}
	}
	for k, sg := range segs {
		if !dead[k] || sg.a == sg.b {
			continue
		}
		if n := len(cuts); n > 0 && cuts[n-1].b == sg.a {
			cuts[n-1].b = sg.b
			continue
		}
		cuts = append(cuts, sg)
	}
	return cuts
}

// A Set is a member [PatchMessage] sets on a message's top level.
type Set struct {
	// Name is the member's name (written as it is, in quotes).
	Name string
	// Raw is the raw JSON value; or, when Raw is nil, Str written as a
	// JSON string: by [jsonw.String] (Quote false), or as sjson.SetBytes
	// wrote a Go string (Quote true: HTML characters escaped as
	// encoding/json escapes them).
	Raw   []byte
	Str   string
	Quote bool
	// Write, when set, writes the value from the turn instead, in about
	// Size bytes.
	Write func(dst []byte, t *replay.Turn) []byte
	Size  int
}

func (st *Set) size() int {
	if st.Write != nil {
		return st.Size
	}
	if st.Raw != nil {
		return len(st.Raw)
	}
	return len(st.Str) + len(st.Str)/8 + 2
}

func (st *Set) appendValue(dst []byte, t *replay.Turn) []byte {
	switch {
	case st.Write != nil:
		return st.Write(dst, t)
	case st.Raw != nil:
		return append(dst, st.Raw...)
	case st.Quote:
		return appendSJSONString(dst, st.Str)
	}
	return jsonw.String(dst, st.Str)
}

// appendSJSONString appends s as a JSON string as sjson wrote one: as it is
// in quotes when it holds nothing to escape, else as encoding/json writes
// it.
func appendSJSONString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c > 0x7f || c == '"' || c == '\\' {
			b, _ := json.Marshal(s)
			return append(dst, b...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// sigOp is one Gemini signature to put on the tool call of id id, at path.
type sigOp struct {
	id, data string
	path     [3]string
	n        int
}

// PatchMessage sets the members sets on msg (a JSON object, already
// checked), in order, each as sjson.Set set it: a member msg has is given
// the new value in place; one it lacks is added at the end of the object
// (which then loses the white space around it). It then puts the Gemini
// signatures bound to t's tool calls back on the calls of the same id in
// msg: in the member a signature was read from ([RawSigKeys]), or else,
// when extraContent is set, under extra_content where it came from
// (Google's or Vertex AI's spelling, [gemsig.At]). msg is read once and
// the result written in one buffer.
func PatchMessage(api string, msg []byte, sets []Set, t *replay.Turn, extraContent bool) ([]byte, error) {
	s := view.String(msg)
	open := skipWS(s, 0)
	var opBuf [4]sigOp
	ops := sigOps(opBuf[:0], t, extraContent)
	var valBuf [4]string // each set's value in msg, "" when it has none
	vals := valBuf[:0]
	if len(sets) > len(valBuf) {
		vals = make([]string, 0, len(sets))
	}
	vals = vals[:len(sets)]
	calls := ""
	size := len(msg)
	appends := 0
	for name, val, pos, ok := jsonw.NextMember(s, 0); ok; name, val, pos, ok = jsonw.NextMember(s, pos) {
		for k := range sets {
			if vals[k] == "" && jsonw.StringEquals(name, sets[k].Name) {
				vals[k] = val
			}
		}
		if calls == "" && len(ops) > 0 && jsonw.StringEquals(name, "tool_calls") {
			calls = val
		}
	}
	for k := range sets {
		size += sets[k].size()
		if vals[k] == "" {
			appends++
			size += len(sets[k].Name) + 4
		}
	}
	if calls != "" && calls[0] != '[' {
		calls = "" // the decision of the references: only an array holds calls
	}
	for _, op := range ops {
		size += len(op.data) + 64
	}
	out := make([]byte, 0, size)
	// The members set in place, and the tool calls, in the message's order.
	var spanBuf [5]cut
	spans := spanBuf[:0]
	for k, v := range vals {
		if v != "" {
			a := off(s, v)
			spans = append(spans, cut{a: a, b: a + len(v), fill: uint8(k)})
		}
	}
	const fillCalls = 255
	if calls != "" {
		a := off(s, calls)
		spans = append(spans, cut{a: a, b: a + len(calls), fill: fillCalls})
	}
	for i := 1; i < len(spans); i++ {
		for j := i; j > 0 && spans[j].a < spans[j-1].a; j-- {
			spans[j], spans[j-1] = spans[j-1], spans[j]
		}
	}
	at := 0
	if appends > 0 {
		at = open
	}
	for _, sp := range spans {
		out = append(out, s[at:sp.a]...)
		if sp.fill == fillCalls {
			var err error
			if out, err = patchCalls(api, out, calls, ops); err != nil {
				return nil, err
			}
		} else {
			out = sets[sp.fill].appendValue(out, t)
		}
		at = sp.b
	}
	if appends == 0 {
		return append(out, s[at:]...), nil
	}
	end := strings.LastIndexByte(s, '}')
	out = append(out, s[at:end]...)
	comma := skipWS(s, open+1) < end
	for k := range sets {
		if vals[k] != "" {
			continue
		}
		if comma {
			out = append(out, ',')
		}
		comma = true
		out = append(out, '"')
		out = append(out, sets[k].Name...)
		out = append(out, '"', ':')
		out = sets[k].appendValue(out, t)
	}
	return append(out, '}'), nil
}

// sigOps appends the signature puts of t's tool calls, in the turn's order.
func sigOps(ops []sigOp, t *replay.Turn, extraContent bool) []sigOp {
	for i, b := range t.Blocks {
		tc, ok := b.(*replay.ToolCall)
		if !ok || tc.ID == "" {
			continue
		}
		sig, ok := gemsig.Bound(t.Blocks, i)
		if !ok || !sig.Replayable() {
			continue
		}
		path, raw := RawSigKey(sig)
		if !raw && !extraContent {
			continue
		}
		if !raw {
			path = gemsig.At(sig).Path()
		}
		op := sigOp{id: tc.ID, data: sig.Data}
		for op.n < len(op.path)-1 {
			i := strings.IndexByte(path, '.')
			if i < 0 {
				break
			}
			op.path[op.n], path = path[:i], path[i+1:]
			op.n++
		}
		op.path[op.n] = path
		op.n++
		ops = append(ops, op)
	}
	return ops
}

// idIs reports whether the JSON value raw is a string whose value, read as
// gjson reads it, is id.
func idIs(raw, id string) bool {
	if len(raw) < 2 || raw[0] != '"' {
		return false
	}
	if strings.IndexByte(raw, '\\') < 0 {
		return raw[1:len(raw)-1] == id
	}
	var buf [64]byte
	return string(jsonw.AppendStr(buf[:0], raw)) == id
}

// patchCalls appends the tool_calls array calls with the signatures of ops
// put on the first call of each op's id, in the ops' order.
func patchCalls(api string, out []byte, calls string, ops []sigOp) ([]byte, error) {
	var doneBuf [8]bool
	done := doneBuf[:0]
	if len(ops) > len(doneBuf) {
		done = make([]bool, 0, len(ops))
	}
	done = done[:len(ops)]
	firstErr, errOp := error(nil), len(ops)
	fail := func(j, k int, err error) {
		if j < errOp {
			errOp, firstErr = j, codecs.Malformed(api, -1, "/tool_calls/"+strconv.Itoa(k), "cannot set the signature: %v", err)
		}
	}
	var matchBuf [8]int
	at, k := 0, 0
	for el, pos, ok := nextElem(calls, 0); ok; el, pos, ok = nextElem(calls, pos) {
		id := member(el, "id")
		match := matchBuf[:0]
		for j := range ops {
			if !done[j] && idIs(id, ops[j].id) {
				done[j] = true
				match = append(match, j)
			}
		}
		if len(match) > 0 && firstErr == nil {
			a := off(calls, el)
			out = append(out, calls[at:a]...)
			at = a + len(el)
		}
		switch {
		case len(match) == 0:
		case len(match) == 1 && firstErr == nil:
			op := &ops[match[0]]
			next, err := setPath(out, el, op.path[:op.n], op.data)
			if err != nil {
				fail(match[0], k, err)
			} else {
				out = next
			}
		default:
			cur := el
			for _, j := range match {
				op := &ops[j]
				next, err := setPath(nil, cur, op.path[:op.n], op.data)
				if err != nil {
					fail(j, k, err)
					break
				}
				cur = string(next)
			}
			if firstErr == nil {
				out = append(out, cur...)
			}
		}
		k++
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return append(out, calls[at:]...), nil
}

// setPath appends the JSON value v with the string val set at path, as
// sjson.SetBytes set it: each name of the path is found in its object or
// added at the end of it, a value on the path that is neither an object
// nor an array is replaced by an object, and an array on it is an error.
func setPath(dst []byte, v string, path []string, val string) ([]byte, error) {
	switch v[0] {
	case '{':
		for n, mv, pos, ok := jsonw.NextMember(v, 0); ok; n, mv, pos, ok = jsonw.NextMember(v, pos) {
			if !jsonw.StringEquals(n, path[0]) {
				continue
			}
			a := off(v, mv)
			dst = append(dst, v[:a]...)
			var err error
			if len(path) > 1 {
				if dst, err = setPath(dst, mv, path[1:], val); err != nil {
					return nil, err
				}
			} else {
				dst = appendSJSONString(dst, val)
			}
			return append(dst, v[a+len(mv):]...), nil
		}
		end := strings.LastIndexByte(v, '}')
		dst = append(dst, v[:end]...)
		if skipWS(v, 1) < end {
			dst = append(dst, ',')
		}
	case '[':
		return nil, sjsonError("cannot set array element for non-numeric key '" + path[0] + "'")
	default:
		dst = append(dst, '{')
	}
	return append(buildPath(dst, path, val), '}'), nil
}

// buildPath appends "path[0]":{"path[1]":...val...}.
func buildPath(dst []byte, path []string, val string) []byte {
	dst = append(dst, '"')
	dst = append(dst, path[0]...)
	dst = append(dst, '"', ':')
	if len(path) == 1 {
		return appendSJSONString(dst, val)
	}
	return append(buildPath(append(dst, '{'), path[1:], val), '}')
}

type sjsonError string

func (e sjsonError) Error() string { return string(e) }
