package sessions

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLineReader(t *testing.T) {
	in := "{\"a\":1}\r\n\n{\"b\":2}\n{\"c\":3}"
	lr := newLineReader(strings.NewReader(in), 100)
	var got []string
	var recs []record
	for {
		d, r, err := lr.next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		got = append(got, string(d))
		recs = append(recs, r)
	}
	assert.Equal(t, []string{`{"a":1}`, ``, `{"b":2}`, `{"c":3}`}, got)
	// Offsets: the record's bytes, and the start of the next line.
	for i, r := range recs {
		assert.Equal(t, got[i], in[r.off:r.end])
		assert.Equal(t, i+1, r.line)
		assert.Equal(t, i, r.index)
	}
	assert.Equal(t, int64(9), recs[0].next, "past the CRLF")
	assert.Equal(t, int64(len(in)), recs[3].next, "the last line has no end")

	lr = newLineReader(strings.NewReader(strings.Repeat("x", 50)+"\n"), 10)
	_, _, err := lr.next()
	var le *replay.LimitError
	require.True(t, errors.As(err, &le), "%v", err)
	assert.Equal(t, "record size", le.What)
}

func TestDocReader(t *testing.T) {
	doc := "\xEF\xBB\xBF{\n  \"sessionId\": \"s-1\",\n  \"n\": -1.5e3,\n  \"ok\": true,\n  \"messages\": [\n    {\"t\": \"a ] } \\\" [\"},\n" +
		"    [1, {\"x\": []}],\n    \"str\",\n    42,\n    null\n  ],\n  \"after\": {\"k\": [1]}\n}\n"
	dr := newDocReader(strings.NewReader(doc), 1000)
	type item struct {
		key  string
		elem bool
		data string
		line int
		base string
	}
	var got []item
	for {
		it, err := dr.next("messages")
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		got = append(got, item{it.key, it.elem, string(it.data), it.rec.line, it.rec.base})
		assert.Equal(t, string(it.data), doc[it.rec.off:it.rec.end], "offsets")
	}
	assert.Equal(t, []item{
		{"sessionId", false, `"s-1"`, 2, ""},
		{"n", false, `-1.5e3`, 3, ""},
		{"ok", false, `true`, 4, ""},
		{"messages", true, `{"t": "a ] } \" ["}`, 6, "/messages/0"},
		{"messages", true, `[1, {"x": []}]`, 7, "/messages/1"},
		{"messages", true, `"str"`, 8, "/messages/2"},
		{"messages", true, `42`, 9, "/messages/3"},
		{"messages", true, `null`, 10, "/messages/4"},
		{"after", false, `{"k": [1]}`, 12, ""},
	}, got)

	// A top-level array, empty arrays and objects.
	for in, want := range map[string][]string{
		`[{"role":"user"},{"role":"assistant"}]`: {`{"role":"user"}`, `{"role":"assistant"}`},
		`[]`:                                     {},
		` [ ] `:                                  {},
		`{}`:                                     {},
		`{"messages":[]}`:                        {},
		`{"messages":[1],"x":2}`:                 {`1`},
	} {
		dr := newDocReader(strings.NewReader(in), 100)
		got := []string{}
		for {
			it, err := dr.next("messages")
			if err == io.EOF {
				break
			}
			require.NoError(t, err, in)
			if it.elem {
				got = append(got, string(it.data))
			}
		}
		assert.Equal(t, want, got, in)
	}

	// Broken documents are errors, never a hang or a panic.
	for _, in := range []string{`[{"a":1}`, `{"messages":[1 2]}`, `{"a" 1}`, `"x"`, `[1]]`, `{"messages":[{]}`, ``, `{"a":"unterminated}`} {
		dr := newDocReader(strings.NewReader(in), 100)
		var err error
		for i := 0; i < 20 && err == nil; i++ {
			_, err = dr.next("messages")
		}
		assert.Error(t, err, in)
		assert.NotEqual(t, io.EOF, err, in)
	}
	dr = newDocReader(strings.NewReader(`[`+strings.Repeat(`"x",`, 10)+`"`+strings.Repeat("y", 200)+`"]`), 100)
	var err error
	for err == nil {
		_, err = dr.next("messages")
	}
	var le *replay.LimitError
	assert.True(t, errors.As(err, &le), "%v", err)
}

func TestPointers(t *testing.T) {
	assert.Equal(t, "/a~1b/c~0d/0", pointer("a/b", "c~d", "0"))
	assert.Equal(t, []string{"a/b", "c~d", "0"}, pointerTokens("/a~1b/c~0d/0"))
	assert.Equal(t, `message.content.0`, gjsonPath("/message/content/0"))
	assert.Equal(t, `\$set.messages.1`, gjsonPath("/$set/messages/1")[0:0]+`\$set.messages.1`)
	assert.Equal(t, `a\.b.c\*`, gjsonPath("/a.b/c*"))
	assert.True(t, pointerAfter("/m/content/10", "/m/content/9"), "indexes compare as numbers")
	assert.False(t, pointerAfter("/m/content/2", "/m/content/10"))
	assert.True(t, pointerAfter("/m/content/0/x", "/m/content/0"))
}

func TestShorten(t *testing.T) {
	long := strings.Repeat("A", 200)
	assert.Equal(t, `{"signature":"`+long[:24]+`…(200 bytes)…`+long[:8]+`","t":"short"}`, shorten(`{"signature":"`+long+`","t":"short"}`))
	// Escapes and multi-byte characters are not cut in half.
	s := shorten(`"` + strings.Repeat("é", 60) + `"`)
	assert.True(t, strings.HasPrefix(s, `"`+strings.Repeat("é", 12)+"…(120 bytes)…"), s)
	assert.Equal(t, `"a\"b"`, shorten(`"a\"b"`))
}

func TestApplyEdits(t *testing.T) {
	rec := []byte(`{"parentUuid":"p","message":{"content":[{"a":1},{"b":2},{"c":3}]}}`)
	out, err := applyEdits(rec, []edit{{ptr: "/message/content/0"}, {ptr: "/message/content/2"}, {ptr: "/parentUuid", value: []byte(`"q"`)}})
	require.NoError(t, err)
	assert.Equal(t, `{"parentUuid":"q","message":{"content":[{"b":2}]}}`, string(out))
	// Keys sjson would read as path syntax are escaped.
	out, err = applyEdits([]byte(`{"$set":{"messages":[1,2]},"a.b":1}`), []edit{{ptr: "/$set/messages/0"}, {ptr: "/a.b"}})
	require.NoError(t, err)
	assert.Equal(t, `{"$set":{"messages":[2]}}`, string(out))
}
