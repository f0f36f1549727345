package bedrock_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/bedrock"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

type header struct{ name, value string }

// frame encodes one AWS event-stream message with string headers.
func frame(headers []header, payload []byte) []byte {
	var h []byte
	for _, x := range headers {
		h = append(h, byte(len(x.name)))
		h = append(h, x.name...)
		h = append(h, 7)
		h = binary.BigEndian.AppendUint16(h, uint16(len(x.value)))
		h = append(h, x.value...)
	}
	total := 12 + len(h) + len(payload) + 4
	msg := binary.BigEndian.AppendUint32(nil, uint32(total))
	msg = binary.BigEndian.AppendUint32(msg, uint32(len(h)))
	msg = binary.BigEndian.AppendUint32(msg, crc32.ChecksumIEEE(msg))
	msg = append(msg, h...)
	msg = append(msg, payload...)
	return binary.BigEndian.AppendUint32(msg, crc32.ChecksumIEEE(msg))
}

// toEventStream re-encodes a JSON Lines fixture as the binary event stream
// Bedrock sends: one message per line, the event type in a header.
func toEventStream(t testing.TB, jsonl []byte) []byte {
	var out []byte
	for _, line := range bytes.Split(bytes.TrimSpace(jsonl), []byte("\n")) {
		var typ, payload string
		gjson.ParseBytes(line).ForEach(func(k, v gjson.Result) bool {
			typ, payload = k.Str, v.Raw
			return false
		})
		require.NotEmpty(t, typ)
		hs := []header{{":message-type", "event"}, {":event-type", typ}, {":content-type", "application/json"}}
		if strings.HasSuffix(typ, "Exception") {
			hs = []header{{":message-type", "exception"}, {":exception-type", typ}, {":content-type", "application/json"}}
		}
		out = append(out, frame(hs, []byte(payload))...)
	}
	return out
}

func decodeEventStream(r io.Reader, model string) (*replay.Turn, error) {
	return stream.Decode(r, bedrock.Codec{Model: model}, stream.Options{Framing: stream.FramingEventStream})
}

func TestEventStreamMatchesJSONL(t *testing.T) {
	for _, name := range []string{"claude-thinking.jsonl", "claude-tool-use.jsonl", "redacted-tool-use.jsonl",
		"kimi-unsigned-tool-use.jsonl", "stream-exception.jsonl", "cut-mid-reasoning.jsonl"} {
		t.Run(name, func(t *testing.T) {
			jsonl := read(t, name)
			want := codectest.FeedPush(bedrock.Codec{Model: modelFor(name)}.NewFrameDecoder(), stream.Options{Framing: stream.FramingJSONL}, [][]byte{jsonl})
			bin := toEventStream(t, jsonl)
			// Push and pull, split anywhere: the same turn as the JSON Lines.
			got := codectest.SweepStream(t, bedrock.Codec{Model: modelFor(name)}.NewFrameDecoder,
				stream.Options{Framing: stream.FramingEventStream}, bin)
			require.Equal(t, string(want.Document()), string(got.Document()))
			require.Equal(t, errString(want.Err), errString(got.Err))
			require.Equal(t, codectest.EventSummary(want.Events), codectest.EventSummary(got.Events))
			for _, r := range []io.Reader{bytes.NewReader(bin), iotest.OneByteReader(bytes.NewReader(bin)), iotest.HalfReader(bytes.NewReader(bin))} {
				got, err := decodeEventStream(r, modelFor(name))
				require.Equal(t, string(want.Document()), string(codectest.Indent(got.AppendJSON(nil))))
				require.Equal(t, errString(want.Err), errString(err))
			}
		})
	}
}

func TestEventStreamErrors(t *testing.T) {
	good := toEventStream(t, read(t, "claude-thinking.jsonl"))

	// A flipped payload byte fails the message checksum; the events before
	// it were delivered.
	bad := append([]byte(nil), good...)
	bad[len(bad)-10] ^= 0xff
	tu, err := decodeEventStream(bytes.NewReader(bad), claude)
	require.ErrorIs(t, err, replay.ErrMalformed)
	require.Contains(t, err.Error(), "message checksum mismatch")
	require.False(t, tu.Complete)
	require.NotEmpty(t, tu.Blocks)

	bad = append([]byte(nil), good...)
	bad[9] ^= 0xff
	_, err = decodeEventStream(bytes.NewReader(bad), claude)
	require.ErrorIs(t, err, replay.ErrMalformed)
	require.Contains(t, err.Error(), "prelude checksum mismatch")

	// Cut inside a message.
	_, err = decodeEventStream(bytes.NewReader(good[:len(good)-7]), claude)
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	_, err = decodeEventStream(bytes.NewReader(good[:5]), claude)
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)

	// An error message becomes a provider error.
	stream := append(toEventStream(t, []byte(`{"messageStart":{"role":"assistant"}}`)),
		frame([]header{{":message-type", "error"}, {":error-code", "InternalFailure"}, {":error-message", "We hit a snag"}}, nil)...)
	tu, err = decodeEventStream(bytes.NewReader(stream), claude)
	var pe *replay.ProviderError
	require.ErrorAs(t, err, &pe)
	require.Equal(t, "InternalFailure", pe.Type)
	require.Equal(t, "We hit a snag", pe.Message)
	require.Same(t, pe, tu.Error)

	// A payload that is not JSON.
	_, err = decodeEventStream(bytes.NewReader(frame([]header{{":event-type", "messageStart"}}, []byte("{nope"))), claude)
	require.ErrorIs(t, err, replay.ErrMalformed)

	// A reader error is passed through.
	boom := errors.New("connection reset")
	_, err = decodeEventStream(iotest.ErrReader(boom), claude)
	require.ErrorIs(t, err, boom)
}

func TestEventStreamUnknownHeaderTypes(t *testing.T) {
	// Non-string headers (here an int32 and a uuid) are skipped.
	msg := frame([]header{{":event-type", "messageStop"}}, []byte(`{"stopReason":"end_turn"}`))
	hlen := binary.BigEndian.Uint32(msg[4:8])
	extra := append([]byte{2, 'i', 'd', 4, 0, 0, 0, 7, 1, 'u', 9}, make([]byte, 16)...)
	headers := append(append([]byte(nil), msg[12:12+hlen]...), extra...)
	payload := msg[12+hlen : len(msg)-4]
	total := 12 + len(headers) + len(payload) + 4
	out := binary.BigEndian.AppendUint32(nil, uint32(total))
	out = binary.BigEndian.AppendUint32(out, uint32(len(headers)))
	out = binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out))
	out = append(append(out, headers...), payload...)
	out = binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out))
	tu, err := decodeEventStream(bytes.NewReader(out), claude)
	require.NoError(t, err)
	require.True(t, tu.Complete)
	require.Equal(t, "end_turn", tu.FinishReason)
}

func TestEventStreamLimits(t *testing.T) {
	bin := toEventStream(t, read(t, "claude-thinking.jsonl"))
	codectest.SweepLimits(t, bedrock.Codec{Model: claude}.NewFrameDecoder, stream.FramingEventStream, bin)
}

// FuzzEventStream feeds arbitrary bytes to the decoder through the
// event-stream framing: no panic, and every error is typed or the
// provider's.
func FuzzEventStream(f *testing.F) {
	f.Add(toEventStream(f, read(f, "claude-tool-use.jsonl")))
	f.Add(frame([]header{{":message-type", "error"}, {":error-code", "X"}}, nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := decodeEventStream(bytes.NewReader(data), claude)
		var pe *replay.ProviderError
		var le *replay.LimitError
		if err != nil && !errors.Is(err, replay.ErrMalformed) && !errors.Is(err, io.ErrUnexpectedEOF) &&
			!errors.As(err, &pe) && !errors.As(err, &le) {
			t.Fatalf("untyped error: %v", err)
		}
	})
}
