// Package prefixv1 computes the prefix hash that version-1 turn documents
// recorded before the binding hash of package anthropic replaced it (the
// root package's PrefixHash of those builds), so that such a hash keeps
// the meaning it was written with: the hash of a request body's
// prompt-shaping members, canonical (member order, white space and string
// escapes do not change it; numbers are hashed as written), with the
// conversation array cut before a message.
package prefixv1

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"

	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/tidwall/gjson"
)

// conversationMembers name the member that holds the conversation, in the
// order they were looked for.
var conversationMembers = [...]string{"messages", "contents", "input"}

// excluded reports the top-level members that definition left out:
// transport, accounting, the model, sampling, output limits and formats,
// reasoning settings. (A switch, not a map: nothing is built when the
// program starts.)
func excluded(k string) bool {
	switch k {
	case "stream", "stream_options", "user", "metadata",
		"store", "service_tier", "background", "include",
		"prompt_cache_key", "safety_identifier", "cache_control",
		"provider", "transforms", "models", "route", "usage",
		"model",
		"temperature", "top_p", "top_k", "min_p", "seed",
		"n", "stop", "stop_sequences", "max_tokens",
		"max_completion_tokens", "max_output_tokens",
		"presence_penalty", "frequency_penalty", "repetition_penalty",
		"logit_bias", "logprobs", "top_logprobs",
		"response_format", "text", "truncation",
		"generationConfig", "generation_config", "inferenceConfig",
		"thinking", "reasoning", "reasoning_effort":
		return true
	}
	return false
}

// HashBefore returns the version-1 prefix hash of body with its
// conversation array cut to its first n elements ("sha256:" and 64
// lowercase hex digits): what a turn replayed at conversation index n
// recorded, when nothing before it changed. ok is false when body is not
// a valid JSON object (the check of the library's readers: no repeated
// member name, nesting within the limit).
func HashBefore(body []byte, n int) (h string, ok bool) {
	if n < 0 || !jsonw.ValidBytes(body) {
		return "", false
	}
	root := gjson.ParseBytes(body)
	if !root.IsObject() {
		return "", false
	}
	var members []member
	root.ForEach(func(k, v gjson.Result) bool {
		if !excluded(k.Str) {
			members = append(members, member{k.Str, v})
		}
		return true
	})
	sortMembers(members)
	conv := -1
	for _, name := range conversationMembers {
		for i, m := range members {
			if m.key == name && m.val.IsArray() {
				conv = i
				break
			}
		}
		if conv >= 0 {
			break
		}
	}
	var buf []byte
	buf = append(buf, '{')
	for i, m := range members {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = jsonw.String(buf, m.key)
		buf = append(buf, ':')
		if i != conv {
			buf = appendCanonical(buf, m.val)
			continue
		}
		buf = append(buf, '[')
		k := 0
		m.val.ForEach(func(_, e gjson.Result) bool {
			if k == n {
				return false
			}
			if k > 0 {
				buf = append(buf, ',')
			}
			buf = appendCanonical(buf, e)
			k++
			return true
		})
		buf = append(buf, ']')
	}
	buf = append(buf, '}')
	sum := sha256.Sum256(buf)
	return "sha256:" + hex.EncodeToString(sum[:]), true
}

type member struct {
	key string
	val gjson.Result
}

func sortMembers(ms []member) {
	sort.Slice(ms, func(i, j int) bool { return ms[i].key < ms[j].key })
}

// appendCanonical appends v with its object members sorted by name, no
// white space, strings written again from their value, numbers and
// literals as written.
func appendCanonical(dst []byte, v gjson.Result) []byte {
	switch {
	case v.IsObject():
		var ms []member
		v.ForEach(func(k, e gjson.Result) bool {
			ms = append(ms, member{k.Str, e})
			return true
		})
		sortMembers(ms)
		dst = append(dst, '{')
		for i, m := range ms {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = jsonw.String(dst, m.key)
			dst = append(dst, ':')
			dst = appendCanonical(dst, m.val)
		}
		return append(dst, '}')
	case v.IsArray():
		dst = append(dst, '[')
		n := 0
		v.ForEach(func(_, e gjson.Result) bool {
			if n > 0 {
				dst = append(dst, ',')
			}
			dst = appendCanonical(dst, e)
			n++
			return true
		})
		return append(dst, ']')
	case v.Type == gjson.String:
		return jsonw.String(dst, v.Str)
	}
	return append(dst, v.Raw...)
}
