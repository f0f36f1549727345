package openrouter

import (
	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/internal/patchtest"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// refPatch is Patch as it was written on gjson and sjson, kept as the
// reference FuzzPatch holds Patch to.
func (Codec) refPatch(msg []byte, t *replay.Turn) ([]byte, error) {
	if t == nil {
		return nil, kit.NoTurn(API, "patch")
	}
	if err := kit.CheckBody(API, msg, "an assistant message object to patch"); err != nil {
		return nil, err
	}
	if !gjson.ParseBytes(msg).IsObject() {
		return nil, codecs.Malformed(API, -1, "", "expected an assistant message object to patch")
	}
	out := append([]byte(nil), msg...)
	if details := appendDetails(nil, t); details != nil {
		var err error
		if out, err = sjson.SetRawBytes(out, "reasoning_details", details); err != nil {
			return nil, codecs.Malformed(API, -1, "/reasoning_details", "cannot set the reasoning: %v", err)
		}
	}
	return patchtest.RefPatchCallSignatures(API, out, t, false)
}
