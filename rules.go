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
	// RuleIdentityMismatch: OpenAI-family ciphertext minted by another
	// issuer identity is sent.
	RuleIdentityMismatch = "replay/identity-mismatch"
	// RulePrefixMismatch: a signed Claude item bound to a request prefix is
	// sent after a prefix that hashes differently.
	RulePrefixMismatch = "replay/prefix-mismatch"
	// RuleAlteredItem: an item's replay bytes changed since capture.
	RuleAlteredItem = "replay/altered-item"
)

// Provider error texts the cross-provider rules predict (from the research
// notes' failure catalogue).
const (
	predictClaudeSignature = "messages.1.content.0: Invalid `signature` in `thinking` block"
	predictClaudeModified  = "`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. " +
		"These blocks must remain as they were in the original response."
	// The documented text (preserved-thinking page); an issue report quotes
	// an older spelling, `prefix_mismatch_behavior`.
	predictClaudeBound = "Invalid `signature` in `thinking` block. The block is bound to a different conversation. Remove the block, " +
		"or set `thinking.block_binding.mismatch_behavior` to \"drop_block\"."
	predictGeminiForeign = "Corrupted thought signature."
)

func predictCiphertext(data, reason string) string {
	return "The encrypted content " + data[:min(len(data), 4)] + "... could not be verified. Reason: " + reason
}

// predictForeign returns the error a target family answers a foreign
// signed or encrypted item with, or "".
func predictForeign(accepts []Format, it ReasoningItem) string {
	for _, f := range accepts {
		switch {
		case f.Family() == FormatAnthropicClaude.Family():
			return predictClaudeSignature
		case f == FormatGoogleGemini:
			return predictGeminiForeign
		case responsesFamily(f):
			if e, ok := it.(*Encrypted); ok {
				return predictCiphertext(e.Data, "Encrypted content could not be decrypted or parsed.")
			}
		}
	}
	return ""
}

// crossRules are the cross-provider rules for a target that accepts the
// given formats (gateway: told from the model slug, nil when unknown).
func crossRules(accepts []Format, gateway bool) []Rule {
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
				c := carrier{target: *t, accepts: accepts, gateway: gateway}
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
							v.Predicted = predictForeign(accepts, it)
						}
						report(v)
					}
				}
			},
		},
		{
			ID:       RuleIdentityMismatch,
			Severity: SeverityReject,
			Doc:      "OpenAI-family encrypted reasoning is sent only with the identity (organisation, account, key pool) that minted it.",
			Check: func(h *History, t *Target, report func(Violation)) {
				if t.Issuer == "" {
					return
				}
				for ti, tu := range h.Turns {
					iss := tu.Provenance.Issuer
					if iss == "" || iss == t.Issuer {
						continue
					}
					for bi, b := range tu.Blocks {
						e, ok := b.(*Encrypted)
						if !ok || !responsesFamily(e.Format) || !Replayable(e) {
							continue
						}
						report(Violation{Turn: ti, Block: bi,
							Message:   fmt.Sprintf("the %s ciphertext was minted by issuer %q and the request is sent as %q", e.Format, iss, t.Issuer),
							Predicted: predictCiphertext(e.Data, "Encrypted content organization_id did not match the target organization."),
							Fix:       "drop the encrypted reasoning of turns minted by another identity (Carry does), or send with the minting identity"})
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
			Check:    checkAltered,
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
		if !ok || it.Meta().Format.Family() != FormatAnthropicClaude.Family() || !Replayable(it) {
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
		Predicted: predictClaudeBound,
		Fix:       "send the turn after the system prompt, tools and messages it was produced with, or drop its thinking blocks (or set thinking.block_binding.prefix_mismatch_behavior to \"drop_block\")"})
}

func clipHash(s string) string {
	if len(s) > 19 {
		return s[:19] + "…"
	}
	return s
}

func checkAltered(h *History, _ *Target, report func(Violation)) {
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
			buf = AppendDetail(buf[:0], it)
			sum := sha256.Sum256(buf)
			hex.Encode(hexd[:], sum[:])
			if len(want) == 7+64 && want[:7] == "sha256:" && want[7:] == string(hexd[:]) {
				continue
			}
			v := Violation{Turn: ti, Block: bi,
				Message: fmt.Sprintf("the %s %s item's replay bytes changed since capture", it.Meta().Format, it.Kind()),
				Fix:     "restore the item as captured (redact with Redact, which masks a display copy and keeps the replay bytes), or drop it"}
			switch f := it.Meta().Format; {
			case f.Family() == FormatAnthropicClaude.Family() && ti == last:
				v.Predicted = predictClaudeModified
			case f.Family() == FormatAnthropicClaude.Family():
				v.Predicted = predictClaudeSignature
			case f == FormatGoogleGemini:
				v.Predicted = predictGeminiForeign
			case responsesFamily(f):
				if e, ok := it.(*Encrypted); ok {
					v.Predicted = predictCiphertext(e.Data, "Encrypted content could not be decrypted or parsed.")
				}
			}
			report(v)
		}
	}
}
