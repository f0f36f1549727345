package jsonw

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHasMember(t *testing.T) {
	assert.True(t, HasMember(`{"a":1,"digest":"x"}`, "unfinished", "digest"))
	assert.True(t, HasMember(`{ "a" : 1 , "\u0064igest" : 2 }`, "digest"), "named by its value")
	assert.False(t, HasMember(`{"a":{"digest":1},"b":"digest"}`, "digest"), "only the top level's names")
	assert.False(t, HasMember(`{}`, "digest"))
}

// Rebuilt: exactly the bytes a reader rebuilds from the members, each
// written "name":value and joined by commas, with no name reserved.
func TestRebuilt(t *testing.T) {
	for obj, want := range map[string]bool{
		`{}`:                          true,
		`{"a":1}`:                     true,
		`{"a":{"b": [1, 2]},"c":"d"}`: true, // white space inside a value is the value's
		`{"a":1, "c":2}`:              false,
		`{ "a":1}`:                    false,
		`{"a" :1}`:                    false,
		`{"a": 1}`:                    false,
		`{"a":1}` + "\n":              false,
		`{"a":1,"text":2}`:            false, // reserved
		`{"a":1,"t\u0065xt":2}`:       false, // reserved, escaped
		`{ }`:                         false,
	} {
		assert.Equal(t, want, Rebuilt(obj, "text", "extra"), obj)
	}
}

// SplitMembers: the members in two objects, each in its order, names
// matched by their value, nil when empty.
func TestSplitMembers(t *testing.T) {
	plain, taken := SplitMembers([]byte(`{ "id":"c1", "function" : {"name":"f"},"\u0066unction":2,"x":[1, 2]}`), "function")
	assert.Equal(t, `{"id":"c1","x":[1, 2]}`, string(plain))
	assert.Equal(t, `{"function":{"name":"f"},"\u0066unction":2}`, string(taken))
	plain, taken = SplitMembers([]byte(`{"a":1}`), "function")
	assert.Equal(t, `{"a":1}`, string(plain))
	assert.Nil(t, taken)
	plain, taken = SplitMembers([]byte(`{}`), "function")
	assert.Nil(t, plain)
	assert.Nil(t, taken)
}

// On text that is not JSON, the iterators end: an element or a member
// with no value where one belongs is not returned, so a loop over them
// always ends, having moved forward at every step.
func TestIteratorsEndOnBrokenText(t *testing.T) {
	keys, vals := []string{"a"}, make([]string, 1)
	for _, s := range []string{`[}`, `[,]`, `[1,}`, `[ ]]`, `[{"a":}]`, `{"a":}`, `{"a":,"b":1}`, `{"a"}`, `[`, `{`, `[1,,2]`, `{"a":1,,"b":2}`} {
		steps := 0
		for pos, ok := 0, true; ok; steps++ {
			var el string
			next := 0
			el, next, ok = NextElem(s, pos)
			require.True(t, !ok || next > pos && el != "", "NextElem(%q, %d) = %q, %d", s, pos, el, next)
			pos = next
		}
		for pos, ok := 0, true; ok; steps++ {
			var el string
			next := 0
			el, next, ok = NextMembers(s, pos, keys, vals)
			require.True(t, !ok || next > pos && el != "", "NextMembers(%q, %d) = %q, %d", s, pos, el, next)
			pos = next
		}
		for pos, ok := 0, true; ok; steps++ {
			var name, val string
			next := 0
			name, val, next, ok = NextMember(s, pos)
			require.True(t, !ok || next > pos && val != "", "NextMember(%q, %d) = %q, %q, %d", s, pos, name, val, next)
			pos = next
		}
		require.Less(t, steps, 3*len(s)+6, "%q", s)
	}
}
