package mistral

import (
	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/internal/patchtest"
	"github.com/tidwall/gjson"
)

// refPatch is Patch as it was written on gjson, kept as the reference
// FuzzPatch holds Patch to. One decision differs from it: a content
// element that is not an object has no type (gjson looked for one in the
// text of a string that held a brace).
func (c Codec) refPatch(msg []byte, t *replay.Turn) ([]byte, error) {
	if t == nil {
		return nil, kit.NoTurn(API, "patch")
	}
	if err := kit.CheckBody(API, msg, "an assistant message to patch"); err != nil {
		return nil, err
	}
	return refPatchSpec.RefContentPatch(msg, t)
}

var refPatchSpec = patchtest.RefSpec{
	API:       API,
	Reasoning: "thinking",
	IsText: func(v gjson.Result) bool {
		return v.IsObject() && v.Get("type").String() == "text" || v.Type == gjson.String
	},
	Append: patchSpec.Append,
}
