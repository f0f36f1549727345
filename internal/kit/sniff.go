package kit

import (
	"strings"

	"github.com/reasonreplay/replay/codecs"
	"github.com/tidwall/gjson"
)

// SniffChat is the chat-completions shape that the chat codecs' Sniff
// functions share: a body or chunk with "choices" is recognised at score,
// with the model it names; a chunk ("object":"chat.completion.chunk", or a
// delta in its first choice) is a stream event.
func SniffChat(r gjson.Result, score int) (codecs.Sniffed, bool) {
	if !r.Get("choices").Exists() {
		return codecs.Sniffed{}, false
	}
	return codecs.Sniffed{Score: score, Model: r.Get("model").Str,
		Event: r.Get("object").Str == "chat.completion.chunk" || r.Get("choices.0.delta").Exists()}, true
}

// SniffNames is a set of event or type names for a Sniff function.
type SniffNames map[string]bool

// Names returns the set of names.
func Names(names ...string) SniffNames {
	m := make(SniffNames, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// HasPrefix reports whether s starts with one of prefixes.
func HasPrefix(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
