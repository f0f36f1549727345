package replay_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func hash(t *testing.T, body string) string {
	t.Helper()
	h, err := replay.PrefixHash([]byte(body))
	require.NoError(t, err)
	return h
}

func TestPrefixHashIsCanonical(t *testing.T) {
	base := hash(t, `{"system":"Be brief.","tools":[{"name":"read","input_schema":{"type":"object","a":1}}],"messages":[{"role":"user","content":"héllo"}]}`)
	assert.Regexp(t, `^sha256:[0-9a-f]{64}$`, base)
	same := []string{
		// key order and white space
		"{ \"messages\" : [ {\"content\":\"héllo\",\"role\":\"user\"} ],\n\t\"tools\":[{\"input_schema\":{\"a\":1,\"type\":\"object\"},\"name\":\"read\"}], \"system\":\"Be brief.\" }",
		// string escapes
		`{"system":"Be\u0020brief.","tools":[{"name":"read","input_schema":{"type":"object","a":1}}],"messages":[{"role":"user","content":"h\u00e9llo"}]}`,
		// excluded members: transport, sampling, model, reasoning settings
		`{"model":"m","stream":true,"temperature":0.2,"max_tokens":9,"thinking":{"type":"enabled"},"metadata":{"u":1},"system":"Be brief.","tools":[{"name":"read","input_schema":{"type":"object","a":1}}],"messages":[{"role":"user","content":"héllo"}]}`,
	}
	for _, s := range same {
		assert.Equal(t, base, hash(t, s), s)
	}
	differ := []string{
		`{"system":"Be verbose.","tools":[{"name":"read","input_schema":{"type":"object","a":1}}],"messages":[{"role":"user","content":"héllo"}]}`,
		`{"system":"Be brief.","tools":[{"name":"read","input_schema":{"type":"object","a":1.0}}],"messages":[{"role":"user","content":"héllo"}]}`, // numbers as written
		`{"system":"Be brief.","messages":[{"role":"user","content":"héllo"}]}`,
		`{"system":"Be brief.","tools":[{"name":"read","input_schema":{"type":"object","a":1}}],"messages":[{"role":"user","content":"hello"}]}`,
		`{"system":"Be brief.","tool_choice":{"type":"any"},"tools":[{"name":"read","input_schema":{"type":"object","a":1}}],"messages":[{"role":"user","content":"héllo"}]}`,
	}
	for _, s := range differ {
		assert.NotEqual(t, base, hash(t, s), s)
	}
}

func TestPrefixHashBefore(t *testing.T) {
	for _, c := range []struct{ first, next string }{
		{`{"system":"s","messages":[{"role":"user","content":"q"}]}`,
			`{"messages":[{"role":"user","content":"q"},{"role":"assistant","content":"a"},{"role":"user","content":"q2"}],"system":"s","stream":true}`},
		{`{"contents":[{"role":"user","parts":[{"text":"q"}]}],"systemInstruction":{"parts":[{"text":"s"}]}}`,
			`{"systemInstruction":{"parts":[{"text":"s"}]},"contents":[{"role":"user","parts":[{"text":"q"}]},{"role":"model","parts":[]}]}`},
		{`{"instructions":"s","input":[{"role":"user","content":"q"}],"store":false}`,
			`{"instructions":"s","input":[{"role":"user","content":"q"},{"type":"reasoning","id":"rs_1"}]}`},
		{`{"system":"s","messages":[]}`, `{"system":"s","messages":[{"role":"user","content":"q"}]}`},
	} {
		want := hash(t, c.first)
		n := len(mustArray(t, c.first))
		got, err := replay.PrefixHashBefore([]byte(c.next), n)
		require.NoError(t, err)
		assert.Equal(t, want, got, c.next)
		other, err := replay.PrefixHashBefore([]byte(c.next), n+1)
		require.NoError(t, err)
		assert.NotEqual(t, want, other)
	}
	// A cut past the end hashes the whole conversation.
	whole := hash(t, `{"messages":[{"a":1}]}`)
	got, err := replay.PrefixHashBefore([]byte(`{"messages":[{"a":1}]}`), 5)
	require.NoError(t, err)
	assert.Equal(t, whole, got)
}

func mustArray(t *testing.T, body string) []any {
	for _, k := range []string{"messages", "contents", "input"} {
		if v, ok := jsonMap(t, body)[k]; ok {
			return v.([]any)
		}
	}
	t.Fatal("no conversation")
	return nil
}

func TestPrefixHashErrors(t *testing.T) {
	for _, bad := range []string{``, `[1]`, `{"a":`, `"s"`} {
		_, err := replay.PrefixHash([]byte(bad))
		assert.True(t, errors.Is(err, replay.ErrMalformed), "%q: %v", bad, err)
	}
	_, err := replay.PrefixHashBefore([]byte(`{}`), -1)
	assert.Error(t, err)
}

func jsonMap(t *testing.T, s string) map[string]any {
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(s), &m))
	return m
}
