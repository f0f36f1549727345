package ollama

import (
	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/plainrules"
)

// rules are made when the contract is first asked for.
var rules = plainrules.Lazy{API: API, Name: "Ollama", Own: replay.FormatUnknown, Unit: "thinking"}

// Rule ids of the Ollama contract (see package internal/plainrules).
const (
	// RuleInexpressible: an item with no field in an Ollama message (a
	// signature, a ciphertext, a summary) that would be lost.
	RuleInexpressible = API + "/inexpressible"
	// RuleForeignReasoning: another issuer's reasoning text sent as the
	// model's own thinking.
	RuleForeignReasoning = API + "/foreign-reasoning"
)

// Contract returns the Ollama replay contract.
func (Codec) Contract() replay.ReplayContract {
	return replay.ReplayContract{
		API:     API,
		Accepts: []replay.Format{replay.FormatUnknown},
		Summary: "Send each assistant message back with its `thinking` beside `content` and `tool_calls`, as " +
			"Ollama answered it: the chat templates of thinking models render an assistant's thinking (at least " +
			"after the last user message, so in a tool loop). Ollama is stateless and signs nothing: no request " +
			"is refused for missing or altered thinking, and tool results name their call by `tool_name`, so " +
			"ids are not required. Other issuers' signatures, ciphertexts and summaries have no field here.",
		Rules: rules.Rules(),
	}
}
