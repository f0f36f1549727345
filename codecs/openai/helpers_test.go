package openai_test

import (
	"testing"

	"github.com/reasonreplay/replay/codecs/openai"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/stream"
	"github.com/tidwall/gjson"
)

func validJSON(b []byte) bool { return gjson.ValidBytes(b) }

func sweepNoGolden(t *testing.T, data []byte) codectest.Result {
	t.Helper()
	res := codectest.SweepStream(t, openai.Codec{}.NewFrameDecoder, stream.Options{}, data)
	codectest.RoundTripDocument(t, res.Turn)
	return res
}
