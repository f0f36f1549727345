package bench

import (
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/codecs/chatcompat"
	"github.com/reasonreplay/replay/codecs/mistral"
	"github.com/reasonreplay/replay/codecs/openrouter"
	"github.com/reasonreplay/replay/stream"
)

// framesOnly counts frames and decodes nothing: decoding a stream with it
// measures the SSE framing alone on the same bytes and the same path.
type framesOnly struct{ n int }

func (f *framesOnly) Decode(typ, data []byte, dst []stream.Event) ([]stream.Event, error) {
	f.n++
	return dst, nil
}

func (f *framesOnly) Finish() (*replay.Turn, error) { return &replay.Turn{Complete: true}, nil }

func (f *framesOnly) SetLimits(replay.Limits) {}

// chatCase is one chat-completions stream and the codec that decodes it.
type chatCase struct {
	name   string
	stream func() ([]byte, int)
	newFD  func() codecs.FrameDecoder
	blocks int // blocks of the finished turn
}

var chatCases = []chatCase{
	{"OpenRouter/long", func() ([]byte, int) { return OpenRouterStream(2000) }, openrouter.Codec{}.NewFrameDecoder, 2},
	{"OpenRouter/toolloop", func() ([]byte, int) { return OpenRouterToolLoop(200, 200) }, openrouter.Codec{}.NewFrameDecoder, 401},
	{"DeepSeek/long", func() ([]byte, int) { return DeepSeekStream(2000) }, chatcompat.New(chatcompat.APIDeepSeek, "", "deepseek-v4-flash").NewFrameDecoder, 3},
	{"DeepSeek/toolloop", func() ([]byte, int) { return DeepSeekToolLoop(200, 200) }, chatcompat.New(chatcompat.APIDeepSeek, "", "deepseek-v4-flash").NewFrameDecoder, 401},
	{"Mistral/long", func() ([]byte, int) { return MistralStream(2000) }, mistral.Codec{}.NewFrameDecoder, 2},
	{"Mistral/toolloop", func() ([]byte, int) { return MistralToolLoop(200, 200) }, mistral.Codec{}.NewFrameDecoder, 401},
}

// BenchmarkChat decodes each chat stream into a finished turn ("decode")
// and frames the same bytes alone ("framing"), in 4 KiB writes; the ratio
// of the two is the share of framing speed the codec keeps. The peer
// ("openai-go") is what a Go program talking to these chat-completions
// endpoints uses: openai-go/v3's ssestream of ChatCompletionChunk and its
// ChatCompletionAccumulator, on the same bytes (it keeps no reasoning:
// those members stay as unparsed extra fields).
func BenchmarkChat(b *testing.B) {
	for _, cc := range chatCases {
		data, events := cc.stream()
		b.Run(cc.name+"/decode", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				turn := decodeAll(b, cc.newFD(), stream.Options{}, data)
				if len(turn.Blocks) != cc.blocks || !turn.Complete {
					b.Fatalf("%d blocks, complete %v", len(turn.Blocks), turn.Complete)
				}
			}
			b.ReportMetric(float64(events), "events/op")
		})
		b.Run(cc.name+"/openai-go", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if n := chatSDK(b, data); n < events-1 {
					b.Fatalf("%d chunks of %d events", n, events)
				}
			}
		})
		b.Run(cc.name+"/framing", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				f := &framesOnly{}
				decodeAll(b, f, stream.Options{}, data)
				if f.n != events {
					b.Fatalf("%d frames, want %d", f.n, events)
				}
			}
		})
	}
}
