package jsonw

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sameTape requires a and b to record the same values: the same raw texts,
// names, recorded members and elements, all the way down.
func sameTape(t *testing.T, a, b *Tape) {
	t.Helper()
	require.Equal(t, a.Text(), b.Text())
	require.Equal(t, len(a.nodes), len(b.nodes), "as many values recorded")
	var walk func(x, y Val, path string)
	walk = func(x, y Val, path string) {
		require.Equal(t, x.Start(), y.Start(), path)
		require.Equal(t, x.End(), y.End(), path)
		require.Equal(t, x.Name(), y.Name(), path)
		require.Equal(t, x.Escaped(), y.Escaped(), path)
		xk, xr := x.recorded()
		yk, yr := y.recorded()
		require.Equal(t, xr, yr, "%s: recorded", path)
		require.Equal(t, len(xk), len(yk), path)
		for i := range xk {
			walk(x.node(xk[i]), y.node(yk[i]), fmt.Sprintf("%s/%d", path, i))
		}
	}
	walk(a.Root(), b.Root(), "")
}

// afterAs requires ResetAfter(s, prev) to be Reset(s).
func afterAs(t *testing.T, prevText, s string) *Tape {
	t.Helper()
	var prev, want, got Tape
	prev.Reset(prevText)
	ok := want.Reset(s)
	require.Equal(t, ok, got.ResetAfter(s, &prev), "%q after %q", s, prevText)
	if ok {
		sameTape(t, &want, &got)
		prefixHolds(t, &prev, &got)
	}
	memberAfterHolds(t, &prev, s, &want, ok)
	return &got
}

// memberAfterHolds checks MemberAfter for every top-level member of
// prev's text, read for s (want is s's tape; valid, whether s is): what it
// finds is what s's tape records, when s is valid.
func memberAfterHolds(t *testing.T, prev *Tape, s string, want *Tape, valid bool) {
	t.Helper()
	root := prev.Root()
	if !root.IsObject() {
		return
	}
	kids, _ := root.recorded()
	shared := Shared(s, prev.Text())
	for _, k := range kids {
		name := AppendStr(nil, root.node(k).Name())
		raw, ok := prev.MemberAfter(s, shared, string(name))
		if ok && valid {
			if w := want.Root().Get(string(name)); raw != w.Raw() {
				t.Fatalf("MemberAfter(%q) = %q, the text's own tape has %q (%q after %q)", name, raw, w.Raw(), s, prev.Text())
			}
		}
	}
}

// The model of a conversation one exchange longer is taken from the
// shorter one's tape where it comes first, and where it comes last (as
// anthropic-sdk-go writes it); a changed model or a member that lies in
// neither shared part is not.
func TestMemberAfter(t *testing.T) {
	last := func(n int, model string) string {
		return strings.Replace(conversation(n, `,"model":"`+model+`"`), `"model":"m",`, "", 1)
	}
	for _, c := range []struct {
		prev, s, name, want string
		ok                  bool
	}{
		{conversation(3, ""), conversation(4, ""), "model", `"m"`, true},
		{last(3, "m"), last(4, "m"), "model", `"m"`, true},
		{last(3, "m"), last(4, "n"), "model", "", false},
		{conversation(3, ""), conversation(4, ""), "messages", "", false},
		{conversation(3, ""), conversation(4, ""), "system", `"S"`, true},
		{conversation(3, ""), conversation(4, ""), "nothing", "", false},
		{`[1]`, `[1,2]`, "model", "", false},
		// The shared trailing bytes start at the name's quote, which a
		// backslash escapes in s: the member is named k"model there.
		{`{"messages":[],"model":"claude-x"}`, `{"messages":[],"k\"model":"claude-x"}`, "model", "", false},
		{`{"messages":[],"model":"claude-x"}`, `{"model":"gpt-y","k\"model":"claude-x"}`, "model", "", false},
		{`{"a":1,"model":"claude-x","messages":[]}`, `{"model":"gpt-y","k\"model":"claude-x","messages":[]}`, "model", "", false},
		// The shared leading bytes end inside a number.
		{`{"model":12}`, `{"model":123}`, "model", "", false},
		{`{"model":1,"messages":[]}`, `{"model":1.5,"messages":[]}`, "model", "", false},
		{`{"model":12,"messages":[]}`, `{"model":12,"messages":[1]}`, "model", "12", true},
	} {
		var prev Tape
		prev.Reset(c.prev)
		raw, ok := prev.MemberAfter(c.s, Shared(c.s, c.prev), c.name)
		require.Equal(t, c.ok, ok, "%s of %q", c.name, c.s)
		require.Equal(t, c.want, raw, "%s of %q", c.name, c.s)
		afterAs(t, c.prev, c.s)
	}
}

func conversation(n int, extra string) string {
	var b strings.Builder
	b.WriteString(`{"model":"m","messages":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"role":"user","content":[{"type":"text","text":"q%d \"x\"","cache_control":{"type":"ephemeral"}}]}`, i)
		fmt.Fprintf(&b, `,{"role":"assistant","content":[{"type":"thinking","thinking":"t%d","signature":"s%d"},{"type":"tool_use","id":"u%d","input":{"a":{"b":{"c":{"d":{"e":{"f":[%d]}}}}}}}]}`, i, i, i, i)
	}
	b.WriteString(`]` + extra + `,"tools":[{"name":"t","input_schema":{"type":"object"}}],"system":"S"}`)
	return b.String()
}

// A conversation one exchange longer reuses what the shorter one recorded,
// and reads as Reset reads it.
func TestResetAfterReuses(t *testing.T) {
	for n := 0; n < 6; n++ {
		got := afterAs(t, conversation(n, ""), conversation(n+1, ""))
		if n > 0 {
			require.Positive(t, got.reused, "the shared elements and members are taken")
		}
		afterAs(t, conversation(n+1, ""), conversation(n, "")) // shorter
	}
	// The cache marker moved from the last user message to the new one.
	a := strings.Replace(conversation(3, ""), `,"cache_control":{"type":"ephemeral"}`, "", 2)
	b := strings.Replace(conversation(4, ""), `,"cache_control":{"type":"ephemeral"}`, "", 3)
	require.Positive(t, afterAs(t, a, b).reused)
	// Changes elsewhere, invalid texts, a repeated name after the change,
	// white space, other shapes.
	for _, s := range []string{
		conversation(4, `,"x":1`), conversation(4, `,"model":2`), strings.Replace(conversation(4, ""), `"system":"S"`, `"system":"T"`, 1),
		conversation(4, "")[:200], conversation(4, "") + " ", " " + conversation(4, ""), conversation(4, "") + "x",
		strings.Replace(conversation(4, ""), `"q3`, "\"q3\xff", 1), strings.Replace(conversation(4, ""), `"q3`, `"q3\u00e9`, 1),
		`[1,2,3]`, `{}`, `{"messages":[]}`, `{"messages":[1,2]}`, ``,
	} {
		afterAs(t, conversation(3, ""), s)
	}
	afterAs(t, `{"messages":[1,2]}`, `{"messages":[1,2,3]}`)
	afterAs(t, `{"messages":[1,2,3]}`, `{"messages":[1,2]}`)
	afterAs(t, `{"messages":[]}`, `{"messages":[1]}`)
	afterAs(t, `{"messages":[1,23]}`, `{"messages":[1,2]}`) // a number ends where the texts part
	afterAs(t, `{"messages":[1,2]}`, `{"messages":[1,23]}`)
	afterAs(t, `{"a":[1],"messages":[1]}`, `{"a":[1],"messages":[1,{"x":[2]}]}`)
	var self Tape
	self.Reset(conversation(2, ""))
	require.True(t, self.ResetAfter(conversation(3, ""), &self), "a tape is never its own earlier tape")
	var want Tape
	want.Reset(conversation(3, ""))
	sameTape(t, &want, &self)
}

// Random edits of a conversation read after it as Reset reads them.
func TestResetAfterRandomEdits(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	base := conversation(5, "")
	alphabet := []string{"{", "}", "[", "]", ",", ":", `"`, `\`, "1", "a", " ", `{"role":"user"}`, `"x":1`, "\xe9"}
	for i := 0; i < 3000; i++ {
		s := base
		for e := 0; e < 1+r.Intn(3); e++ {
			at := r.Intn(len(s) + 1)
			switch r.Intn(3) {
			case 0:
				s = s[:at] + alphabet[r.Intn(len(alphabet))] + s[at:]
			case 1:
				if at < len(s) {
					s = s[:at] + s[at+1:]
				}
			default:
				s = s[:at] + conversation(1, "")[26:120] + s[at:]
			}
		}
		afterAs(t, base, s)
		afterAs(t, s, base)
	}
}

func FuzzResetAfter(f *testing.F) {
	f.Add(conversation(2, ""), conversation(3, ""))
	f.Add(`{"messages":[1,2]}`, `{"messages":[1,2,3]}`)
	f.Add(`{"a":[1],"m":[{"b":2}]}`, `{"a":[1],"m":[{"b":2},{"c":3}]}`)
	f.Add(`{"messages":[],"model":"claude-x"}`, `{"model":"gpt-y","k\"model":"claude-x"}`)
	f.Add(`{"a":1,"model":"claude-x","messages":[]}`, `{"model":"gpt-y","k\"model":"claude-x","messages":[]}`)
	f.Add(`{"model":12}`, `{"model":123}`)
	f.Add(`{"model":1,"messages":[]}`, `{"model":1.5,"messages":[]}`)
	f.Add(`{"messages":[1,23]}`, `{"messages":[1,2]}`)
	f.Fuzz(func(t *testing.T, prev, s string) {
		var p, want, got Tape
		p.Reset(prev)
		ok := want.Reset(s)
		if got.ResetAfter(s, &p) != ok {
			t.Fatalf("ResetAfter(%q) after %q disagrees with Reset", s, prev)
		}
		if ok {
			sameTape(t, &want, &got)
			prefixHolds(t, &p, &got)
		}
		memberAfterHolds(t, &p, s, &want, ok)
	})
}

// prefixHolds checks what got.Prefix promises of got, reset after prev:
// its text and prev's share that many leading bytes, and a value of got
// that ends within them is prev's value at the same place.
func prefixHolds(t *testing.T, prev, got *Tape) {
	t.Helper()
	after, n := got.Prefix()
	if n == 0 {
		if after != "" {
			t.Fatalf("Prefix: the text %q after with nothing shared", after)
		}
		return
	}
	if after != prev.s {
		t.Fatalf("Prefix: the text after is not prev's")
	}
	if n > len(got.s) || n > len(prev.s) || got.s[:n] != prev.s[:n] {
		t.Fatalf("Prefix %d: the texts do not share it", n)
	}
	for i, nd := range got.nodes {
		if int(nd.end) > n {
			continue
		}
		if i >= len(prev.nodes) || prev.nodes[i].start != nd.start || prev.nodes[i].end != nd.end {
			t.Fatalf("value %d [%d,%d) ends within the prefix %d but is not prev's", i, nd.start, nd.end, n)
		}
	}
}

// A reader's value kept with a tape is found under its key, carried by a
// snapshot, and dropped by a reset; Prefix says what ResetAfter shared.
func TestKeepAndPrefix(t *testing.T) {
	prevText, text := conversation(3, ""), conversation(4, "")
	var prev Tape
	require.True(t, prev.Reset(prevText))
	_, n := prev.Prefix()
	assert.Zero(t, n, "read cold")
	type key struct{ name string }
	v := &struct{ n int }{7}
	prev.Keep(key{"a"}, v)
	assert.Same(t, v, prev.Kept(key{"a"}))
	assert.Nil(t, prev.Kept(key{"b"}), "another key")
	snap := prev.Snapshot(strings.Clone(prevText))
	require.NotNil(t, snap)
	assert.Same(t, v, snap.Kept(key{"a"}), "a snapshot carries it")

	var got Tape
	require.True(t, got.ResetAfter(text, snap))
	assert.Nil(t, got.Kept(key{"a"}), "a new text keeps nothing yet")
	after, n := got.Prefix()
	assert.Equal(t, Shared(text, prevText), n)
	assert.Greater(t, n, len(text)/2)
	assert.Equal(t, snap.s, after)
	prefixHolds(t, snap, &got)
	var same Tape
	require.True(t, same.ResetAfter(strings.Clone(prevText), snap))
	_, n = same.Prefix()
	assert.Equal(t, len(prevText), n, "the same text shares all of it")
	require.True(t, prev.Reset(text))
	assert.Nil(t, prev.Kept(key{"a"}), "a reset drops it")
	after, n = prev.Prefix()
	assert.Zero(t, n)
	assert.Empty(t, after)
	assert.Same(t, v, snap.Kept(key{"a"}), "the snapshot keeps its own")
}

// The same text again shares the earlier tape's records and reads as
// Reset reads it; a reset of either tape afterwards leaves the other as it
// was.
func TestResetAfterSameText(t *testing.T) {
	for _, s := range []string{conversation(3, ""), `{"messages":[1,2]}`, `{"messages":[]}`, `{}`} {
		var prev Tape
		require.True(t, prev.Reset(s))
		got := afterAs(t, s, s)
		require.Equal(t, len(got.nodes), got.reused, "every value taken")

		var p2, g2, want Tape
		p2.Reset(s)
		require.True(t, g2.ResetAfter(strings.Clone(s), &p2))
		want.Reset(s)
		// Resetting the new tape with another text must not write into
		// the records p2 holds, and the other way round.
		require.True(t, g2.Reset(conversation(5, `,"x":[9,9,9]`)))
		sameTape(t, &want, &p2)
		require.True(t, p2.Reset(`{"a":[1,2,3,4,5,6,7,8]}`))
		var want2 Tape
		want2.Reset(conversation(5, `,"x":[9,9,9]`))
		sameTape(t, &want2, &g2)
	}
	// An invalid text is never taken from a tape of the same text: there
	// is none (an invalid text records nothing).
	var bad, got Tape
	require.False(t, bad.Reset(`{"messages":[1,}`))
	require.False(t, got.ResetAfter(`{"messages":[1,}`, &bad))
}

// A snapshot reads its own copy of the text as the tape read the
// original, and neither is disturbed by a reset of the other.
func TestSnapshot(t *testing.T) {
	s := conversation(3, "")
	var orig, want Tape
	require.True(t, orig.Reset(s))
	want.Reset(s)
	require.Nil(t, orig.Snapshot(s[:len(s)-1]), "another text")
	require.Nil(t, new(Tape).Snapshot(""), "a tape of nothing")
	cp := strings.Clone(s)
	snap := orig.Snapshot(cp)
	require.NotNil(t, snap)
	sameTape(t, &want, snap)
	require.Equal(t, want.Size() > 0, snap.Size() > 0)
	// The snapshot's values view the copy.
	msgs := snap.Root().Get("messages")
	require.Equal(t, cp[msgs.Start():msgs.End()], msgs.Raw())
	require.True(t, orig.Reset(conversation(6, "")))
	sameTape(t, &want, snap)
	// A tape read after the snapshot (the next request) is Reset's, and
	// resetting it leaves the snapshot alone.
	var next, wantNext Tape
	require.True(t, next.ResetAfter(conversation(4, ""), snap))
	wantNext.Reset(conversation(4, ""))
	sameTape(t, &wantNext, &next)
	require.Positive(t, next.reused)
	var same Tape
	require.True(t, same.ResetAfter(strings.Clone(s), snap))
	sameTape(t, &want, &same)
	require.True(t, same.Reset(`[1,2,3]`))
	sameTape(t, &want, snap)
}
