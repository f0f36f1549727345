package openai

import (
	"github.com/reasonreplay/replay/internal/jsonw"
	"strconv"

	"github.com/reasonreplay/replay"
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
		return nil, replay.Malformed(API, -1, "", "expected a JSON response object")
	}
	root := gjson.ParseBytes(body)
	if !root.IsObject() {
		return nil, replay.Malformed(API, -1, "", "expected a JSON response object")
	}
	out := root.Get("output")
	if e := root.Get("error"); e.IsObject() && !out.Exists() {
		return nil, providerError(e)
	}
	if !out.IsArray() {
		return nil, replay.Malformed(API, -1, "/output", "expected a response with an output array")
	}
	lim := replay.Limits{}.WithDefaults()
	t := &replay.Turn{Provenance: replay.Provenance{API: API, Provider: c.provider(), Model: clone(root.Get("model").Str)}}
	f := c.format()
	var err error
	i := 0
	out.ForEach(func(_, item gjson.Result) bool {
		t.Blocks, err = appendItem(t.Blocks, item, f, i, "/output/"+strconv.Itoa(i), lim)
		i++
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	if u := root.Get("usage"); u.IsObject() {
		t.Usage = []byte(u.Raw)
	}
	return t, finishStatus(t, root)
}

// finishStatus sets Complete, FinishReason and Error from a response
// object's status, and returns the error to report.
func finishStatus(t *replay.Turn, resp gjson.Result) error {
	status := resp.Get("status").Str
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
		e := resp.Get("error")
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
	pe.Type = clone(e.Get("type").Str)
	if pe.Type == "error" || pe.Type == "response.failed" {
		pe.Type = ""
	}
	if c := e.Get("code"); c.Type == gjson.String {
		pe.Code = clone(c.Str)
	} else if c.Type == gjson.Number {
		pe.Code = clone(c.Raw)
	}
	pe.Message = clone(e.Get("message").Str)
	if s := e.Get("status"); s.Type == gjson.Number {
		pe.Status = int(s.Int())
	}
	return pe
}

// appendItem appends the blocks of one complete output item.
func appendItem(dst []replay.Block, item gjson.Result, f replay.Format, pos int, ptr string, lim replay.Limits) ([]replay.Block, error) {
	if !item.IsObject() {
		return dst, replay.Malformed(API, -1, ptr, "expected an output item object")
	}
	typ := item.Get("type")
	if typ.Type != gjson.String {
		return dst, replay.Malformed(API, -1, ptr+"/type", "expected an output item with a string type")
	}
	var err error
	switch typ.Str {
	case "reasoning":
		var r reasoning
		if err = r.read(item, ptr, lim); err != nil {
			return dst, err
		}
		dst = r.appendBlocks(dst, item, f)
	case "message":
		var m message
		if err = m.read(item, ptr, lim); err != nil {
			return dst, err
		}
		if m.native {
			dst = append(dst, &replay.Native{Kind: "message", Raw: []byte(item.Raw)})
		} else {
			for i := range m.texts {
				dst = append(dst, &replay.Text{Text: m.texts[i], ID: m.id, Extra: m.extra(i)})
			}
		}
	case "function_call", "custom_tool_call":
		var tc replay.ToolCall
		if err = readCall(&tc, item, ptr, lim); err != nil {
			return dst, err
		}
		dst = append(dst, &tc)
	default:
		dst = append(dst, &replay.Native{Kind: clone(typ.Str), Raw: []byte(item.Raw), Unfinished: unfinishedStatus(item)})
	}
	if len(dst) > lim.MaxBlocks {
		return dst, &replay.LimitError{What: "block count", Limit: lim.MaxBlocks, Event: -1, Block: -1}
	}
	return dst, nil
}

func unfinishedStatus(item gjson.Result) bool {
	s := item.Get("status").Str
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
}

func optString(v gjson.Result) replay.Opt[string] {
	switch v.Type {
	case gjson.String:
		return replay.Some(clone(v.Str))
	case gjson.Null:
		return replay.NullOf[string]()
	}
	return replay.Opt[string]{}
}

func (r *reasoning) read(item gjson.Result, ptr string, lim replay.Limits) error {
	var err error
	item.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type", "status":
		case "id":
			if v.Type != gjson.String && v.Type != gjson.Null {
				err = replay.Malformed(API, -1, ptr+"/id", "expected a string id")
				return false
			}
			r.id = optString(v)
		case "summary":
			r.summaries, err = readParts(v, ptr+"/summary", lim)
		case "content":
			r.texts, err = readParts(v, ptr+"/content", lim)
		case "encrypted_content":
			switch v.Type {
			case gjson.String:
				if len(v.Str) > lim.MaxItem {
					err = &replay.LimitError{What: "item size", Limit: lim.MaxItem, Event: -1, Block: -1}
					return false
				}
				r.enc = replay.Some(clone(v.Str))
			case gjson.Null:
			default:
				err = replay.Malformed(API, -1, ptr+"/encrypted_content", "expected a string or null")
			}
		default:
			r.extra = appendExtraMember(r.extra, k, v)
		}
		return err == nil
	})
	r.unfinished = unfinishedStatus(item)
	return err
}

// readParts reads the texts of a summary or content array; null and
// absent are empty.
func readParts(v gjson.Result, ptr string, lim replay.Limits) ([]string, error) {
	if v.Type == gjson.Null {
		return nil, nil
	}
	if !v.IsArray() {
		return nil, replay.Malformed(API, -1, ptr, "expected an array of parts")
	}
	var out []string
	var err error
	i := 0
	v.ForEach(func(_, p gjson.Result) bool {
		t := p.Get("text")
		if !p.IsObject() || t.Type != gjson.String {
			err = replay.Malformed(API, -1, ptr+"/"+strconv.Itoa(i), "expected a part object with a string text")
			return false
		}
		if len(t.Str) > lim.MaxItem {
			err = &replay.LimitError{What: "item size", Limit: lim.MaxItem, Event: -1, Block: -1}
			return false
		}
		out = append(out, clone(t.Str))
		i++
		return true
	})
	return out, err
}

// appendBlocks appends one block per part and one for the encrypted
// content, or a Native "reasoning" when the item has none.
func (r *reasoning) appendBlocks(dst []replay.Block, item gjson.Result, f replay.Format) []replay.Block {
	first := len(dst)
	meta := func(i int) replay.ItemMeta {
		m := replay.ItemMeta{Format: f, ID: r.id, Unfinished: r.unfinished}
		if i >= 0 {
			m.Index = replay.Some(i)
		}
		return m
	}
	for i, s := range r.summaries {
		dst = append(dst, &replay.Summary{ItemMeta: meta(i), Summary: s})
	}
	for i, s := range r.texts {
		dst = append(dst, &replay.ReasoningText{ItemMeta: meta(i), Text: s})
	}
	if data, ok := r.enc.Get(); ok {
		dst = append(dst, &replay.Encrypted{ItemMeta: meta(-1), Data: data})
	}
	if len(dst) == first {
		return append(dst, &replay.Native{Kind: "reasoning", Raw: []byte(item.Raw), Unfinished: r.unfinished})
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

func (m *message) read(item gjson.Result, ptr string, lim replay.Limits) error {
	var err error
	item.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type", "role", "status":
		case "id":
			if v.Type != gjson.String {
				err = replay.Malformed(API, -1, ptr+"/id", "expected a string id")
				return false
			}
			m.id = clone(v.Str)
		case "content":
			if !v.IsArray() {
				err = replay.Malformed(API, -1, ptr+"/content", "expected a content array")
				return false
			}
			v.ForEach(func(_, p gjson.Result) bool {
				t := p.Get("text")
				if p.Get("type").Str != "output_text" || t.Type != gjson.String {
					m.native = true
					return false
				}
				if len(t.Str) > lim.MaxItem {
					err = &replay.LimitError{What: "item size", Limit: lim.MaxItem, Event: -1, Block: -1}
					return false
				}
				m.texts = append(m.texts, clone(t.Str))
				a := ""
				if an := p.Get("annotations"); an.Exists() {
					a = clone(an.Raw)
				}
				m.annots = append(m.annots, a)
				return true
			})
		default:
			m.own = appendExtraMember(m.own, k, v)
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

// readCall reads a function_call or custom_tool_call item.
func readCall(tc *replay.ToolCall, item gjson.Result, ptr string, lim replay.Limits) error {
	custom := item.Get("type").Str == "custom_tool_call"
	argKey := "arguments"
	if custom {
		argKey = "input"
	}
	var extra []byte
	var err error
	item.ForEach(func(k, v gjson.Result) bool {
		str := func(dst *string) {
			if v.Type != gjson.String {
				err = replay.Malformed(API, -1, ptr+"/"+k.Str, "expected a string %s", k.Str)
				return
			}
			if len(v.Str) > lim.MaxItem {
				err = &replay.LimitError{What: "item size", Limit: lim.MaxItem, Event: -1, Block: -1}
				return
			}
			*dst = clone(v.Str)
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
			extra = appendExtraMember(extra, k, v)
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
