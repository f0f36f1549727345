package jsonw

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

var tapeCases = append([]string{
	`{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"thinking","thinking":"a\nb","signature":"s"},{"type":"tool_use","id":"t","input":{"a":{"b":{"c":[1,2,{"d":"e"}]}}}}]}],"model":"m"}`,
	`{"a\u0062":1,"c":{"d\"":[true,false,null,-1.5e3,"x\u00e9"]}}`,
	`[[[[[[[[1]]]]]]],{"":{"":{"":{"":{"":{"":0}}}}}}]`,
	`{"k":[]," k":{},"k ":""}`,
}, validCases...)

// Reset accepts what Valid accepts.
func TestTapeValidates(t *testing.T) {
	var tp Tape
	for _, c := range tapeCases {
		assert.Equal(t, Valid(c), tp.Reset(c), "%q", c)
	}
	deep := strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1)
	assert.False(t, tp.Reset(deep))
	assert.True(t, tp.Reset(deep[1:len(deep)-1]))
	assert.False(t, tp.Reset(`{"a":1,"a":2}`), "a repeated name")
	assert.False(t, tp.Reset(`{"a":[{"b":1,"\u0062":2}]}`), "a repeated name at a recorded depth")
	assert.False(t, tp.ResetBytes(nil))
	assert.Equal(t, "", tp.Text())
	assert.False(t, tp.Root().Exists())
}

// checkVal walks v on the tape and the same value read from its raw text
// alone (a detached value, read with NextMember and NextElem), and
// requires the same raw texts, names, lengths and lookups at every level.
func checkVal(t *testing.T, tp *Tape, v Val, path string) {
	t.Helper()
	raw := v.Raw()
	require.True(t, Valid(raw), "%s: %q", path, raw)
	require.Equal(t, raw, tp.Text()[v.Start():v.End()])
	var want any
	require.NoError(t, json.Unmarshal([]byte(raw), &want), path)
	switch w := want.(type) {
	case map[string]any:
		require.True(t, v.IsObject())
		for _, known := range [][]string{nil, {"a"}, {"type", "text"}, {"role", "content", "model"}} {
			require.Equal(t, ExtraMembers(raw, known...), v.ExtraMembers(known...), "%s: extra members but %q", path, known)
		}
		require.Equal(t, len(w), v.Len(), path)
		n := 0
		v.ForEach(func(i int, name string, el Val) bool {
			require.Equal(t, n, i)
			n++
			key := gjson.Parse(name).Str
			if _, ok := w[key]; !ok && !strings.Contains(name, `\u`) {
				t.Fatalf("%s: member %q", path, key)
			}
			got := v.Get(key)
			require.True(t, got.Exists(), "%s: Get(%q)", path, key)
			require.Equal(t, el.Raw(), got.Raw())
			require.Equal(t, el.Start(), got.Start())
			checkVal(t, tp, el, path+"/"+key)
			return true
		})
		require.Equal(t, len(w), n)
		require.False(t, v.Get("\x00absent").Exists())
		require.False(t, v.Index(0).Exists())
	case []any:
		require.True(t, v.IsArray())
		require.Equal(t, len(w), v.Len(), path)
		v.ForEach(func(i int, name string, el Val) bool {
			require.Equal(t, "", name)
			require.Equal(t, el.Raw(), v.Index(i).Raw())
			checkVal(t, tp, el, fmt.Sprintf("%s/%d", path, i))
			return true
		})
		require.False(t, v.Index(len(w)).Exists())
		require.False(t, v.Get("x").Exists())
	case string:
		require.True(t, v.IsString())
		str := gjson.Parse(raw).Str // decoded as gjson decodes it
		require.Equal(t, str, v.Str(), path)
		require.True(t, v.Is(str), path)
		require.False(t, v.Is(str+"x"), path)
		require.Equal(t, strings.Contains(raw, `\`), v.Escaped())
	case float64:
		require.True(t, v.IsNumber())
		n, ok := v.Int()
		require.True(t, ok)
		require.Equal(t, int64(w), n, path)
	case bool:
		require.True(t, v.IsBool())
		require.Equal(t, w, v.True())
	case nil:
		require.True(t, v.IsNull())
	}
}

func TestTapeWalk(t *testing.T) {
	var tp Tape
	for _, c := range tapeCases {
		if !tp.Reset(c) {
			continue
		}
		checkVal(t, &tp, tp.Root(), "")
	}
}

func TestTapePath(t *testing.T) {
	var tp Tape
	require.True(t, tp.Reset(tapeCases[0]))
	root := tp.Root()
	assert.Equal(t, `"thinking"`, root.Path("messages.1.content.0.type").Raw())
	assert.Equal(t, "a\nb", root.Path("messages.1.content.0.thinking").Str())
	assert.Equal(t, `"e"`, root.Path("messages.1.content.1.input.a.b.c.2.d").Raw(), "beyond the recorded depth")
	assert.False(t, root.Path("messages.x").Exists())
	assert.False(t, root.Path("messages.9.role").Exists())
	assert.Equal(t, `"m"`, root.Get("model").Raw())
}

// A body with more values than a tape records keeps them all reachable:
// the containers past the bound are read from their raw text.
func TestTapeBound(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"a":[`)
	for i := 0; i < 5000; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"i":%d,"v":[%d]}`, i, i)
	}
	b.WriteString(`],"z":{"k":"v"}}`)
	var tp Tape
	require.True(t, tp.Reset(b.String()))
	assert.Less(t, len(tp.nodes), 3*tp.limit)
	root := tp.Root()
	assert.Equal(t, 5000, root.Get("a").Len())
	assert.Equal(t, `4999`, root.Path("a.4999.v.0").Raw())
	assert.Equal(t, `"v"`, root.Path("z.k").Raw())
	checkVal(t, &tp, root.Path("a.4321"), "/a/4321")
}

func FuzzTape(f *testing.F) {
	for _, c := range tapeCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var tp Tape
		ok := tp.Reset(s)
		if ok != Valid(s) {
			t.Fatalf("Reset(%q) = %v, Valid says %v", s, ok, !ok)
		}
		if ok && len(s) < 4096 {
			checkVal(t, &tp, tp.Root(), "")
		}
	})
}

func BenchmarkTape(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"model":"m","messages":[`)
	for i := 0; i < 200; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"role":"assistant","content":[{"type":"thinking","thinking":%q,"signature":"%s"},{"type":"text","text":"done"}]},`,
			strings.Repeat("a thought, \"quoted\"\n", 40), strings.Repeat("QUJD", 100))
		fmt.Fprintf(&sb, `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":%q}]}`, i, strings.Repeat("\tline of code();\n", 200))
	}
	sb.WriteString(`]}`)
	s := sb.String()
	b.Run("Valid", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		b.ReportAllocs()
		for b.Loop() {
			if !Valid(s) {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("Tape", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		b.ReportAllocs()
		var tp Tape
		for b.Loop() {
			if !tp.Reset(s) {
				b.Fatal("invalid")
			}
		}
	})
}

// A tape derives a value once per reset and key; a reset (or a
// ResetAfter) and another key derive it again.
func TestTapeMemo(t *testing.T) {
	var tp Tape
	require.True(t, tp.Reset(`{"a":[1,2]}`))
	k1, k2 := new(int), new(int)
	n := 0
	derive := func() any { n++; return tp.Root().Get("a").Len() }
	assert.Equal(t, 2, tp.Memo(k1, derive))
	assert.Equal(t, 2, tp.Memo(k1, derive))
	assert.Equal(t, 1, n, "derived once")
	assert.Equal(t, 2, tp.Memo(k2, derive))
	assert.Equal(t, 2, n, "another key derives anew")
	require.True(t, tp.Reset(`{"a":[1,2,3]}`))
	assert.Equal(t, 3, tp.Memo(k2, derive))
	assert.Equal(t, 3, n, "a reset forgets")
	var next Tape
	require.True(t, next.Reset(`{"a":[1,2,3]}`))
	assert.Equal(t, 3, next.Memo(k2, derive))
	require.True(t, next.ResetAfter(`{"a":[1,2,3,4]}`, &tp))
	assert.Equal(t, 4, next.Memo(k2, func() any { n++; return next.Root().Get("a").Len() }))
	assert.Equal(t, 5, n, "ResetAfter forgets")
}
