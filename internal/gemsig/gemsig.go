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
// choices[0].delta.tool_calls[i] when streaming); on Vertex AI's, at
// extra_content.vertex.thought_signature. [ReadExtra] takes it from a tool
// call object and says which, [ItemAt] remembers it, [Put] at [At] writes it
// back there, [Strip] removes it so that the rest of extra_content can be
// kept without a second copy of the signature.
//
// Some OpenAI-compatible gateways put the signature directly on the tool
// call instead, as `thoughtSignature` or `thought_signature` (pi#9444,
// opencodex#2127). A chat reader that serves them calls [Find] (all three
// places, and where it was), [ItemAt] (the bound item remembers the place),
// and [Remove] (drops the signature members, whichever they are, before the
// call's other members are kept); its encoder calls [At] and [Put] to write
// the signature back where it came from.
//
// Signatures are base64 strings on the wire. They are kept and written as
// the exact string received, never decoded and re-encoded: the documented
// sentinel (gemini.Sentinel, which this package cannot import) is not
// base64 of anything, and SDKs that model the field as bytes break it.
package gemsig

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/view"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Sentinel is the documented dummy thought signature,
// `skip_thought_signature_validator` (gemini.Sentinel re-exports it). It
// is the plain string: a base64 encoding of it is a corrupt signature.
const Sentinel = "skip_thought_signature_validator"

// dummies are the values Google's validator skips, as plain strings.
var dummies = [...]string{Sentinel, "context_engineering_is_the_way_to_go"}

// Dummy reports whether sig is one of the documented validator-skipping
// values, exactly as documented (the plain string).
func Dummy(sig string) bool {
	for _, d := range dummies {
		if sig == d {
			return true
		}
	}
	return false
}

// EncodedDummy reports whether sig is not itself a dummy value but decodes
// (standard or URL-safe base64, padded or not, surrounding space ignored)
// to one: Google treats such a value as a corrupt signature, not as the
// dummy (wire-2026-update.md §22), so it is never sent.
func EncodedDummy(sig string) bool {
	if Dummy(sig) {
		return false
	}
	s := strings.TrimSpace(sig)
	if len(s) > 64 {
		return false // base64 of the longest dummy is 48 characters
	}
	for _, enc := range [...]*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil && Dummy(strings.TrimSpace(string(b))) {
			return true
		}
	}
	return false
}

// Where is the place an OpenAI-compatible tool call object carries its
// thought signature.
type Where uint8

// The places, in the order [Find] looks.
const (
	// ExtraContent is `extra_content.google.thought_signature`, Google's
	// own OpenAI-compatible endpoint.
	ExtraContent Where = iota
	// CamelCase is `thoughtSignature` directly on the call (gateways).
	CamelCase
	// SnakeCase is `thought_signature` directly on the call (gateways).
	SnakeCase
	// VertexExtra is `extra_content.vertex.thought_signature`, Vertex AI's
	// OpenAI-compatible endpoint (hebo-gateway#226).
	VertexExtra
)

// wherePaths are the gjson/sjson paths of the places, by Where.
var wherePaths = [...]string{ExtraContent: Path, CamelCase: "thoughtSignature", SnakeCase: "thought_signature", VertexExtra: VertexPath}

// VertexPath is the gjson/sjson path of the signature inside a tool call
// object on Vertex AI's OpenAI-compatible endpoint.
const VertexPath = "extra_content.vertex.thought_signature"

// ReadExtra returns the thought signature a tool call object carries under
// extra_content, Google's spelling (`extra_content.google`) or Vertex AI's
// (`extra_content.vertex`), and which. ok is false when the call carries
// none there (absent or null). A signature that is not a JSON string, or
// the two spellings carrying different signatures, is an error. The
// returned string is a copy.
func ReadExtra(call gjson.Result) (sig string, at Where, ok bool, err error) {
	for _, w := range [...]Where{ExtraContent, VertexExtra} {
		v := call.Get(w.Path())
		switch {
		case !v.Exists(), v.Type == gjson.Null:
			continue
		case v.Type != gjson.String:
			return "", w, false, fmt.Errorf("gemsig: %s is %s, expected a string", w.Path(), v.Type)
		case !ok:
			sig, at, ok = string([]byte(v.Str)), w, true
		case v.Str != sig:
			return "", w, false, fmt.Errorf("gemsig: %s and %s carry different signatures", at.Path(), w.Path())
		}
	}
	return sig, at, ok, nil
}

// Path returns the gjson/sjson path of the place inside a tool call object.
func (w Where) Path() string {
	if int(w) < len(wherePaths) {
		return wherePaths[w]
	}
	return Path
}

// Pointer returns the place as a JSON Pointer suffix, e.g.
// "/extra_content/google/thought_signature".
func (w Where) Pointer() string { return "/" + strings.ReplaceAll(w.Path(), ".", "/") }

// Find returns the thought signature of an OpenAI-compatible tool call
// object wherever it is (see [Where]) and where it was. ok is false when
// the call carries none (absent or null everywhere). A signature that is
// not a JSON string, or two places that carry different signatures, is an
// error naming the place. The returned string is a copy.
func Find(call gjson.Result) (sig string, at Where, ok bool, err error) {
	for w := range wherePaths {
		v := call.Get(wherePaths[w])
		switch {
		case !v.Exists(), v.Type == gjson.Null:
			continue
		case v.Type != gjson.String:
			return "", Where(w), false, fmt.Errorf("gemsig: %s is %s, expected a string", wherePaths[w], v.Type)
		case !ok:
			sig, at, ok = string([]byte(v.Str)), Where(w), true
		case v.Str != sig:
			return "", Where(w), false, fmt.Errorf("gemsig: %s and %s carry different signatures", at.Path(), wherePaths[w])
		}
	}
	return sig, at, ok, nil
}

// atKey is the member of a bound item's Extra that records where a chat
// tool call carried the signature, when it was not [ExtraContent].
const atKey = "at"

// ItemAt is [Item] for a signature found at w on a chat tool call: the item
// remembers the place (in its Extra, as {"at":"thoughtSignature"}), so that
// an encoder writes it back there ([At]).
func ItemAt(sig, callID string, w Where) *replay.Encrypted {
	e := Item(sig, callID)
	if w != ExtraContent {
		e.Extra = append(append([]byte(`{"`+atKey+`":"`), w.Path()...), `"}`...)
	}
	return e
}

// At returns where the bound item e came from on a chat tool call:
// [ExtraContent] unless [ItemAt] recorded another place.
func At(e *replay.Encrypted) Where {
	if e == nil || len(e.Extra) == 0 {
		return ExtraContent
	}
	p := gjson.GetBytes(e.Extra, atKey).Str
	for w := range wherePaths {
		if w != int(ExtraContent) && wherePaths[w] == p {
			return Where(w)
		}
	}
	return ExtraContent
}

// Put sets the thought signature of an OpenAI-compatible tool call object
// at w to sig, exactly as given, keeping every other member ([Write] is Put
// at [ExtraContent]).
func Put(call []byte, sig string, w Where) ([]byte, error) {
	if !jsonw.ValidBytes(call) || !gjson.ParseBytes(call).IsObject() {
		return nil, fmt.Errorf("gemsig: tool call is not a JSON object")
	}
	out, err := sjson.SetBytes(call, w.Path(), sig)
	if err != nil {
		return nil, fmt.Errorf("gemsig: %w", err)
	}
	return out, nil
}

// Remove removes the thought signature from every place of an
// OpenAI-compatible tool call object ([Strip], and the two members on the
// call itself). A call without one is returned unchanged.
func Remove(call []byte) ([]byte, error) {
	out, err := Strip(call)
	if err != nil {
		return nil, err
	}
	for _, w := range [...]Where{CamelCase, SnakeCase} {
		if gjson.GetBytes(out, w.Path()).Exists() {
			if out, err = sjson.DeleteBytes(out, w.Path()); err != nil {
				return nil, fmt.Errorf("gemsig: %w", err)
			}
		}
	}
	return out, nil
}

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
func Item(sig, callID string) *replay.Encrypted { return ItemIn(new(replay.Encrypted), sig, callID) }

// ItemIn is [Item] made in e (a reader's slab of items), which it
// overwrites and returns.
func ItemIn(e *replay.Encrypted, sig, callID string) *replay.Encrypted {
	*e = replay.Encrypted{Data: sig}
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
	return Put(call, sig, ExtraContent)
}

// Strip removes the thought signature from an OpenAI-compatible tool call
// object (Google's and Vertex AI's spellings under extra_content), and the
// google, vertex and extra_content objects when that leaves them empty. A
// call without a signature there is returned unchanged.
func Strip(call []byte) ([]byte, error) {
	if !jsonw.ValidBytes(call) || !gjson.ParseBytes(call).IsObject() {
		return nil, fmt.Errorf("gemsig: tool call is not a JSON object")
	}
	out := call
	for _, p := range [...]string{Path, VertexPath} {
		if !gjson.GetBytes(out, p).Exists() {
			continue
		}
		var err error
		if out, err = sjson.DeleteBytes(out, p); err != nil {
			return nil, fmt.Errorf("gemsig: %w", err)
		}
	}
	if len(out) == len(call) {
		return call, nil
	}
	for _, p := range [...]string{"extra_content.google", "extra_content.vertex", "extra_content"} {
		if v := gjson.GetBytes(out, p); v.IsObject() && len(v.Map()) == 0 {
			var err error
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
	// Decoded on the stack for a signature of up to 5 KB: the audit checks
	// every signature of every request.
	var buf [4096]byte
	dst := buf[:]
	if n := enc.DecodedLen(len(sig)); n > len(dst) {
		dst = make([]byte, n)
	}
	_, err := enc.Decode(dst, view.Bytes(sig))
	return err == nil
}

// RequiresSignatures reports whether model requires a thought signature on
// the first function call of every step of the current turn: Gemini 3 and
// later (3.5 Flash and 3.1 Flash Lite included), and the "-latest"
// aliases. It is gemini.RequiresSignatures, shared with the chat codecs.
func RequiresSignatures(model string) bool {
	rest, ok := strings.CutPrefix(baseModel(model), "gemini-")
	if !ok {
		return false
	}
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	if n == 0 {
		return strings.HasSuffix(rest, "-latest")
	}
	digits := strings.TrimLeft(rest[:n], "0")
	return len(digits) > 1 || digits >= "3"
}

// ValidatesSignatures reports whether model validates thought signatures
// at all: [RequiresSignatures], and Gemini 2.5 (gemini.ValidatesSignatures).
func ValidatesSignatures(model string) bool {
	if RequiresSignatures(model) {
		return true
	}
	rest, ok := strings.CutPrefix(baseModel(model), "gemini-")
	return ok && (strings.HasPrefix(rest, "2.5") || strings.HasPrefix(rest, "2-5"))
}

// baseModel returns the model id of a model name without its resource
// prefix ("models/", "publishers/google/models/", "google/"), without a
// ":method" or ":variant" suffix, in lower case.
func baseModel(m string) string {
	m = strings.ToLower(strings.TrimSpace(m))
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	if i := strings.IndexByte(m, ':'); i >= 0 {
		m = m[:i]
	}
	return m
}

// MissingText is the error Gemini answers a function call without its
// signature with: the Gemini API's, or Vertex AI's when vertex is set
// (native and OpenAI-compatible alike). content is the index of the model
// content in the request's contents.
func MissingText(vertex bool, name string, content int) string {
	if vertex {
		return "Unable to submit request because function call `" + name + "` in the " + strconv.Itoa(content) +
			". content block is missing a `thought_signature`. Learn more: https://docs.cloud.google.com/vertex-ai/generative-ai/docs/thought-signatures"
	}
	return "Function call is missing a thought_signature in functionCall parts. This is required for tools to work " +
		"correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:" +
		name + "` , position " + strconv.Itoa(content) + ". Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details."
}
