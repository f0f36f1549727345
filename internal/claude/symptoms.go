package claude

// The patterns of Messages API error texts that more than one codec's rules
// declare as symptoms ([replay.Symptom]): codecs/anthropic, and
// codecs/bedrock, whose Converse API relays Claude's errors wrapped.
const (
	// SymThinkingFirst: a tool turn that does not start with thinking.
	SymThinkingFirst = "expected .?thinking.? or .?redacted_thinking.?, but found"
	// SymInvalidSignature: an empty, foreign or altered signature.
	SymInvalidSignature = "invalid .?signature.? in .?thinking.? block"
	// SymFirstBlock: an assistant message with thinking that does not
	// start with it.
	SymFirstBlock = "if an assistant message contains any thinking blocks, the first block must be"
	// SymSignatureRequired: a thinking block without its signature member.
	SymSignatureRequired = `thinking\.signature: field required`
)
