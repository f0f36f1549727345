// Package fix names the one-shot repairs of a request that a provider
// rejected. The codecs name them in their rules' symptoms
// ([replay.Symptom].Fix) and package replayhttp exports them as its Fix
// values, so that both spell each name once.
package fix

// The repair names. Each is documented where replayhttp exports it.
const (
	// None: no mechanical repair is known; the request must be rebuilt.
	None = ""
	// Restore: put back the captured reasoning, byte for byte.
	Restore = "restore"
	// DropReasoning: remove the reasoning from the assistant messages.
	DropReasoning = "drop-reasoning"
	// DropBlock: ask Anthropic to drop a block bound to another conversation.
	DropBlock = "drop-block"
	// Sentinel: write Gemini's documented skip value on unsigned calls.
	Sentinel = "sentinel"
	// BackfillReasoningContent: send reasoning_content on every assistant message.
	BackfillReasoningContent = "backfill-reasoning-content"
	// RemoveReasoningContent: remove reasoning_content from the assistant messages.
	RemoveReasoningContent = "remove-reasoning-content"
	// DropDuplicates: send each reasoning item once.
	DropDuplicates = "drop-duplicates"
	// Reencode: write the offending item as its codec encodes it.
	Reencode = "reencode"
	// Configure: change the request's settings rather than its history.
	Configure = "configure"
)

// Names lists every repair name but None, for checks.
var Names = [...]string{Restore, DropReasoning, DropBlock, Sentinel, BackfillReasoningContent,
	RemoveReasoningContent, DropDuplicates, Reencode, Configure}
