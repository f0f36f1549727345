package chatstream

import (
	"strconv"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/gemsig"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// refStrip is Strip as it was written on gjson and sjson, kept as the
// reference FuzzStrip holds Strip to. Two decisions differ from it: a
// tool_calls member that is not an array has no tool calls (gjson read an
// object's member named "0" as the first call and stripped its signature),
// and a content element that is not an object has no type (gjson looked
// for one in the text of a string that held a brace).
func refStrip(raw []byte) ([]byte, []codecs.Change) {
	var changes []codecs.Change
	for _, f := range []string{"reasoning_details", "reasoning_content", "reasoning"} {
		if out, v := kit.DeleteMember(raw, f); v.Exists() {
			raw = out
			changes = append(changes, codecs.Change{Pointer: "/" + f, Removed: true, Detail: f + " removed"})
		}
	}
	out, removed := kit.FilterArray(raw, "content", func(b gjson.Result) bool { return b.IsObject() && b.Get("type").Str == "thinking" })
	raw = out
	changes = append(changes, kit.Removed(removed, "thinking block removed")...)
	n := 0
	if tc := gjson.GetBytes(raw, "tool_calls"); tc.IsArray() { // the decision above
		n = len(tc.Array())
	}
	for i := 0; i < n; i++ {
		for _, host := range []string{"google", "vertex"} {
			path := "tool_calls." + strconv.Itoa(i) + ".extra_content." + host + ".thought_signature"
			if out, v := kit.DeleteMember(raw, path); v.Exists() {
				raw = out
				changes = append(changes, codecs.Change{Pointer: "/tool_calls/" + strconv.Itoa(i) + "/extra_content/" + host + "/thought_signature",
					Removed: true, Detail: "thought signature removed"})
			}
		}
	}
	return raw, changes
}

// refPatchCallSignatures is PatchCallSignatures as it was written on gjson
// and sjson. Two decisions differ from it, as in refStrip: a tool_calls
// member that is not an array has no tool calls, and a value that is not
// an object has no members (gjson and sjson looked for them in the text of
// a string that held a brace).
func refPatchCallSignatures(api string, msg []byte, t *replay.Turn, extraContent bool) ([]byte, error) {
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
		path, raw := RawSigKey(sig)
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
