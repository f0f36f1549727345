package sse

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

type hdr struct{ name, value string }

// message encodes one event-stream message with string headers.
func message(headers []hdr, payload string) []byte {
	var h []byte
	for _, x := range headers {
		h = append(h, byte(len(x.name)))
		h = append(h, x.name...)
		h = append(h, 7)
		h = binary.BigEndian.AppendUint16(h, uint16(len(x.value)))
		h = append(h, x.value...)
	}
	return seal(h, payload)
}

// seal frames raw headers and a payload with the prelude and both CRCs.
func seal(h []byte, payload string) []byte {
	total := preludeLen + len(h) + len(payload) + 4
	msg := binary.BigEndian.AppendUint32(nil, uint32(total))
	msg = binary.BigEndian.AppendUint32(msg, uint32(len(h)))
	msg = binary.BigEndian.AppendUint32(msg, crc32.ChecksumIEEE(msg))
	msg = append(msg, h...)
	msg = append(msg, payload...)
	return binary.BigEndian.AppendUint32(msg, crc32.ChecksumIEEE(msg))
}

func eventMsg(typ, payload string) []byte {
	return message([]hdr{{":message-type", "event"}, {":event-type", typ}, {":content-type", "application/json"}}, payload)
}

func sample() []byte {
	var s []byte
	s = append(s, eventMsg("messageStart", `{"role":"assistant"}`)...)
	s = append(s, eventMsg("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"Hi\nthere"}}`)...)
	s = append(s, message([]hdr{{":message-type", "other"}}, `x`)...)
	s = append(s, message([]hdr{{":message-type", "exception"}, {":exception-type", "throttlingException"}}, `{"message":"slow down"}`)...)
	s = append(s, message([]hdr{{":message-type", "error"}, {":error-code", "InternalFailure"}, {":error-message", `a "snag"`}}, ``)...)
	return s
}

var sampleEvents = []ev{
	{Type: "messageStart", Data: `{"role":"assistant"}`},
	{Type: "contentBlockDelta", Data: `{"contentBlockIndex":0,"delta":{"text":"Hi\nthere"}}`},
	{Type: "throttlingException", Data: `{"message":"slow down"}`},
	{Type: "error", Data: `{"code":"InternalFailure","message":"a \"snag\""}`},
}

func TestEventStreamTyped(t *testing.T) {
	data := sample()
	got, err := events(EventStream, [][]byte{data})
	require.Empty(t, err)
	require.Equal(t, sampleEvents, got)
	// Every split, push and pull, gives the same events.
	for cut := 0; cut <= len(data); cut++ {
		got, err := events(EventStream, [][]byte{data[:cut], data[cut:]})
		require.Empty(t, err)
		require.Equal(t, sampleEvents, got, "cut at %d", cut)
	}
	var bytewise []string
	for i := range data {
		bytewise = append(bytewise, string(data[i:i+1]))
	}
	got2, err2 := push(t, EventStream, 1<<16, bytewise...)
	require.NoError(t, err2)
	require.Equal(t, sampleEvents, got2)
	got2, err2 = pull(EventStream, 1<<16, bytewise...) // pull consumes the chunks
	require.NoError(t, err2)
	require.Equal(t, sampleEvents, got2)
}

func TestEventStreamErrors(t *testing.T) {
	good := sample()
	cases := []struct {
		name string
		in   []byte
		msg  string
		eof  bool
	}{
		{"message crc", flip(good, len(good)-3), "message 4: message checksum mismatch", false},
		{"prelude crc", flip(good, 9), "message 0: prelude checksum mismatch", false},
		{"cut inside a message", good[:len(good)-7], "message 4: the stream ended inside a message", true},
		{"cut inside a prelude", good[:5], "message 0: the stream ended inside a message", true},
		{"no event type", message([]hdr{{":message-type", "event"}}, `{}`), "message 0: event without an :event-type header", false},
		{"unknown header type", seal([]byte{1, 'x', 42}, `{}`), "message 0: unknown header value type 42", false},
		{"truncated header", seal([]byte{9, 'x'}, `{}`), "message 0: truncated header", false},
		{"truncated string header", seal([]byte{1, 'x', 7, 0, 9, 'a'}, `{}`), `message 0: truncated header "x"`, false},
		{"short length", seal16(), "message 0: bad message length 8 (headers 0)", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, form := range []string{"push", "pull"} {
				var err error
				if form == "push" {
					_, err = push(t, EventStream, 1<<16, string(c.in))
				} else {
					_, err = pull(EventStream, 1<<16, string(c.in))
				}
				var fe *FormatError
				require.True(t, errors.As(err, &fe), "%s: %v", form, err)
				require.Equal(t, "event stream: "+c.msg, err.Error())
				require.Equal(t, c.eof, errors.Is(err, io.ErrUnexpectedEOF))
			}
		})
	}
}

func flip(b []byte, i int) []byte {
	out := append([]byte(nil), b...)
	out[i] ^= 0xff
	return out
}

// seal16 is a prelude announcing an 8-byte message, with a good CRC.
func seal16() []byte {
	msg := binary.BigEndian.AppendUint32(nil, 8)
	msg = binary.BigEndian.AppendUint32(msg, 0)
	return binary.BigEndian.AppendUint32(msg, crc32.ChecksumIEEE(msg))
}

func TestEventStreamSkipsOtherHeaders(t *testing.T) {
	// An int32, a uuid and a byte-array header around the event type.
	h := []byte{2, 'i', 'd', 4, 0, 0, 0, 7}
	h = append(append(h, 1, 'u', 9), make([]byte, 16)...)
	h = append(h, 1, 'b', 6, 0, 2, 'x', 'y')
	h = append(h, 11, ':', 'e', 'v', 'e', 'n', 't', '-', 't', 'y', 'p', 'e', 7, 0, 11)
	h = append(h, "messageStop"...)
	got, err := events(EventStream, [][]byte{seal(h, `{"stopReason":"end_turn"}`)})
	require.Empty(t, err)
	require.Equal(t, []ev{{Type: "messageStop", Data: `{"stopReason":"end_turn"}`}}, got)
}

func TestEventStreamLimit(t *testing.T) {
	data := eventMsg("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"0123456789"}}`)
	// The payload is bounded, not the headers: a limit of the payload's
	// length passes, one less fails at the prelude, however split.
	n := len(`{"contentBlockIndex":0,"delta":{"text":"0123456789"}}`)
	_, err := push(t, EventStream, n, string(data))
	require.NoError(t, err)
	for cut := 0; cut <= len(data); cut++ {
		_, err := push(t, EventStream, n-1, string(data[:cut]), string(data[cut:]))
		require.Equal(t, fmt.Sprint(&LimitError{Limit: n - 1}), fmt.Sprint(err), "cut at %d", cut)
	}
	_, err = pull(EventStream, n-1, string(data))
	require.Equal(t, &LimitError{Limit: n - 1}, err)
}

// FuzzEventStream: no panic, any split of the input (push) and any read
// size (pull) give the same events and error as the whole input, and every
// error is typed.
func FuzzEventStream(f *testing.F) {
	f.Add(sample(), uint16(7))
	f.Add(seal([]byte{1, 'x', 7, 0, 9, 'a'}, `{}`), uint16(3))
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		want, wantErr := events(EventStream, [][]byte{data})
		c := int(cut) % (len(data) + 1)
		got, gotErr := events(EventStream, [][]byte{data[:c], data[c:]})
		if fmt.Sprint(want) != fmt.Sprint(got) || wantErr != gotErr {
			t.Fatalf("split at %d: %v %q vs %v %q", c, want, wantErr, got, gotErr)
		}
		pulled, err := pull(EventStream, 1<<16, string(data[:c]), string(data[c:]))
		pullErr := ""
		if err != nil {
			pullErr = err.Error()
			var fe *FormatError
			var le *LimitError
			if !errors.As(err, &fe) && !errors.As(err, &le) {
				t.Fatalf("untyped error: %v", err)
			}
		}
		if fmt.Sprint(want) != fmt.Sprint(pulled) || wantErr != pullErr {
			t.Fatalf("pull: %v %q vs %v %q", want, wantErr, pulled, pullErr)
		}
	})
}
