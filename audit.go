package replay

import (
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"time"

	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/reqtape"
)

// Severity grades a violation by what the provider will do with the request.
type Severity string

const (
	// SeverityReject: the provider will answer with a 4xx error.
	SeverityReject Severity = "reject"
	// SeverityDegrade: the request goes through but reasoning is silently
	// lost or ignored.
	SeverityDegrade Severity = "degrade"
	// SeverityRisk: the outcome depends on the model or the account.
	SeverityRisk Severity = "risk"
)

// Target describes the request a history is about to be sent in. It
// marshals (encoding/json) as the report's "target" member: what the HTTP
// layer fills (Headers, which carry credentials, AccountCreated and Batch)
// is left out.
type Target struct {
	// API is the wire API of the request ("anthropic", "openai-responses").
	API string `json:"api,omitempty"`
	// Provider is the platform ("anthropic", "bedrock", "vertex", ...).
	Provider string `json:"provider,omitempty"`
	// Model is the model the request names.
	Model string `json:"model,omitempty"`
	// Account is the identity (organisation, account or key pool) the
	// request is sent with, when known.
	Account string `json:"account,omitempty"`
	// PrefixHash is the hash of the request as it stands before its latest
	// assistant turn (see [PrefixHashBefore]), when known: the latest turn's
	// recorded Provenance.PrefixHash must equal it on models that bind
	// reasoning to the conversation.
	PrefixHash string `json:"prefix_hash,omitempty"`
	// Tools reports whether tools are in play (declared, or tool calls in
	// the history).
	Tools bool `json:"tools"`
	// Store reports whether the provider stores responses (OpenAI
	// `store: true`), so that items may be referenced by id.
	Store bool `json:"store"`
	// Thinking reports whether reasoning is enabled on the request (for
	// Anthropic, any thinking type but "disabled"; a rule that holds for
	// one mode only, such as manual thinking's thinking-first, reads the
	// mode from the request).
	Thinking bool `json:"thinking"`
	// Headers are the HTTP headers the request is sent with (opt-in beta
	// flags live there), when known; nil means unknown, and the rules that
	// need them predict nothing. An HTTP layer fills them.
	Headers http.Header `json:"-"`
	// AccountCreated is when the account the request is sent with was
	// created, when known: providers enforce some rules only for accounts
	// created after a date.
	AccountCreated time.Time `json:"-"`
	// Batch reports that the request goes through the provider's batch
	// API, which may drop what the interactive API rejects.
	Batch bool `json:"-"`
}

// History is what [AuditReplay] checks: the assistant turns in the order
// they will be sent, and optionally the native request body that carries
// them.
type History struct {
	Turns []*Turn
	// Request is the native request body, when the caller has it; rules
	// that can locate a problem in it give a JSON Pointer.
	Request []byte
	// Pointers holds, when known, the JSON Pointer of each turn's element
	// in Request ("/messages/3"; for an API whose turn spans several input
	// items, the first of them), index for index with Turns. [AuditRequest]
	// fills it. A violation of a turn whose rule gave no pointer gets the
	// turn's pointer.
	Pointers []string

	// requestTape keeps where the values of Request lie, found by the
	// pass that validated it (a codec's request reader, or the audit):
	// the rules walk it instead of reading Request again. Its methods,
	// promoted, are how the codecs below the root reach it.
	requestTape
}

// requestTape is embedded in History under a name of its own, so that no
// field of it is exported.
type requestTape = reqtape.Holder

// Violation is one problem found by an audit. It marshals
// (encoding/json) as an element of the report's "violations".
type Violation struct {
	// Rule is the stable rule id, e.g. "anthropic/thinking-first".
	Rule string `json:"rule"`
	// Severity grades the consequence. A rule's check may set it when the
	// consequence depends on the case (who enforces it); else the rule's
	// own severity is taken.
	Severity Severity `json:"severity"`
	// Turn is the index in History.Turns, or -1.
	Turn int `json:"turn"`
	// Block is the index in that turn's Blocks, or -1.
	Block int `json:"block"`
	// Pointer is a JSON Pointer into History.Request, when one was given
	// and the rule can locate the problem there.
	Pointer string `json:"pointer,omitempty"`
	// Message says what is wrong, in one sentence.
	Message string `json:"message"`
	// Predicted is the provider error text the request would get, when the
	// provider is known to answer with one.
	Predicted string `json:"predicted,omitempty"`
	// Fix says how to repair the history.
	Fix string `json:"fix,omitempty"`
}

// Error renders the violation for logs. The text is not API.
func (v Violation) Error() string {
	s := v.Rule + ": " + v.Message
	if v.Turn >= 0 {
		s += " (turn " + strconv.Itoa(v.Turn)
		if v.Block >= 0 {
			s += ", block " + strconv.Itoa(v.Block)
		}
		s += ")"
	}
	return s
}

// Rule is one audit rule of a [ReplayContract].
type Rule struct {
	// ID is the stable rule id, "<api>/<name>".
	ID string
	// Severity is the severity of its violations.
	Severity Severity
	// Doc states the contract the rule checks, in one sentence.
	Doc string
	// Check inspects the history and calls report, before it returns,
	// for every violation found. It must be linear in the size of the
	// history. Check need not fill Rule and Severity: they are taken from
	// the Rule.
	Check func(h *History, t *Target, report func(Violation))
	// Covers lists the ids of cross-provider rules ([RuleForeignFormat],
	// ...) whose violation on a block this rule reports more precisely for
	// its target: when this rule reports a block, theirs on the same block
	// is left out. Declared by id, so renaming a rule never changes what is
	// reported silently.
	Covers []string
	// Symptoms are the provider error texts this rule's violations draw,
	// for reading an error response after the fact (the HTTP layer's
	// classifier walks the registry's rules for them).
	Symptoms []Symptom
}

// Symptom is one provider error text a [Rule] predicts, as a pattern an
// error message is matched against.
type Symptom struct {
	// Match is a regular expression (RE2 syntax, matched case-insensitively)
	// over the provider's error message.
	Match string
	// Fix names the one-shot repair of the request that fixes it (the HTTP
	// layer's names: "restore", "drop-reasoning", "drop-block", ...), ""
	// when none is known.
	Fix string
	// Also lists the ids of other rules the same text may mean, most likely
	// first (a provider answers several mistakes with one text). The rule
	// itself comes first, unless Also names it too: then it stands there.
	Also []string
	// Within, when set, is a regular expression the whole error body must
	// match too: the envelope of a platform that relays another API's
	// errors (its own rules then own the text). A symptom whose Within
	// matched is preferred to one without.
	Within string
	// Rank orders symptoms whose texts overlap: a higher rank is tried
	// first (a text that refines another's, e.g. a "Reason:" clause or an
	// id prefix).
	Rank int
}

// ReplayContract says what an API requires when reasoning is sent back.
type ReplayContract struct {
	// API is the codec's API name.
	API string
	// Summary says what must be replayed, when, and what may be dropped.
	Summary string
	// Rules are the audit rules that check the contract.
	Rules []Rule
	// Accepts lists the formats the target accepts back as they are: items
	// of these formats' families are replayed, items of any other format are
	// foreign to it (see [Carry] and the replay/foreign-format rule).
	Accepts []Format
	// Gateway reports that the target routes by model to several issuers
	// (OpenRouter): Accepts are then the formats of the model's vendor, nil
	// when the model does not say, and the platform of a turn is not
	// compared with the target's.
	Gateway bool
	// ToolIDs reports that the target's tool results name their call by id,
	// so every tool call needs a non-empty id, unique in the request
	// (Anthropic tool_use.id, OpenAI call_id, Bedrock toolUseId, chat
	// tool_calls[].id). [Carry] mints ids where they are missing or
	// repeated, and [RuleToolCallID] flags them.
	ToolIDs bool
	// Placeholder, when the target documents one, is the item written as
	// the signature of a function call that has none when the policy asks
	// for [Sentinel] (Gemini 3's skip value). Carry writes a copy.
	Placeholder ReasoningItem
}

// predict returns the error the target answers an item it refuses with:
// the first that the issuers it accepts declare (codecs.FormatTraits.Refuse).
func (rc *ReplayContract) predict(why uint8, it ReasoningItem, latest bool) string {
	for _, f := range rc.Accepts {
		if tr := f.traits(); tr.Refuse != nil {
			if s := tr.Refuse(why, it, latest); s != "" {
				return s
			}
		}
	}
	return ""
}

// Report is the result of an audit.
type Report struct {
	// Target is the request the history was audited for.
	Target Target `json:"target"`
	// Turns is the number of turns audited.
	Turns int `json:"turns"`
	// Items counts the reasoning items.
	Items int `json:"items"`
	// Signed counts the text items with a non-empty signature.
	Signed int `json:"signed"`
	// Formats counts the items per format ("" for none).
	Formats map[Format]int `json:"formats"`
	// Violations lists every violation found, in history order.
	Violations []Violation `json:"violations"`
}

// Clean reports whether the audit found no violation.
func (r Report) Clean() bool { return len(r.Violations) == 0 }

// Rejects reports whether any violation will make the provider reject the
// request.
func (r Report) Rejects() bool {
	for _, v := range r.Violations {
		if v.Severity == SeverityReject {
			return true
		}
	}
	return false
}

// Err joins the violations into one error, or returns nil when clean.
func (r Report) Err() error {
	errs := make([]error, len(r.Violations))
	for i, v := range r.Violations {
		errs[i] = v
	}
	return errors.Join(errs...)
}

// coreRules are the rules that hold for every API. Not a variable: a
// caller must not be able to remove one from every audit.
var coreRules = [...]Rule{
	{
		ID:       RuleIncompleteTurn,
		Severity: SeverityDegrade,
		Doc:      "A turn that did not complete (cut-off stream, provider error) is not replayed with its reasoning.",
		Check: func(h *History, _ *Target, report func(Violation)) {
			for ti, t := range h.Turns {
				if !t.Complete && hasItems(t) {
					report(Violation{Turn: ti, Block: -1,
						Message: "the turn did not complete; its reasoning cannot be trusted for replay",
						Fix:     "drop the turn's reasoning items (Carry does) or retry the request that produced it"})
				}
			}
		},
	},
	{
		ID:       RuleUnfinishedItem,
		Severity: SeverityReject,
		Doc:      "An unfinished reasoning item (its stream ended before it closed) is never sent.",
		Check: func(h *History, _ *Target, report func(Violation)) {
			forEachItem(h, func(ti, bi int, it ReasoningItem) {
				if it.Meta().Unfinished {
					report(Violation{Turn: ti, Block: bi,
						Message: "the reasoning item is unfinished: it may lack its signature or data",
						Fix:     "drop the item"})
				}
			})
		},
	},
	{
		ID:       RuleEmptySignature,
		Severity: SeverityReject,
		Doc: "Reasoning text of an issuer that rejects unsigned text (codecs.FormatTraits.RejectsUnsignedText) is sent only " +
			"with a non-empty signature. (Issuers whose unsigned summaries are valid by design are checked by their own codec's rules.)",
		Check: func(h *History, _ *Target, report func(Violation)) {
			forEachItem(h, func(ti, bi int, it ReasoningItem) {
				x, ok := it.(*ReasoningText)
				if !ok || x.Unfinished || x.Signed() {
					return
				}
				tr := x.Format.traits()
				if !tr.RejectsUnsignedText {
					return
				}
				report(Violation{Turn: ti, Block: bi,
					Message:   fmt.Sprintf("%s reasoning text without a signature (%s)", x.Format, x.Signature.Presence()),
					Predicted: tr.UnsignedTextError,
					Fix:       "drop the unsigned item; never send reasoning text of a signing issuer without its signature"})
			})
		},
	},
}

// hasItems reports whether t holds a reasoning item.
func hasItems(t *Turn) bool {
	for _, b := range t.Blocks {
		if _, ok := b.(ReasoningItem); ok {
			return true
		}
	}
	return false
}

func forEachItem(h *History, fn func(ti, bi int, it ReasoningItem)) {
	for ti, t := range h.Turns {
		for bi, b := range t.Blocks {
			if it, ok := b.(ReasoningItem); ok {
				fn(ti, bi, it)
			}
		}
	}
}

// AuditReplay checks a history against the contract of the target's API
// (found in [Default] by t.API, or by t.Provider and t.Model), the
// core rules, and the cross-provider rules (foreign formats for the
// formats the target accepts, ciphertext account, altered items: see
// [RuleForeignFormat] and the constants after it), and reports every
// violation.
func AuditReplay(h History, t Target) Report { return Default().AuditReplay(h, t) }

// AuditReplay is the package-level [AuditReplay] on this registry.
func (r *Registry) AuditReplay(h History, t Target) Report {
	rc, _ := r.contract(t)
	rules := append([]Rule(nil), coreRules[:]...)
	// A contract rule that covers a cross-provider rule ([Rule].Covers)
	// reports the same block more precisely: the cross-provider violation
	// on a block it reported is left out.
	type spot struct {
		rule      string
		turn, blk int
	}
	covered := map[spot]bool{}
	for _, rule := range rc.Rules {
		if len(rule.Covers) == 0 {
			rules = append(rules, rule)
			continue
		}
		check, covers := rule.Check, rule.Covers
		rule.Check = func(h *History, t *Target, report func(Violation)) {
			check(h, t, func(v Violation) {
				for _, id := range covers {
					covered[spot{id, v.Turn, v.Block}] = true
				}
				report(v)
			})
		}
		rules = append(rules, rule)
	}
	for _, rule := range append(crossRules(rc), toolIDRule(rc)) {
		id, check := rule.ID, rule.Check
		rule.Check = func(h *History, t *Target, report func(Violation)) {
			check(h, t, func(v Violation) {
				if !covered[spot{id, v.Turn, v.Block}] {
					report(v)
				}
			})
		}
		rules = append(rules, rule)
	}
	return audit(h, t, rules)
}

// Audit checks h against the contract's own rules only (not the core and
// cross-provider rules [AuditReplay] adds): what a codec's tests use to
// check its rules. A contract of rules of one's own audits by them:
// ReplayContract{Rules: rules}.Audit(h, t).
func (rc ReplayContract) Audit(h History, t Target) Report { return audit(h, t, rc.Rules) }

// audit checks h against the given rules: the engine behind [AuditReplay].
func audit(h History, t Target, rules []Rule) Report {
	h.readRequest()
	rep := Report{Target: t, Turns: len(h.Turns), Formats: map[Format]int{}}
	forEachItem(&h, func(_, _ int, it ReasoningItem) {
		rep.Items++
		rep.Formats[it.Meta().Format]++
		if x, ok := it.(*ReasoningText); ok && x.Signed() {
			rep.Signed++
		}
	})
	// One reporter serves every rule: a rule reports while its Check runs.
	var rule *Rule
	report := func(v Violation) {
		v.Rule = rule.ID
		if v.Severity == "" {
			v.Severity = rule.Severity
		}
		if v.Pointer == "" && v.Turn >= 0 && v.Turn < len(h.Pointers) {
			v.Pointer = h.Pointers[v.Turn]
		}
		rep.Violations = append(rep.Violations, v)
	}
	for i := range rules {
		rule = &rules[i]
		rule.Check(&h, &t, report)
	}
	sort.SliceStable(rep.Violations, func(i, j int) bool {
		a, b := rep.Violations[i], rep.Violations[j]
		if a.Turn != b.Turn {
			return a.Turn < b.Turn
		}
		return a.Block < b.Block
	})
	return rep
}

// MarshalJSON returns the report document (see the report schema in package
// schema).
func (r Report) MarshalJSON() ([]byte, error) { return r.AppendJSON(nil), nil }

// AppendJSON appends the report document to dst.
func (r *Report) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	dst = jsonw.Key(dst, "version")
	dst = jsonw.Int(dst, DocumentVersion)
	dst = jsonw.Key(dst, "target")
	dst = append(dst, '{')
	t := r.Target
	for _, kv := range [...]struct{ k, v string }{
		{"api", t.API}, {"provider", t.Provider}, {"model", t.Model},
		{"account", t.Account}, {"prefix_hash", t.PrefixHash},
	} {
		if kv.v != "" {
			dst = jsonw.Key(dst, kv.k)
			dst = jsonw.String(dst, kv.v)
		}
	}
	for _, kv := range [...]struct {
		k string
		v bool
	}{{"tools", t.Tools}, {"store", t.Store}, {"thinking", t.Thinking}} {
		dst = jsonw.Key(dst, kv.k)
		dst = jsonw.Bool(dst, kv.v)
	}
	dst = append(dst, '}')
	dst = jsonw.Key(dst, "clean")
	dst = jsonw.Bool(dst, r.Clean())
	dst = jsonw.Key(dst, "turns")
	dst = jsonw.Int(dst, r.Turns)
	dst = jsonw.Key(dst, "items")
	dst = jsonw.Int(dst, r.Items)
	dst = jsonw.Key(dst, "signed")
	dst = jsonw.Int(dst, r.Signed)
	dst = jsonw.Key(dst, "formats")
	dst = append(dst, '{')
	keys := make([]string, 0, len(r.Formats))
	for f := range r.Formats {
		keys = append(keys, string(f))
	}
	sort.Strings(keys)
	for _, k := range keys {
		dst = jsonw.Key(dst, k)
		dst = jsonw.Int(dst, r.Formats[Format(k)])
	}
	dst = append(dst, '}')
	dst = jsonw.Key(dst, "violations")
	dst = append(dst, '[')
	for _, v := range r.Violations {
		dst = jsonw.Comma(dst)
		dst = append(dst, '{')
		dst = jsonw.Key(dst, "rule")
		dst = jsonw.String(dst, v.Rule)
		dst = jsonw.Key(dst, "severity")
		dst = jsonw.String(dst, string(v.Severity))
		dst = jsonw.Key(dst, "turn")
		dst = jsonw.Int(dst, v.Turn)
		dst = jsonw.Key(dst, "block")
		dst = jsonw.Int(dst, v.Block)
		for _, kv := range [...]struct{ k, v string }{
			{"pointer", v.Pointer}, {"message", v.Message}, {"predicted", v.Predicted}, {"fix", v.Fix},
		} {
			if kv.v != "" || kv.k == "message" {
				dst = jsonw.Key(dst, kv.k)
				dst = jsonw.String(dst, kv.v)
			}
		}
		dst = append(dst, '}')
	}
	dst = append(dst, ']')
	return append(dst, '}')
}
