package codecs

import (
	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
)

// Sniffed is what a codec recognised in a response body or in the first
// event of a stream ([HTTP.Sniff]).
type Sniffed struct {
	// Score says how telling the bytes are: one of the bands below, plus
	// at most 9 for a rule more specific than the band's others. Of the
	// codecs that recognise the bytes, the highest score wins.
	Score int
	// Provider and Model are the provider and model the bytes name, when
	// they do ("" otherwise).
	Provider, Model string
	// Event reports that the bytes are one event of a stream, not a whole
	// response body.
	Event bool
}

// The bands of [Sniffed.Score], from the least to the most telling.
const (
	// SniffError: an error body. APIs copy each other's error shapes.
	SniffError = 10
	// SniffShape: a shape several APIs share (a chat completion's
	// "choices"). A member only one host sends in it (OpenRouter's
	// "provider", Groq's "x_groq"), or a first-party model name, adds to
	// the band.
	SniffShape = 30
	// SniffMembers: members only the API's bodies carry (Gemini's
	// "candidates", Converse's "stopReason").
	SniffMembers = 40
	// SniffType: a "type" or "object" member whose value is the API's own
	// ("message_start", "response.completed"), or the API's envelope.
	SniffType = 50
	// SniffEvent: the stream's event type (an SSE "event:" line, an AWS
	// event stream's ":event-type") is the API's own.
	SniffEvent = 60
)

// Sniff tells which API of reg a response body, or a stream's first event,
// is: eventType is the event's type (nil when its framing has none), data
// its JSON. Every codec's [HTTP.Sniff] is asked; the highest score wins,
// and of equal scores the codec first in reg.APIs. ok is false when data
// is not JSON or no codec recognises it.
func Sniff(reg *replay.Registry, eventType, data []byte) (HTTPCodec, Sniffed, bool) {
	if !jsonw.ValidBytes(data) {
		return nil, Sniffed{}, false
	}
	var best HTTPCodec
	var got Sniffed
	for _, c := range All(reg) {
		f := c.HTTP().Sniff
		if f == nil {
			continue
		}
		if s, ok := f(eventType, data); ok && (best == nil || s.Score > got.Score) {
			best, got = c, s
		}
	}
	return best, got, best != nil
}
