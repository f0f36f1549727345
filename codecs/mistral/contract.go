package mistral

import (
	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/plainrules"
)

// rules are made when the contract is first asked for.
var rules = plainrules.Lazy{API: API, Name: "Mistral", Own: formats.Mistral, Unit: "thinking chunk"}

// Rule ids of the Mistral contract (see package internal/plainrules).
const (
	// RuleInexpressible: an item with no Mistral field (a signature, a
	// ciphertext, a summary) that would be lost.
	RuleInexpressible = API + "/inexpressible"
	// RuleForeignReasoning: another issuer's reasoning sent as Mistral's.
	RuleForeignReasoning = API + "/foreign-reasoning"
)

// Contract returns the Mistral replay contract.
func (Codec) Contract() replay.ReplayContract {
	return replay.ReplayContract{
		API:     API,
		ToolIDs: true,
		Accepts: []replay.Format{formats.Mistral},
		Summary: "Send the assistant message back with its thinking chunks in the content array, in order, before " +
			"the text (as Mistral's own SDKs do, with `closed` kept). Mistral's reasoning is unsigned; whether " +
			"replaying it is required is not documented, and no rejection for a missing or altered thinking chunk " +
			"is known. Other issuers' signatures, ciphertexts and summaries have no Mistral field.",
		Rules: rules.Rules(),
	}
}
