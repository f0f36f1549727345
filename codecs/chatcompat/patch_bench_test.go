package chatcompat

import (
	"testing"

	"github.com/reasonreplay/replay/internal/patchtest"
)

// BenchmarkPatch patches a stripped tool-loop message of the codec's
// request shape, as cold repair does, with Patch ("new") and with the
// reference it replaced ("ref").
func BenchmarkPatch(b *testing.B) {
	c := New(APIDeepSeek, "", "deepseek-v4-pro")
	patchtest.BenchChatPatch(b, "deepseek", c, c.refPatch)
}
