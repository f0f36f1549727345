package openrouter

import (
	"testing"

	"github.com/reasonreplay/replay/internal/patchtest"
)

// BenchmarkPatch patches a stripped tool-loop message of the codec's
// request shape, as cold repair does, with Patch ("new") and with the
// reference it replaced ("ref").
func BenchmarkPatch(b *testing.B) {
	c := Codec{}
	patchtest.BenchChatPatch(b, "openrouter", c, c.refPatch)
}
