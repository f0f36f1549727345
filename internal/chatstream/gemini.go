package chatstream

import (
	"encoding/json"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/gemsig"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/stream"
	"github.com/tidwall/gjson"
)

// RawSigKeys are the members in which some OpenAI-compatible gateways put
// a Gemini thought signature directly on a tool call, instead of
// `extra_content.google.thought_signature` (earendil-works/pi#9444,
// lidge-jun/opencodex#2127).
var RawSigKeys = []string{"thoughtSignature", "thought_signature"}

// RawSignature reads a Gemini thought signature put directly on the tool
// call tc (raw JSON, at loc): the member's name and the signature's JSON
// string literal. ok is false when the call has none (absent or null).
func RawSignature(api string, event int, tc string, loc Loc) (key, raw string, ok bool, err error) {
	for _, k := range RawSigKeys {
		v := jsonw.RawMember(tc, k)
		switch {
		case v == "" || v == "null":
			continue
		case v[0] != '"':
			return "", "", false, codecs.Malformed(api, event, loc.With(k).String(), "expected a thought signature string")
		case ok:
			return "", "", false, codecs.Malformed(api, event, loc.With(k).String(), "a second thought signature on the same tool call (%s)", key)
		}
		if len(v) >= 8 && jsonw.LoneAt(v, false) >= 0 {
			return "", "", false, loneErr(api, event, loc.With(k).String(), "a thought signature")
		}
		key, raw, ok = k, v, true
	}
	return key, raw, ok, nil
}

// SignatureItem returns the bound Gemini signature item for a signature
// read from the member key of a tool call whose id is id: the item
// records the member in its extra `source`, so that the encoders put the
// signature back where it came from.
func SignatureItem(sig, id, key string) *replay.Encrypted {
	it := gemsig.Item(sig, id)
	it.Extra = json.RawMessage(`{"source":` + string(jsonw.String(nil, key)) + `}`)
	return it
}

// RawSigKey returns the tool call member a bound Gemini signature item
// was read from when it is one of [RawSigKeys].
func RawSigKey(e *replay.Encrypted) (string, bool) {
	if len(e.Extra) == 0 {
		return "", false
	}
	src := gjson.GetBytes(e.Extra, "source").Str
	for _, k := range RawSigKeys {
		if src == k {
			return k, true
		}
	}
	return "", false
}

// BindRawSignature opens, before the tool call about to open, the bound
// signature item for a signature put directly on the call (see
// [RawSignature]), within the budget. It returns the member's name ("" when
// the call has no such signature).
func (d *Decoder) BindRawSignature(tc string, loc Loc, dst []stream.Event) (string, []stream.Event, error) {
	key, raw, ok, err := RawSignature(d.host.API, d.eng.Budget.Event, tc, loc)
	if !ok || err != nil {
		return "", dst, err
	}
	pos := len(d.turn.Blocks)
	sig, err := d.keep(pos, jsonw.UnquoteView(raw))
	if err != nil {
		return "", dst, err
	}
	id, err := d.keep(pos, jsonw.UnquoteView(jsonw.RawMember(tc, "id")))
	if err != nil {
		return "", dst, err
	}
	it := SignatureItem(sig, id, key)
	if pos, dst, err = d.Open(it, dst); err != nil {
		return "", dst, err
	}
	return key, append(dst, stream.Event{Kind: stream.EventReasoningStart, Block: pos, Item: it},
		stream.Event{Kind: stream.EventReasoningEnd, Block: pos, Item: it}), nil
}

// AppendToolCall appends the chat-completions tool call blocks[i]
// (`{"id":...,"type":"function","function":{"name":...,"arguments":...}}`
// with its extra members). A Gemini signature bound to the call that was
// read from a member of the call itself goes back in that member; a bound
// signature that came from elsewhere is returned for the caller to write
// its own way (nil when none).
func AppendToolCall(out []byte, blocks []replay.Block, i int) ([]byte, *replay.Encrypted) {
	c := blocks[i].(*replay.ToolCall)
	out = append(out, `{"id":`...)
	out = jsonw.String(out, c.ID)
	out = append(out, `,"type":"function","function":{"name":`...)
	out = jsonw.String(out, c.Name)
	out = append(out, `,"arguments":`...)
	out = jsonw.String(out, c.Arguments)
	out = append(out, '}')
	out = jsonw.Members(out, c.Extra)
	sig, ok := gemsig.Bound(blocks, i)
	if !ok || !sig.Replayable() {
		return append(out, '}'), nil
	}
	if key, raw := RawSigKey(sig); raw {
		out = jsonw.Key(out, key)
		out = jsonw.String(out, sig.Data)
		return append(out, '}'), nil
	}
	return append(out, '}'), sig
}
