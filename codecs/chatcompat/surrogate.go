package chatcompat

import (
	"strings"
	"unicode/utf16"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
)

// A host that cuts text by UTF-16 code units (JavaScript string slicing,
// as in Node gateways) may send the two halves of a surrogate pair in two
// consecutive deltas of one channel: "\ud83c" then "\udf0a" for U+1F30A.
// Each half alone decodes to U+FFFD, so the decoder holds a high half that
// ends a fragment and joins it with a low half that starts the next
// fragment of the same channel. A half with no partner (the next fragment
// of the channel does not start with a low half, another channel speaks
// first, or the message ends) stays U+FFFD, as it would without the hold.

// channels of text the decoder accumulates
const (
	chNone = iota
	chNative
	chContent
	chArgs
)

// carry is a held high surrogate and the channel it belongs to.
type carry struct {
	ch, idx int
	hi      rune
}

const replacement = "\uFFFD"

// lowLead returns the low surrogate escaped at the start of the JSON
// string raw, or 0.
func lowLead(raw string) rune {
	if r, ok := jsonw.LeadingLow(raw); ok {
		return r
	}
	return 0
}

// highTail returns the high surrogate escaped at the end of the JSON
// string raw, or 0.
func highTail(raw string) rune {
	if r, ok := jsonw.TrailingHigh(raw); ok {
		return r
	}
	return 0
}

// settle writes a held high half out as U+FFFD unless it belongs to the
// channel (ch, idx) about to be written.
func (d *StreamDecoder) settle(ch, idx int, dst []replay.Event) ([]replay.Event, error) {
	c := d.carry
	if c.hi == 0 || (c.ch == ch && c.idx == idx) {
		return dst, nil
	}
	d.carry = carry{}
	switch c.ch {
	case chNative:
		return d.reasoning(replacement, curNative, false, dst)
	case chContent:
		return d.content(replacement, dst)
	case chArgs:
		return d.writeArgs(c.idx, replacement, dst)
	}
	return dst, nil
}

// join16 returns the text to write for a fragment of channel (ch, idx),
// raw as sent and s decoded: a held high half joined with a leading low
// half, and a trailing high half held back.
func (d *StreamDecoder) join16(ch, idx int, raw, s string, dst []replay.Event) (string, []replay.Event, error) {
	var err error
	if dst, err = d.settle(ch, idx, dst); err != nil {
		return s, dst, err
	}
	prefix := ""
	if d.carry.hi != 0 {
		if lo := lowLead(raw); lo != 0 && strings.HasPrefix(s, replacement) {
			prefix = string(utf16.DecodeRune(d.carry.hi, lo))
			s = s[len(replacement):]
		} else {
			prefix = replacement
		}
		d.carry = carry{}
	}
	if hi := highTail(raw); hi != 0 && strings.HasSuffix(s, replacement) {
		d.carry = carry{ch: ch, idx: idx, hi: hi}
		s = s[:len(s)-len(replacement)]
	}
	if prefix != "" {
		s = prefix + s
	}
	return s, dst, nil
}
