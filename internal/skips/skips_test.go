package skips

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/reasonreplay/replay/replayhttp"
	"github.com/stretchr/testify/assert"
)

// Every skip counts; each reason is logged once, with the key cut short.
func TestSkip(t *testing.T) {
	var out bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&out, nil))
	var s Skips
	k := replayhttp.Key{Tenant: strings.Repeat("t", 40), Conversation: "c"}
	s.Skip(log, "redis", "not JSON", k)
	s.Skip(log, "redis", "not JSON", k)
	s.Skip(log, "redis", "too large", k)
	s.Skip(nil, "file", "cut short", k)
	assert.Equal(t, uint64(4), s.Count())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	assert.Len(t, lines, 2)
	assert.Contains(t, lines[0], `"reason":"not JSON"`)
	assert.Contains(t, lines[0], `"tenant":"tttttttttttttttt…"`)
	assert.Contains(t, lines[1], `"reason":"too large"`)
}
