package replay_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/reasonreplay/replay"
)

// FuzzPrefixHash: the prefix hash of a request body never panics, and it is
// the same after the body is re-encoded with other key order, white space
// and string escapes (numbers keep their text).
func FuzzPrefixHash(f *testing.F) {
	f.Add([]byte(`{"model":"m","system":"be brief","messages":[{"role":"user","content":"hi <b>"}],"tools":[{"name":"f","x":1.50}],"temperature":0.2}`))
	f.Add([]byte(`{"contents":[{"role":"user","parts":[{"text":"\u00e9\n"}]}],"generationConfig":{"temperature":1}}`))
	f.Add([]byte(`{"input":[{"type":"message","content":"a"},{"type":"reasoning","id":"rs_1"}],"store":false}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		h, err := replay.PrefixHash(body)
		if err != nil || !utf8.Valid(body) {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil || dec.More() {
			return
		}
		if _, ok := v.(map[string]any); !ok {
			return
		}
		// Go's encoder sorts keys, drops white space and escapes <, > and &.
		again, err := json.Marshal(v)
		if err != nil {
			return
		}
		h2, err := replay.PrefixHash(again)
		if err != nil {
			t.Fatalf("re-encoded body refused: %v\n%s", err, again)
		}
		if h != h2 {
			t.Fatalf("hash changed by re-encoding:\n%s\n%s", body, again)
		}
	})
}
