package replay

import "encoding/json"

// ItemKind is the kind of a reasoning item. It is the item's `type` in JSON.
type ItemKind string

// The three kinds of reasoning item, spelled as OpenRouter spells them.
const (
	KindText      ItemKind = "reasoning.text"
	KindSummary   ItemKind = "reasoning.summary"
	KindEncrypted ItemKind = "reasoning.encrypted"
)

// A Block is one element of an assistant [Turn], in the order the provider
// produced it. The set of blocks is closed: the reasoning items
// ([*ReasoningText], [*Summary], [*Encrypted], [*Opaque]), visible text
// ([*Text]), client tool calls ([*ToolCall]), a provider's compaction of
// the conversation ([*Compaction]), and any other native element kept
// verbatim ([*Native]).
type Block interface {
	isBlock()
}

// A ReasoningItem is one reasoning element of a turn. It is a sealed sum
// type: its dynamic type is exactly one of [*ReasoningText], [*Summary],
// [*Encrypted] or [*Opaque]. Every item carries the common fields of
// [ItemMeta].
type ReasoningItem interface {
	Block
	// Meta returns the item's common fields. The pointer aliases the item.
	Meta() *ItemMeta
	// Kind returns the item's JSON type. An Opaque item returns the type it
	// came with.
	Kind() ItemKind
	// Replayable reports whether the item can be sent back to its issuer
	// as it is: it was finished, and it carries what its format requires.
	// A text item of a format that signs its text needs a non-empty
	// signature; an encrypted item needs non-empty data. It says nothing
	// about whether a target accepts the issuer: that is [Carry]'s and
	// [AuditReplay]'s business.
	Replayable() bool
	// AppendJSON appends the item's document form: the reasoning_details
	// members (`type`, `text`, `signature`, `summary`, `data`, `id`,
	// `format`, `index`) plus this library's own `unfinished`,
	// `attached`, `display` and `digest` ([UnmarshalItem] reads it).
	AppendJSON(dst []byte) []byte
	// AppendWire appends the item's wire form: its replay bytes, one
	// reasoning_details entry exactly as its issuer sent it (known
	// members, then unknown members verbatim), without this library's own
	// members; an Opaque item's raw object ([UnmarshalItemWire] reads it).
	// The item's digest (ItemMeta.Digest, see [Turn.Seal]) is of this form.
	AppendWire(dst []byte) []byte
	isItem()
}

// ItemMeta holds the fields every reasoning item has.
type ItemMeta struct {
	// Format names the issuer that minted the item.
	Format Format
	// ID is the provider's id for the item (an OpenAI `rs_...` item id, a
	// Gemini tool call id), kept byte-exact. Absent, null and empty differ.
	ID Opt[string]
	// Index is the provider's index for the item (OpenRouter's `index`, an
	// Anthropic content block index), when it gave one.
	Index Opt[int]
	// Unfinished marks an item whose stream ended (or failed) before the
	// item was closed. An unfinished item is never replayable. It is this
	// library's own field, `unfinished` in JSON, and is never sent to a
	// provider.
	Unfinished bool
	// Attached marks an item bound to the block that immediately follows it
	// in the turn: a Gemini thought signature that sits on a function call,
	// text or server-tool part. The item must be written back onto that same
	// part. It is this library's own field, `attached` in JSON.
	Attached bool
	// Extra holds the members of the item's JSON object that this library
	// does not know, as one JSON object in source order. They are written
	// back verbatim after the known members. Nil when there are none. In
	// the turn document, a member named like one of the document's own
	// (`unfinished`, `display`, ...) is written in an `extra` object
	// instead, so that no name appears twice; on the wire it stands beside
	// the others again.
	Extra json.RawMessage
	// Display is a copy of the item's text for display, set by [Turn.Redact]
	// when the text itself may not be changed (it is signed, or the item is
	// encrypted): show Display when present, and replay the item's own
	// bytes. It is this library's own field, `display` in JSON, and is
	// never sent to a provider.
	Display Opt[string]
	// Digest is the digest of the item's replay bytes ("sha256:" and the
	// hex SHA-256 of its wire form, [ReasoningItem].AppendWire), recorded
	// by [Turn.Seal] when the turn is captured; the replay/altered-item audit rule
	// reports an item whose bytes no longer match it. It is this library's
	// own field, `digest` in JSON, and is never sent to a provider.
	Digest string
}

// Meta returns m. It lets every item type satisfy [ReasoningItem].
func (m *ItemMeta) Meta() *ItemMeta { return m }

// ReasoningText is reasoning text, optionally signed by its issuer (an
// Anthropic thinking block, a Gemini thought part, DeepSeek
// reasoning_content). An empty Signature is never "signed".
type ReasoningText struct {
	ItemMeta
	// Text is the reasoning text. It may be empty (Anthropic's omitted
	// display sends only a signature).
	Text string
	// Signature is the issuer's opaque signature over the text, byte-exact.
	Signature Opt[string]
}

// Summary is a provider-written summary of reasoning (an OpenAI
// summary_text part, a Claude 4 summarized thinking block as OpenRouter
// relays it).
type Summary struct {
	ItemMeta
	Summary string
}

// Encrypted is an opaque reasoning blob: Anthropic redacted_thinking data,
// OpenAI encrypted_content, a Gemini thought signature that carries no text.
type Encrypted struct {
	ItemMeta
	// Data is the blob, byte-exact.
	Data string
}

// Opaque is a reasoning item this library does not understand (a new
// OpenRouter detail type, say). Raw is the whole JSON object as it came; it
// is written back verbatim, and only to the issuer that sent it. The
// ItemMeta fields are read from Raw for convenience; changing them does not
// change what is written.
type Opaque struct {
	ItemMeta
	// Type is the item's `type` member.
	Type string
	// Raw is the item's whole JSON object.
	Raw json.RawMessage
}

// Text is visible assistant text.
type Text struct {
	// Text is the visible text.
	Text string
	// ID is the provider's id for the part or message that carried the text
	// (an OpenAI Responses `msg_...` id), empty when none.
	ID string
	// Extra holds other members of the source part that the issuing codec
	// needs to write it back (an OpenAI message `phase`), as one JSON object.
	Extra json.RawMessage
}

// ToolCall is a client-side tool call: the model asks the caller to run a
// function.
type ToolCall struct {
	// ID is the call id that the tool result must name (OpenAI `call_id`,
	// Anthropic `tool_use.id`, Gemini `functionCall.id`). Empty when the
	// provider gave none.
	ID string
	// Name is the function name.
	Name string
	// Arguments is the raw JSON text of the arguments exactly as the
	// provider sent it (OpenAI sends a JSON string that holds JSON;
	// Anthropic and Gemini send an object, kept here as its text).
	Arguments string
	// ItemID is the provider's id for the output item, when it differs from
	// the call id (an OpenAI Responses `fc_...` id).
	ItemID string
	// Unfinished marks a call whose stream ended before the call was closed.
	Unfinished bool
	// Extra holds other members of the source object, as one JSON object.
	Extra json.RawMessage
}

// Native is any other element of an assistant turn (a server-side tool use
// or result, an OpenAI web_search_call, a Gemini executableCode part), kept
// verbatim and written back only to the API it came from.
type Native struct {
	// Kind names the element in its API (`server_tool_use`,
	// `web_search_call`, `executableCode`).
	Kind string
	// Raw is the element's whole JSON object as it came.
	Raw json.RawMessage
	// Unfinished marks an element whose stream ended before it was closed.
	Unfinished bool
}

// Compaction is a provider's compaction of the conversation before it: a
// block that stands in for the turns it replaced (an Anthropic `compaction`
// content block, an OpenAI Responses `compaction` output item). It is
// replayed byte-exact, only to the issuer and account that minted it, and
// the request prefix restarts at the newest one.
type Compaction struct {
	// Format names the issuer that minted it.
	Format Format
	// ID is the provider's id for it (an OpenAI `cmp_...` id), empty when
	// none.
	ID string
	// Content is the readable summary, when the provider sends one
	// (Anthropic's `content`; absent, null and empty differ).
	Content Opt[string]
	// Signature is the issuer's signature over Content (Anthropic's
	// on-demand compaction), byte-exact.
	Signature Opt[string]
	// Data is the opaque compacted state (OpenAI's `encrypted_content`),
	// byte-exact; empty when none.
	Data string
	// Unfinished marks a compaction whose stream ended before it closed.
	Unfinished bool
	// Extra holds the other members of the source object, as one JSON
	// object, written back verbatim.
	Extra json.RawMessage
}

func (*ReasoningText) isBlock() {}
func (*Compaction) isBlock()    {}
func (*Summary) isBlock()       {}
func (*Encrypted) isBlock()     {}
func (*Opaque) isBlock()        {}
func (*Text) isBlock()          {}
func (*ToolCall) isBlock()      {}
func (*Native) isBlock()        {}

func (*ReasoningText) isItem() {}
func (*Summary) isItem()       {}
func (*Encrypted) isItem()     {}
func (*Opaque) isItem()        {}

// Replayable implements [ReasoningItem].
func (t *ReasoningText) Replayable() bool { return replayable(t) }

// Replayable implements [ReasoningItem].
func (s *Summary) Replayable() bool { return replayable(s) }

// Replayable implements [ReasoningItem].
func (e *Encrypted) Replayable() bool { return replayable(e) }

// Replayable implements [ReasoningItem].
func (o *Opaque) Replayable() bool { return replayable(o) }

// AppendJSON implements [ReasoningItem].
func (t *ReasoningText) AppendJSON(dst []byte) []byte { return appendItem(dst, t, false) }

// AppendJSON implements [ReasoningItem].
func (s *Summary) AppendJSON(dst []byte) []byte { return appendItem(dst, s, false) }

// AppendJSON implements [ReasoningItem].
func (e *Encrypted) AppendJSON(dst []byte) []byte { return appendItem(dst, e, false) }

// AppendJSON implements [ReasoningItem].
func (o *Opaque) AppendJSON(dst []byte) []byte { return appendItem(dst, o, false) }

// AppendWire implements [ReasoningItem].
func (t *ReasoningText) AppendWire(dst []byte) []byte { return appendItem(dst, t, true) }

// AppendWire implements [ReasoningItem].
func (s *Summary) AppendWire(dst []byte) []byte { return appendItem(dst, s, true) }

// AppendWire implements [ReasoningItem].
func (e *Encrypted) AppendWire(dst []byte) []byte { return appendItem(dst, e, true) }

// AppendWire implements [ReasoningItem].
func (o *Opaque) AppendWire(dst []byte) []byte { return appendItem(dst, o, true) }

// Kind returns [KindText].
func (*ReasoningText) Kind() ItemKind { return KindText }

// Kind returns [KindSummary].
func (*Summary) Kind() ItemKind { return KindSummary }

// Kind returns [KindEncrypted].
func (*Encrypted) Kind() ItemKind { return KindEncrypted }

// Kind returns the type the item came with.
func (o *Opaque) Kind() ItemKind { return ItemKind(o.Type) }

// Signed reports whether t carries a non-empty signature.
func (t *ReasoningText) Signed() bool { return t.Signature.Value() != "" }

// replayable is [ReasoningItem].Replayable.
func replayable(it ReasoningItem) bool {
	m := it.Meta()
	if m.Unfinished {
		return false
	}
	switch it := it.(type) {
	case *ReasoningText:
		return !m.Format.traits().SignsText || it.Signed()
	case *Summary:
		return true
	case *Encrypted:
		return it.Data != ""
	case *Opaque:
		return len(it.Raw) > 0
	}
	panic("replay: unknown ReasoningItem type")
}
