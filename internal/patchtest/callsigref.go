package patchtest

import (
	"strconv"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/chatstream"
	"github.com/reasonreplay/replay/internal/gemsig"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// RefPatchCallSignatures is chatstream.PatchCallSignatures as it was
// written on gjson and sjson. One decision differs from it: a tool_calls
// member that is not an array has no tool calls (gjson read an object's
// member named "0" as the first call), and a value that is not an object
// has no members (gjson and sjson looked for them in the text of a string
// that held a brace).
func RefPatchCallSignatures(api string, msg []byte, t *replay.Turn, extraContent bool) ([]byte, error) {
	out := msg
	for i, b := range t.Blocks {
		tc, ok := b.(*replay.ToolCall)
		if !ok || tc.ID == "" {
			continue
		}
		sig, ok := gemsig.Bound(t.Blocks, i)
		if !ok || !sig.Replayable() {
			continue
		}
		path, raw := chatstream.RawSigKey(sig)
		if !raw && !extraContent {
			continue
		}
		if !raw {
			path = gemsig.At(sig).Path()
		}
		if !gjson.GetBytes(out, "tool_calls").IsArray() { // the decision above
			continue
		}
		k := -1
		gjson.GetBytes(out, "tool_calls").ForEach(func(key, v gjson.Result) bool {
			k++
			return !v.IsObject() || v.Get("id").Str != tc.ID // the decision above
		})
		if k < 0 || gjson.GetBytes(out, "tool_calls."+strconv.Itoa(k)+".id").Str != tc.ID {
			continue
		}
		var err error
		// The decision above: a string on the path has no members.
		for p, at := "tool_calls."+strconv.Itoa(k), 0; ; {
			i := strings.IndexByte(path[at:], '.')
			if i < 0 {
				break
			}
			p, at = p+"."+path[at:at+i], at+i+1
			if gjson.GetBytes(out, p).Type == gjson.String {
				out, _ = sjson.SetRawBytes(out, p, []byte(`""`))
			}
		}
		if out, err = sjson.SetBytes(out, "tool_calls."+strconv.Itoa(k)+"."+path, sig.Data); err != nil {
			return nil, codecs.Malformed(api, -1, "/tool_calls/"+strconv.Itoa(k), "cannot set the signature: %v", err)
		}
	}
	return out, nil
}
