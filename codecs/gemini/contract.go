package gemini

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/gemsig"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/internal/view"
)

// Rule ids of the Gemini contract.
const (
	RuleMissingSignature     = "gemini/missing-signature"
	RuleInterleavedResponses = "gemini/interleaved-parallel-responses"
	RuleForeignSignature     = "gemini/foreign-signature"
	RuleBadBase64            = "gemini/bad-base64"
	RuleSentinel             = "gemini/sentinel-signature"
	RuleEncodedSentinel      = "gemini/encoded-sentinel"
)

// Contract returns what Gemini requires on replay. Gemini 3 and later
// validate the current turn (everything after the last user message with
// real content, not a bare function response): the first functionCall
// part of every model step must carry its signature, parallel calls go
// back all calls then all responses, and signatures must come from the
// same backend and be valid base64. Gemini 2.5 validates too since
// 2026-01-30 ([ValidatesSignatures]): a step of the current turn that lost
// its signature is rejected where the turn shows the model signed (it
// thinks), a risk where nothing in it is signed (thinking may be off).
// Gemini 2.0 and earlier accept replay without signatures, and earlier
// turns are not checked. A signature that encodes the documented dummy
// is corrupt on every model.
//
// For a Gemini 2.5 or later model the contract's Placeholder is
// [Sentinel], attached to the call it precedes.
func (c Codec) Contract() replay.ReplayContract {
	var placeholder replay.ReasoningItem
	if ValidatesSignatures(c.Model) {
		placeholder = &replay.Encrypted{ItemMeta: replay.ItemMeta{Format: formats.GoogleGemini, Attached: true}, Data: Sentinel}
	}
	return replay.ReplayContract{
		API:         API,
		Placeholder: placeholder,
		Accepts:     []replay.Format{formats.GoogleGemini},
		Summary: "Send each model turn back as {\"role\":\"model\",\"parts\":[...]} with every part in order and each " +
			"thoughtSignature on the part it came on, as the exact string received. On Gemini 3 the first " +
			"functionCall of every step of the current turn must be signed (else 400), parallel calls go back " +
			"as all calls then all responses, and signatures are bound to the backend (AI Studio or Vertex) that " +
			"minted them. Other signatures and thought parts may be dropped at a cost in quality only.",
		Rules: []replay.Rule{ruleMissing, ruleInterleaved, ruleForeign, ruleBase64, ruleSentinel, ruleEncodedSentinel},
	}
}

// Predicted error texts, as the Gemini API and Vertex AI word them.
func predictMissing(t *replay.Target, name string, content int) string {
	return gemsig.MissingText(backend(t.Provider) == "vertex", name, content)
}

func predictForeign(t *replay.Target) string {
	if backend(t.Provider) == "vertex" {
		return "Unable to submit request because Thought signature is not valid.. Learn more: https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/gemini"
	}
	return "Corrupted thought signature."
}

func predictBase64(content, part int, sig string) string {
	return string(appendPredictBase64(nil, content, part, sig))
}

// appendPredictBase64 appends predictBase64's text to dst.
func appendPredictBase64(dst []byte, content, part int, sig string) []byte {
	dst = append(dst, "Invalid value at 'contents["...)
	if content < 0 {
		dst = append(dst, "?].parts[?]"...)
	} else {
		dst = strconv.AppendInt(dst, int64(content), 10)
		dst = append(dst, "].parts["...)
		dst = strconv.AppendInt(dst, int64(part), 10)
		dst = append(dst, ']')
	}
	dst = append(dst, ".thought_signature' (TYPE_BYTES), Base64 decoding failed for \""...)
	dst = append(dst, sig...)
	return append(dst, '"')
}

// base64Texts returns the pointer and the predicted error of a request
// part whose signature is not base64, written into one string (the
// audit of a request whose every signature was re-encoded reports each).
func base64Texts(s reqCall) (pointer, predicted string) {
	b := make([]byte, 0, 2*len(sigPrefix)+len(s.sig)+120)
	b = appendSigPointer(b, s)
	n := len(b)
	all := view.String(appendPredictBase64(b, s.content, s.part, s.sig))
	return all[:n], all[n:]
}

// backend names the serving backend a provider name implies: "vertex",
// "aistudio", or "" when it does not say.
func backend(provider string) string {
	switch strings.ToLower(provider) {
	case "vertex", "vertex-ai", "vertexai", "google-vertex":
		return "vertex"
	case "aistudio", "ai-studio", "google-ai-studio", "gemini":
		return "aistudio"
	}
	return ""
}

func targetModel(h *replay.History, t *replay.Target) string {
	if t.Model != "" {
		return t.Model
	}
	if n := len(h.Turns); n > 0 {
		return h.Turns[n-1].Provenance.Model
	}
	return ""
}

// dummy reports whether sig is one of the documented validator-skipping
// values (not base64, accepted as they are).
func dummy(sig string) bool { return gemsig.Dummy(sig) }

// reqCall is a functionCall part of the request.
type reqCall struct {
	content, part int
	name, id, sig string
}

// request is the part of a request body the rules read.
type request struct {
	steps   [][]reqCall // functionCall parts of each model content of the current turn
	current int         // index of the first content of the current turn
	sigs    []reqCall   // every signed part of the request (name empty for non-calls)
	signed  []bool      // by content index: a part of the model content is signed (nil: none is)
}

// stepSigned reports whether a part of the model content ci is signed
// (Gemini 2.5 signs the first part of a step, whatever its type).
func (r *request) stepSigned(ci int) bool { return ci >= 0 && ci < len(r.signed) && r.signed[ci] }

// currentSigned reports whether any model step of the current turn is
// signed: the model thinks, and so signs.
func (r *request) currentSigned() bool {
	for ci := max(r.current, 0); ci < len(r.signed); ci++ {
		if r.signed[ci] {
			return true
		}
	}
	return false
}

// requestKey names parseRequest's walk of a request (see kit.Memo).
var requestKey = new(int)

// parseRequest reads h's request as the pass that read it found it: read
// once for every rule of an audit (what it returns must not be changed).
func parseRequest(h *replay.History) (*request, bool) {
	r := kit.Memo(h, requestKey, func(root jsonw.Val) any { return readRequest(root) }).(*request)
	return r, r != nil
}

// readRequest reads what the rules check of a request (nil when it has no
// contents array).
func readRequest(root jsonw.Val) *request {
	r := new(request)
	contents := root.Get("contents")
	if !contents.IsArray() {
		return nil
	}
	contents.ForEach(func(ci int, _ string, c jsonw.Val) bool {
		if !c.Get("role").Is("user") {
			return true
		}
		real := false
		c.Get("parts").Each(func(_ int, p jsonw.Val) bool {
			if !p.Get("functionResponse").Exists() {
				real = true
				return false
			}
			return true
		})
		if real {
			r.current = ci + 1
		}
		return true
	})
	// The steps' calls, one step after another, and where each step ends:
	// the steps are cut from one slice.
	var calls []reqCall
	var ends []int
	contents.ForEach(func(ci int, _ string, c jsonw.Val) bool {
		model := c.Get("role").Is("model")
		from := len(calls)
		pi := 0
		c.Get("parts").Each(func(_ int, p jsonw.Val) bool {
			fc := p.Get("functionCall")
			sig := p.Get("thoughtSignature")
			rc := reqCall{content: ci, part: pi, sig: sig.Result().String()}
			if fc.Exists() {
				rc.name, rc.id = fc.Get("name").Result().String(), fc.Get("id").Result().String()
				if model && ci >= r.current {
					calls = append(calls, rc)
				}
			}
			if sig.Exists() {
				r.sigs = append(r.sigs, rc)
				if model && rc.sig != "" {
					if r.signed == nil {
						r.signed = make([]bool, contents.Len())
					}
					r.signed[ci] = true
				}
			}
			pi++
			return true
		})
		if len(calls) > from {
			ends = append(ends, len(calls))
		}
		return true
	})
	if len(ends) > 0 {
		r.steps = make([][]reqCall, len(ends))
		from := 0
		for i, end := range ends {
			r.steps[i] = calls[from:end:end]
			from = end
		}
	}
	return r
}

// callCount returns the number of t's tool calls.
func callCount(t *replay.Turn) int {
	n := 0
	for _, b := range t.Blocks {
		if _, ok := b.(*replay.ToolCall); ok {
			n++
		}
	}
	return n
}

// interleaved returns the content indexes of model steps that hold a call
// of a parallel batch sent apart from its first call: a turn of the
// history has two or more calls, and the request puts them in different
// model contents.
func interleaved(h *replay.History, r *request) map[int]bool {
	bad := map[int]bool{}
	var flat []reqCall
	for _, s := range r.steps {
		flat = append(flat, s...)
	}
	cur := 0
	for _, t := range h.Turns {
		if callCount(t) < 2 {
			continue
		}
		calls := t.ToolCalls()
		first := -1
		for _, c := range calls {
			for j := cur; j < len(flat); j++ {
				if c.ID != "" && flat[j].id == c.ID || c.ID == "" && flat[j].name == c.Name {
					if first < 0 {
						first = flat[j].content
					} else if flat[j].content != first {
						bad[flat[j].content] = true
					}
					cur = j + 1
					break
				}
			}
		}
	}
	return bad
}

var ruleMissing = replay.Rule{
	ID:       RuleMissingSignature,
	Symptoms: []replay.Symptom{{Match: `missing a .?thought_signature`, Fix: codecs.FixRestore, Also: []string{RuleInterleavedResponses}}},
	Severity: replay.SeverityReject,
	Doc: "Gemini 3: the first functionCall part of every model step in the current turn carries its thought signature. " +
		"Gemini 2.5: every model step of the current turn that calls a function carries the signature the model gave it " +
		"(reject where the turn shows the model signed, risk where nothing is signed).",
	Check: func(h *replay.History, t *replay.Target, report func(replay.Violation)) {
		model := targetModel(h, t)
		if !ValidatesSignatures(model) {
			return
		}
		g3 := RequiresSignatures(model)
		if r, ok := parseRequest(h); ok {
			skip := interleaved(h, r)
			sev := severity25(g3, r.currentSigned() || historySigned(h))
			for _, s := range r.steps {
				fc := s[0]
				if fc.sig != "" || skip[fc.content] || !g3 && r.stepSigned(fc.content) {
					continue
				}
				report(replay.Violation{Turn: -1, Block: -1, Severity: sev,
					Pointer:   "/contents/" + strconv.Itoa(fc.content) + "/parts/" + strconv.Itoa(fc.part),
					Message:   missingMessage(g3, fc.name, sev),
					Predicted: predictMissing(t, fc.name, fc.content),
					Fix:       "send the turn's signatures back (Encode or Patch the turn as decoded); for history the model did not produce, drop it or, as a last resort, allow the skip_thought_signature_validator sentinel"})
			}
			return
		}
		// Without the request: the trailing turns that end in tool calls
		// are the current tool loop.
		start := len(h.Turns)
		for start > 0 && len(h.Turns[start-1].ToolCalls()) > 0 {
			start--
		}
		sev := severity25(g3, historySigned(h))
		for ti := start; ti < len(h.Turns); ti++ {
			tu := h.Turns[ti]
			if !g3 && turnSigned(tu) {
				continue
			}
			for bi, b := range tu.Blocks {
				c, ok := b.(*replay.ToolCall)
				if !ok {
					continue
				}
				if e, ok := gemsig.Bound(tu.Blocks, bi); ok && e.Replayable() {
					break
				}
				if signedByID(tu, c.ID) {
					break
				}
				report(replay.Violation{Turn: ti, Block: bi, Severity: sev,
					Message:   missingMessage(g3, c.Name, sev),
					Predicted: predictMissing(t, c.Name, contentIndex(ti)),
					Fix:       "keep the signature the call came with; for history the model did not produce, drop it or, as a last resort, allow the skip_thought_signature_validator sentinel"})
				break
			}
		}
	},
}

// severity25 is the severity of a missing signature: reject on Gemini 3;
// on Gemini 2.5 reject when the conversation shows the model signs, else
// risk (2.5 signs only when it thinks; Google's notice of 2026-01-30 and
// the reports on 2.5 Flash do not say whether an unthinking turn passes).
func severity25(g3, signs bool) replay.Severity {
	if g3 || signs {
		return replay.SeverityReject
	}
	return replay.SeverityRisk
}

func missingMessage(g3 bool, name string, sev replay.Severity) string {
	switch {
	case g3:
		return fmt.Sprintf("function call %q is the first call of a model step in the current turn and has no thoughtSignature", name)
	case sev == replay.SeverityReject:
		return fmt.Sprintf("function call %q is in a model step of the current turn with no thoughtSignature, and the model signs its steps (Gemini 2.5 validates signatures since 2026-01-30)", name)
	}
	return fmt.Sprintf("function call %q is in a model step of the current turn with no thoughtSignature; Gemini 2.5 validates signatures since 2026-01-30 when it thinks", name)
}

// historySigned reports whether a turn of h carries a Gemini signature.
func historySigned(h *replay.History) bool {
	for _, tu := range h.Turns {
		if turnSigned(tu) {
			return true
		}
	}
	return false
}

// turnSigned reports whether t carries a replayable Gemini signature.
func turnSigned(t *replay.Turn) bool {
	for _, b := range t.Blocks {
		if _, ok := blockSig(b); ok {
			return true
		}
	}
	return false
}

// blockSig returns the Gemini signature block b carries: a replayable
// Gemini encrypted item's data, or a signed Gemini thought's signature.
func blockSig(b replay.Block) (string, bool) {
	switch x := b.(type) {
	case *replay.Encrypted:
		if x.Format == formats.GoogleGemini && x.Replayable() {
			return x.Data, true
		}
	case *replay.ReasoningText:
		if x.Format == formats.GoogleGemini && x.Signed() {
			return x.Signature.Value(), true
		}
	}
	return "", false
}

// sigPointer is the JSON Pointer of a request part's thoughtSignature.
func sigPointer(s reqCall) string { return string(appendSigPointer(nil, s)) }

// sigPrefix is how a thoughtSignature's pointer starts.
const sigPrefix = "/contents/"

// appendSigPointer appends sigPointer's text to dst.
func appendSigPointer(dst []byte, s reqCall) []byte {
	dst = append(dst, sigPrefix...)
	dst = strconv.AppendInt(dst, int64(s.content), 10)
	dst = append(dst, "/parts/"...)
	dst = strconv.AppendInt(dst, int64(s.part), 10)
	return append(dst, "/thoughtSignature"...)
}

// contentIndex guesses the contents[] index of the ti-th model turn when
// the request is not given: user, model, user, model, ...
func contentIndex(ti int) int { return 2*ti + 1 }

func signedByID(t *replay.Turn, id string) bool {
	if id == "" {
		return false
	}
	for _, b := range t.Blocks {
		if e, ok := b.(*replay.Encrypted); ok && e.Format == formats.GoogleGemini &&
			e.ID.Value() == id && e.Replayable() {
			return true
		}
	}
	return false
}

var ruleInterleaved = replay.Rule{
	ID:       RuleInterleavedResponses,
	Severity: replay.SeverityReject,
	Doc:      "Gemini 3 (and 2.5, as a risk): parallel function calls go back together, then all their responses (FC1, FC2, FR1, FR2), never interleaved.",
	Check: func(h *replay.History, t *replay.Target, report func(replay.Violation)) {
		model := targetModel(h, t)
		if !ValidatesSignatures(model) {
			return
		}
		sev := severity25(RequiresSignatures(model), false)
		r, ok := parseRequest(h)
		if !ok {
			return
		}
		bad := interleaved(h, r)
		for _, s := range r.steps {
			fc := s[0]
			if !bad[fc.content] || fc.sig != "" {
				continue
			}
			report(replay.Violation{Turn: -1, Block: -1, Severity: sev,
				Pointer:   "/contents/" + strconv.Itoa(fc.content) + "/parts/" + strconv.Itoa(fc.part),
				Message:   fmt.Sprintf("function call %q belongs to a parallel batch but is sent in a model message of its own, after the response of an earlier call of the batch", fc.name),
				Predicted: predictMissing(t, fc.name, fc.content),
				Fix:       "send one model message with all the batch's calls (the first signed), then one user message with all the function responses"})
		}
	},
}

var ruleForeign = replay.Rule{
	ID: RuleForeignSignature,
	Symptoms: []replay.Symptom{{Match: `corrupted thought signature|thought signature is not valid`, Fix: codecs.FixDropReasoning,
		Also: []string{RuleEncodedSentinel, replay.RuleForeignFormat}}},
	Covers:   []string{replay.RuleForeignFormat},
	Severity: replay.SeverityReject,
	Doc: "Gemini 2.5 and later: a thought signature goes back only to the backend that minted it (AI Studio and Vertex do not share keys), " +
		"and only Gemini signatures go in thoughtSignature (a Claude signature copied onto a function call is refused).",
	Check: func(h *replay.History, t *replay.Target, report func(replay.Violation)) {
		if !ValidatesSignatures(targetModel(h, t)) {
			return
		}
		if r, ok := parseRequest(h); ok {
			foreign := foreignSignatures(h)
			for _, s := range r.sigs {
				f, ok := foreign[s.sig]
				if !ok || s.sig == "" {
					continue
				}
				report(replay.Violation{Turn: f.turn, Block: f.block, Pointer: sigPointer(s),
					Message:   fmt.Sprintf("the thoughtSignature is the %s signature of turn %d, block %d: Gemini reads only its own", f.format, f.turn, f.block),
					Predicted: predictForeign(t),
					Fix:       "drop the signature (Carry drops other issuers' items); send the call unsigned only where the model did not produce it, or with the sentinel"})
			}
		}
		want := backend(t.Provider)
		for ti, tu := range h.Turns {
			got := backend(tu.Provenance.Provider)
			for bi, b := range tu.Blocks {
				e, ok := b.(*replay.Encrypted)
				if !ok || !e.Attached || !e.Replayable() || dummy(e.Data) {
					continue
				}
				switch {
				case e.Format != formats.GoogleGemini && e.Format != "":
					report(replay.Violation{Turn: ti, Block: bi,
						Message:   fmt.Sprintf("a %s item is bound to a part as if it were a Gemini thought signature", e.Format),
						Predicted: predictForeign(t),
						Fix:       "drop items of other issuers; Gemini accepts only its own signatures"})
				case want != "" && got != "" && want != got:
					report(replay.Violation{Turn: ti, Block: bi,
						Message:   fmt.Sprintf("the signature was minted by %s and the request goes to %s", got, want),
						Predicted: predictForeign(t),
						Fix:       "send the request to the backend that produced the turn, or drop the turn's signatures and start a new turn with a user message"})
				}
			}
		}
	},
}

// foreignSig is where a signature or blob of another issuer sits in the
// history.
type foreignSig struct {
	turn, block int
	format      replay.Format
}

// foreignSignatures maps the signatures and blobs the history's turns hold
// from issuers other than Gemini to where they sit.
func foreignSignatures(h *replay.History) map[string]foreignSig {
	out := map[string]foreignSig{}
	for ti, tu := range h.Turns {
		for bi, b := range tu.Blocks {
			var sig string
			var f replay.Format
			switch x := b.(type) {
			case *replay.ReasoningText:
				sig, f = x.Signature.Value(), x.Format
			case *replay.Encrypted:
				sig, f = x.Data, x.Format
			}
			if sig == "" || f == "" || f == formats.GoogleGemini {
				continue
			}
			if _, dup := out[sig]; !dup {
				out[sig] = foreignSig{ti, bi, f}
			}
		}
	}
	return out
}

var ruleBase64 = replay.Rule{
	ID:       RuleBadBase64,
	Symptoms: []replay.Symptom{{Match: `thought_signature' \(TYPE_BYTES\), base64 decoding failed`, Fix: codecs.FixRestore}},
	Severity: replay.SeverityReject,
	Doc:      "Every thoughtSignature is valid standard base64 (or a documented dummy value), sent as the exact string received.",
	Check: func(h *replay.History, t *replay.Target, report func(replay.Violation)) {
		if r, ok := parseRequest(h); ok {
			for _, s := range r.sigs {
				if dummy(s.sig) || gemsig.ValidBase64(s.sig) {
					continue
				}
				ptr, pred := base64Texts(s)
				report(replay.Violation{Turn: -1, Block: -1,
					Pointer:   ptr,
					Message:   "the thoughtSignature is not valid base64",
					Predicted: pred,
					Fix:       "send the signature exactly as received: do not re-encode it (URL-safe alphabet), trim or truncate it"})
			}
			return
		}
		for ti, tu := range h.Turns {
			for bi, b := range tu.Blocks {
				sig, ok := blockSig(b)
				if !ok || dummy(sig) || gemsig.ValidBase64(sig) {
					continue
				}
				report(replay.Violation{Turn: ti, Block: bi,
					Message:   "the thought signature is not valid base64",
					Predicted: predictBase64(-1, -1, sig),
					Fix:       "keep the signature exactly as received: do not re-encode it (URL-safe alphabet), trim or truncate it"})
			}
		}
	},
}

var ruleSentinel = replay.Rule{
	ID:       RuleSentinel,
	Severity: replay.SeverityDegrade,
	Doc:      "The skip_thought_signature_validator sentinel passes validation but degrades the model; it is reported wherever it is sent.",
	Check: func(h *replay.History, t *replay.Target, report func(replay.Violation)) {
		msg := "a function call carries the skip_thought_signature_validator sentinel instead of its signature"
		fix := "send the call's real signature; the sentinel is a last resort for history the model did not produce"
		if r, ok := parseRequest(h); ok {
			for _, s := range r.sigs {
				if dummy(s.sig) {
					report(replay.Violation{Turn: -1, Block: -1,
						Pointer: sigPointer(s),
						Message: msg, Fix: fix})
				}
			}
			return
		}
		for ti, tu := range h.Turns {
			for bi, b := range tu.Blocks {
				if e, ok := gemsig.Is(b); ok && dummy(e.Data) {
					report(replay.Violation{Turn: ti, Block: bi, Message: msg, Fix: fix})
				}
			}
		}
	},
}

var ruleEncodedSentinel = replay.Rule{
	ID:       RuleEncodedSentinel,
	Severity: replay.SeverityReject,
	Doc: "The dummy signature is the plain string skip_thought_signature_validator; a base64 encoding of it (any value " +
		"that decodes to a dummy) is a corrupt signature, not the dummy.",
	Check: func(h *replay.History, t *replay.Target, report func(replay.Violation)) {
		msg := "the thoughtSignature is a base64 encoding of the skip_thought_signature_validator dummy: Gemini reads it as a corrupt signature, not as the dummy"
		fix := "send the call's real signature; where none exists, send the plain string skip_thought_signature_validator, never an encoding of it"
		if r, ok := parseRequest(h); ok {
			for _, s := range r.sigs {
				if gemsig.EncodedDummy(s.sig) {
					report(replay.Violation{Turn: -1, Block: -1,
						Pointer: sigPointer(s),
						Message: msg, Predicted: predictForeign(t), Fix: fix})
				}
			}
			return
		}
		for ti, tu := range h.Turns {
			for bi, b := range tu.Blocks {
				if sig, ok := blockSig(b); ok && gemsig.EncodedDummy(sig) {
					report(replay.Violation{Turn: ti, Block: bi, Message: msg, Predicted: predictForeign(t), Fix: fix})
				}
			}
		}
	},
}
