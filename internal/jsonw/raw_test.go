package jsonw

import (
	"testing"

	"github.com/stretchr/testify/assert"
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
