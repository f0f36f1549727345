package chatcompat

import (
	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/chatstream"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/tidwall/gjson"
)

// Decode reads a whole chat completion body: choices[0].message (its
// reasoning field, content split by package think, tool calls) and
// choices[0].finish_reason, with the stream decoder's reader. Reasoning
// that is absent or empty gives no reasoning item. An error body gives a
// *replay.ProviderError (its Status is the body's numeric code, if any:
// the HTTP status is the caller's to set); a body without
// choices[0].message gives an error saying the response structure is
// invalid. What the turn keeps is bounded by c.Limits.
func (c Codec) Decode(body []byte) (*replay.Turn, error) {
	api := c.API()
	if err := kit.CheckBody(api, body, "a JSON chat completion body"); err != nil {
		return nil, err
	}
	root := gjson.ParseBytes(body)
	if !root.IsObject() {
		return nil, codecs.Malformed(api, -1, "", "expected a JSON object (a chat completion)")
	}
	if e := root.Get("error"); e.Exists() && e.Type != gjson.Null {
		return nil, providerError(api, e)
	}
	msg := root.Get("choices.0.message")
	if !msg.IsObject() {
		return nil, codecs.Malformed(api, -1, "/choices/0/message", "invalid response structure: expected choices[0].message")
	}
	r := newReader(api, c.Profile, c.Limits, -1)
	if err := r.core.Envelope(chatstream.Chunk{Model: root.Get("model").Raw}); err != nil {
		return nil, err
	}
	t, err := r.message(msg.Raw, "/choices/0/message")
	if err != nil {
		return nil, err
	}
	b := r.core.Budget()
	if fr := root.Get("choices.0.finish_reason"); fr.Type == gjson.String {
		if t.FinishReason, err = b.Keep(-1, fr.Str); err != nil {
			return nil, err
		}
	}
	if u := root.Get("usage"); u.IsObject() {
		if err := b.Item(-1, len(u.Raw), len(u.Raw)); err != nil {
			return nil, err
		}
		t.Usage = []byte(u.Raw)
	}
	return t, nil
}

// message reads a whole assistant message (of a body or a request; its raw
// text) at ptr into a turn.
func (r *reader) message(msg string, ptr string) (*replay.Turn, error) {
	dst, err := r.core.Message(msg, ptr, r.events[:0])
	if err == nil {
		r.core.Finished()
		dst = r.core.End(dst)
	}
	clear(dst)
	r.events = dst[:0] // the next message's, for a request
	if err != nil {
		return nil, err
	}
	return r.core.Finish()
}

// providerError reads an `{"error":{...}}` object (or an error string).
func providerError(api string, e gjson.Result) *replay.ProviderError {
	pe := &replay.ProviderError{API: api}
	if e.Type == gjson.String {
		pe.Message = kit.Clone(e.Str)
		return pe
	}
	pe.Message = kit.Clone(e.Get("message").String())
	pe.Type = kit.Clone(e.Get("type").String())
	if code := e.Get("code"); code.Exists() && code.Type != gjson.Null {
		pe.Code = kit.Clone(code.String())
		if code.Type == gjson.Number {
			if n := int(code.Int()); n >= 100 && n <= 599 {
				pe.Status = n
			}
		}
	}
	return pe
}
