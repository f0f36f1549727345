package openai

import (
	"strconv"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/internal/view"
	"github.com/tidwall/gjson"
)

// Decode reads a whole Responses body (`{"object":"response","output":[...]}`).
// An error body (`{"error":{...}}`) returns a *[replay.ProviderError]. A
// response whose status is `failed` or `incomplete` returns the turn
// (Complete false, FinishReason the incomplete reason) together with a
// *[replay.ProviderError]; the turn's output items whose own status is
// `incomplete` or `in_progress` are marked unfinished.
func (c Codec) Decode(body []byte) (*replay.Turn, error) {
	if !jsonw.ValidBytes(body) {
		return nil, codecs.Malformed(API, -1, "", "expected a JSON response object")
	}
	root := gjson.ParseBytes(body)
	if !root.IsObject() {
		return nil, codecs.Malformed(API, -1, "", "expected a JSON response object")
	}
	out := get(root, "output")
	if e := get(root, "error"); e.IsObject() && !out.Exists() {
		return nil, providerError(e)
	}
	if !out.IsArray() {
		return nil, codecs.Malformed(API, -1, "/output", "expected a response with an output array")
	}
	t := &replay.Turn{Provenance: replay.Provenance{API: API, Provider: c.provider(), Model: clone(get(root, "model").Str)}}
	b := kit.NewBudget(API, c.Limits, -1)
	if err := appendItems(t, out, 0, int64(count(out)), c.format(), "/output/", &b); err != nil {
		return nil, err
	}
	if u := get(root, "usage"); u.IsObject() {
		t.Usage = []byte(u.Raw)
	}
	return t, finishStatus(t, root)
}

// finishStatus sets Complete, FinishReason and Error from a response
// object's status, and returns the error to report.
func finishStatus(t *replay.Turn, resp gjson.Result) error {
	status := get(resp, "status").Str
	switch status {
	case "completed", "":
		t.Complete = true
		t.FinishReason = status
		return nil
	case "incomplete":
		reason := resp.Get("incomplete_details.reason").Str
		t.FinishReason = clone(reason)
		if reason == "" {
			t.FinishReason = "incomplete"
		}
		t.Error = &replay.ProviderError{API: API, Type: "incomplete", Code: clone(reason),
			Message: "the response is incomplete (" + t.FinishReason + ")"}
		return t.Error
	case "failed":
		t.FinishReason = "failed"
		e := get(resp, "error")
		if e.IsObject() {
			t.Error = providerError(e)
		} else {
			t.Error = &replay.ProviderError{API: API, Type: "failed", Message: "the response failed"}
		}
		return t.Error
	}
	t.FinishReason = clone(status)
	t.Error = &replay.ProviderError{API: API, Type: clone(status), Message: "the response has status " + strconv.Quote(status)}
	return t.Error
}

// providerError reads an error object: {"type","code","message","param"},
// or an `error` event whose members are at the top level.
func providerError(e gjson.Result) *replay.ProviderError {
	pe := &replay.ProviderError{API: API}
	pe.Type = clone(get(e, "type").Str)
	if pe.Type == "error" || pe.Type == "response.failed" {
		pe.Type = ""
	}
	if c := get(e, "code"); c.Type == gjson.String {
		pe.Code = clone(c.Str)
	} else if c.Type == gjson.Number {
		pe.Code = clone(c.Raw)
	}
	pe.Message = clone(get(e, "message").Str)
	if s := get(e, "status"); s.Type == gjson.Number {
		pe.Status = int(s.Int())
	}
	return pe
}

// appendItems appends the blocks of the items [from, to) of the array arr
// (output items of a response, or input items of a request, at JSON
// Pointer base+index) to t, within the budget b.
func appendItems(t *replay.Turn, arr gjson.Result, from, to int64, f replay.Format, base string, b *kit.Budget) error {
	var err error
	i := int64(0)
	forEach(arr, func(_, item gjson.Result) bool {
		if i >= from && i < to {
			t.Blocks, err = appendItem(t.Blocks, item, f, base+strconv.FormatInt(i, 10), b, nil)
		}
		i++
		return err == nil && i < to
	})
	return err
}

// blockKeeper is a keeper that counts blocks too: a *kit.Budget, or a
// *kit.Keeper that keeps the strings in an Alloc's arena.
type blockKeeper interface {
	keeper
	Block(pos int) error
}

// appendItem appends the blocks of one complete output item, counting
// them and every string they keep against b; the blocks come from al (nil:
// each allocated on its own).
func appendItem(dst []replay.Block, item gjson.Result, f replay.Format, ptr string, b blockKeeper, al *kit.Alloc) ([]replay.Block, error) {
	first := len(dst)
	dst, err := itemBlocks(dst, item, f, ptr, b, al)
	for k := first; k < len(dst) && err == nil; k++ {
		err = b.Block(k)
	}
	return dst, err
}

// itemBlocks appends the blocks of one output item, made by al (nil: each
// allocated on its own).
func itemBlocks(dst []replay.Block, item gjson.Result, f replay.Format, ptr string, bud keeper, al *kit.Alloc) ([]replay.Block, error) {
	pos := len(dst)
	if !item.IsObject() {
		return dst, codecs.Malformed(API, -1, ptr, "expected an output item object")
	}
	typ := get(item, "type")
	kind := typ.Str
	if !typ.Exists() && get(item, "role").Type == gjson.String {
		// An input message may leave its type out (EasyInputMessage).
		kind = "message"
	} else if typ.Type != gjson.String {
		return dst, codecs.Malformed(API, -1, ptr+"/type", "expected an output item with a string type")
	}
	var err error
	switch kind {
	case "reasoning":
		var r reasoning
		rk, _ := bud.(*requestKeeper)
		if rk != nil {
			r.summaries, r.texts = rk.summaries[:0], rk.texts[:0]
		}
		if err = r.read(item, ptr, pos, bud); err != nil {
			return dst, err
		}
		dst = r.appendBlocksIn(dst, item, f, al)
		if rk != nil {
			rk.summaries, rk.texts = r.summaries[:0], r.texts[:0]
		}
	case "message":
		var m message
		rk, _ := bud.(*requestKeeper)
		if rk != nil {
			m.texts, m.annots = rk.mtexts[:0], rk.annots[:0]
		}
		if err = m.read(item, ptr, pos, bud); err != nil {
			return dst, err
		}
		if m.native {
			n := al.Native()
			*n = replay.Native{Kind: "message", Raw: bytesIn(al, item.Raw)}
			dst = append(dst, n)
		} else {
			for i := range m.texts {
				t := al.Text()
				*t = replay.Text{Text: m.texts[i], ID: m.id, Extra: m.extraIn(i, al)}
				dst = append(dst, t)
			}
		}
		if rk != nil { // the blocks hold copies of what the lists held
			rk.mtexts, rk.annots = m.texts[:0], m.annots[:0]
		}
	case "function_call", "custom_tool_call":
		tc := al.ToolCall()
		if err = readCall(tc, item, ptr, pos, bud); err != nil {
			return dst, err
		}
		dst = append(dst, tc)
	case "compaction":
		var x *replay.Compaction
		if x, err = readCompaction(item, f, ptr, pos, bud); err != nil {
			return dst, err
		}
		dst = append(dst, x)
	default:
		if err = bud.Item(pos, len(item.Raw), len(item.Raw)); err != nil {
			return dst, err
		}
		n := al.Native()
		*n = replay.Native{Kind: cloneIn(al, typ.Str), Raw: bytesIn(al, item.Raw), Unfinished: unfinishedStatus(item)}
		dst = append(dst, n)
	}
	return dst, nil
}

// cloneIn returns a copy of s, in al's arena when al is set.
func cloneIn(al *kit.Alloc, s string) string {
	if al == nil {
		return clone(s)
	}
	return al.Clone(s)
}

// bytesIn returns a copy of the JSON text s as bytes, in al's arena when
// al is set.
func bytesIn(al *kit.Alloc, s string) []byte {
	if al == nil {
		return []byte(s)
	}
	return al.CloneBytes(s)
}

func unfinishedStatus(item gjson.Result) bool {
	s := get(item, "status").Str
	return s == "incomplete" || s == "in_progress"
}

// reasoning is a reasoning output item read whole.
type reasoning struct {
	id         replay.Opt[string]
	summaries  []string
	texts      []string
	enc        replay.Opt[string]
	extra      []byte // unknown members, as one object
	unfinished bool
	// compareOnly says the texts are read to be compared with a stream's
	// own and copied only where they differ: they are counted, not copied,
	// and valid only as long as the item's text.
	compareOnly bool
}

// keeper counts, against a budget, and copies the strings an item reader
// keeps: a *kit.Budget, or a stream decoder's budget that copies them into
// its arena.
type keeper interface {
	// Item counts a string of the block at pos (see [kit.Budget.Item]).
	Item(pos, size, add int) error
	// Keep counts s as a string of the block at pos and returns a copy.
	Keep(pos int, s string) (string, error)
}

// read reads a reasoning item whose blocks start at pos, within the
// budget b.
func (r *reasoning) read(item gjson.Result, ptr string, pos int, b keeper) error {
	var err error
	status := ""
	members(item, b, func(k gjson.Result, raw string) bool {
		if k.Str == "encrypted_content" && isStr(raw) {
			// the string is kept as it is read, with no copy of its own first
			if jsonw.Lone(raw) {
				err = codecs.Malformed(API, -1, ptr+"/encrypted_content", "a lone surrogate escape would alter the minted bytes")
				return false
			}
			var enc string
			if enc, err = keepRaw(b, pos, raw); err != nil {
				return false
			}
			r.enc = replay.Some(enc)
			return true
		}
		v := value(raw)
		switch k.Str {
		case "type":
		case "status":
			status = v.Str
		case "id":
			if v.Type != gjson.String && v.Type != gjson.Null {
				err = codecs.Malformed(API, -1, ptr+"/id", "expected a string id")
				return false
			}
			if err = refuseSurrogate(v, ptr, "/id"); err != nil {
				return false
			}
			if v.Type == gjson.String {
				var id string
				id, err = keepRaw(b, pos, raw)
				r.id = replay.Some(id)
			} else {
				r.id = replay.NullOf[string]()
				err = b.Item(pos, 0, 0)
			}
		case "summary":
			r.summaries, err = readParts(r.summaries[:0], v, ptr, "/summary", pos, b, r.compareOnly)
		case "content":
			r.texts, err = readParts(r.texts[:0], v, ptr, "/content", pos, b, r.compareOnly)
		case "encrypted_content":
			if err = refuseSurrogate(v, ptr, "/encrypted_content"); err != nil {
				return false
			}
			switch v.Type {
			case gjson.String:
				var enc string
				if enc, err = b.Keep(pos, v.Str); err != nil {
					return false
				}
				r.enc = replay.Some(enc)
			case gjson.Null:
			default:
				err = codecs.Malformed(API, -1, ptr+"/encrypted_content", "expected a string or null")
			}
		default:
			r.extra = appendExtraMember(r.extra, k, v)
			err = b.Item(pos, len(r.extra), len(k.Raw)+len(v.Raw)+2)
		}
		return err == nil
	})
	r.unfinished = status == "incomplete" || status == "in_progress" // as unfinishedStatus reads it
	return err
}

// readParts appends to out the texts of a summary or content array (at
// the JSON Pointer ptr+name), copies unless view is set; null and absent
// are empty.
func readParts(out []string, v gjson.Result, ptr, name string, pos int, b keeper, view bool) ([]string, error) {
	if v.Type == gjson.Null {
		return out, nil
	}
	if !v.IsArray() {
		return out, codecs.Malformed(API, -1, ptr+name, "expected an array of parts")
	}
	first := len(out)
	// part reads one part: whether it is an object, and its text's raw
	// text ("" for none).
	part := func(object bool, text string) error {
		if !object || !isStr(text) { // as get(p, "text") reads it
			return codecs.Malformed(API, -1, ptr+name+"/"+strconv.Itoa(len(out)-first), "expected a part object with a string text")
		}
		var s string
		var err error
		if view {
			s = value(text).Str
			err = b.Item(pos+len(out)-first, len(s), len(s)) // as Keep counts it
		} else {
			s, err = keepRaw(b, pos+len(out)-first, text)
		}
		if err == nil {
			out = append(out, s)
		}
		return err
	}
	if rk, ok := b.(*requestKeeper); ok && rk.member.IsArray() && rk.member.Raw() == v.Raw {
		// A request's parts, where its tape recorded them.
		var err error
		rk.member.ForEach(func(_ int, _ string, p jsonw.Val) bool {
			err = part(p.IsObject(), p.Get("text").Raw())
			return err == nil
		})
		return out, err
	}
	keys, vals := [1]string{"text"}, [1]string{}
	for p, at, ok := jsonw.NextMembers(v.Raw, 0, keys[:], vals[:]); ok; p, at, ok = jsonw.NextMembers(v.Raw, at, keys[:], vals[:]) {
		if err := part(p[0] == '{', vals[0]); err != nil {
			return out, err
		}
	}
	return out, nil
}

// appendBlocks appends one block per part and one for the encrypted
// content, or a Native "reasoning" when the item has none.
func (r *reasoning) appendBlocks(dst []replay.Block, item gjson.Result, f replay.Format) []replay.Block {
	return r.appendBlocksIn(dst, item, f, nil)
}

// appendBlocksIn is appendBlocks with blocks made by al (nil: each
// allocated on its own).
func (r *reasoning) appendBlocksIn(dst []replay.Block, item gjson.Result, f replay.Format, al *kit.Alloc) []replay.Block {
	first := len(dst)
	meta := func(i int) replay.ItemMeta {
		m := replay.ItemMeta{Format: f, ID: r.id, Unfinished: r.unfinished}
		if i >= 0 {
			m.Index = replay.Some(i)
		}
		return m
	}
	for i, s := range r.summaries {
		x := al.Summary()
		*x = replay.Summary{ItemMeta: meta(i), Summary: s}
		dst = append(dst, x)
	}
	for i, s := range r.texts {
		x := al.ReasoningText()
		*x = replay.ReasoningText{ItemMeta: meta(i), Text: s}
		dst = append(dst, x)
	}
	if data, ok := r.enc.Get(); ok {
		x := al.Encrypted()
		*x = replay.Encrypted{ItemMeta: meta(-1), Data: data}
		dst = append(dst, x)
	}
	if len(dst) == first {
		n := al.Native()
		*n = replay.Native{Kind: "reasoning", Raw: bytesIn(al, item.Raw), Unfinished: r.unfinished}
		return append(dst, n)
	}
	if len(r.extra) > 0 {
		dst[first].(replay.ReasoningItem).Meta().Extra = wrap(r.extra)
	}
	return dst
}

// message is a message output item read whole.
type message struct {
	id     string
	texts  []string
	annots []string // raw annotations per part, "" when absent
	own    []byte   // message members other than id, type, role, status, content
	native bool     // not plain output_text parts: kept verbatim
}

// read reads a message item whose blocks start at pos, within the budget
// b.
func (m *message) read(item gjson.Result, ptr string, pos int, b keeper) error {
	var err error
	members(item, b, func(k gjson.Result, raw string) bool {
		v := gjson.Result{Type: gjson.String, Raw: raw} // its Str is read only where it is kept
		if !isStr(raw) {
			v = value(raw)
		}
		switch k.Str {
		case "type", "role", "status":
		case "id":
			if v.Type != gjson.String {
				err = codecs.Malformed(API, -1, ptr+"/id", "expected a string id")
				return false
			}
			m.id, err = keepRaw(b, pos, raw)
		case "content":
			if v.Type == gjson.String {
				// An input message's content may be a plain string.
				var s string
				if s, err = keepRaw(b, pos, raw); err != nil {
					return false
				}
				m.texts = append(m.texts, s)
				m.annots = append(m.annots, "")
				return true
			}
			if !v.IsArray() {
				err = codecs.Malformed(API, -1, ptr+"/content", "expected a content array or string")
				return false
			}
			forEach(v, func(_, p gjson.Result) bool {
				t := jsonw.RawMember(p.Raw, "text") // as get(p, "text") reads it, kept as read
				if p.Type != gjson.JSON || get(p, "type").Str != "output_text" || !isStr(t) {
					m.native = true
					return false
				}
				at := pos + len(m.texts)
				var s string
				if s, err = keepRaw(b, at, t); err != nil {
					return false
				}
				m.texts = append(m.texts, s)
				a := ""
				if an := get(p, "annotations"); an.Exists() {
					if a, err = b.Keep(at, an.Raw); err != nil {
						return false
					}
				}
				m.annots = append(m.annots, a)
				return true
			})
		default:
			m.own = appendExtraMember(m.own, k, gjson.Result{Raw: raw})
			err = b.Item(pos, len(m.own), len(k.Raw)+len(v.Raw)+2)
		}
		return err == nil
	})
	if len(m.texts) == 0 {
		m.native = true
	}
	return err
}

// extra returns the Extra of the i-th text block: the message's own
// members, then the part's annotations.
func (m *message) extra(i int) []byte {
	x := append([]byte(nil), m.own...)
	if i < len(m.annots) && m.annots[i] != "" && !hasMember(x, "annotations") {
		x = appendMember(x, `"annotations"`, m.annots[i])
	}
	return wrap(x)
}

// extraIn is extra with the bytes in al's arena (al nil: extra).
func (m *message) extraIn(i int, al *kit.Alloc) []byte {
	if al == nil {
		return m.extra(i)
	}
	annots := i < len(m.annots) && m.annots[i] != "" && !hasMember(m.own, "annotations")
	if len(m.own) == 0 && !annots {
		return nil
	}
	start := al.Join(len(m.own) + len(m.annots[i]) + 18)
	al.AppendRaw("{")
	al.AppendRaw(view.String(m.own))
	if annots {
		if len(m.own) > 0 {
			al.AppendRaw(",")
		}
		al.AppendRaw(`"annotations":`)
		al.AppendRaw(m.annots[i])
	}
	al.AppendRaw("}")
	return al.JoinedBytes(start)
}

// readCall reads a function_call or custom_tool_call item, to be placed
// at pos, within the budget b.
func readCall(tc *replay.ToolCall, item gjson.Result, ptr string, pos int, b keeper) error {
	custom := get(item, "type").Str == "custom_tool_call"
	argKey := "arguments"
	if custom {
		argKey = "input"
	}
	var extra []byte
	var err error
	members(item, b, func(k gjson.Result, raw string) bool {
		str := func(dst *string) {
			if !isStr(raw) {
				err = codecs.Malformed(API, -1, ptr+"/"+k.Str, "expected a string %s", k.Str)
				return
			}
			*dst, err = keepRaw(b, pos, raw)
		}
		switch k.Str {
		case "type", "status":
		case "id":
			str(&tc.ItemID)
		case "call_id":
			str(&tc.ID)
		case "name":
			str(&tc.Name)
		case argKey:
			str(&tc.Arguments)
		default:
			extra = appendExtraMember(extra, k, gjson.Result{Raw: raw})
			err = b.Item(pos, len(extra), len(k.Raw)+len(raw)+2)
		}
		return err == nil
	})
	if custom && !hasMember(extra, "item_type") {
		extra = appendMember(extra, `"item_type"`, `"custom_tool_call"`)
	}
	tc.Extra = wrap(extra)
	tc.Unfinished = unfinishedStatus(item)
	return err
}

func appendMember(dst []byte, rawKey, rawVal string) []byte {
	if len(dst) > 0 {
		dst = append(dst, ',')
	}
	dst = append(dst, rawKey...)
	dst = append(dst, ':')
	return append(dst, rawVal...)
}

func wrap(members []byte) []byte {
	if len(members) == 0 {
		return nil
	}
	out := make([]byte, 0, len(members)+2)
	out = append(out, '{')
	out = append(out, members...)
	return append(out, '}')
}

// appendExtraMember appends an unknown member unless a member of that name
// is already there (a duplicate key: the first one is kept, as gjson reads).
func appendExtraMember(dst []byte, k, v gjson.Result) []byte {
	if hasMember(dst, k.Str) {
		return dst
	}
	return appendMember(dst, k.Raw, v.Raw)
}

// hasMember reports whether the members (an object without its braces)
// include name.
func hasMember(members []byte, name string) bool {
	if len(members) == 0 {
		return false
	}
	found := false
	gjson.Parse("{" + string(members) + "}").ForEach(func(k, _ gjson.Result) bool {
		found = k.Str == name
		return !found
	})
	return found
}

// refuseSurrogate refuses a string member (at the JSON Pointer ptr+name)
// whose escapes hold a lone surrogate: read as U+FFFD, it would alter the
// bytes the issuer minted.
func refuseSurrogate(v gjson.Result, ptr, name string) error {
	if v.Type == gjson.String && jsonw.Lone(v.Raw) {
		return codecs.Malformed(API, -1, ptr+name, "a lone surrogate escape would alter the minted bytes")
	}
	return nil
}

// readCompaction reads a `compaction` output item (`id` "cmp_...",
// `encrypted_content`) as a [replay.Compaction] of format f, within the
// budget b.
func readCompaction(item gjson.Result, f replay.Format, ptr string, pos int, b keeper) (*replay.Compaction, error) {
	x := &replay.Compaction{Format: f, Unfinished: unfinishedStatus(item)}
	var extra []byte
	var err error
	forEach(item, func(k, v gjson.Result) bool {
		switch k.Str {
		case "type", "status":
		case "id", "encrypted_content":
			if v.Type != gjson.String {
				err = codecs.Malformed(API, -1, ptr+"/"+k.Str, "expected a string %s", k.Str)
				return false
			}
			if err = refuseSurrogate(v, ptr, "/"+k.Str); err != nil {
				return false
			}
			var s string
			if s, err = b.Keep(pos, v.Str); err == nil {
				if k.Str == "id" {
					x.ID = s
				} else {
					x.Data = s
				}
			}
		default:
			extra = appendExtraMember(extra, k, v)
			err = b.Item(pos, len(extra), len(k.Raw)+len(v.Raw)+2)
		}
		return err == nil
	})
	x.Extra = wrap(extra)
	return x, err
}
