package kit

import (
	"strconv"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// allocSeeds are documents whose values the Alloc's readers are held to
// gjson's reading of: escapes of every kind (lone surrogates included),
// values of every type, and conversations of the request shapes.
var allocSeeds = []string{
	`{"messages":[{"role":"assistant","content":"plain","reasoning_content":"a\nb\t\"q\"\\ \/","tool_calls":[{"id":7,"function":{"name":"n\u00e9","arguments":{"a":[1,2]}}}]}]}`,
	`{"a":"\ud800","b":"\udc00x","c":"\ud83d\ude00","d":"\u0000","e":"","f":null,"g":true,"h":false,"i":-1.5e3,"j":{"k":"v"},"l":[]}`,
	`["x",1,"\u00ff\u4e2d",{"type":"thinking","thinking":[{"type":"text","text":"one "},{"type":"text","text":"t\u0077o"}]},[["deep",[["deeper",[[["deepest\\n"]]]]]]]]`,
	`{"contents":[{"role":"model","parts":[{"text":"t","thought":true},{"functionCall":{"name":"f","args":{}},"thoughtSignature":"c2ln"}]}]}`,
	`"\u0041\u00e9\u2028"`,
	`{"\u0074ype":"text","text":"escaped name"}`,
}

// eachVal calls fn for every value of the tape's text, with its gjson
// path (for the values gjson's path syntax reaches: names of letters,
// digits and _), down past the tape's depth.
func eachVal(v jsonw.Val, path string, fn func(v jsonw.Val, path string)) {
	fn(v, path)
	v.ForEach(func(i int, name string, el jsonw.Val) bool {
		key := ""
		if name == "" {
			key = itoa(i)
		} else {
			n := gjson.Parse(name).Str
			if n == "" || strings.Trim(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != "" {
				return true
			}
			key = n
		}
		if path != "" {
			key = path + "." + key
		}
		eachVal(el, key, fn)
		return true
	})
}

func itoa(i int) string { return strconv.Itoa(i) }

// checkAllocReads holds Value, String, CloneBytes, Extra and Join on every value of
// doc to gjson's reading of the same value, and the strings kept to stay
// as they were when doc's bytes are overwritten.
func checkAllocReads(t *testing.T, doc string) {
	buf := []byte(doc)
	var tape jsonw.Tape
	if !tape.ResetBytes(buf) {
		return
	}
	al := ConvAlloc(tape.Root(), func(jsonw.Val) bool { return true })
	type kept struct{ got, want string }
	var all []kept
	eachVal(tape.Root(), "", func(v jsonw.Val, path string) {
		raw := doc[v.Start():v.End()] // not a view of buf
		want := gjson.Parse(raw)
		if path != "" {
			g := gjson.Get(doc, path)
			require.Equal(t, g.Raw, v.Raw(), "the value at %q", path)
		}
		wantStr := ""
		if want.Type == gjson.String {
			wantStr = want.Str
		}
		all = append(all, kept{al.Value(v), wantStr}, kept{al.String(v), want.String()},
			kept{string(al.CloneBytes(v.Raw())), raw})
		if v.IsString() {
			// KeepStr keeps what Budget.Keep keeps of gjson's value, and
			// counts it the same; Unquoted decodes as WriteUnquoted does.
			got, want := NewBudget("t", replay.Limits{}, -1), NewBudget("t", replay.Limits{}, -1)
			s, err := al.KeepStr(&got, 1, v.Raw())
			require.NoError(t, err)
			w, err := want.Keep(1, wantStr)
			require.NoError(t, err)
			assert.Equal(t, want, got, "the budget after keeping %q", raw)
			var unq strings.Builder
			jsonw.WriteUnquoted(&unq, raw)
			all = append(all, kept{s, w}, kept{al.Unquoted(v.Raw()), unq.String()})
		}
		if v.IsObject() {
			for _, known := range [][]string{nil, {"type"}, {"type", "text", "a"}} {
				all = append(all, kept{string(al.Extra(v, known...)), string(jsonw.ExtraMembers(raw, known...))})
			}
		}
		if v.IsArray() {
			start := al.Join(len(v.Raw()))
			var join strings.Builder
			v.ForEach(func(_ int, _ string, el jsonw.Val) bool {
				if el.IsString() {
					al.Append(el)
					join.WriteString(gjson.Parse(doc[el.Start():el.End()]).Str)
				}
				return true
			})
			all = append(all, kept{al.Joined(start), join.String()})
		}
	})
	for i := range buf {
		buf[i] = 'X'
	}
	for i, k := range all {
		assert.Equal(t, k.want, k.got, "value %d", i)
	}
}

func TestAllocReadsAsGjson(t *testing.T) {
	for _, doc := range allocSeeds {
		checkAllocReads(t, doc)
	}
}

// FuzzAllocReads holds the Alloc's string readers to gjson on any valid
// JSON text.
func FuzzAllocReads(f *testing.F) {
	for _, doc := range allocSeeds {
		f.Add(doc)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		if len(doc) > 1<<16 {
			return
		}
		checkAllocReads(t, doc)
	})
}

// KeepStr refuses what Budget.Keep refuses, at the same count, and
// keeps nothing of it.
func TestKeepStrWithinBudget(t *testing.T) {
	lim := replay.Limits{MaxItem: 5}
	for _, raw := range []string{`"abcde"`, `"abcdef"`, `"ab\ncd"`, `"ab\\ncdé"`, `"\u00e9\u00e9\u00e9"`, `""`} {
		var al Alloc
		al.Reserve(Counts{Bytes: 64})
		got, want := NewBudget("t", lim, -1), NewBudget("t", lim, -1)
		s, err := al.KeepStr(&got, 0, raw)
		w, werr := want.Keep(0, gjson.Parse(raw).Str)
		assert.Equal(t, werr, err, raw)
		assert.Equal(t, w, s, raw)
		assert.Equal(t, want, got, raw)
		if err != nil {
			assert.Empty(t, al.strs, "%s: nothing kept past the limit", raw)
		}
	}
}

// An Alloc that reserved goes on past its reservation in chunks: the
// values it hands out are distinct, keep what was written to them, and a
// run of blocks never overlaps another.
func TestAllocGrowsInChunks(t *testing.T) {
	var al Alloc
	al.Reserve(Counts{Turns: 1, Blocks: 2, Bytes: 4})
	var turns []*replay.Turn
	var runs [][]replay.Block
	var strs []string
	for i := 0; i < 300; i++ {
		tu := al.Turn()
		tu.Provenance.Model = itoa(i)
		turns = append(turns, tu)
		run := al.Blocks(3)
		require.Equal(t, 3, cap(run))
		for k := 0; k < 3; k++ {
			x := al.Text()
			x.Text = itoa(i*3 + k)
			run = append(run, x)
		}
		runs = append(runs, run)
		strs = append(strs, al.Clone(strings.Repeat("s", i%50)+itoa(i)))
	}
	seen := map[*replay.Turn]bool{}
	for i, tu := range turns {
		assert.False(t, seen[tu], "turn %d handed out twice", i)
		seen[tu] = true
		assert.Equal(t, itoa(i), tu.Provenance.Model)
		for k, b := range runs[i] {
			assert.Equal(t, itoa(i*3+k), b.(*replay.Text).Text, "turn %d block %d", i, k)
		}
		assert.Equal(t, strings.Repeat("s", i%50)+itoa(i), strs[i])
	}
	// The zero Alloc allocates each value on its own.
	var zero Alloc
	a, b := zero.Turn(), zero.Turn()
	assert.NotSame(t, a, b)
	assert.Equal(t, 0, cap(zero.turns))
}

// ConvAlloc reserves a turn per element isTurn picks and the bytes of
// their raw texts: reading every picked element's strings takes no more
// arena than the first.
func TestConvAllocReserves(t *testing.T) {
	doc := `{"messages":[{"role":"user","content":"u"},{"role":"assistant","content":"a\nb"},{"role":"assistant","content":"cd"}]}`
	var tape jsonw.Tape
	require.True(t, tape.Reset(doc))
	isTurn := func(m jsonw.Val) bool { return m.Get("role").Is("assistant") }
	al := ConvAlloc(tape.Root().Get("messages"), isTurn)
	assert.Equal(t, 2, cap(al.turns))
	arena := cap(al.strs)
	tape.Root().Get("messages").ForEach(func(i int, _ string, m jsonw.Val) bool {
		if isTurn(m) {
			al.Pointer("/messages", i)
			al.Value(m.Get("content"))
		}
		return true
	})
	assert.Equal(t, arena, cap(al.strs), "the reservation held what was kept")
	assert.Equal(t, "/messages/1a\nb/messages/2cd", string(al.strs))
}

// Budget.Add counts a block and its bytes before it appends it (a block
// refused for its size has been counted, as a reader counted it before).
func TestBudgetAdd(t *testing.T) {
	b := NewBudget("x", replay.Limits{MaxBlocks: 3, MaxItem: 5, MaxTurn: 8}, -1)
	var tu replay.Turn
	require.NoError(t, b.Add(&tu, &replay.Text{Text: "abc"}, 3))
	var le *replay.LimitError
	require.ErrorAs(t, b.Add(&tu, &replay.Text{Text: "abcdef"}, 6), &le)
	assert.Equal(t, "item size", le.What)
	require.NoError(t, b.Add(&tu, &replay.Text{Text: "abcde"}, 5))
	require.ErrorAs(t, b.Add(&tu, &replay.Text{}, 0), &le)
	assert.Equal(t, "block count", le.What)
	assert.Len(t, tu.Blocks, 2)
}

// Memo derives a request's value once per reading when the History has
// its tape, and every time when it has none.
func TestMemo(t *testing.T) {
	body := []byte(`{"input":[1,2,3]}`)
	var tape jsonw.Tape
	require.True(t, tape.ResetBytes(body))
	h := replay.History{Request: body}
	SetTape(&h, &tape)
	key := new(int)
	n := 0
	derive := func(root jsonw.Val) any { n++; return root.Get("input").Len() }
	assert.Equal(t, 3, Memo(&h, key, derive))
	assert.Equal(t, 3, Memo(&h, key, derive))
	assert.Equal(t, 1, n)
	bare := replay.History{Request: body}
	assert.Equal(t, 3, Memo(&bare, key, derive))
	assert.Equal(t, 3, Memo(&bare, key, derive))
	assert.Equal(t, 3, n, "without its tape, derived each time")
	assert.Equal(t, 0, Memo(&replay.History{}, key, derive), "no request: the absent root")
}
