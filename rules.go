package replay

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// The ids of the rules [AuditReplay] checks for every target: the core
// rules (a turn's and an item's own state) and the cross-provider rules.
const (
	// RuleIncompleteTurn: a turn that did not complete is sent with its
	// reasoning.
	RuleIncompleteTurn = "replay/incomplete-turn"
	// RuleUnfinishedItem: an unfinished item is sent.
	RuleUnfinishedItem = "replay/unfinished-item"
	// RuleEmptySignature: reasoning text of an issuer that rejects unsigned
	// text is sent without a signature.
	RuleEmptySignature = "replay/empty-signature"
	// RuleForeignFormat: an item the target does not accept is sent to it.
	RuleForeignFormat = "replay/foreign-format"
	// RuleIdentityMismatch: account-bound ciphertext minted by another
	// account is sent.
	RuleIdentityMismatch = "replay/identity-mismatch"
	// RuleAlteredItem: an item's replay bytes changed since capture.
	RuleAlteredItem = "replay/altered-item"
	// RuleToolCallID: a tool call sent to a target that requires ids
	// ([ReplayContract].ToolIDs) has an empty id, or the id of another call.
	RuleToolCallID = "replay/tool-call-id"
)

// crossRules are the cross-provider rules for the target's contract.
func crossRules(rc ReplayContract) []Rule {
	accepts, gateway := rc.Accepts, rc.Gateway
	return []Rule{
		{
			ID:       RuleForeignFormat,
			Severity: SeverityReject,
			Doc: "An item is sent only to a target that accepts its issuer: a signature, ciphertext or opaque item never; " +
				"reasoning text of another issuer only as plain text ([Carry] drops or converts it).",
			Check: func(h *History, t *Target, report func(Violation)) {
				if gateway && accepts == nil {
					return
				}
				c := carrier{target: *t, contract: rc}
				for ti, tu := range h.Turns {
					for bi, b := range tu.Blocks {
						it, ok := b.(ReasoningItem)
						if !ok || !it.Replayable() {
							continue
						}
						m := it.Meta()
						var foreign bool
						if m.Format == "" || m.Format == FormatUnknown {
							foreign = !strings.EqualFold(tu.Provenance.API, t.API) && tu.Provenance.API != ""
						} else {
							foreign = !c.accepted(m.Format)
						}
						if !foreign || (gateway && !signedOrOpaque(it) && !signedText(it)) {
							continue
						}
						v := Violation{Turn: ti, Block: bi,
							Message: fmt.Sprintf("%s item of issuer %s is sent to %s, which does not accept that issuer", it.Kind(), m.Format, describeTarget(*t)),
							Fix:     "carry the history to the target with Carry: it drops foreign signatures and ciphertext, and turns visible reasoning into plain text when asked"}
						if signedOrOpaque(it) || signedText(it) {
							v.Predicted = rc.predict(refuseForeign, it, ti == len(h.Turns)-1)
						}
						report(v)
					}
				}
			},
		},
		{
			ID:       RuleIdentityMismatch,
			Severity: SeverityReject,
			Doc:      "Account-bound encrypted reasoning is sent only with the account (organisation, key pool) that minted it.",
			Check: func(h *History, t *Target, report func(Violation)) {
				if t.Account == "" {
					return
				}
				for ti, tu := range h.Turns {
					acct := tu.Provenance.Account
					if acct == "" || acct == t.Account {
						continue
					}
					for bi, b := range tu.Blocks {
						e, ok := b.(*Encrypted)
						if !ok || !e.Format.traits().AccountBound || !e.Replayable() {
							continue
						}
						report(Violation{Turn: ti, Block: bi,
							Message:   fmt.Sprintf("the %s ciphertext was minted by account %q and the request is sent as %q", e.Format, acct, t.Account),
							Predicted: rc.predict(refuseAccount, e, ti == len(h.Turns)-1),
							Fix:       "drop the encrypted reasoning of turns minted by another account (Carry does), or send with the minting account"})
					}
				}
			},
		},
		{
			ID:       RuleAlteredItem,
			Severity: SeverityReject,
			Doc:      "An item sealed at capture ([Turn.Seal]) is sent with the replay bytes it was captured with.",
			Check: func(h *History, _ *Target, report func(Violation)) {
				checkAltered(h, rc, report)
			},
		},
	}
}

func signedText(it ReasoningItem) bool {
	x, ok := it.(*ReasoningText)
	return ok && x.Signed()
}

func checkAltered(h *History, rc ReplayContract, report func(Violation)) {
	var buf []byte
	var hexd [64]byte
	last := len(h.Turns) - 1
	for ti, tu := range h.Turns {
		for bi, b := range tu.Blocks {
			it, ok := b.(ReasoningItem)
			if !ok {
				continue
			}
			want := it.Meta().Digest
			if want == "" {
				continue
			}
			buf = it.AppendWire(buf[:0])
			sum := sha256.Sum256(buf)
			hex.Encode(hexd[:], sum[:])
			if len(want) == 7+64 && want[:7] == "sha256:" && want[7:] == string(hexd[:]) {
				continue
			}
			v := Violation{Turn: ti, Block: bi,
				Message: fmt.Sprintf("the %s %s item's replay bytes changed since capture", it.Meta().Format, it.Kind()),
				Fix:     "restore the item as captured (redact with Redact, which masks a display copy and keeps the replay bytes), or drop it"}
			v.Predicted = rc.predict(refuseAltered, it, ti == last)
			report(v)
		}
	}
}
