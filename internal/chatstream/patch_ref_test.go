package chatstream

import (
	"strconv"

	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/tidwall/gjson"
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
