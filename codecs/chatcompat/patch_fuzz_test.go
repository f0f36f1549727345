package chatcompat

import (
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/chatstream/fuzzturn"
	"github.com/reasonreplay/replay/internal/patchtest"
)

// patchCodecs are the profiles FuzzPatch patches with: DeepSeek's (the
// reasoning member, and "" back-filled), MiniMax's raw content, Gemini's
// and Vertex AI's signatures on the tool calls, Kimi's preserved thinking.
var patchCodecs = func() []Codec {
	kimi := New(APIGeneric, "moonshot", "kimi-k2.7")
	kimi.Preserve = true
	return []Codec{
		New(APIDeepSeek, "", "deepseek-v4-pro"), New(APIDeepSeek, "", "deepseek-reasoner"),
		New(APIGeneric, "minimax", "minimax-m2"), New(APIGeneric, "gemini", "gemini-3-pro"),
		New(APIGeneric, "vertex-openai", "gemini-3-pro"), kimi, New(APIXAI, "", "grok-3-mini"),
	}
}()

// checkPatch holds Patch to refPatch (see patchtest.SamePatch).
func checkPatch(t *testing.T, c Codec, msg []byte, tu *replay.Turn) {
	patchtest.SamePatch(t, c.Patch, c.refPatch, msg, tu)
}

func FuzzPatch(f *testing.F) {
	for i, m := range fuzzturn.Messages {
		f.Add([]byte(m), []byte{byte(i), byte(i * 5)}, []byte{2, byte(i * 3), 0, 0, 4, 0x40, 1, 1, 5, byte(i * 64)}, uint8(i))
	}
	f.Fuzz(func(t *testing.T, msg, mspec, tspec []byte, which uint8) {
		c := patchCodecs[int(which)%len(patchCodecs)]
		tu := fuzzturn.Turn(tspec)
		checkPatch(t, c, msg, tu)
		checkPatch(t, c, fuzzturn.Message(mspec), tu)
	})
}

// TestPatchMatchesReference patches every seed message with turns that
// put signatures on calls 1 to 3 in each place, with each profile.
func TestPatchMatchesReference(t *testing.T) {
	specs := [][]byte{
		{2, 0, 4, 0x00, 4, 0x02, 0, 0},             // reasoning, google on call_1, google on call_3, text
		{4, 0x40, 4, 0x42, 5, 0x41, 1, 1},          // vertex on call_1, call_3, an unbound vertex on call_2
		{4, 0x80, 4, 0xc0, 4, 0x82, 4, 0x08},       // thoughtSignature and thought_signature on call_1, on call_3
		{2, 0x18, 2, 0x1c, 0, 5, 3, 1, 6, 0, 7, 0}, // MiniMax content reasoning, text, encrypted, opaque, native
		{4, 0x00, 4, 0x40, 4, 0x80},                // three places on call_1
	}
	for _, c := range patchCodecs {
		for _, m := range fuzzturn.Messages {
			for _, sp := range specs {
				checkPatch(t, c, []byte(m), fuzzturn.Turn(sp))
			}
		}
	}
}
