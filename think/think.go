// Package think splits reasoning delimited by tags (<think>…</think> and its
// variants) out of the visible content of a chat completion, whole or one
// streamed delta at a time.
//
// Many OpenAI-compatible hosts leak a model's reasoning into the visible
// `content`: MiniMax by design, Groq with reasoning_format "raw", vLLM and
// SGLang without a reasoning parser, llama.cpp with reasoning format "none",
// LM Studio and Ollama for some models, gateways that re-wrap another
// provider's thoughts. The tag spelling depends on the model family:
// <think> (DeepSeek-R1, Qwen3, MiniMax), <thinking>, <seed:think> (Seed-OSS),
// ◁think▷ (Kimi K2 raw), [THINK] (Mistral reasoning models), <thought>.
//
// A [Splitter] guarantees:
//
//   - visible text never contains a configured tag outside Markdown code:
//     openers and closers are removed, and a tag split at any byte across
//     deltas is held back (never more than the longest tag) until it is
//     known;
//   - tag-shaped text inside Markdown code (fenced blocks and inline code
//     spans, tracked across deltas) is literal and stays visible byte for
//     byte, so answers that explain these tags keep their text;
//   - a closer with no opener (the chat template opened the tag: DeepSeek-R1,
//     Qwen3-Thinking) makes the text before it reasoning (see [Start]);
//   - a block still open at the end is reasoning, not dropped; a partial tag
//     prefix at the end is flushed as text; any number of blocks per message;
//   - whitespace around tags is kept (the caller decides whether to trim);
//   - the result does not depend on how the content was cut into deltas: the
//     concatenated visible and reasoning texts, and the order of the
//     reasoning and visible runs, are those of the whole string.
//
// The splitter counts the delimiters it removed and the blocks it extracted
// ([Stats]), so callers can log how often a host leaks tags. It does not
// allocate per call once its buffers have grown.
package think

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"strings"
	"sync"

	"github.com/reasonreplay/replay/internal/view"
)

// Tag is a pair of reasoning delimiters.
type Tag struct {
	Open, Close string
}

// DefaultTags returns the delimiters recognised when no others are
// configured, each seen in the wild (see the package doc). The result is
// a copy.
func DefaultTags() []Tag { return append([]Tag(nil), defaultTags[:]...) }

// defaultTags are the default delimiters. A splitter with no tags
// configured uses them, compiled when the first such splitter is made.
var defaultTags = [...]Tag{
	{"<think>", "</think>"},
	{"<thinking>", "</thinking>"},
	{"<seed:think>", "</seed:think>"},
	{"◁think▷", "◁/think▷"},
	{"[THINK]", "[/THINK]"},
	{"<thought>", "</thought>"},
}

// Start says how the splitter treats the text at the start of a message,
// before it has seen any tag.
type Start uint8

const (
	// StartAuto holds the text at the start of the message until the first
	// tag says what it is: an opener makes it visible, a closer (the chat
	// template opened the block) makes it reasoning. The hold ends at the
	// first tag, at [Splitter.Release], when it exceeds MaxHold bytes (it is
	// visible then), or at the end. Use it where a host may or may not
	// pre-open the block; call Release as soon as the host is known to send
	// its reasoning elsewhere, so that visible text is not delayed.
	StartAuto Start = iota
	// StartVisible streams text as visible from the first byte; a closer
	// with no opener is removed and counted in Stats.Orphans, and the text
	// before it stays visible. Hold-back is never more than the longest
	// tag.
	StartVisible
	// StartReasoning starts inside a block: the chat template is known to
	// have opened it. An opener at the very start is taken as that block's
	// opener.
	StartReasoning
)

// DefaultMaxHold is the default bound of the StartAuto hold, in bytes.
const DefaultMaxHold = 1 << 20

// Options configure a [Splitter]. The zero value uses [DefaultTags],
// [StartAuto] and [DefaultMaxHold].
type Options struct {
	// Tags are the delimiters; nil means [DefaultTags]. A tag must be
	// non-empty, at most 64 bytes, and must not contain whitespace,
	// backticks or tildes.
	Tags []Tag
	// Start is the treatment of the start of the message.
	Start Start
	// MaxHold bounds the StartAuto hold, in bytes; 0 means
	// DefaultMaxHold.
	MaxHold int
	// KeepRaw keeps a copy of the content exactly as it came, tags
	// included, for hosts that need it sent back as it was (MiniMax): see
	// [Splitter.Raw].
	KeepRaw bool
}

// Segment is a run of split output: visible text, or reasoning text.
// Text aliases the chunk passed in or the splitter's memory and is valid
// only until the next call on the splitter; copy it to keep it. A segment is
// never empty.
type Segment struct {
	Reasoning bool
	Text      []byte
}

// Stats counts what a splitter did since it was created or reset.
type Stats struct {
	// Delimiters is the number of tags removed from the content.
	Delimiters int
	// Blocks is the number of reasoning blocks ended (closed, or open at
	// the end of a message), empty ones included.
	Blocks int
	// Orphans is the number of closers with no opener that were removed
	// while the text before them stayed visible.
	Orphans int
	// Unclosed is the number of blocks still open at the end of a message.
	Unclosed int
}

const maxTagLen = 64

// tagset is the compiled form of a tag list.
type tagset struct {
	open, close []string
	maxLen      int
	vis         byteSet // first bytes of every tag, plus '`' and '~'
	pairs       pairSet // first two bytes of every tag
	anyClose    byteSet // first bytes of every closer
	closeFirst  []byte  // first byte of each closer
}

// defaultSet returns defaultTags compiled, once.
func defaultSet() *tagset {
	defaultOnce.Do(func() { defaultCompiled = mustCompile(defaultTags[:]) })
	return defaultCompiled
}

var (
	defaultOnce     sync.Once
	defaultCompiled *tagset
)

func mustCompile(tags []Tag) *tagset {
	ts, err := compile(tags)
	if err != nil {
		panic(err)
	}
	return ts
}

// ErrBadTag reports an unusable tag in [Options].
var ErrBadTag = errors.New("think: bad tag")

func compile(tags []Tag) (*tagset, error) {
	if len(tags) == 0 {
		return nil, fmt.Errorf("%w: no tags", ErrBadTag)
	}
	ts := &tagset{}
	var visBytes, closeBytes []byte
	add := func(set []byte, c byte) []byte {
		for _, x := range set {
			if x == c {
				return set
			}
		}
		return append(set, c)
	}
	for _, t := range tags {
		for _, s := range []string{t.Open, t.Close} {
			if s == "" || len(s) > maxTagLen || strings.ContainsAny(s, "`~ \t\r\n\f\v") {
				return nil, fmt.Errorf("%w: %q", ErrBadTag, s)
			}
			if len(s) > ts.maxLen {
				ts.maxLen = len(s)
			}
			visBytes = add(visBytes, s[0])
		}
		ts.open = append(ts.open, t.Open)
		ts.close = append(ts.close, t.Close)
		ts.closeFirst = append(ts.closeFirst, t.Close[0])
		closeBytes = add(closeBytes, t.Close[0])
	}
	for _, t := range tags {
		ts.pairs.add(t.Open)
		ts.pairs.add(t.Close)
	}
	for _, c := range []byte{'`', '~'} {
		visBytes = add(visBytes, c)
	}
	if len(visBytes) > 8 {
		return nil, fmt.Errorf("%w: the tags start with more than 6 distinct bytes", ErrBadTag)
	}
	ts.vis = newByteSet(visBytes)
	ts.anyClose = newByteSet(closeBytes)
	return ts, nil
}

// code states of the visible channel
const (
	codeNone uint8 = iota
	codeInline
	codeFence
)

// Splitter splits one message's content at a time. The zero value is ready
// to use with the default [Options]. A Splitter is not safe for concurrent
// use.
type Splitter struct {
	ts      *tagset
	start   Start
	maxHold int
	keepRaw bool
	inited  bool

	// per message
	atStart   bool // no byte of this message scanned yet
	reasoning bool // inside a block
	closer    int  // index of the expected closer, -1 for any
	pending   bool // StartAuto hold is active
	blockOpen bool
	code      uint8
	codeChar  byte
	codeLen   int
	ws        int // whitespace columns since the line start, -1 after content
	runChar   byte
	runLen    int
	runBOL    bool

	hold []byte // a partial tag at the end of the last chunk
	buf  []byte // hold + chunk
	pend []byte // StartAuto held text
	raw  []byte
	st   Stats
	segs []Segment // for Append and Finish
}

// New returns a splitter for o, or an error wrapping [ErrBadTag].
func New(o Options) (*Splitter, error) {
	s := &Splitter{}
	if o.Tags != nil {
		ts, err := compile(o.Tags)
		if err != nil {
			return nil, err
		}
		s.ts = ts
	}
	s.start, s.maxHold, s.keepRaw = o.Start, o.MaxHold, o.KeepRaw
	s.init()
	return s, nil
}

func (s *Splitter) init() {
	if s.ts == nil {
		s.ts = defaultSet()
	}
	if s.maxHold <= 0 {
		s.maxHold = DefaultMaxHold
	}
	s.inited = true
	s.resetMessage()
}

func (s *Splitter) resetMessage() {
	s.atStart = true
	s.reasoning = s.start == StartReasoning
	s.closer = -1
	s.pending = s.start == StartAuto
	s.blockOpen = false
	s.code, s.codeChar, s.codeLen = codeNone, 0, 0
	s.ws = 0
	s.runChar, s.runLen, s.runBOL = 0, 0, false
	s.hold = s.hold[:0]
	s.pend = s.pend[:0]
	s.raw = s.raw[:0]
}

// Reset forgets the current message and the stats, keeping the options and
// the buffers.
func (s *Splitter) Reset() {
	if !s.inited {
		s.init()
	}
	s.resetMessage()
	s.st = Stats{}
}

// Stats returns the counts so far.
func (s *Splitter) Stats() Stats { return s.st }

// InReasoning reports whether the splitter is inside a reasoning block.
func (s *Splitter) InReasoning() bool { return s.reasoning }

// Raw returns the content of the current message as it came, tags included,
// when the splitter keeps it (Options.KeepRaw); nil otherwise. It aliases
// the splitter's memory until the next call.
func (s *Splitter) Raw() []byte {
	if !s.keepRaw {
		return nil
	}
	return s.raw
}

// Release ends the StartAuto hold: the text held so far is visible (it is
// appended to dst), and from now on a closer with no opener is an orphan.
// It does nothing in the other modes or once a tag was seen.
func (s *Splitter) Release(dst []Segment) []Segment {
	if !s.inited {
		s.init()
	}
	if !s.pending {
		return dst
	}
	s.pending = false
	if len(s.pend) > 0 {
		dst = append(dst, Segment{Text: s.pend})
	}
	return dst
}

// out emits text of the current channel.
func (s *Splitter) out(dst []Segment, text []byte, reasoning bool) []Segment {
	if len(text) == 0 {
		return dst
	}
	if !reasoning && s.pending {
		if len(s.pend)+len(text) > s.maxHold {
			s.pending = false
			if len(s.pend) > 0 {
				dst = append(dst, Segment{Text: s.pend})
			}
			return append(dst, Segment{Text: text})
		}
		s.pend = append(s.pend, text...)
		return dst
	}
	if reasoning {
		s.blockOpen = true
	}
	return append(dst, Segment{Reasoning: reasoning, Text: text})
}

// Write splits the next chunk of the message and appends the segments it
// yields to dst. Text that may be the start of a tag is held until the next
// call.
func (s *Splitter) Write(dst []Segment, chunk []byte) []Segment {
	if !s.inited {
		s.init()
	}
	if len(chunk) == 0 {
		return dst
	}
	if s.keepRaw {
		s.raw = append(s.raw, chunk...)
	}
	b := chunk
	if len(s.hold) > 0 {
		s.buf = append(append(s.buf[:0], s.hold...), chunk...)
		s.hold = s.hold[:0]
		b = s.buf
	}
	return s.scan(dst, b, false)
}

// WriteString is Write for a string chunk. Segments may alias the string's
// memory: do not modify their Text.
func (s *Splitter) WriteString(dst []Segment, chunk string) []Segment {
	return s.Write(dst, view.Bytes(chunk))
}

// Close ends the message: a held partial tag is flushed as text of the
// channel it is in, the StartAuto hold is released as visible text, and a
// block still open is counted unclosed. The splitter is then ready for the
// next message with the same options; the stats are kept.
func (s *Splitter) Close(dst []Segment) []Segment {
	if !s.inited {
		s.init()
	}
	if len(s.hold) > 0 {
		h := append(s.buf[:0], s.hold...)
		s.buf = h
		s.hold = s.hold[:0]
		dst = s.scan(dst, h, true)
	}
	s.endRun()
	dst = s.Release(dst)
	if s.reasoning && s.blockOpen {
		s.st.Blocks++
		s.st.Unclosed++
	}
	// the returned segments may alias pend: resetting keeps its memory
	s.resetMessage()
	return dst
}

// matchAt tries the tags at b[0]. It returns the tag index and whether it is
// a closer for a full match (n = tag length), or n = -1 when b (which ends
// the chunk) is a proper prefix of some tag, or n = 0 for no match. Only
// closers are tried when closersOnly; only closer want (>= 0) when given.
func (s *Splitter) matchAt(b []byte, closersOnly bool, want int) (idx int, closer bool, n int) {
	ts := s.ts
	partial := false
	try := func(t string) int {
		if len(b) >= len(t) {
			if string(b[:len(t)]) == t {
				return len(t)
			}
			return 0
		}
		if string(b) == t[:len(b)] {
			partial = true
		}
		return 0
	}
	if want >= 0 {
		if n := try(ts.close[want]); n > 0 {
			return want, true, n
		}
	} else {
		if !closersOnly {
			for i, t := range ts.open {
				if t[0] == b[0] {
					if n := try(t); n > 0 {
						return i, false, n
					}
				}
			}
		}
		for i, t := range ts.close {
			if t[0] == b[0] {
				if n := try(t); n > 0 {
					return i, true, n
				}
			}
		}
	}
	if partial {
		return 0, false, -1
	}
	return 0, false, 0
}

// wsAt returns the line state (whitespace columns since the line start, or
// -1 after other content, capped: more than 3 columns is -1) at b[j], given
// the state ws0 at b[i], i <= j.
func wsAt(b []byte, i, ws0, j int) int {
	n, k := 0, j
	for k > i {
		switch b[k-1] {
		case ' ':
			n++
		case '\t':
			n += 4
		case '\n':
			return n
		default:
			return -1
		}
		if n > 3 {
			return -1
		}
		k--
	}
	if ws0 < 0 || ws0+n > 3 {
		return -1
	}
	return ws0 + n
}

// endRun decides what a finished backtick or tilde run means.
func (s *Splitter) endRun() {
	if s.runLen == 0 {
		return
	}
	c, n, bol := s.runChar, s.runLen, s.runBOL
	s.runLen = 0
	s.ws = -1
	switch s.code {
	case codeNone:
		if bol && n >= 3 {
			s.code, s.codeChar, s.codeLen = codeFence, c, n
		} else if c == '`' {
			s.code, s.codeChar, s.codeLen = codeInline, c, n
		}
	case codeInline:
		if c == '`' && n == s.codeLen {
			s.code = codeNone
		}
	case codeFence:
		if bol && c == s.codeChar && n >= s.codeLen {
			s.code = codeNone
		}
	}
}

// scan splits b. final is set by Close: a partial tag at the end is text.
func (s *Splitter) scan(dst []Segment, b []byte, final bool) []Segment {
	ts := s.ts
	start, i := 0, 0
	if s.atStart {
		s.atStart = false
		if s.reasoning {
			// StartReasoning: a host may still echo the opener the template wrote
			idx, closer, n := s.matchAt(b, false, -1)
			switch {
			case n > 0 && !closer:
				s.st.Delimiters++
				s.closer, s.blockOpen = idx, true
				i, start = n, n
			case n < 0 && !final:
				s.atStart = true
				s.hold = append(s.hold[:0], b...)
				return dst
			}
		}
	}
	for i < len(b) {
		if s.runLen > 0 {
			for i < len(b) && b[i] == s.runChar {
				s.runLen++
				i++
			}
			if i == len(b) {
				break
			}
			s.endRun()
			continue
		}
		if s.reasoning {
			var j int
			if s.closer >= 0 {
				j = indexByte(b[i:], ts.closeFirst[s.closer])
			} else {
				j = ts.anyClose.index(b[i:])
			}
			if j < 0 {
				break
			}
			j += i
			_, _, n := s.matchAt(b[j:], true, s.closer)
			switch {
			case n > 0:
				dst = s.out(dst, b[start:j], true)
				s.st.Delimiters++
				s.st.Blocks++
				s.reasoning, s.blockOpen, s.closer = false, false, -1
				s.pending = false
				s.ws = -1
				i = j + n
				start = i
			case n < 0 && !final:
				dst = s.out(dst, b[start:j], true)
				s.hold = append(s.hold[:0], b[j:]...)
				return dst
			default:
				i = j + 1
			}
			continue
		}
		switch s.code {
		case codeFence:
			if s.ws >= 0 {
				c := b[i]
				switch {
				case c == ' ':
					s.ws++
				case c == '\t':
					s.ws += 4
				case c == '\n':
					s.ws = 0
				case c == s.codeChar && s.ws <= 3:
					s.runChar, s.runLen, s.runBOL = c, 1, true
					i++
					continue
				default:
					s.ws = -1
				}
				i++
				continue
			}
			j := indexByte(b[i:], '\n')
			if j < 0 {
				i = len(b)
				continue
			}
			s.ws = 0
			i += j + 1
			continue
		case codeInline:
			c := b[i]
			switch c {
			case '`':
				s.runChar, s.runLen, s.runBOL = c, 1, false
				i++
				continue
			case '\n':
				if s.ws >= 0 {
					// a blank line ends the paragraph: the backticks were literal
					s.code = codeNone
				}
				s.ws = 0
			case ' ':
				if s.ws >= 0 {
					s.ws++
				}
			case '\t':
				if s.ws >= 0 {
					s.ws += 4
				}
			default:
				s.ws = -1
			}
			i++
			continue
		}
		// visible, outside code: the scan stops only at the first byte of a
		// tag or of a code run; the line state is recovered by looking back.
		j := ts.vis.index(b[i:])
		if j < 0 {
			s.ws = wsAt(b, i, s.ws, len(b))
			break
		}
		j += i
		s.ws = wsAt(b, i, s.ws, j)
		i = j
		c := b[j]
		if c == '`' || c == '~' {
			s.runChar, s.runLen, s.runBOL = c, 1, s.ws >= 0 && s.ws <= 3
			i++
			continue
		}
		if j+1 < len(b) && !ts.pairs.has(c, b[j+1]) {
			s.ws = -1
			i++
			continue
		}
		idx, closer, n := s.matchAt(b[j:], false, -1)
		switch {
		case n > 0 && !closer:
			dst = s.out(dst, b[start:j], false)
			dst = s.Release(dst)
			s.st.Delimiters++
			s.reasoning, s.closer, s.blockOpen = true, idx, true
			i = j + n
			start = i
		case n > 0 && closer:
			s.st.Delimiters++
			if s.pending && len(s.pend)+(j-start) <= s.maxHold {
				s.pending = false
				if len(s.pend) > 0 {
					dst = append(dst, Segment{Reasoning: true, Text: s.pend})
				}
				if j > start {
					dst = append(dst, Segment{Reasoning: true, Text: b[start:j]})
				}
				s.st.Blocks++
			} else {
				dst = s.out(dst, b[start:j], false)
				dst = s.Release(dst)
				s.st.Orphans++
			}
			s.ws = -1
			i = j + n
			start = i
		case n < 0 && !final:
			dst = s.out(dst, b[start:j], false)
			s.hold = append(s.hold[:0], b[j:]...)
			return dst
		default:
			s.ws = -1
			i = j + 1
		}
	}
	return s.out(dst, b[start:], s.reasoning)
}

func indexByte(b []byte, c byte) int { return bytes.IndexByte(b, c) }

// byteSet finds the first byte of a small set (up to 8 values), eight
// bytes at a time with the SWAR zero-byte test.
type byteSet struct {
	masks [8]uint64
	n     int
	table [256]bool
}

const (
	lo8 = 0x0101010101010101
	hi8 = 0x8080808080808080
)

func newByteSet(vals []byte) byteSet {
	var bs byteSet
	for k := range bs.masks {
		v := vals[0]
		if k < len(vals) {
			v = vals[k]
		}
		bs.masks[k] = lo8 * uint64(v)
	}
	for _, v := range vals {
		bs.table[v] = true
	}
	bs.n = len(vals)
	return bs
}

// index returns the index of the first byte of b in the set, or -1.
func (bs *byteSet) index(b []byte) int {
	m := &bs.masks
	i := 0
	switch {
	case bs.n <= 4:
		for ; i+8 <= len(b); i += 8 {
			w := binary.LittleEndian.Uint64(b[i:])
			x0, x1, x2, x3 := w^m[0], w^m[1], w^m[2], w^m[3]
			h := (x0-lo8)&^x0 | (x1-lo8)&^x1 | (x2-lo8)&^x2 | (x3-lo8)&^x3
			if h &= hi8; h != 0 {
				return i + bits.TrailingZeros64(h)/8
			}
		}
	case bs.n <= 6:
		for ; i+8 <= len(b); i += 8 {
			w := binary.LittleEndian.Uint64(b[i:])
			x0, x1, x2, x3, x4, x5 := w^m[0], w^m[1], w^m[2], w^m[3], w^m[4], w^m[5]
			h := (x0-lo8)&^x0 | (x1-lo8)&^x1 | (x2-lo8)&^x2 | (x3-lo8)&^x3 |
				(x4-lo8)&^x4 | (x5-lo8)&^x5
			if h &= hi8; h != 0 {
				return i + bits.TrailingZeros64(h)/8
			}
		}
	default:
		for ; i+8 <= len(b); i += 8 {
			w := binary.LittleEndian.Uint64(b[i:])
			x0, x1, x2, x3 := w^m[0], w^m[1], w^m[2], w^m[3]
			x4, x5, x6, x7 := w^m[4], w^m[5], w^m[6], w^m[7]
			h := (x0-lo8)&^x0 | (x1-lo8)&^x1 | (x2-lo8)&^x2 | (x3-lo8)&^x3 |
				(x4-lo8)&^x4 | (x5-lo8)&^x5 | (x6-lo8)&^x6 | (x7-lo8)&^x7
			if h &= hi8; h != 0 {
				return i + bits.TrailingZeros64(h)/8
			}
		}
	}
	for ; i < len(b); i++ {
		if bs.table[b[i]] {
			return i
		}
	}
	return -1
}

// pairSet is a set of two-byte prefixes.
type pairSet [1024]uint64

func (p *pairSet) add(t string) {
	if len(t) < 2 {
		// a one-byte tag: any second byte may follow
		for c := 0; c < 256; c++ {
			k := int(t[0])<<8 | c
			p[k>>6] |= 1 << (k & 63)
		}
		return
	}
	k := int(t[0])<<8 | int(t[1])
	p[k>>6] |= 1 << (k & 63)
}

func (p *pairSet) has(a, b byte) bool {
	k := int(a)<<8 | int(b)
	return p[k>>6]&(1<<(k&63)) != 0
}

// Append splits the next chunk and appends its visible text to vis and its
// reasoning text to reasoning. It is the two-channel form of [Splitter.Write]
// for callers that do not need the order of the runs.
func (s *Splitter) Append(vis, reasoning, chunk []byte) ([]byte, []byte) {
	s.segs = s.Write(s.segs[:0], chunk)
	return appendSegs(vis, reasoning, s.segs)
}

// Finish is [Splitter.Close] in the two-channel form of [Splitter.Append].
func (s *Splitter) Finish(vis, reasoning []byte) ([]byte, []byte) {
	s.segs = s.Close(s.segs[:0])
	return appendSegs(vis, reasoning, s.segs)
}

func appendSegs(vis, reasoning []byte, segs []Segment) ([]byte, []byte) {
	for _, sg := range segs {
		if sg.Reasoning {
			reasoning = append(reasoning, sg.Text...)
		} else {
			vis = append(vis, sg.Text...)
		}
	}
	return vis, reasoning
}

// Split splits a whole content string with the options o. It gives the same
// texts as streaming the content through a [Splitter] in any cuts.
func Split(content string, o Options) (visible, reasoning string, st Stats, err error) {
	s, err := New(o)
	if err != nil {
		return "", "", Stats{}, err
	}
	segs := s.Close(s.WriteString(nil, content))
	var v, r strings.Builder
	for _, sg := range segs {
		if sg.Reasoning {
			r.Write(sg.Text)
		} else {
			v.Write(sg.Text)
		}
	}
	return v.String(), r.String(), s.Stats(), nil
}
