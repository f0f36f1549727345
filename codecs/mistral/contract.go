package mistral

import (
	"fmt"

	"github.com/reasonreplay/replay"
)

var rules = []replay.Rule{
	{
		ID:       API + "/inexpressible",
		Severity: replay.SeverityDegrade,
		Doc:      "Mistral has no field for signatures, encrypted reasoning or summaries: such items are not sent, and their reasoning is lost.",
		Check: func(h *replay.History, _ *replay.Target, report func(replay.Violation)) {
			for ti, t := range h.Turns {
				for bi, b := range t.Blocks {
					msg := ""
					switch x := b.(type) {
					case *replay.Encrypted:
						msg = fmt.Sprintf("an encrypted %s item cannot be sent to Mistral", x.Format)
					case *replay.Summary:
						msg = fmt.Sprintf("a %s summary cannot be sent to Mistral", x.Format)
					case *replay.Opaque:
						if x.Format != replay.FormatMistral {
							msg = fmt.Sprintf("an opaque %s item of type %q cannot be sent to Mistral", x.Format, x.Type)
						}
					case *replay.ReasoningText:
						if x.Signed() && replay.Replayable(x) {
							msg = fmt.Sprintf("the %s signature cannot be sent to Mistral: the text would go without it", x.Format)
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
		Doc:      "Reasoning text of another issuer sent as a Mistral thinking chunk is read by the model as its own thinking.",
		Check: func(h *replay.History, _ *replay.Target, report func(replay.Violation)) {
			for ti, t := range h.Turns {
				for bi, b := range t.Blocks {
					x, ok := b.(*replay.ReasoningText)
					if !ok || !replay.Replayable(x) || x.Format == replay.FormatMistral || x.Format == "" {
						continue
					}
					report(replay.Violation{Turn: ti, Block: bi,
						Message: fmt.Sprintf("%s reasoning text would be sent as a Mistral thinking chunk", x.Format),
						Fix:     "drop the item, or send it as plain text in the visible content"})
				}
			}
		},
	},
}

// Contract returns the Mistral replay contract.
func (Codec) Contract() replay.ReplayContract {
	return replay.ReplayContract{
		API:     API,
		Accepts: []replay.Format{replay.FormatMistral},
		Summary: "Send the assistant message back with its thinking chunks in the content array, in order, before " +
			"the text (as Mistral's own SDKs do, with `closed` kept). Mistral's reasoning is unsigned; whether " +
			"replaying it is required is not documented, and no rejection for a missing or altered thinking chunk " +
			"is known. Other issuers' signatures, ciphertexts and summaries have no Mistral field.",
		Rules: rules,
	}
}
