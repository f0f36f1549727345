package openai_test

import (
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/openai"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/tidwall/gjson"
)

func validJSON(b []byte) bool { return gjson.ValidBytes(b) }

func sweepNoGolden(t *testing.T, data []byte) codectest.Result {
	t.Helper()
	res := codectest.SweepStream(t, openai.Codec{}.NewStream, replay.StreamOptions{}, data)
	codectest.RoundTripDocument(t, res.Turn)
	return res
}
