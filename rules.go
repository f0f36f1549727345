package replay

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// The ids of the cross-provider rules that [AuditReplay] checks for every
// target, with the [CoreRules].
const (
	// RuleForeignFormat: an item the target does not accept is sent to it.
	RuleForeignFormat = "replay/foreign-format"
	// RuleIdentityMismatch: account-bound ciphertext minted by another
	// account is sent.
	RuleIdentityMismatch = "replay/identity-mismatch"
	// RulePrefixMismatch: a signed Claude item bound to a request prefix is
	// sent after a prefix that hashes differently.
	RulePrefixMismatch = "replay/prefix-mismatch"
	// RuleAlteredItem: an item's replay bytes changed since capture.
	RuleAlteredItem = "replay/altered-item"
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
						if !ok || !Replayable(it) {
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
							v.Predicted = rc.predict(RefuseForeign, it, ti == len(h.Turns)-1)
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
						if !ok || !e.Format.Traits().AccountBound || !Replayable(e) {
							continue
						}
						report(Violation{Turn: ti, Block: bi,
							Message:   fmt.Sprintf("the %s ciphertext was minted by account %q and the request is sent as %q", e.Format, acct, t.Account),
							Predicted: rc.predict(RefuseAccount, e, ti == len(h.Turns)-1),
							Fix:       "drop the encrypted reasoning of turns minted by another account (Carry does), or send with the minting account"})
					}
				}
			},
		},
		{
			ID:       RulePrefixMismatch,
			Severity: SeverityRisk,
			Doc: "A signed Claude item recorded with the hash of the prefix that produced it is sent after the same prefix " +
				"(system prompt, tools, earlier messages); binding is enforced on newer models and accounts.",
			Check: checkPrefix,
		},
		{
			ID:       RuleAlteredItem,
			Severity: SeverityReject,
			Doc:      "An item sealed at capture ([Seal]) is sent with the replay bytes it was captured with.",
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

// boundItem returns the block index of the first signed Claude item of t,
// or -1.
func boundItem(t *Turn) int {
	for bi, b := range t.Blocks {
		it, ok := b.(ReasoningItem)
		if !ok || it.Meta().Format.Family() != "anthropic" || !Replayable(it) {
			continue
		}
		if _, isSum := it.(*Summary); isSum {
			continue
		}
		return bi
	}
	return -1
}

func checkPrefix(h *History, t *Target, report func(Violation)) {
	// With a request and the turns' pointers, each turn is checked against
	// the prefix before its own element; otherwise the latest turn against
	// Target.PrefixHash.
	var turns, cuts []int
	if len(h.Request) > 0 && len(h.Pointers) == len(h.Turns) {
		for ti, tu := range h.Turns {
			if tu.Provenance.PrefixHash == "" || boundItem(tu) < 0 {
				continue
			}
			p := h.Pointers[ti]
			n, err := strconv.Atoi(p[strings.LastIndexByte(p, '/')+1:])
			if err != nil || (len(cuts) > 0 && n < cuts[len(cuts)-1]) {
				continue
			}
			turns, cuts = append(turns, ti), append(cuts, n)
		}
		if len(cuts) > 0 {
			hashes, err := prefixHashes(h.Request, cuts)
			if err == nil {
				for i, ti := range turns {
					reportPrefix(h, ti, hashes[i], report)
				}
			}
		}
		return
	}
	if n := len(h.Turns); n > 0 && t.PrefixHash != "" {
		tu := h.Turns[n-1]
		if tu.Provenance.PrefixHash != "" && boundItem(tu) >= 0 {
			reportPrefix(h, n-1, t.PrefixHash, report)
		}
	}
}

func reportPrefix(h *History, ti int, got string, report func(Violation)) {
	tu := h.Turns[ti]
	if got == tu.Provenance.PrefixHash {
		return
	}
	report(Violation{Turn: ti, Block: boundItem(tu),
		Message:   fmt.Sprintf("the turn's signatures are bound to prefix %s and are sent after prefix %s", clipHash(tu.Provenance.PrefixHash), clipHash(got)),
		Predicted: "Invalid `signature` in `thinking` block. The block is bound to a different conversation.",
		Fix:       "send the turn after the system prompt, tools and messages it was produced with, or drop its thinking blocks (or set thinking.block_binding.prefix_mismatch_behavior to \"drop_block\")"})
}

func clipHash(s string) string {
	if len(s) > 19 {
		return s[:19] + "…"
	}
	return s
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
			buf = AppendItemWire(buf[:0], it)
			sum := sha256.Sum256(buf)
			hex.Encode(hexd[:], sum[:])
			if len(want) == 7+64 && want[:7] == "sha256:" && want[7:] == string(hexd[:]) {
				continue
			}
			v := Violation{Turn: ti, Block: bi,
				Message: fmt.Sprintf("the %s %s item's replay bytes changed since capture", it.Meta().Format, it.Kind()),
				Fix:     "restore the item as captured (redact with Redact, which masks a display copy and keeps the replay bytes), or drop it"}
			v.Predicted = rc.predict(RefuseAltered, it, ti == last)
			report(v)
		}
	}
}
