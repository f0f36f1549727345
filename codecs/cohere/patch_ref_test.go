package cohere

import (
	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/internal/patchtest"
	"github.com/tidwall/gjson"
)

// refPatch and refStrip are Patch and Strip as they were written on gjson,
// kept as the references FuzzPatch and FuzzStrip hold them to. One
// decision differs from them: a content element that is not an object has
// no type (gjson looked for one in the text of a string that held a brace).
func (c Codec) refPatch(msg []byte, t *replay.Turn) ([]byte, error) {
	if t == nil {
		return nil, kit.NoTurn(API, "patch")
	}
	return refPatchSpec.RefContentPatch(msg, t)
}

func (Codec) refStrip(raw []byte) ([]byte, []codecs.Change) {
	out, removed := kit.FilterArray(raw, "content", func(b gjson.Result) bool { return b.IsObject() && b.Get("type").Str == "thinking" })
	return out, kit.Removed(removed, "thinking block removed")
}

var refPatchSpec = patchtest.RefSpec{
	API:       API,
	Reasoning: "thinking",
	IsText:    func(v gjson.Result) bool { return v.IsObject() && v.Get("type").String() == "text" },
	Append:    patchSpec.Append,
}
