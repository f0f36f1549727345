// Package plainrules holds the audit rules of APIs whose assistant messages
// carry only their own model's unsigned reasoning text (Mistral thinking
// chunks, Cohere thinking blocks): one rule for what such an API has no
// field for, one for another issuer's text sent as the model's own thinking.
package plainrules

import (
	"fmt"
	"sync"

	"github.com/reasonreplay/replay"
)

// Lazy holds what [Rules] takes and makes the rules when they are first
// asked for, so that a codec's package does nothing for them when the
// program starts. A Lazy declared with its fields set is ready; do not
// copy it after its first use.
type Lazy struct {
	API, Name string
	Own       replay.Format
	Unit      string

	once  sync.Once
	rules []replay.Rule
}

// Rules returns the rules of [Rules] for l's fields: the same slice at
// every call.
func (l *Lazy) Rules() []replay.Rule {
	l.once.Do(func() { l.rules = Rules(l.API, l.Name, l.Own, l.Unit) })
	return l.rules
}

// Rules returns the two rules for api, whose product name is name, whose own
// items have format own, and whose reasoning element is called unit ("thinking
// chunk", "thinking block").
func Rules(api, name string, own replay.Format, unit string) []replay.Rule {
	return []replay.Rule{
		{
			ID:       api + "/inexpressible",
			Severity: replay.SeverityDegrade,
			Doc:      name + " has no field for signatures, encrypted reasoning or summaries: such items are not sent, and their reasoning is lost.",
			Check: func(h *replay.History, _ *replay.Target, report func(replay.Violation)) {
				for ti, t := range h.Turns {
					for bi, b := range t.Blocks {
						msg := ""
						switch x := b.(type) {
						case *replay.Encrypted:
							msg = fmt.Sprintf("an encrypted %s item cannot be sent to %s", x.Format, name)
						case *replay.Summary:
							msg = fmt.Sprintf("a %s summary cannot be sent to %s", x.Format, name)
						case *replay.Opaque:
							if x.Format != own {
								msg = fmt.Sprintf("an opaque %s item of type %q cannot be sent to %s", x.Format, x.Type, name)
							}
						case *replay.ReasoningText:
							if x.Signed() && x.Replayable() {
								msg = fmt.Sprintf("the %s signature cannot be sent to %s: the text would go without it", x.Format, name)
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
			ID:       api + "/foreign-reasoning",
			Severity: replay.SeverityRisk,
			Doc:      "Reasoning text of another issuer sent as a " + name + " " + unit + " is read by the model as its own thinking.",
			Check: func(h *replay.History, _ *replay.Target, report func(replay.Violation)) {
				for ti, t := range h.Turns {
					for bi, b := range t.Blocks {
						x, ok := b.(*replay.ReasoningText)
						if !ok || !x.Replayable() || x.Format == own || x.Format == "" {
							continue
						}
						report(replay.Violation{Turn: ti, Block: bi,
							Message: fmt.Sprintf("%s reasoning text would be sent as a %s %s", x.Format, name, unit),
							Fix:     "drop the item, or send it as plain text in the visible content"})
					}
				}
			},
		},
	}
}
