// Package kit holds what every codec's decoders share: the budget that
// bounds what a decoder keeps (every kept string against Limits.MaxItem and
// Limits.MaxTurn, every block against Limits.MaxBlocks), copies out of a
// frame, and the errors for a stream that ends early.
//
// A decoder keeps one Budget, seeded from its codec's Limits and overridden
// by the StreamOptions the core passes to SetLimits. Every string the
// decoder keeps goes through Keep (or is counted with Item) so that no
// input, however it is split, keeps more bytes than the limits allow.
package kit

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/tidwall/gjson"
)

// Budget bounds what one decoder keeps. The zero value uses the default
// limits and names no API.
type Budget struct {
	// API names the codec in the errors the budget returns.
	API string
	// Event is the 0-based number of the stream event being decoded, or -1
	// for a whole body. Stream decoders advance it once per frame.
	Event int
	lim   replay.Limits
	set   bool
	// blocks counts the blocks opened; bytes counts every byte kept.
	blocks int
	bytes  int64
}

// NewBudget returns a budget for api with lim (zero fields take their
// defaults). event is -1 for a body decoder, 0 for a stream decoder.
func NewBudget(api string, lim replay.Limits, event int) Budget {
	return Budget{API: api, Event: event, lim: lim.WithDefaults(), set: true}
}

// Limits returns the limits in force.
func (b *Budget) Limits() replay.Limits {
	if !b.set {
		b.lim, b.set = b.lim.WithDefaults(), true
	}
	return b.lim
}

// Override replaces the limits with the non-zero fields of over (the
// StreamOptions a caller passed), keeping the others.
func (b *Budget) Override(over replay.Limits) {
	b.lim = Merge(b.Limits(), over)
}

// Merge returns base with every non-zero field of over put in its place.
func Merge(base, over replay.Limits) replay.Limits {
	if over.MaxEvent > 0 {
		base.MaxEvent = over.MaxEvent
	}
	if over.MaxItem > 0 {
		base.MaxItem = over.MaxItem
	}
	if over.MaxBlocks > 0 {
		base.MaxBlocks = over.MaxBlocks
	}
	if over.MaxTurn > 0 {
		base.MaxTurn = over.MaxTurn
	}
	return base.WithDefaults()
}

// Block counts one more block of the turn, at position pos, against
// MaxBlocks.
func (b *Budget) Block(pos int) error {
	if b.blocks >= b.Limits().MaxBlocks {
		return b.limit("block count", b.lim.MaxBlocks, pos)
	}
	b.blocks++
	return nil
}

// Add appends blk to t's blocks after counting it, as one more block
// whose strings hold size bytes, against the budget.
func (b *Budget) Add(t *replay.Turn, blk replay.Block, size int) error {
	pos := len(t.Blocks)
	if err := b.Block(pos); err != nil {
		return err
	}
	if err := b.Item(pos, size, size); err != nil {
		return err
	}
	t.Blocks = append(t.Blocks, blk)
	return nil
}

// Blocks returns the number of blocks counted so far.
func (b *Budget) Blocks() int { return b.blocks }

// Item checks that a string of the block at pos that has grown to size
// bytes, by add bytes just now, stays within MaxItem, and counts add
// against MaxTurn.
func (b *Budget) Item(pos, size, add int) error {
	lim := b.Limits()
	if size > lim.MaxItem {
		return b.limit("item size", lim.MaxItem, pos)
	}
	b.bytes += int64(add)
	if b.bytes > int64(lim.MaxTurn) {
		return b.limit("turn size", lim.MaxTurn, pos)
	}
	return nil
}

// Keep returns a copy of s (a view into a frame) after counting it against
// the budget as a string of the block at pos.
func (b *Budget) Keep(pos int, s string) (string, error) {
	if err := b.Item(pos, len(s), len(s)); err != nil {
		return "", err
	}
	return Clone(s), nil
}

// KeepBytes is Keep for a byte slice.
func (b *Budget) KeepBytes(pos int, p []byte) (string, error) {
	if err := b.Item(pos, len(p), len(p)); err != nil {
		return "", err
	}
	return string(p), nil
}

// Append appends the view s to sb, the growing string of the block at pos,
// within the budget.
func (b *Budget) Append(pos int, sb *strings.Builder, s string) error {
	if err := b.Item(pos, sb.Len()+len(s), len(s)); err != nil {
		return err
	}
	sb.WriteString(s)
	return nil
}

func (b *Budget) limit(what string, n, pos int) error {
	return &replay.LimitError{What: what, Limit: n, API: b.API, Event: b.Event, Block: pos}
}

// Clone returns a copy of s that shares no memory with it ("" for "").
func Clone(s string) string {
	if s == "" {
		return ""
	}
	return strings.Clone(s)
}

// EndedBefore returns the error for a stream of api that ended, after
// event events, before what it was waiting for (its terminal event). It
// wraps io.ErrUnexpectedEOF.
func EndedBefore(api string, event int, what string) error {
	return &replay.Error{API: api, Event: event, Err: fmt.Errorf("stream ended before %s: %w", what, io.ErrUnexpectedEOF)}
}

// Settle marks a turn read from a request Complete unless one of its
// reasoning items, tool calls or native blocks is unfinished.
func Settle(tu *replay.Turn) {
	tu.Complete = true
	for _, b := range tu.Blocks {
		switch b := b.(type) {
		case replay.ReasoningItem:
			tu.Complete = tu.Complete && !b.Meta().Unfinished
		case *replay.ToolCall:
			tu.Complete = tu.Complete && !b.Unfinished
		case *replay.Native:
			tu.Complete = tu.Complete && !b.Unfinished
		}
	}
}

// Index reads raw, a JSON number, as a non-negative integer the way gjson's
// Int reads one (a number equal to its integer part): up to nine digits
// are read in place, then strconv, then gjson.
func Index(raw string) (int, bool) {
	if len(raw) > 0 && len(raw) <= 9 {
		n := 0
		for i := 0; i < len(raw); i++ {
			c := raw[i]
			if c < '0' || c > '9' {
				n = -1
				break
			}
			n = n*10 + int(c-'0')
		}
		if n >= 0 {
			return n, true
		}
	}
	if len(raw) > 0 && len(raw) < 16 {
		if n, err := strconv.Atoi(raw); err == nil {
			return n, n >= 0
		}
	}
	idx := gjson.Parse(raw)
	if raw == "" || idx.Type != gjson.Number || idx.Int() < 0 || float64(idx.Int()) != idx.Num {
		return 0, false
	}
	return int(idx.Int()), true
}
