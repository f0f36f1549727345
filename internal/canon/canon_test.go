package canon

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func digest(t testing.TB, raw string, skip ...string) string {
	t.Helper()
	w := New(sha256.New(), func(n string) bool { return slices.Contains(skip, n) })
	require.True(t, w.Value(raw), raw)
	return hex.EncodeToString(w.Sum(nil))
}

// Encodings of one value share a form: white space, member order and
// string escapes do not count.
func TestSameValueSameForm(t *testing.T) {
	for _, group := range [][]string{
		{`{"a":1,"b":[true,null,"x"]}`, `{ "b" : [ true , null , "\u0078" ] , "a" : 1 }`, "{\"b\":[true,null,\"x\"],\n\"a\":1}"},
		{`"Zürich"`, `"Z\u00fcrich"`, `"Z\u00FCrich"`},
		{`{"k":{"z":"\/","a":{}}}`, `{"k":{"a":{},"z":"/"}}`},
		{`[]`, ` [ ] `},
		{`[1,2.5,1e3]`, `[1.0,2.50,1000]`, `[1E0,25e-1,1.0e3]`},
		// Escaped strings one after another, and one long enough to be
		// hashed where it is decoded.
		{`["ab","cd",{"k":"ef"}]`, `["a\u0062","\u0063d",{"\u006b":"\u0065\u0066"}]`},
		{`"` + strings.Repeat("A", 700) + `"`, `"` + strings.Repeat(`\u0041`, 700) + `"`},
	} {
		for _, other := range group[1:] {
			assert.Equal(t, digest(t, group[0]), digest(t, other), "%s vs %s", group[0], other)
		}
	}
}

// Values that differ have different forms, however they are nested.
func TestDifferentValuesDifferentForms(t *testing.T) {
	values := []string{`{"a":1}`, `{"a":"1"}`, `{"a":1.5}`, `{"a":-1}`, `{"b":1}`, `{"a":[1]}`, `[1]`, `[[1]]`, `["a","b"]`, `["ab"]`,
		`{"a":"b","c":"d"}`, `{"a":"bc","":"d"}`, `null`, `true`, `false`, `""`, `{}`, `[{}]`, `{"a":{}}`, `{"a":null}`}
	seen := map[string]string{}
	for _, v := range values {
		d := digest(t, v)
		if prev, ok := seen[d]; ok {
			t.Fatalf("%s and %s share a form", prev, v)
		}
		seen[d] = v
	}
}

// Skipped members are left out wherever they are, and an array element
// that held only skipped members is left out with them: a cache marker
// that moves changes nothing.
func TestSkip(t *testing.T) {
	a := `{"system":[{"type":"text","text":"Be brief.","cache_control":{"type":"ephemeral"}}],"tools":[{"name":"t"},{"cachePoint":{"type":"default"}}]}`
	b := `{"tools":[{"cachePoint":{"type":"default"}},{"name":"t"}],"system":[{"type":"text","text":"Be brief."}]}`
	assert.Equal(t, digest(t, a, "cache_control", "cachePoint"), digest(t, b, "cache_control", "cachePoint"))
	assert.NotEqual(t, digest(t, a), digest(t, b))
	// An object member whose value lost every member is not the same as
	// one without the member.
	assert.NotEqual(t, digest(t, `{"a":{"cache_control":1}}`, "cache_control"), digest(t, `{}`, "cache_control"))
}

// Tags separate the parts a caller hashes: moving bytes between parts
// changes the digest.
func TestTags(t *testing.T) {
	sum := func(parts ...string) string {
		w := New(sha256.New(), nil)
		for _, p := range parts {
			w.Tag('p', p)
		}
		return hex.EncodeToString(w.Sum(nil))
	}
	assert.NotEqual(t, sum("ab", "c"), sum("a", "bc"))
	assert.NotEqual(t, sum("abc"), sum("abc", ""))
	w := New(sha256.New(), nil)
	w.Tag('p', "x")
	first := hex.EncodeToString(w.Sum(nil))
	assert.Equal(t, first, sum("x"), "Sum does not end the hash")
	w.Tag('p', "y")
	assert.Equal(t, sum("x", "y"), hex.EncodeToString(w.Sum(nil)))
}

// A large value goes through the buffer in pieces and gives the same form
// as when it is written in one go.
func TestLongValues(t *testing.T) {
	long := make([]string, 3000)
	for i := range long {
		long[i] = "element"
	}
	a, _ := json.Marshal(map[string]any{"list": long, "z": 1})
	b, _ := json.MarshalIndent(map[string]any{"z": 1, "list": long}, "", "  ")
	assert.Equal(t, digest(t, string(a)), digest(t, string(b)))
}

// FuzzSameForm: any valid JSON and its re-encoding by encoding/json (keys
// sorted, escapes of its own) have the same form.
func FuzzSameForm(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":[true,null,"x"]}`, `"Z\u00fcrich"`, `[{"b":2,"a":{"c":"\/"}}]`, `1e3`, `{"":""}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !jsonw.Valid(s) {
			return
		}
		var v any
		dec := json.NewDecoder(stringsReader(s))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return
		}
		again, err := json.Marshal(v)
		require.NoError(t, err)
		w1 := New(sha256.New(), nil)
		w2 := New(sha256.New(), nil)
		require.True(t, w1.Value(s))
		require.True(t, w2.Value(string(again)))
		assert.Equal(t, w1.Sum(nil), w2.Sum(nil), "%s vs %s", s, again)
	})
}

func stringsReader(s string) *strings.Reader { return strings.NewReader(s) }
