package jsonw

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDuplicate(t *testing.T) {
	for _, c := range []struct{ in, ptr string }{
		{`{"a":1,"b":2}`, ""},
		{`{"a":1,"a":2}`, "/a"},
		{`{"signature":"REAL","signature":""}`, "/signature"},
		{`{"a":1,"\u0061":2}`, "/a"},
		{`{"x":{"a":1},"y":{"a":1}}`, ""},
		{`{"x":[{"a":1},{"b":1,"b":2}]}`, "/x/1/b"},
		{`[1,[2,3],{"k":{"m/n":1,"m/n":2}}]`, "/2/k/m~1n"},
		{`{"a":"{\"a\":1,\"a\":2}"}`, ""},
		{`{"a:b":1,"a":2,"b":"a"}`, ""},
		{`[]`, ""},
		{`{}`, ""},
		{`"a"`, ""},
		{`0}`, ""},
		{`]]]`, ""},
		{`{"a":1}}`, ""},
	} {
		ptr, found := Duplicate(c.in)
		assert.Equal(t, c.ptr != "", found, c.in)
		assert.Equal(t, c.ptr, ptr, c.in)
	}
}

// TestDuplicateDeep: depth costs no stack.
func TestDuplicateDeep(t *testing.T) {
	n := 1_000_000
	s := strings.Repeat(`{"a":`, n) + `{"b":1,"b":2}` + strings.Repeat("}", n)
	ptr, found := Duplicate(s)
	assert.True(t, found)
	assert.Equal(t, strings.Repeat("/a", n)+"/b", ptr)
}

// TestDuplicateManyMembers: an object of many members costs linear time.
func TestDuplicateManyMembers(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i < 200000; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"k` + strconv.Itoa(i) + `":1`)
	}
	b.WriteString(`,"k7":2}`)
	ptr, found := Duplicate(b.String())
	assert.True(t, found)
	assert.Equal(t, "/k7", ptr)
}

func TestExplain(t *testing.T) {
	for in, want := range map[string]string{
		"":                          "empty input",
		" \n":                       "empty input",
		"{\"a\":\"\xff\"}":          "invalid UTF-8 at byte 6",
		strings.Repeat("[", 513):    "JSON nested 513 deep, deeper than the limit of 512",
		`{"a":1,"b":{"c":1,"c":2}}`: "the member name at /b/c repeats an earlier member of the same object",
		`{"a":1} {"b":2}`:           "more than one JSON value (the second at byte 8)",
		`{"a":}`:                    "not valid JSON (at byte 5)",
		`{"a":1}`:                   "",
	} {
		assert.Equal(t, want, Explain(in), "%q", in)
	}
}
