package jsonw

import (
	"math"
	"unicode/utf8"

	"github.com/reasonreplay/replay/internal/view"
)

// ResetAfter is Reset for a text that shares most of its bytes with the
// text of prev, a tape of an earlier text: a conversation one exchange
// longer, whose top-level array member (the messages) holds the same
// elements and then more, and whose bytes after that member are the
// same. What prev recorded of the shared elements and of the members
// around them is taken as it is; only the elements between are read. For
// any other text it reads s whole; the same text as prev's shares prev's
// records (neither tape writes them again). Either way the tape, and what
// it reports, are Reset's: reuse changes the cost only.
//
// prev must not change while ResetAfter runs, and t must not be prev.
func (t *Tape) ResetAfter(s string, prev *Tape) bool {
	t.reused, t.prefix, t.after = 0, 0, ""
	t.memo.Store(nil)
	t.kept.Store(nil)
	if prev == nil || prev == t || prev.capped || len(prev.nodes) == 0 || len(s) > math.MaxInt32 {
		return t.Reset(s)
	}
	if s == prev.s {
		// Reset is a function of the text: the same text, the same tape.
		t.unshare()
		if !prev.shared { // a snapshot is marked already, and read concurrently
			prev.shared = true
		}
		t.s, t.stack = s, t.stack[:0]
		t.nodes, t.kids = prev.nodes[:len(prev.nodes):len(prev.nodes)], prev.kids[:len(prev.kids):len(prev.kids)]
		t.limit, t.capped, t.shared, t.reused = prev.limit, false, true, len(prev.nodes)
		t.prefix, t.after = len(s), prev.s
		return true
	}
	t.unshare()
	if !t.resetAfter(s, prev) {
		return t.Reset(s)
	}
	return true
}

// resetAfter is ResetAfter's reuse; it reports false when it cannot reuse
// prev, leaving t to be reset.
func (t *Tape) resetAfter(s string, prev *Tape) bool {
	ps := prev.s
	p := commonPrefix(s, ps)
	q := commonSuffix(s[p:], ps[p:])
	delta := int32(len(s) - len(ps))
	root := &prev.nodes[0]
	if ps[root.start] != '{' || root.nkids < 0 {
		return false
	}
	rk := prev.kids[root.kids : root.kids+root.nkids]
	// The member whose value the texts first differ in: an array whose
	// elements are recorded and whose end is in the shared suffix.
	mi := -1
	for j, k := range rk {
		if nd := &prev.nodes[k]; int(nd.start) < p && p < int(nd.end) {
			mi = j
			break
		}
	}
	if mi < 0 {
		return false
	}
	m := rk[mi]
	mnd := prev.nodes[m]
	closeAt := int(mnd.end) - 1 // its ']' in prev
	if ps[mnd.start] != '[' || mnd.nkids < 0 || len(ps)-closeAt > q {
		return false
	}
	elems := prev.kids[mnd.kids : mnd.kids+mnd.nkids]
	k := 0
	for k < len(elems) && int(prev.nodes[elems[k]].end) <= p {
		k++
	}
	next := int32(len(prev.nodes)) // the first node after m's subtree
	if mi+1 < len(rk) {
		next = rk[mi+1]
	}
	first := next // the first node not shared before the difference
	if k < len(elems) {
		first = elems[k]
	}

	t.s, t.limit, t.capped = s, 1024+len(s)/32, false
	t.nodes = append(t.nodes[:0], prev.nodes[:first]...)
	t.kids, t.stack = t.kids[:0], t.stack[:0]
	for i := int32(1); i < first; i++ {
		if nd := &t.nodes[i]; i != m && nd.nkids > 0 {
			run := prev.kids[nd.kids : nd.kids+nd.nkids]
			nd.kids = int32(len(t.kids))
			t.kids = append(t.kids, run...)
		}
	}
	// The root and m are open: their children so far.
	t.stack = append(t.stack, rk[:mi+1]...)
	mark := len(t.stack)
	t.stack = append(t.stack, elems[:k]...)
	var from, end int
	var ok bool
	if k == 0 {
		from = int(mnd.start)
		end, ok = t.array(from, 1, int(m), mark)
	} else {
		from = int(prev.nodes[elems[k-1]].end)
		i := skipSpace(s, from)
		switch {
		case i >= len(s):
		case s[i] == ']':
			end, ok = i+1, true
		case s[i] == ',':
			end, ok = t.elements(skipSpace(s, i+1), 1, int(m), mark)
		}
	}
	// The rest of the text must be prev's after its array, at the same
	// place relative to the end, and what was read valid UTF-8.
	if !ok || int32(end-1)-delta != int32(closeAt) || end-1 < len(s)-q || !utf8.ValidString(s[from:end]) {
		return false
	}
	nd := &t.nodes[m]
	nd.end = int32(end)
	nd.kids, nd.nkids = int32(len(t.kids)), int32(len(t.stack)-mark)
	t.kids = append(t.kids, t.stack[mark:]...)
	t.stack = t.stack[:mark]
	// The members after m, as prev recorded them, moved by delta.
	shift := int32(len(t.nodes)) - next
	for _, x := range prev.nodes[next:] {
		x.start += delta
		x.end += delta
		if x.nameTo > 0 {
			x.nameAt += delta
			x.nameTo += delta
		}
		if x.nkids > 0 {
			run := prev.kids[x.kids : x.kids+x.nkids]
			x.kids = int32(len(t.kids))
			for _, c := range run {
				t.kids = append(t.kids, c+shift)
			}
		}
		t.nodes = append(t.nodes, x)
	}
	for _, c := range rk[mi+1:] {
		t.stack = append(t.stack, c+shift)
	}
	r := &t.nodes[0]
	r.end += delta
	r.kids, r.nkids = int32(len(t.kids)), int32(len(t.stack))
	t.kids = append(t.kids, t.stack...)
	t.stack = t.stack[:0]
	// Reset would have recorded every value only under its bound.
	t.reused = int(first) + len(prev.nodes) - int(next)
	if len(t.nodes) >= t.limit {
		return false
	}
	// A number that ends where the texts part may go on in prev's text
	// ([1,2 against [1,23): only what ends before its last digit is
	// shared for certain.
	if p > 0 && s[p-1] >= '0' && s[p-1] <= '9' {
		p--
	}
	t.prefix, t.after = p, ps
	return true
}

// commonPrefix returns the length of the longest common prefix of a and b.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for step := 4096; step >= 8; step /= 8 {
		for i+step <= n && a[i:i+step] == b[i:i+step] {
			i += step
		}
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// commonSuffix returns the length of the longest common suffix of a and b.
func commonSuffix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for step := 4096; step >= 8; step /= 8 {
		for i+step <= n && a[len(a)-i-step:len(a)-i] == b[len(b)-i-step:len(b)-i] {
			i += step
		}
	}
	for i < n && a[len(a)-i-1] == b[len(b)-i-1] {
		i++
	}
	return i
}

// Shared returns the length of the longest common prefix of a and b.
func Shared(a, b string) int { return commonPrefix(a, b) }

// MemberAfter returns the raw value of the top-level member name of s, a
// later text than t's (see ResetAfter), taken from what t recorded: when
// t's root has that member, and the member, its name and its value, lies
// in the bytes s shares with t's text at their start (shared of them, as
// [Shared] counts) or at their end. ok is false otherwise, and s must be
// searched. For a valid s the value is the one its own tape would record:
// a member in the shared leading bytes, with the byte after it, is read by
// the same steps in both texts; one in the shared trailing bytes, with the
// byte before its name (an object's '{' or ',', or white space in t's
// text: never a backslash that would escape the name's quote in s), has
// its quotes in the same roles, counted from the end, and the same
// brackets up to the root's end, and so is a member of s's root too. For
// an invalid s it is what those bytes hold.
func (t *Tape) MemberAfter(s string, shared int, name string) (raw string, ok bool) {
	v := t.Root().Get(name)
	if !v.Exists() || v.n < 0 { // absent, or read from raw text (not recorded)
		return "", false
	}
	nd := &t.nodes[v.n]
	from, to := int(nd.nameAt), int(nd.end)
	ps := t.s
	// In the shared leading bytes, the byte after the value is shared too
	// (a number could go on in s); in the shared trailing bytes, so is the
	// byte before the name (a backslash in s would escape its quote).
	if shared = min(shared, len(s), len(ps)); to < shared {
		return s[nd.start:to], true
	}
	if q := commonSuffix(s[shared:], ps[shared:]); from > len(ps)-q {
		d := len(s) - len(ps)
		return s[int(nd.start)+d : to+d], true
	}
	return "", false
}

// ResetBytesAfter is ResetAfter for a byte slice, read in place.
func (t *Tape) ResetBytesAfter(b []byte, prev *Tape) bool {
	if len(b) == 0 {
		return t.Reset("")
	}
	return t.ResetAfter(view.String(b), prev)
}
