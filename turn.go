package replay

import "encoding/json"

// DocumentVersion is the version of the turn document (and of the audit
// report) this library writes. It reads every version from 1 up to it
// (see the document format policy in package schema).
//
// Version 2 differs from version 1 in meaning only: its "prefix_hash" is
// the issuer's binding hash (package anthropic's PrefixHash), where
// version 1's may be either that or the hash of the request's
// prompt-shaping members its first builds recorded (read as
// [Provenance].LegacyPrefixHash); its items never hold the provider's
// members named like this library's own beside their own (version 1's
// first builds wrote them there); and an item of a type kept whole carries
// this library's members (a digest, unfinished) in a wrapper.
const DocumentVersion = 2

// Provenance records where a turn came from, so that policy and audit decide
// by origin rather than by guessing from model names.
type Provenance struct {
	// API is the wire API the turn was decoded from: the codec's name, e.g.
	// "anthropic", "openai-responses", "openrouter".
	API string `json:"api,omitempty"`
	// Provider is the platform that served it: "anthropic", "bedrock",
	// "vertex", "aistudio", "openrouter", "azure", "deepseek", ... Codecs
	// fill it when the response says; callers may set it.
	Provider string `json:"provider,omitempty"`
	// Upstream is the provider a gateway routed the request to, when the
	// gateway says (OpenRouter's `provider`: "Google", "Amazon Bedrock"):
	// some signatures are bound to the backend that minted them
	// (codecs.FormatTraits.Domain).
	Upstream string `json:"upstream,omitempty"`
	// Model is the model that produced the turn, as the response named it:
	// after a server-side fallback, the model that served it (and minted
	// its reasoning), not the one requested.
	Model string `json:"model,omitempty"`
	// RequestedModel is the model the request named, when the provider
	// served the turn with another (a server-side fallback); empty
	// otherwise.
	RequestedModel string `json:"requested_model,omitempty"`
	// Account is an optional identity of the account that minted the turn
	// (organisation, account or key-pool id): account-bound ciphertext
	// (codecs.FormatTraits.AccountBound) is valid only for it. Supplied by the caller.
	Account string `json:"account,omitempty"`
	// PrefixHash is an optional hash of the request prefix (system prompt,
	// tools, earlier messages) that produced the turn: some issuers bind
	// their signatures to it. Supplied by the caller.
	PrefixHash string `json:"prefix_hash,omitempty"`
	// LegacyPrefixHash is a prefix hash read from a version-1 turn
	// document, whose builds hashed by one of two definitions: the
	// request's prompt-shaping members (every top-level member but
	// transport, sampling, output and reasoning settings, as the first
	// builds' replay.PrefixHash did) or the issuer's binding (as
	// PrefixHash). A document does not say which, so the audit accepts a
	// prefix that matches either and reports one that matches neither as
	// not verified, never as a mismatch. It is kept, and written back as
	// "legacy_prefix_hash", never as PrefixHash.
	LegacyPrefixHash string `json:"legacy_prefix_hash,omitempty"`
	// ChainHash is an optional digest of the last signed reasoning block of
	// the request that produced the turn: issuers that chain each signed
	// block to the one before it reject a block sent after another
	// predecessor. Supplied by the caller (a codec computes it).
	ChainHash string `json:"chain_hash,omitempty"`
}

// Transformation is one change the provider reports it made to a request's
// input before the model saw it (Anthropic's `input_transformations`): a
// block dropped or let through, and why.
type Transformation struct {
	// Type is what was done ("thinking_dropped",
	// "thinking_mismatch_allowed").
	Type string `json:"type"`
	// Reason is why ("prefix_binding_mismatch", "model_binding_mismatch",
	// "organization_binding_mismatch", "end_user_binding_mismatch").
	Reason string `json:"reason,omitempty"`
	// Path locates the block in the request ("messages.3.content.0").
	Path string `json:"path,omitempty"`
	// Extra holds the entry's other members, as one JSON object. The turn
	// document writes them beside the others; encoding/json, which cannot,
	// writes them as a member "extra".
	Extra json.RawMessage `json:"extra,omitempty"`
}

// Turn is one assistant turn: its blocks in the order the provider produced
// them, where it came from, and how it ended.
//
// A Turn serialises to the turn document (see the schema in package schema):
// a JSON object with a version, the provenance, and an ordered `blocks`
// array whose reasoning blocks use OpenRouter's reasoning_details members.
type Turn struct {
	Provenance Provenance
	// Blocks are the turn's elements in provider order. Order is part of the
	// replay contract.
	Blocks []Block
	// FinishReason is the provider's finish or stop reason as it sent it.
	FinishReason string
	// Complete reports whether the turn ended normally. A turn cut short
	// (stream ended early, reader error, provider error, limit) is not
	// complete and must not be replayed as it is.
	Complete bool
	// Error is the provider's error when the turn ended with one.
	Error *ProviderError
	// Usage is the provider's usage object as it came, or nil.
	Usage json.RawMessage
	// Transformations are the changes the provider reports it made to the
	// request's input (reasoning it dropped silently, and why), in the
	// order reported.
	Transformations []Transformation
}

// Items returns the turn's reasoning items in order. The items alias the
// turn's.
func (t *Turn) Items() []ReasoningItem {
	var out []ReasoningItem
	for _, b := range t.Blocks {
		if it, ok := b.(ReasoningItem); ok {
			out = append(out, it)
		}
	}
	return out
}

// VisibleText returns the concatenation of the turn's visible text blocks.
func (t *Turn) VisibleText() string {
	n := 0
	for _, b := range t.Blocks {
		if x, ok := b.(*Text); ok {
			n += len(x.Text)
		}
	}
	buf := make([]byte, 0, n)
	for _, b := range t.Blocks {
		if x, ok := b.(*Text); ok {
			buf = append(buf, x.Text...)
		}
	}
	return string(buf)
}

// ToolCalls returns the turn's client tool calls in order.
func (t *Turn) ToolCalls() []*ToolCall {
	var out []*ToolCall
	for _, b := range t.Blocks {
		if c, ok := b.(*ToolCall); ok {
			out = append(out, c)
		}
	}
	return out
}

// MarkUnfinished marks every reasoning item, tool call and native block of t
// unfinished and t incomplete. Stream decoders call it on the partial turn
// they return with an error.
func (t *Turn) MarkUnfinished() {
	t.Complete = false
	for _, b := range t.Blocks {
		switch b := b.(type) {
		case ReasoningItem:
			b.Meta().Unfinished = true
		case *ToolCall:
			b.Unfinished = true
		case *Native:
			b.Unfinished = true
		case *Compaction:
			b.Unfinished = true
		}
	}
}
