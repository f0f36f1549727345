package sse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type ev struct {
	Type, Data, ID string
	Retry          int
}

func push(t testing.TB, mode Mode, max int, chunks ...string) ([]ev, error) {
	var out []ev
	p := NewParser(mode, max, SinkFunc(func(e *Event) error {
		out = append(out, ev{string(e.Type), string(e.Data), string(e.ID), e.Retry})
		return nil
	}))
	for _, c := range chunks {
		buf := []byte(c)
		_, err := p.Write(buf)
		for i := range buf {
			buf[i] = 'X' // the parser must not keep the caller's bytes
		}
		if err != nil {
			return out, err
		}
	}
	return out, p.Close()
}

type slowReader struct {
	chunks []string
	err    error
}

func (r *slowReader) Read(p []byte) (int, error) {
	if len(r.chunks) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		return 0, io.EOF
	}
	n := copy(p, r.chunks[0])
	r.chunks[0] = r.chunks[0][n:]
	if r.chunks[0] == "" {
		r.chunks = r.chunks[1:]
	}
	return n, nil
}

func pull(mode Mode, max int, chunks ...string) ([]ev, error) {
	r := NewReader(&slowReader{chunks: chunks}, mode, max)
	var out []ev
	for r.Next() {
		e := r.Event()
		out = append(out, ev{string(e.Type), string(e.Data), string(e.ID), e.Retry})
	}
	return out, r.Err()
}

func TestSpecCases(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want []ev
	}{
		{"lf", "data: a\n\n", []ev{{Data: "a"}}},
		{"crlf", "data: a\r\n\r\n", []ev{{Data: "a"}}},
		{"cr", "data: a\r\rdata: b\r\r", []ev{{Data: "a"}, {Data: "b"}}},
		{"one space stripped", "data:  two\n\n", []ev{{Data: " two"}}},
		{"no space", "data:x\n\n", []ev{{Data: "x"}}},
		{"multi-line joined with LF", "data: a\ndata: b\ndata\n\n", []ev{{Data: "a\nb\n"}}},
		{"comments ignored", ": OPENROUTER PROCESSING\n\n: ping\ndata: x\n\n", []ev{{Data: "x"}}},
		{"event and id kept", "event: message_start\nid: 7\ndata: {}\n\n", []ev{{Type: "message_start", Data: "{}", ID: "7"}}},
		{"id persists, event resets", "event: a\nid: 1\ndata: x\n\ndata: y\n\n", []ev{{Type: "a", Data: "x", ID: "1"}, {Data: "y", ID: "1"}}},
		{"id with NUL ignored", "id: a\x00b\ndata: x\n\n", []ev{{Data: "x"}}},
		{"retry digits only", "retry: 1500\ndata: x\n\nretry: 1x\ndata: y\n\n", []ev{{Data: "x", Retry: 1500}, {Data: "y", Retry: 1500}}},
		{"no data, no event", "event: ping\n\n", nil},
		{"empty data dispatches", "data:\n\n", []ev{{Data: ""}}},
		{"bom stripped", "\xEF\xBB\xBFdata: x\n\n", []ev{{Data: "x"}}},
		{"unknown field ignored", "foo: bar\ndata: x\n\n", []ev{{Data: "x"}}},
		{"pending data at close dispatched", "data: last\n", []ev{{Data: "last"}}},
		{"unterminated line discarded", "data: a\n\ndata: cut", []ev{{Data: "a"}}},
		{"colon in value", "data: {\"a\":1}\n\n", []ev{{Data: `{"a":1}`}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := push(t, SSE, 0, c.in)
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
			for n := 1; n <= 3; n++ {
				var chunks []string
				for i := 0; i < len(c.in); i += n {
					chunks = append(chunks, c.in[i:min(i+n, len(c.in))])
				}
				got, err := push(t, SSE, 0, chunks...)
				require.NoError(t, err)
				assert.Equal(t, c.want, got, "push, %d-byte chunks", n)
				got, err = pull(SSE, 0, chunks...)
				require.NoError(t, err)
				assert.Equal(t, c.want, got, "pull, %d-byte chunks", n)
			}
		})
	}
}

func TestCRLFSplitAcrossWrites(t *testing.T) {
	got, err := push(t, SSE, 0, "data: a\r", "\n\r", "\ndata: b\r\n\r\n")
	require.NoError(t, err)
	assert.Equal(t, []ev{{Data: "a"}, {Data: "b"}}, got)
}

// A lone CR ends a line however far after the lines before it it comes,
// and wherever the bytes are split: the parser searches for a CR ahead of
// the line it reads and carries what it found to its next call, so every
// split point, pushed and pulled, must give the events the whole gives.
func TestCRFarAheadAnySplit(t *testing.T) {
	in := "event: a\ndata: 1\n\ndata: 2\n\n: c\ndata: 3\rdata: 4\n\ndata: 5\n\r\ndata: 6\r\n\r\n"
	want := []ev{{Type: "a", Data: "1"}, {Data: "2"}, {Data: "3\n4"}, {Data: "5"}, {Data: "6"}}
	for i := 0; i <= len(in); i++ {
		for j := i; j <= len(in); j++ {
			got, err := push(t, SSE, 0, in[:i], in[i:j], in[j:])
			require.NoError(t, err)
			require.Equal(t, want, got, "push, split at %d and %d", i, j)
		}
		got, err := pull(SSE, 0, in[:i], in[i:])
		require.NoError(t, err)
		require.Equal(t, want, got, "pull, split at %d", i)
	}
}

// A Reader hands out an event's one data line as a view of its own read
// buffer when the line lies whole in it, and a copy otherwise. The stream
// core zeroes each event's bytes once it is decoded: the events after it
// must not change, whatever the read sizes.
func TestPullEventsZeroedAfterUse(t *testing.T) {
	in := "event: a\ndata: {\"x\":1}\n\ndata: two\ndata: lines\n\n: ping\n\ndata: " + strings.Repeat("z", 300) +
		"\r\n\r\nid: 9\ndata: last\rdata: more\r\rdata: end\n\n"
	want := []ev{{Type: "a", Data: `{"x":1}`}, {Data: "two\nlines"}, {Data: strings.Repeat("z", 300)},
		{Data: "last\nmore", ID: "9"}, {Data: "end", ID: "9"}}
	for n := 1; n <= len(in); n++ {
		var chunks []string
		for i := 0; i < len(in); i += n {
			chunks = append(chunks, in[i:min(i+n, len(in))])
		}
		r := NewReader(&slowReader{chunks: chunks}, SSE, 0)
		var got []ev
		for r.Next() {
			e := r.Event()
			got = append(got, ev{string(e.Type), string(e.Data), string(e.ID), e.Retry})
			clear(e.Type)
			clear(e.Data)
		}
		require.NoError(t, r.Err())
		require.Equal(t, want, got, "%d-byte reads", n)
	}
}

func TestJSONL(t *testing.T) {
	in := "{\"a\":1}\r\n\n  \n{\"b\":\"x y\"}\n{\"c\":3}"
	want := []ev{{Data: `{"a":1}`}, {Data: `{"b":"x y"}`}, {Data: `{"c":3}`}}
	got, err := push(t, JSONL, 0, in)
	require.NoError(t, err)
	assert.Equal(t, want, got)
	got, err = pull(JSONL, 0, in[:5], in[5:])
	require.NoError(t, err)
	assert.Equal(t, want, got)
}

func TestLimit(t *testing.T) {
	_, err := push(t, SSE, 8, "data: 0123456789\n\n")
	var le *LimitError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, 8, le.Limit)
	_, err = push(t, SSE, 8, "data: 01234", "\ndata: 4567\n\n")
	require.ErrorAs(t, err, &le)
	_, err = pull(SSE, 8, "data: 0", "123456789\n\n")
	require.ErrorAs(t, err, &le)
	// A line written whole is bounded as one written in pieces.
	_, err = push(t, JSONL, 8, "0123456789\n")
	require.ErrorAs(t, err, &le)
	_, err = push(t, SSE, 8, "event: 0123456789abcdef\n\n")
	require.ErrorAs(t, err, &le)
	_, err = push(t, SSE, 8, ": 0123456789abcdef\n\n")
	require.ErrorAs(t, err, &le)
	got, err := push(t, SSE, 8, "data: 01234567\n\n")
	require.NoError(t, err)
	assert.Equal(t, []ev{{Data: "01234567"}}, got)
}

func TestReaderErrorIsSticky(t *testing.T) {
	boom := errors.New("connection reset")
	r := NewReader(&slowReader{chunks: []string{"data: a\n\ndata: b"}, err: boom}, SSE, 0)
	require.True(t, r.Next())
	assert.Equal(t, "a", string(r.Event().Data))
	assert.False(t, r.Next())
	assert.Equal(t, boom, r.Err())
	assert.False(t, r.Next())
	assert.Equal(t, boom, r.Err())
}

func TestEmitErrorStops(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	p := NewParser(SSE, 0, SinkFunc(func(*Event) error { n++; return stop }))
	_, err := p.Write([]byte("data: a\n\ndata: b\n\n"))
	assert.Equal(t, stop, err)
	assert.Equal(t, 1, n)
	_, err = p.Write([]byte("data: c\n\n"))
	assert.Equal(t, stop, err)
	assert.Equal(t, stop, p.Close())
}

func TestNoAllocationsSteadyState(t *testing.T) {
	line := []byte("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"text\":\"hello\"}}\n\n")
	p := NewParser(SSE, 0, SinkFunc(func(*Event) error { return nil }))
	p.Write(line)
	allocs := testing.AllocsPerRun(1000, func() { p.Write(line) })
	assert.Zero(t, allocs)
}

func events(mode Mode, chunks [][]byte) ([]ev, string) {
	var out []ev
	p := NewParser(mode, 1<<16, SinkFunc(func(e *Event) error {
		out = append(out, ev{string(e.Type), string(e.Data), string(e.ID), e.Retry})
		return nil
	}))
	var err error
	for _, c := range chunks {
		if _, err = p.Write(c); err != nil {
			break
		}
	}
	if err == nil {
		err = p.Close()
	}
	if err != nil {
		return out, err.Error()
	}
	return out, ""
}

// FuzzSplit: no panic, and any split of the input (push) or any read size
// (pull) gives the same events as the whole input.
func FuzzSplit(f *testing.F) {
	f.Add([]byte("data: a\r\n\r\nevent: x\ndata: b\ndata: c\n\n: comment\nid: 3\ndata: d\r\r"), uint16(7), false)
	f.Add([]byte("\xEF\xBB\xBF{\"a\":1}\r\n{\"b\":2}"), uint16(3), true)
	f.Fuzz(func(t *testing.T, data []byte, cut uint16, jsonl bool) {
		mode := SSE
		if jsonl {
			mode = JSONL
		}
		want, wantErr := events(mode, [][]byte{data})
		c := int(cut) % (len(data) + 1)
		got, gotErr := events(mode, [][]byte{data[:c], data[c:]})
		if fmt.Sprint(want) != fmt.Sprint(got) || wantErr != gotErr {
			t.Fatalf("split at %d: %v %q vs %v %q", c, want, wantErr, got, gotErr)
		}
		var bytewise [][]byte
		for i := range data {
			bytewise = append(bytewise, data[i:i+1])
		}
		got, gotErr = events(mode, bytewise)
		if fmt.Sprint(want) != fmt.Sprint(got) || wantErr != gotErr {
			t.Fatalf("byte by byte: %v %q vs %v %q", want, wantErr, got, gotErr)
		}
		r := NewReader(bytes.NewReader(data), mode, 1<<16)
		var pulled []ev
		for r.Next() {
			e := r.Event()
			pulled = append(pulled, ev{string(e.Type), string(e.Data), string(e.ID), e.Retry})
		}
		pullErr := ""
		if r.Err() != nil {
			pullErr = r.Err().Error()
		}
		if fmt.Sprint(want) != fmt.Sprint(pulled) || wantErr != pullErr {
			t.Fatalf("pull: %v %q vs %v %q", want, wantErr, pulled, pullErr)
		}
		for _, e := range want {
			if mode == SSE && strings.ContainsAny(e.Type, "\r\n") {
				t.Fatalf("event type with a line end: %q", e.Type)
			}
		}
	})
}
