package chatcompat

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
func (c Codec) refPatch(msg []byte, t *replay.Turn) ([]byte, error) {
	if t == nil {
		return nil, kit.NoTurn(c.API(), "patch")
	}
	api := c.API()
	if err := kit.CheckBody(api, msg, "an assistant message object to patch"); err != nil {
		return nil, err
	}
	if !gjson.ParseBytes(msg).IsObject() {
		return nil, codecs.Malformed(api, -1, "", "expected an assistant message object to patch")
	}
	out := append([]byte(nil), msg...)
	var err error
	if name, v := c.field(t); name != "" {
		if out, err = sjson.SetRawBytes(out, name, v); err != nil {
			return nil, codecs.Malformed(api, -1, "/"+name, "cannot set the reasoning: %v", err)
		}
	}
	if c.Profile.Replay == ReplayRawContent {
		if text, has := c.content(t); has {
			if out, err = sjson.SetBytes(out, "content", text); err != nil {
				return nil, codecs.Malformed(api, -1, "/content", "cannot set the content: %v", err)
			}
		}
		if det := c.details(t); det != nil {
			if out, err = sjson.SetRawBytes(out, "reasoning_details", det); err != nil {
				return nil, codecs.Malformed(api, -1, "/reasoning_details", "cannot set the reasoning: %v", err)
			}
		}
	}
	return patchtest.RefPatchCallSignatures(api, out, t, true)
}
