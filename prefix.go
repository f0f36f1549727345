package replay

import (
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"fmt"
	"sort"

	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/tidwall/gjson"
)

// conversationMembers name the member of a request body that holds the
// conversation, in the order they are looked for: chat-shaped APIs and
// Anthropic use `messages`, Gemini `contents`, OpenAI Responses `input`.
var conversationMembers = [...]string{"messages", "contents", "input"}

// prefixExcluded are the top-level members of a request body that do not
// shape the prompt: transport, sampling, output limits and formats,
// reasoning effort, storage and accounting. They are left out of
// [PrefixHash], so that changing them does not change the hash. Every other
// member (the system prompt, tools, tool choice, the conversation, unknown
// members) is hashed.
var prefixExcluded = map[string]bool{
	// transport and accounting
	"stream": true, "stream_options": true, "user": true, "metadata": true,
	"store": true, "service_tier": true, "background": true, "include": true,
	"prompt_cache_key": true, "safety_identifier": true, "cache_control": true,
	"provider": true, "transforms": true, "models": true, "route": true, "usage": true,
	// the model is named apart: a model switch is its own replay event
	"model": true,
	// sampling and output limits
	"temperature": true, "top_p": true, "top_k": true, "min_p": true, "seed": true,
	"n": true, "stop": true, "stop_sequences": true, "max_tokens": true,
	"max_completion_tokens": true, "max_output_tokens": true,
	"presence_penalty": true, "frequency_penalty": true, "repetition_penalty": true,
	"logit_bias": true, "logprobs": true, "top_logprobs": true,
	"response_format": true, "text": true, "truncation": true,
	"generationConfig": true, "generation_config": true, "inferenceConfig": true,
	// reasoning effort and budgets
	"thinking": true, "reasoning": true, "reasoning_effort": true,
}

// PrefixHash returns the canonical hash of the prompt-shaping members of a
// native request body, "sha256:" followed by 64 lowercase hex digits. Store
// it in the [Provenance] of the turn the request produced: newer Anthropic
// signatures are bound to the prefix (system prompt, tools, earlier
// messages) they were minted after, and a later request whose prefix hashes
// differently will be rejected ("The block is bound to a different
// conversation").
//
// The hash is canonical: the order of object members and insignificant
// white space do not change it, strings are compared by their unescaped
// value (so "\u00e9" and "é" hash alike), and numbers are hashed as written
// (1.0 and 1 differ). The members left out are those that do not shape the
// prompt: `stream`, `stream_options`, `model`, sampling parameters
// (`temperature`, `top_p`, `top_k`, `seed`, `stop`, penalties, ...), output
// limits and formats (`max_tokens`, `max_output_tokens`, `response_format`,
// `text`, Gemini `generationConfig`, Bedrock `inferenceConfig`), reasoning
// settings (`thinking`, `reasoning`, `reasoning_effort`) and accounting
// (`user`, `metadata`, `store`, `service_tier`, `include`, OpenRouter
// `provider`, ...). Everything else is hashed, including members this
// library does not know.
//
// body must be a JSON object; any other input returns an error wrapping
// [ErrMalformed].
func PrefixHash(body []byte) (string, error) { return prefixHash(body, -1) }

// PrefixHashBefore returns the [PrefixHash] of body with its conversation
// array (`messages`, `contents` or `input`) cut to its first n elements:
// the prefix that the element at index n is sent after. For a request that
// replays a turn at conversation index n, it equals the PrefixHash of the
// request that produced the turn when nothing before it changed.
func PrefixHashBefore(body []byte, n int) (string, error) {
	if n < 0 {
		return "", fmt.Errorf("replay: prefix hash: negative conversation index %d", n)
	}
	return prefixHash(body, n)
}

func prefixHash(body []byte, cut int) (string, error) {
	var cuts []int
	if cut >= 0 {
		cuts = []int{cut}
	}
	hs, err := prefixHashes(body, cuts)
	if err != nil {
		return "", err
	}
	return hs[0], nil
}

// prefixHashes returns the prefix hash of body before each conversation
// index in cuts (ascending), or of the whole body when cuts is empty, in
// one pass over the body: the hash state after the elements before a cut
// is saved and finished with the members that follow the conversation.
func prefixHashes(body []byte, cuts []int) ([]string, error) {
	if err := checkJSON(body, "a request body"); err != nil {
		return nil, err
	}
	root := gjson.ParseBytes(body)
	if !root.IsObject() {
		return nil, Malformed("", -1, "", "expected a request body object")
	}
	var members []member
	root.ForEach(func(k, v gjson.Result) bool {
		if !prefixExcluded[k.Str] {
			members = append(members, member{k.Str, v})
		}
		return true
	})
	members = sortMembers(members)
	conv := -1
	if len(cuts) > 0 {
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
	}
	var head, tail []byte
	head = append(head, '{')
	for i, m := range members {
		dst := &head
		if conv >= 0 && i > conv {
			dst = &tail
		}
		if i > 0 {
			*dst = append(*dst, ',')
		}
		*dst = jsonw.String(*dst, m.key)
		*dst = append(*dst, ':')
		if i == conv {
			*dst = append(*dst, '[')
			continue
		}
		*dst = appendCanonical(*dst, m.val)
	}
	tail = append(tail, '}')
	if conv < 0 {
		sum := sha256.Sum256(append(head, tail...))
		h := "sha256:" + hex.EncodeToString(sum[:])
		out := make([]string, max(1, len(cuts)))
		for i := range out {
			out[i] = h
		}
		return out, nil
	}
	h := sha256.New()
	h.Write(head)
	out := make([]string, 0, len(cuts))
	finish := func() {
		state, _ := h.(encoding.BinaryMarshaler).MarshalBinary()
		h.Write([]byte{']'})
		h.Write(tail)
		out = append(out, "sha256:"+hex.EncodeToString(h.Sum(nil)))
		_ = h.(encoding.BinaryUnmarshaler).UnmarshalBinary(state)
	}
	n, ci := 0, 0
	var buf []byte
	members[conv].val.ForEach(func(_, e gjson.Result) bool {
		for ci < len(cuts) && cuts[ci] <= n {
			finish()
			ci++
		}
		if ci == len(cuts) {
			return false
		}
		buf = buf[:0]
		if n > 0 {
			buf = append(buf, ',')
		}
		buf = appendCanonical(buf, e)
		h.Write(buf)
		n++
		return true
	})
	for ci < len(cuts) {
		finish()
		ci++
	}
	return out, nil
}

type member struct {
	key string
	val gjson.Result
}

// sortMembers sorts members by key. A body with a name repeated in one
// object is refused before it is read (see checkJSON), so the keys are
// unique.
func sortMembers(ms []member) []member {
	sort.Slice(ms, func(i, j int) bool { return ms[i].key < ms[j].key })
	return ms
}

// appendCanonical appends v in canonical form: object members sorted by
// key, no white space, strings re-escaped
// minimally from their unescaped value, numbers and literals as written.
func appendCanonical(dst []byte, v gjson.Result) []byte {
	switch {
	case v.IsObject():
		var ms []member
		v.ForEach(func(k, e gjson.Result) bool {
			ms = append(ms, member{k.Str, e})
			return true
		})
		ms = sortMembers(ms)
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
