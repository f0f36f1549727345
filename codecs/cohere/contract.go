package cohere

import (
	"fmt"

	"github.com/reasonreplay/replay"
)

var rules = []replay.Rule{
	{
		ID:       API + "/inexpressible",
		Severity: replay.SeverityDegrade,
		Doc:      "Cohere has no field for signatures, encrypted reasoning or summaries: such items are not sent, and their reasoning is lost.",
		Check: func(h *replay.History, _ *replay.Target, report func(replay.Violation)) {
			for ti, t := range h.Turns {
				for bi, b := range t.Blocks {
					msg := ""
					switch x := b.(type) {
					case *replay.Encrypted:
						msg = fmt.Sprintf("an encrypted %s item cannot be sent to Cohere", x.Format)
					case *replay.Summary:
						msg = fmt.Sprintf("a %s summary cannot be sent to Cohere", x.Format)
					case *replay.Opaque:
						if x.Format != replay.FormatCohere {
							msg = fmt.Sprintf("an opaque %s item of type %q cannot be sent to Cohere", x.Format, x.Type)
						}
					case *replay.ReasoningText:
						if x.Signed() && replay.Replayable(x) {
							msg = fmt.Sprintf("the %s signature cannot be sent to Cohere: the text would go without it", x.Format)
						}
					}
					if msg != "" {
						report(replay.Violation{Turn: ti, Block: bi, Message: msg,
							Fix: "accept the loss, or carry the reasoning over as plain text"})
					}
				}
			}
		},
	},
	{
		ID:       API + "/foreign-reasoning",
		Severity: replay.SeverityRisk,
		Doc:      "Reasoning text of another issuer sent as a Cohere thinking block is read by the model as its own thinking.",
		Check: func(h *replay.History, _ *replay.Target, report func(replay.Violation)) {
			for ti, t := range h.Turns {
				for bi, b := range t.Blocks {
					x, ok := b.(*replay.ReasoningText)
					if !ok || !replay.Replayable(x) || x.Format == replay.FormatCohere || x.Format == "" {
						continue
					}
					report(replay.Violation{Turn: ti, Block: bi,
						Message: fmt.Sprintf("%s reasoning text would be sent as a Cohere thinking block", x.Format),
						Fix:     "drop the item, or send it as plain text in the visible content"})
				}
			}
		},
	},
}

// Contract returns the Cohere replay contract.
func (Codec) Contract() replay.ReplayContract {
	return replay.ReplayContract{
		API:     API,
		Accepts: []replay.Format{replay.FormatCohere},
		Summary: "Send the assistant message back as it came: thinking blocks then text in content, with the " +
			"tool_plan and tool_calls (Cohere's documented tool loop appends the response message whole). " +
			"Cohere's reasoning is unsigned; no rejection for missing or altered thinking blocks is documented. " +
			"Other issuers' signatures, ciphertexts and summaries have no Cohere field.",
		Rules: rules,
	}
}
