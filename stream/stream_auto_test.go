package stream_test

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FramingAuto gives the same turn as the named framing, for the pull and
// the push form, whatever the split of the input.
func TestFramingAuto(t *testing.T) {
	for _, c := range []struct {
		in   string
		want stream.Framing
	}{
		{"event: a\ndata: he\n\ndata: llo\n\ndata: END\n\n", stream.FramingSSE},
		{": keep-alive\r\n\r\ndata: hello\r\n\r\ndata: END\r\n\r\n", stream.FramingSSE},
		{"\xEF\xBB\xBF\n{\"he\":1}\n{\"llo\":2}\nEND\n", stream.FramingJSONL},
	} {
		tu, err := stream.Decode(strings.NewReader(c.in), kit.Decoding(&echo{}), stream.Options{Framing: c.want})
		require.NoError(t, err)
		want := tu.VisibleText()

		s := stream.New(strings.NewReader(c.in), kit.Decoding(&echo{}), stream.Options{Framing: stream.FramingAuto})
		assert.Equal(t, stream.FramingAuto, s.Framing(), "nothing is read before Next")
		tu, err = s.Turn()
		require.NoError(t, err, c.in)
		assert.Equal(t, want, tu.VisibleText())
		assert.Equal(t, c.want, s.Framing())

		for split := 1; split <= len(c.in); split++ {
			d := stream.NewDecoder(kit.Decoding(&echo{}), stream.Options{Framing: stream.FramingAuto})
			for i := 0; i < len(c.in); i += split {
				_, err := d.Write([]byte(c.in[i:min(i+split, len(c.in))]))
				require.NoError(t, err)
			}
			tu, err := d.Close()
			require.NoError(t, err, "split %d", split)
			assert.Equal(t, want, tu.VisibleText(), "split %d", split)
			assert.Equal(t, c.want, d.Framing())
		}
	}
}

func TestFramingAutoRefuses(t *testing.T) {
	for in, want := range map[string]string{
		"{\n  \"id\": 1\n}\n": "replay: unrecognised stream framing: the input is one JSON value (a response body), not a stream; decode it with the codec's Decode",
		"hello world\n":       `replay: unrecognised stream framing: the input starts with "hello world\n", neither an SSE field nor a JSON line`,
		"":                    "replay: unrecognised stream framing: the stream is empty: unexpected EOF",
	} {
		tu, err := stream.Decode(strings.NewReader(in), kit.Decoding(&echo{}), stream.Options{Framing: stream.FramingAuto})
		require.Error(t, err, "%q", in)
		assert.Equal(t, want, err.Error())
		assert.ErrorIs(t, err, stream.ErrFraming)
		assert.False(t, tu.Complete)

		d := stream.NewDecoder(kit.Decoding(&echo{}), stream.Options{Framing: stream.FramingAuto})
		_, werr := d.Write([]byte(in))
		_, cerr := d.Close()
		require.Error(t, cerr)
		assert.Equal(t, want, cerr.Error(), "%q: push form", in)
		if werr != nil {
			assert.Same(t, werr, cerr, "sticky")
		}
	}
}

// A Decoder in capture-only mode keeps no events, and builds the same turn.
// An AWS event stream is told from its prelude and framed as one: a
// message cut short after a valid prelude is an event-stream error.
func TestFramingAutoEventStream(t *testing.T) {
	in := "\x00\x00\x00\x10\x00\x00\x00\x00\x05\xc2\x48\xeb"
	d := stream.NewDecoder(kit.Decoding(&echo{}), stream.Options{Framing: stream.FramingAuto})
	_, _ = d.Write([]byte(in))
	_, err := d.Close()
	assert.Equal(t, stream.FramingEventStream, d.Framing())
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
}

func TestDecoderCaptureOnly(t *testing.T) {
	var in strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&in, "data: %d\n\n", i%10)
	}
	in.WriteString("data: END\n\n")
	full := stream.NewDecoder(kit.Decoding(&echo{}), stream.Options{})
	capture := stream.NewDecoder(kit.Decoding(&echo{}), stream.Options{CaptureOnly: true, Framing: stream.FramingAuto})
	for _, d := range []*stream.Decoder{full, capture} {
		_, err := io.Copy(d, strings.NewReader(in.String()))
		require.NoError(t, err)
	}
	n := 0
	for _, ok := full.Next(); ok; _, ok = full.Next() {
		n++
	}
	assert.Equal(t, 1001, n)
	_, ok := capture.Next()
	assert.False(t, ok, "capture-only keeps no events")
	a, err := full.Close()
	require.NoError(t, err)
	b, err := capture.Close()
	require.NoError(t, err)
	assert.Equal(t, a.VisibleText(), b.VisibleText())
	assert.Len(t, b.VisibleText(), 1000)
}

func TestFramingStrings(t *testing.T) {
	for s, f := range map[string]stream.Framing{"sse": stream.FramingSSE, "jsonl": stream.FramingJSONL, "eventstream": stream.FramingEventStream, "auto": stream.FramingAuto} {
		got, err := stream.ParseFraming(s)
		require.NoError(t, err)
		assert.Equal(t, f, got)
		assert.Equal(t, s, f.String())
	}
	_, err := stream.ParseFraming("xml")
	assert.EqualError(t, err, `replay: unknown framing "xml" (want sse, jsonl, eventstream or auto)`)
	assert.Equal(t, "<invalid Framing>", stream.Framing(9).String())
}

func TestOptFormatting(t *testing.T) {
	type item struct{ Sig replay.Opt[string] }
	assert.Equal(t, "{abc}", fmt.Sprintf("%v", item{replay.Some("abc")}))
	assert.Equal(t, "abc <null> <absent> 7", fmt.Sprint(replay.Some("abc"), " ", replay.NullOf[string](), " ", replay.Opt[string]{}, " ", replay.Some(7)))
	assert.Equal(t, `replay.Some[string]("abc")`, fmt.Sprintf("%#v", replay.Some("abc")))
	assert.Equal(t, `replay.NullOf[string]()`, fmt.Sprintf("%#v", replay.NullOf[string]()))
	assert.Equal(t, `replay.Opt[int]{}`, fmt.Sprintf("%#v", replay.Opt[int]{}))
}
