package gemini

import (
	"strconv"
	"strings"

	"github.com/reasonreplay/replay/internal/jsonw"
)

// maxArgDepth bounds the nesting of a streamed argument's jsonPath, as
// jsonw bounds the nesting of any JSON this module reads: a path of
// millions of segments is refused, never built.
const maxArgDepth = 10000

// argNode is one value of the arguments of a call streamed in partialArgs
// pieces: an object, an array or a leaf.
type argNode struct {
	kind  byte // 'o' object, 'a' array, 0 leaf
	str   bool // a leaf that holds string text (val unescaped)
	val   []byte
	keys  []string // object member names, in first-set order
	kids  []*argNode
	index map[string]int // key -> position, for objects with many members
}

// argTree reassembles the streamed arguments of one call: each piece is
// set at its path, consecutive string pieces of one path are appended, and
// the object is written once at the end. Setting a piece costs its path's
// length plus its value's, so reassembly is linear in the input (a rebuild
// per piece, as sjson would do, is quadratic).
type argTree struct {
	root argNode
	last *argNode // the leaf the previous piece set
}

func (t *argTree) reset() {
	t.root = argNode{kind: 'o'}
	t.last = nil
}

func (t *argTree) empty() bool { return len(t.root.keys) == 0 }

// set sets the value at the jsonPath jp ("$.a.b[0]", "$['a b']"): raw is
// string text when str, else a JSON literal. It reports false for a path
// it cannot read, deeper than maxArgDepth, or whose array index is past
// the end of its array (which would pad the arguments with nulls).
func (t *argTree) set(jp, raw string, str bool) bool {
	if t.root.kind == 0 {
		t.root.kind = 'o'
	}
	if len(jp) < 3 || jp[0] != '$' {
		return false
	}
	n, s, depth := &t.root, jp[1:], 0
	for s != "" {
		if depth++; depth > maxArgDepth {
			return false
		}
		var key string
		idx := -1
		switch {
		case s[0] == '.':
			s = s[1:]
			e := 0
			for e < len(s) && s[e] != '.' && s[e] != '[' {
				e++
			}
			if e == 0 {
				return false
			}
			key, s = s[:e], s[e:]
		case len(s) > 1 && s[0] == '[' && s[1] == '\'':
			e := strings.Index(s, "']")
			if e < 2 {
				return false
			}
			key, s = s[2:e], s[e+2:]
		case s[0] == '[':
			e := 1
			for e < len(s) && s[e] != ']' {
				e++
			}
			if e == 1 || e == len(s) || e > 10 {
				return false
			}
			v, err := strconv.Atoi(s[1:e])
			if err != nil || v < 0 {
				return false
			}
			idx, s = v, s[e+1:]
		default:
			return false
		}
		var ok bool
		if idx >= 0 {
			n, ok = n.elem(idx)
		} else {
			n, ok = n.member(key)
		}
		if !ok {
			return false
		}
	}
	if str && n == t.last && n.kind == 0 && n.str {
		n.val = append(n.val, raw...)
		return true
	}
	*n = argNode{str: str, val: append([]byte(nil), raw...)}
	t.last = n
	return true
}

// member returns the member key of n, making n an object when it is not
// one (a later piece replaces an earlier value at the same path, as in
// the source's last-set-wins order).
func (n *argNode) member(key string) (*argNode, bool) {
	if n.kind != 'o' {
		*n = argNode{kind: 'o'}
	}
	if n.index != nil {
		if i, ok := n.index[key]; ok {
			return n.kids[i], true
		}
	} else {
		for i, k := range n.keys {
			if k == key {
				return n.kids[i], true
			}
		}
	}
	if len(n.keys) == 8 && n.index == nil {
		n.index = make(map[string]int, 16)
		for i, k := range n.keys {
			n.index[k] = i
		}
	}
	key = strings.Clone(key) // the path aliases the frame
	if n.index != nil {
		n.index[key] = len(n.keys)
	}
	c := &argNode{}
	n.keys = append(n.keys, key)
	n.kids = append(n.kids, c)
	return c, true
}

// elem returns element i of n, making n an array when it is not one; i
// may be at most the array's length (the next element).
func (n *argNode) elem(i int) (*argNode, bool) {
	if n.kind != 'a' {
		*n = argNode{kind: 'a'}
	}
	switch {
	case i < len(n.kids):
		return n.kids[i], true
	case i == len(n.kids):
		c := &argNode{}
		n.kids = append(n.kids, c)
		return c, true
	}
	return nil, false
}

// appendJSON writes the tree as one JSON object.
func (t *argTree) appendJSON(dst []byte) []byte { return t.root.appendJSON(dst) }

// appendJSON writes n; recursion is bounded by maxArgDepth.
func (n *argNode) appendJSON(dst []byte) []byte {
	switch n.kind {
	case 'o':
		dst = append(dst, '{')
		for i, k := range n.keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = jsonw.String(dst, k)
			dst = append(dst, ':')
			dst = n.kids[i].appendJSON(dst)
		}
		return append(dst, '}')
	case 'a':
		dst = append(dst, '[')
		for i, c := range n.kids {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = c.appendJSON(dst)
		}
		return append(dst, ']')
	}
	switch {
	case n.str:
		return jsonw.String(dst, string(n.val))
	case len(n.val) == 0:
		return append(dst, "null"...) // a container step that no piece filled
	}
	return append(dst, n.val...)
}
