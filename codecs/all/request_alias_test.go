package all_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/benchreq"
	internal "github.com/reasonreplay/replay/internal/codectest"
	"github.com/tidwall/gjson"
)

// The request readers read the body in place and keep what they read in
// memory of their own: every codec's turns read the same after the body
// they were read from is overwritten (the tool loop of every request
// shape, with escapes in every text, and the codecs' request fixtures).
func TestRequestTurnsDoNotAliasBody(t *testing.T) {
	requests := map[string][][]byte{}
	for _, s := range benchreq.Shapes() {
		requests[s.API] = append(requests[s.API], s.Request(1), s.Request(6))
	}
	for _, api := range replay.Default().APIs() {
		for _, dir := range internal.TripDirsOf(api) {
			names, _ := filepath.Glob(filepath.Join("../../testdata", dir, "*.request"))
			for _, name := range names {
				data, err := os.ReadFile(name)
				if err != nil {
					t.Fatal(err)
				}
				requests[api] = append(requests[api], data)
			}
		}
	}
	read := 0
	for _, api := range replay.Default().APIs() {
		c, err := replay.Lookup(api, "", "")
		if err != nil {
			t.Fatal(err)
		}
		for i, body := range requests[api] {
			body = append([]byte(nil), body...)
			h, _, err := c.DecodeRequest(body)
			if err != nil {
				continue // a fixture of another codec's shape in the same directory
			}
			var before []string
			for _, tu := range h.Turns {
				before = append(before, string(tu.AppendJSON(nil)))
			}
			ptrs := strings.Join(h.Pointers, ",")
			for k := range body {
				body[k] = '"'
			}
			for k, tu := range h.Turns {
				if got := string(tu.AppendJSON(nil)); got != before[k] {
					t.Fatalf("%s request %d, turn %d changed when the body was overwritten:\nbefore %s\nafter  %s", api, i, k, before[k], got)
				}
			}
			if got := strings.Join(h.Pointers, ","); got != ptrs {
				t.Fatalf("%s request %d: the pointers changed when the body was overwritten: %s, then %s", api, i, ptrs, got)
			}
			read += len(h.Turns)
		}
	}
	if read == 0 {
		t.Fatal("no turn read")
	}
}

// A chat request's readers read each message with what the earlier ones
// left (one reader, one arena): every turn reads as its message read
// alone in a request of its own.
func TestRequestTurnReadsAsAlone(t *testing.T) {
	type req struct {
		api  string
		body []byte
	}
	var reqs []req
	for _, s := range benchreq.Shapes() {
		switch s.API {
		case "deepseek", "mistral", "openrouter", "cohere":
			reqs = append(reqs, req{s.API, s.Request(5)})
		}
	}
	// Messages that leave a reader in different states: native reasoning,
	// then reasoning in tags, an unclosed tag, a lone surrogate half.
	mixed := []byte(`{"model":"m","messages":[{"role":"user","content":"q"},` +
		`{"role":"assistant","reasoning_content":"r1","content":"a1"},` +
		`{"role":"assistant","content":"<think>r2</think>a2"},` +
		`{"role":"assistant","content":"<think>open r3"},` +
		`{"role":"assistant","content":"x\ud83d"},` +
		`{"role":"assistant","content":"plain","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}]}`)
	for _, api := range []string{"deepseek", "openai-compatible", "qwen", "mistral", "openrouter", "cohere"} {
		reqs = append(reqs, req{api, mixed})
	}
	read := 0
	for _, rq := range reqs {
		c, err := replay.Lookup(rq.api, "", "")
		if err != nil {
			continue // not a registered API name
		}
		s, body := rq, rq.body
		h, _, err := c.DecodeRequest(body)
		if err != nil {
			t.Fatal(err)
		}
		model := gjson.GetBytes(body, "model").Raw
		for i, ptr := range h.Pointers {
			el := gjson.GetBytes(body, strings.ReplaceAll(strings.TrimPrefix(ptr, "/"), "/", ".")).Raw
			alone, _, err := c.DecodeRequest([]byte(`{"model":` + model + `,"messages":[` + el + `]}`))
			if err != nil || len(alone.Turns) != 1 {
				t.Fatalf("%s %s alone: %v", s.api, ptr, err)
			}
			if got, want := string(h.Turns[i].AppendJSON(nil)), string(alone.Turns[0].AppendJSON(nil)); got != want {
				t.Fatalf("%s %s reads differently in its request:\n%s\nalone:\n%s", s.api, ptr, got, want)
			}
			read++
		}
	}
	if read == 0 {
		t.Fatal("no turn read")
	}
}
