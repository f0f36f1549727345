// Package gemsig binds Gemini thought signatures to the part or tool call
// they arrived on. It is the one implementation of that binding, shared by
// the native Gemini codec and the chat-completions codecs that serve
// Gemini's OpenAI-compatible endpoint.
//
// The binding model: a Gemini thought signature that sits on a non-thought
// part (a function call, visible text, an empty final text part, a server
// tool part) becomes an [*replay.Encrypted] item with Format
// [formats.GoogleGemini], Data = the signature string exactly as it
// came, and Attached = true, placed immediately before the block of that
// part. Its ID is the function call id when the call has one. An encoder
// asks [Bound] for the signature of the block it is writing and puts it back
// on that same part or call.
//
// On Gemini's OpenAI-compatible endpoint the signature of a tool call rides
// at tool_calls[i].extra_content.google.thought_signature (also inside
// choices[0].delta.tool_calls[i] when streaming). [Read] takes it from a
// tool call object, [Write] puts it back, [Strip] removes it so that the
// rest of extra_content can be kept without a second copy of the signature.
//
// Signatures are base64 strings on the wire. They are kept and written as
// the exact string received, never decoded and re-encoded: the documented
// sentinel (gemini.Sentinel, which this package cannot import) is not
// base64 of anything, and SDKs that model the field as bytes break it.
package gemsig

import (
	"encoding/base64"
	"fmt"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Path is the gjson/sjson path of the signature inside an OpenAI-compatible
// tool call object.
const Path = "extra_content.google.thought_signature"

// Read returns the thought signature of an OpenAI-compatible tool call
// object. ok is false when the call carries none (the member is absent or
// null). A signature that is present but not a JSON string is an error. The
// returned string is a copy, safe to keep after the source buffer changes.
func Read(call gjson.Result) (sig string, ok bool, err error) {
	v := call.Get("extra_content.google.thought_signature")
	switch {
	case !v.Exists(), v.Type == gjson.Null:
		return "", false, nil
	case v.Type != gjson.String:
		return "", false, fmt.Errorf("gemsig: %s is %s, expected a string", Path, v.Type)
	}
	return string([]byte(v.Str)), true, nil
}

// Item returns the bound item for signature sig on the part or call that
// follows it. callID is the function call id, empty when the part has none
// (then the item has no ID).
func Item(sig, callID string) *replay.Encrypted {
	e := &replay.Encrypted{Data: sig}
	e.Format = formats.GoogleGemini
	e.Attached = true
	if callID != "" {
		e.ID = replay.Some(callID)
	}
	return e
}

// Is reports whether b is a bound Gemini signature: an attached encrypted
// item of format [formats.GoogleGemini].
func Is(b replay.Block) (*replay.Encrypted, bool) {
	e, ok := b.(*replay.Encrypted)
	if !ok || !e.Attached || e.Format != formats.GoogleGemini {
		return nil, false
	}
	return e, true
}

// Bound returns the signature bound to blocks[i]: the bound Gemini
// signature immediately before it, if any. It returns false when i is out of
// range or blocks[i] is itself a bound signature.
func Bound(blocks []replay.Block, i int) (*replay.Encrypted, bool) {
	if i <= 0 || i >= len(blocks) {
		return nil, false
	}
	if _, self := Is(blocks[i]); self {
		return nil, false
	}
	return Is(blocks[i-1])
}

// Write sets the thought signature of an OpenAI-compatible tool call object
// to sig, exactly as given, creating extra_content.google when needed and
// keeping every other member.
func Write(call []byte, sig string) ([]byte, error) {
	if !jsonw.ValidBytes(call) || !gjson.ParseBytes(call).IsObject() {
		return nil, fmt.Errorf("gemsig: tool call is not a JSON object")
	}
	out, err := sjson.SetBytes(call, Path, sig)
	if err != nil {
		return nil, fmt.Errorf("gemsig: %w", err)
	}
	return out, nil
}

// Strip removes the thought signature from an OpenAI-compatible tool call
// object, and the google and extra_content objects when that leaves them
// empty. A call without a signature is returned unchanged.
func Strip(call []byte) ([]byte, error) {
	if !jsonw.ValidBytes(call) || !gjson.ParseBytes(call).IsObject() {
		return nil, fmt.Errorf("gemsig: tool call is not a JSON object")
	}
	if !gjson.GetBytes(call, Path).Exists() {
		return call, nil
	}
	out, err := sjson.DeleteBytes(call, Path)
	if err != nil {
		return nil, fmt.Errorf("gemsig: %w", err)
	}
	for _, p := range [...]string{"extra_content.google", "extra_content"} {
		if v := gjson.GetBytes(out, p); v.IsObject() && len(v.Map()) == 0 {
			if out, err = sjson.DeleteBytes(out, p); err != nil {
				return nil, fmt.Errorf("gemsig: %w", err)
			}
		}
	}
	return out, nil
}

// ValidBase64 reports whether sig decodes as standard base64 (with or
// without padding), which the Gemini API requires of every signature but
// the documented sentinel (gemini.Sentinel). It checks without keeping the
// decoded bytes.
func ValidBase64(sig string) bool {
	if sig == "" {
		return false
	}
	enc := base64.StdEncoding
	if len(sig)%4 != 0 {
		enc = base64.RawStdEncoding
	}
	_, err := enc.DecodeString(sig)
	return err == nil
}
