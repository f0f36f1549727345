package kit

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// SniffNames, a literal the program never builds, answers as the map
// the codecs built when the program started (names[s]).
func TestSniffNamesAsMap(t *testing.T) {
	names := SniffNames{"message_start", "content_block_delta", "ping", "messageStart", "tool-plan-delta"}
	set := map[string]bool{}
	for _, n := range names {
		set[n] = true
	}
	for _, probe := range []string{"message_start", "content_block_delta", "ping", "messageStart", "tool-plan-delta",
		"", "message", "message_start ", "Message_start", "pin", "pingg", "content_block", "tool-plan-delta\x00"} {
		assert.Equal(t, set[probe], names.Has(probe), "%q", probe)
	}
	assert.False(t, SniffNames(nil).Has(""))
	assert.Zero(t, testing.AllocsPerRun(20, func() { _ = names.Has("ping") }))
}
