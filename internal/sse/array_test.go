package sse

import (
	"encoding/json"
	"errors"
	"io"
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// arrayEvents frames in, fed in the pieces split says, and returns the
// elements and the error.
func arrayEvents(in []byte, max int, split func([]byte) [][]byte) ([]string, error) {
	var got []string
	p := NewArrayParser(max, SinkFunc(func(ev *Event) error {
		got = append(got, string(ev.Data))
		return nil
	}))
	for _, piece := range split(in) {
		if _, err := p.Write(piece); err != nil {
			return got, err
		}
	}
	return got, p.Close()
}

func whole(b []byte) [][]byte { return [][]byte{b} }

func bytewise(b []byte) [][]byte {
	out := make([][]byte, len(b))
	for i := range b {
		out[i] = b[i : i+1]
	}
	return out
}

func randomSplits(seed int64) func([]byte) [][]byte {
	return func(b []byte) [][]byte {
		r := rand.New(rand.NewSource(seed))
		var out [][]byte
		for len(b) > 0 {
			n := 1 + r.Intn(len(b))
			out = append(out, b[:n])
			b = b[n:]
		}
		return out
	}
}

// Gemini's streamGenerateContent without alt=sse: one array, elements
// separated by ",\r\n", strings holding brackets, braces and escaped quotes.
const geminiArray = "[{\"candidates\": [{\"content\": {\"role\": \"model\",\"parts\": [{\"text\": \"a ] } \\\" [ {\",\"thought\": true}]}}]}\r\n,\r\n" +
	"{\"candidates\": [{\"content\": {\"parts\": [{\"functionCall\": {\"name\": \"f\",\"args\": {}},\"thoughtSignature\": \"CiQ=\"}]},\"finishReason\": \"STOP\"}]}\r\n]"

func TestArraySplits(t *testing.T) {
	want := []string{
		"{\"candidates\": [{\"content\": {\"role\": \"model\",\"parts\": [{\"text\": \"a ] } \\\" [ {\",\"thought\": true}]}}]}",
		"{\"candidates\": [{\"content\": {\"parts\": [{\"functionCall\": {\"name\": \"f\",\"args\": {}},\"thoughtSignature\": \"CiQ=\"}]},\"finishReason\": \"STOP\"}]}",
	}
	for name, split := range map[string]func([]byte) [][]byte{"whole": whole, "bytes": bytewise, "random1": randomSplits(1), "random2": randomSplits(2)} {
		got, err := arrayEvents([]byte(geminiArray), 0, split)
		require.NoError(t, err, name)
		assert.Equal(t, want, got, name)
	}
}

func TestArrayScalarsAndEmpty(t *testing.T) {
	got, err := arrayEvents([]byte("\xEF\xBB\xBF [1, \"x,]\" ,true,null ,[2,[3]]] \n"), 0, bytewise)
	require.NoError(t, err)
	assert.Equal(t, []string{"1", `"x,]"`, "true", "null", "[2,[3]]"}, got)
	got, err = arrayEvents([]byte(" [ ] "), 0, whole)
	require.NoError(t, err)
	assert.Empty(t, got)
}

func TestArrayErrors(t *testing.T) {
	cases := []struct {
		in, msg string
		eof     bool
	}{
		{``, "json array stream: byte 0: the stream ended inside the array", true},
		{`[{"a":1}`, "json array stream: byte 8: the stream ended inside the array", true},
		{`[{"a":1},`, "json array stream: byte 9: the stream ended inside the array", true},
		{`{"a":1}`, `json array stream: byte 0: expected '[', found '{'`, false},
		{`[{"a":1} {"b":2}]`, `json array stream: byte 9: expected ',' or ']', found '{'`, false},
		{`[,1]`, `json array stream: byte 1: expected a value, found ','`, false},
		{`[1,]`, `json array stream: byte 3: expected a value, found ']'`, false},
		{`[1] x`, "json array stream: byte 4: data after the array's end", false},
		{`[}]`, `json array stream: byte 1: unbalanced '}'`, false},
	}
	for _, c := range cases {
		_, err := arrayEvents([]byte(c.in), 0, bytewise)
		var ae *ArrayError
		require.ErrorAs(t, err, &ae, c.in)
		assert.Equal(t, c.msg, err.Error(), c.in)
		assert.Equal(t, c.eof, errors.Is(err, io.ErrUnexpectedEOF), c.in)
	}
}

func TestArrayLimit(t *testing.T) {
	got, err := arrayEvents([]byte(`[{"a":"12345"},{"a":"123456789"}]`), 13, whole)
	var le *LimitError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, 13, le.Limit)
	assert.Equal(t, []string{`{"a":"12345"}`}, got)
	_, err2 := arrayEvents([]byte(`[{"a":"12345"},{"a":"123456789"}]`), 13, bytewise)
	assert.Equal(t, err, err2)
}

// The elements of any valid array are what encoding/json reads, for any
// split; anything else fails the same way whole and byte by byte.
func FuzzArray(f *testing.F) {
	f.Add([]byte(geminiArray), int64(1))
	f.Add([]byte(`[1,"a\"]",{"b":[{}]},[]]`), int64(2))
	f.Add([]byte(`[{"a":1} {"b":2}]`), int64(3))
	f.Add([]byte("\xEF\xBB\xBF[]"), int64(4))
	f.Fuzz(func(t *testing.T, in []byte, seed int64) {
		a, errA := arrayEvents(in, 1<<12, whole)
		b, errB := arrayEvents(in, 1<<12, bytewise)
		c, errC := arrayEvents(in, 1<<12, randomSplits(seed))
		if errA != nil || errB != nil || errC != nil {
			if errA == nil || errB == nil || errC == nil || errA.Error() != errB.Error() || errA.Error() != errC.Error() {
				t.Fatalf("errors differ: %v / %v / %v", errA, errB, errC)
			}
		}
		if strings.Join(a, "\x00") != strings.Join(b, "\x00") || strings.Join(a, "\x00") != strings.Join(c, "\x00") {
			t.Fatalf("elements differ: %q / %q / %q", a, b, c)
		}
		var raw []json.RawMessage
		trimmed := strings.TrimPrefix(string(in), "\xEF\xBB\xBF")
		if json.Unmarshal([]byte(trimmed), &raw) == nil && len(in) < 1<<12 && strings.HasPrefix(strings.TrimSpace(trimmed), "[") {
			if errA != nil {
				t.Fatalf("a valid array failed: %v", errA)
			}
			if len(raw) != len(a) {
				t.Fatalf("%d elements, encoding/json reads %d", len(a), len(raw))
			}
			for i := range raw {
				if string(raw[i]) != a[i] {
					t.Fatalf("element %d: %q, encoding/json reads %q", i, a[i], raw[i])
				}
			}
		}
	})
}
