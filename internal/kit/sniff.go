package kit

import (
	"strings"

	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/view"
	"github.com/tidwall/gjson"
)

// SniffParse is gjson.ParseBytes for a Sniff function, without the copy
// of data it makes (a whole body, tried by every codec in turn): data
// must not change while the result is used, and a string a Sniff keeps
// from it (Sniffed.Model) is cloned.
func SniffParse(data []byte) gjson.Result { return gjson.Parse(view.String(data)) }

// SniffChat is the chat-completions shape that the chat codecs' Sniff
// functions share: a body or chunk with "choices" is recognised at score,
// with the model it names. A chunk ("object":"chat.completion.chunk", or
// a delta in its first choice) is a stream event; a body that also carries
// a leftover (empty) delta beside its message (Perplexity) is a body.
func SniffChat(r gjson.Result, score int) (codecs.Sniffed, bool) {
	if !r.Get("choices").Exists() {
		return codecs.Sniffed{}, false
	}
	obj := r.Get("object").Str
	event := obj == "chat.completion.chunk" ||
		obj != "chat.completion" && r.Get("choices.0.delta").Exists() && !r.Get("choices.0.message").Exists()
	return codecs.Sniffed{Score: score, Model: strings.Clone(r.Get("model").Str), Event: event}, true
}

// SniffNames is a set of event or type names for a Sniff function,
// written as a composite literal (kit.SniffNames{"a", "b"}) so that it is
// static data the program never builds.
type SniffNames []string

// Has reports whether name is one of the names.
func (n SniffNames) Has(name string) bool {
	for _, m := range n {
		if m == name {
			return true
		}
	}
	return false
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
