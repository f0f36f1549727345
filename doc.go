// Package replay captures the reasoning of one assistant turn from an LLM
// provider, stores it, writes it back into the next request in the shape
// the provider accepts, and says before a request is sent whether the
// provider will reject it.
//
// Reasoning models hand back more than text. Anthropic signs each thinking
// block; OpenAI Responses returns reasoning items with encrypted content that
// must be paired with the item after them; Gemini 3 binds a thought
// signature to a specific part; DeepSeek, Kimi and GLM want
// reasoning_content back in tool loops; OpenRouter normalises all of them
// into reasoning_details. Get one detail wrong and the next request fails
// with a 400, or reasoning is silently lost. This package keeps every such
// detail byte-exact and in order.
//
// # Vocabulary
//
// One word per idea, used the same way in every identifier and document:
//
//   - api: a wire API, named as its codec is ("anthropic",
//     "openai-responses", "openrouter", "gemini", ...): the shape of the
//     bytes. [Provenance].API, [Target].API, [ReasoningCodec].API.
//   - provider: the platform that serves an API ("anthropic", "bedrock",
//     "vertex", "azure", "deepseek", ...). One API can be served by several
//     providers, and one provider can serve several APIs.
//   - upstream: the provider a gateway routed a request to, when the
//     gateway says ([Provenance].Upstream).
//   - model: the model a request names or a response reports.
//   - format: the issuer of a reasoning item, the provider and dialect that
//     minted it ([Format], "anthropic-claude-v1", "openai-responses-v1",
//     ...), spelled as OpenRouter spells it; an open set. "Issuer" in prose
//     means the format's owner. What a format requires on replay is declared
//     by its codec (codecs.RegisterFormat); the constants are in
//     package formats.
//   - account: the identity a request is sent with and a turn was minted
//     under (an organisation, account or key pool): [Provenance].Account,
//     [Target].Account. Account-bound ciphertext is valid only for it.
//   - item: one reasoning element, a [ReasoningItem]: reasoning text with
//     an optional signature ([*ReasoningText]), a provider-written summary
//     ([*Summary]), an opaque blob ([*Encrypted]), or an element this library
//     does not understand, kept verbatim ([*Opaque]).
//   - turn: one assistant turn ([Turn]): its [Block]s (items, visible
//     [*Text], client [*ToolCall]s, other [*Native] elements) in the order
//     the provider produced them, where it came from ([Provenance]), and
//     whether it completed.
//   - decode: a provider response (a body, or a stream) becomes a turn.
//     encode: a turn becomes the provider's request shape for the next
//     request. audit: a history and a target become a [Report].
//   - codec: the translator for one wire API ([ReasoningCodec]), found by
//     name ([Lookup]) or by provider and model ([Resolve]). The codecs live
//     in the packages under codecs/ and register themselves when imported;
//     import codecs/all for all of them. The root package knows no provider:
//     what it needs to know of one, it asks the codec's [ReplayContract] or
//     the format's codecs.FormatTraits.
//   - stream: a streamed response, read by package stream with the codec's
//     stream decoder into events and, at its end, the turn.
//
// # Presence
//
// An absent signature, a null signature and an empty signature are three
// different facts, kept apart by [Opt]. An empty signature is never
// "signed". Signatures, encrypted data, ids and signed text are never
// trimmed, re-encoded or normalised.
//
// # Streams
//
// Package stream reads a streamed response (Server-Sent Events, JSON Lines
// or the AWS event stream) with the codec of its API:
//
//	s := stream.New(resp.Body, codec, stream.Options{})
//	for s.Next() {
//		ev := s.Event() // reasoning/text/tool-call deltas, done, error
//	}
//	turn, err := s.Turn()
//
// Feeding a stream whole, line by line, byte by byte or in random pieces
// gives the same turn. A stream that ends early, a reader error or a
// provider error event returns the partial turn, marked incomplete, with
// its unfinished items never [ReasoningItem].Replayable.
//
// # The replay contract
//
// Each codec declares what its provider requires on replay
// ([ReplayContract]) as audit rules. [AuditReplay] checks a history against
// the target's rules and the core rules, and reports every violation with
// a stable rule id, a severity, where it is, the provider error it
// predicts, and the fix.
//
// # Documents
//
// A turn serialises to a versioned JSON document ([Turn.AppendJSON],
// [UnmarshalTurn]) whose reasoning blocks use OpenRouter's reasoning_details
// members; package schema publishes its JSON Schema.
//
// # Errors
//
// Decoders return a *[ProviderError] for errors the provider reported, an
// *[Error] (located by API, event and JSON Pointer, wrapping [ErrMalformed]
// and friends) for input of the wrong shape, and a *[LimitError] when input
// exceeds [Limits]. Error text is not API: match with errors.Is and
// errors.As.
package replay
