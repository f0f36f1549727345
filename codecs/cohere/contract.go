package cohere

import (
	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/plainrules"
)

// Rule ids of the Cohere contract (the rules package internal/plainrules
// writes for every unsigned-reasoning API).
const (
	// RuleInexpressible: an item Cohere has no field for (a signature, a
	// ciphertext, a summary) is left out.
	RuleInexpressible = API + "/inexpressible"
	// RuleForeignReasoning: another issuer's visible reasoning is sent as
	// Cohere's own thinking.
	RuleForeignReasoning = API + "/foreign-reasoning"
)

// rules are made when the contract is first asked for.
var rules = plainrules.Lazy{API: API, Name: "Cohere", Own: formats.Cohere, Unit: "thinking block"}

// Contract returns the Cohere replay contract.
func (Codec) Contract() replay.ReplayContract {
	return replay.ReplayContract{
		API:     API,
		ToolIDs: true,
		Accepts: []replay.Format{formats.Cohere},
		Summary: "Send the assistant message back as it came: thinking blocks then text in content, with the " +
			"tool_plan and tool_calls (Cohere's documented tool loop appends the response message whole). " +
			"Cohere's reasoning is unsigned; no rejection for missing or altered thinking blocks is documented. " +
			"Other issuers' signatures, ciphertexts and summaries have no Cohere field.",
		Rules: rules.Rules(),
	}
}
