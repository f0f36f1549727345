package openai

import (
	"slices"
	"strconv"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/tidwall/gjson"
)

// Rule ids of the contract.
const (
	RuleReasoningWithoutFollower = "openai/reasoning-without-follower"
	RuleFollowerWithoutReasoning = "openai/follower-without-reasoning"
	RuleStoreFalseNoEncrypted    = "openai/store-false-without-encrypted"
	RuleEncryptedAltered         = "openai/encrypted-altered-or-foreign"
	RuleForeignFormat            = "openai/foreign-format"
	RuleReasoningContent         = "openai/reasoning-content"
	RuleReasoningStatus          = "openai/reasoning-status"
	RuleReasoningSummary         = "openai/reasoning-summary"
	RuleCompactionForeign        = "openai/compaction-foreign"
	RuleReasoningEffort          = "openai/reasoning-effort"
	RuleRouteRefusesReasoning    = "openai/route-refuses-reasoning"
	RuleReasoningTextDropped     = "openai/reasoning-text-dropped"
)

// Texts the rules predict that more than one rule uses.
const (
	// xAI's answer to ciphertext it cannot decrypt (altered, foreign, of
	// another account).
	predictXAIDecrypt = "Could not decrypt the provided encrypted_content. Ensure the value is the unmodified encrypted_content from a previous response."
)

// Contract returns the Responses replay contract. Rules that compare what is
// sent with what was produced read History.Request (a request body with an
// `input` array) when it is given, and otherwise check the turns as
// [Codec.Encode] would send them if written by hand. Unfinished items and
// incomplete turns are the core rules' business and are skipped here.
func (c Codec) Contract() replay.ReplayContract {
	return replay.ReplayContract{
		API:     API,
		ToolIDs: true,
		Accepts: []replay.Format{c.format()},
		Summary: "Send every output item of the previous response back in `input`, in order, each reasoning item " +
			"immediately followed by the item that followed it, with its original id. With store=false send the " +
			"whole reasoning item with its encrypted_content, byte for byte; with store=true an item_reference " +
			"is enough. Never send one issuer's (organisation's, host's) reasoning to another. Omit output-only status.",
		Rules: []replay.Rule{
			{ID: RuleReasoningWithoutFollower, Severity: replay.SeverityReject,
				Doc:      "A reasoning item is immediately followed by the item that followed it in the output, carrying its id.",
				Check:    checkFollower,
				Symptoms: []replay.Symptom{{Match: `of type 'reasoning' was provided without its required following item`, Fix: codecs.FixDropReasoning}}},
			{ID: RuleFollowerWithoutReasoning, Severity: replay.SeverityReject,
				Doc:      "A message or function_call sent with its original id is immediately preceded by its reasoning item (checked on History.Request); from the request alone, an fc_/msg_ id with no reasoning item before it in its turn, to a reasoning model.",
				Check:    checkPredecessor,
				Symptoms: []replay.Symptom{{Match: `was provided without its required 'reasoning' item`, Fix: codecs.FixRestore}}},
			{ID: RuleStoreFalseNoEncrypted, Severity: replay.SeverityReject,
				Doc:      "With store=false every reasoning item is sent whole with its encrypted_content, never by reference.",
				Check:    checkStoreFalse,
				Symptoms: []replay.Symptom{{Match: "not found\\. items are not persisted when .?store.? is set to false", Fix: codecs.FixRestore}}},
			{ID: RuleEncryptedAltered, Severity: replay.SeverityReject,
				Doc:   "Encrypted content is sent byte-exact with its original id, to the organisation that minted it.",
				Check: checkAltered,
				Symptoms: []replay.Symptom{
					{Match: `encrypted content .*could not be (verified|decrypted)`, Fix: codecs.FixDropReasoning, Also: []string{RuleForeignFormat, replay.RuleForeignFormat}},
					{Match: `organization_id did not match`, Fix: codecs.FixDropReasoning, Also: []string{replay.RuleIdentityMismatch, RuleEncryptedAltered}, Rank: 1},
					// xAI.
					{Match: `could not decrypt the provided encrypted_content`, Fix: codecs.FixDropReasoning,
						Also: []string{RuleForeignFormat, replay.RuleForeignFormat, replay.RuleIdentityMismatch}},
					// A gateway that binds ciphertext to its own caller (OpenCode Zen).
					{Match: "reasoning .?encrypted_content.? was not issued to this caller", Fix: codecs.FixDropReasoning,
						Also: []string{replay.RuleIdentityMismatch, RuleForeignFormat}},
					{Match: `invalid type for 'input\[\d+\]\.encrypted_content': expected a string`, Fix: codecs.FixDropReasoning},
				}},
			{ID: RuleReasoningContent, Severity: replay.SeverityReject,
				Doc:      "An input reasoning item sent to OpenAI or Azure has no `content` (or an empty one); only hosts that serve open-weight models take reasoning_text back.",
				Check:    checkReasoningContent,
				Symptoms: []replay.Symptom{{Match: `'input\[\d+\]\.content': array too long`, Fix: codecs.FixReencode}}},
			{ID: RuleReasoningStatus, Severity: replay.SeverityReject,
				Doc:      "An input reasoning item sent to OpenAI or Azure has no `status` member (it is output-only).",
				Check:    checkReasoningStatus,
				Symptoms: []replay.Symptom{{Match: `unknown parameter: 'input\[\d+\]\.status'`, Fix: codecs.FixReencode}}},
			{ID: RuleReasoningSummary, Severity: replay.SeverityReject,
				Doc:      "An input reasoning item carries `summary` (`[]` when empty); xAI also refuses `content: null`.",
				Check:    checkReasoningSummary,
				Symptoms: []replay.Symptom{{Match: `missing required parameter: 'input\[\d+\]\.summary'|could not decode the compaction blob`, Fix: codecs.FixReencode}}},
			{ID: RuleCompactionForeign, Severity: replay.SeverityReject,
				Doc:      "A compaction item goes back only to the API, host and account that minted it.",
				Check:    checkCompaction,
				Symptoms: []replay.Symptom{{Match: `encrypted content for item cmp_\S* could not be verified`, Fix: codecs.FixDropReasoning, Rank: 2}}},
			{ID: RuleForeignFormat, Severity: replay.SeverityReject, Covers: []string{replay.RuleForeignFormat},
				Doc:   "Reasoning items are sent only to the host whose format minted them (xAI items are not OpenAI items).",
				Check: checkForeign,
				Symptoms: []replay.Symptom{{Match: "encrypted content missing recognized prefix", Fix: codecs.FixDropReasoning,
					Also: []string{RuleEncryptedAltered, replay.RuleForeignFormat}}}},
			{ID: RuleReasoningEffort, Severity: replay.SeverityReject,
				Doc:      "`reasoning.effort` is one the model takes (gpt-5.6-luna: none, low, medium, high, xhigh, max; GPT-6 and 6.1: no none).",
				Check:    checkEffort,
				Symptoms: []replay.Symptom{{Match: `unsupported value: '[^']*' is not supported with the '[^']*' model`, Fix: codecs.FixConfigure}}},
			{ID: RuleRouteRefusesReasoning, Severity: replay.SeverityReject,
				Doc: "A route that does not take encrypted reasoning back gets none: xAI's OAuth (SuperGrok) surface refuses it " +
					"where the API-key route takes it (provider \"xai-oauth\").",
				Check:    checkRoute,
				Symptoms: []replay.Symptom{{Match: `each message must have at least one content element`, Fix: codecs.FixDropReasoning}}},
			{ID: RuleReasoningTextDropped, Severity: replay.SeverityDegrade,
				Doc: "A host that issues no ciphertext and takes reasoning_text back (DeepSeek's Responses endpoint, vLLM, SGLang) gets each " +
					"reasoning item with its text; an item sent without it carries no reasoning.",
				Check: checkTextDropped},
		},
	}
}

// pair is a reasoning item of the history and what followed it.
type pair struct {
	turn, block int
	g           group
	follower    *group // nil when the item ended the turn
	data        string // encrypted content, "" when none
	finished    bool
}

// historyPairs lists the reasoning items of the history. The groups of
// every turn are cut into one array, which the pairs' followers point
// into.
func historyPairs(h *replay.History) []pair {
	n := 0
	for _, t := range h.Turns {
		n += len(t.Blocks) // a group is one block or more
	}
	all := make([]group, 0, n)
	ends := make([]int, len(h.Turns)) // where each turn's groups end in all
	for ti, t := range h.Turns {
		all = appendGroups(all, t)
		ends[ti] = len(all)
	}
	reasoning := 0
	for _, g := range all {
		if g.kind == gReasoning {
			reasoning++
		}
	}
	var out []pair
	if reasoning > 0 {
		out = make([]pair, 0, reasoning)
	}
	start := 0
	for ti, t := range h.Turns {
		gs := all[start:ends[ti]]
		start = ends[ti]
		for i, g := range gs {
			if g.kind != gReasoning {
				continue
			}
			p := pair{turn: ti, block: g.start, g: g, finished: true}
			if i+1 < len(gs) {
				p.follower = &gs[i+1]
			}
			for _, b := range t.Blocks[g.start:g.end] {
				switch x := b.(type) {
				case *replay.Encrypted:
					if p.data == "" {
						p.data = x.Data
					}
					p.finished = p.finished && !x.Unfinished
				case replay.ReasoningItem:
					p.finished = p.finished && !x.Meta().Unfinished
				case *replay.Native:
					p.finished = p.finished && !x.Unfinished
				}
			}
			out = append(out, p)
		}
	}
	return out
}

// input is one element of the request's input array.
type input struct {
	typ, id, callID string
	enc             gjson.Result
	role            string
	el              jsonw.Val
	run             int // the assistant run it belongs to, -1 outside one
}

// inputKey names requestInput's walk of a request (see kit.Memo).
var inputKey = new(int)

// requestInput lists the elements of h's request's input array, the same
// list for every rule of one audit (it must not be changed); false when
// there is no input array.
func requestInput(h *replay.History) ([]input, bool) {
	in := kit.Memo(h, inputKey, func(root jsonw.Val) any { return readInput(root) }).([]input)
	return in, in != nil
}

// readInput lists the elements of a request's input array (nil when
// there is none).
func readInput(root jsonw.Val) []input {
	arr := root.Get("input")
	if !arr.IsArray() {
		return nil
	}
	out := make([]input, 0, arr.Len())
	run, in := -1, false
	arr.ForEach(func(_ int, _ string, el jsonw.Val) bool {
		x := inputOf(el)
		if isAssistantItem(x.typ, x.role) {
			if !in {
				run++
			}
			in, x.run = true, run
		} else {
			in = false
		}
		out = append(out, x)
		return true
	})
	return out
}

// inputOf reads the members of an input element the rules look at, in
// one walk of its members (by name, as Get finds them: a name written
// with escapes is looked up by Get).
func inputOf(el jsonw.Val) input {
	x := input{el: el, run: -1}
	if !el.IsObject() {
		return x
	}
	escaped := false
	el.ForEach(func(_ int, name string, v jsonw.Val) bool {
		switch name {
		case `"type"`:
			x.typ = v.Str()
		case `"id"`:
			x.id = v.Str()
		case `"call_id"`:
			x.callID = v.Str()
		case `"encrypted_content"`:
			x.enc = v.Result()
		case `"role"`:
			x.role = v.Str()
		default:
			escaped = escaped || strings.IndexByte(name, '\\') >= 0
		}
		return true
	})
	if escaped {
		x = input{typ: el.Get("type").Str(), id: el.Get("id").Str(), callID: el.Get("call_id").Str(),
			enc: el.Get("encrypted_content").Result(), role: el.Get("role").Str(), el: el, run: -1}
	}
	return x
}

// official reports whether the target is OpenAI's own API or Azure's,
// which validate input reasoning items strictly.
func official(t *replay.Target) bool {
	if TakesReasoningText(t.Provider) {
		return false
	}
	f := FormatFor(t.Provider)
	return f == formats.OpenAIResponses || f == formats.AzureOpenAIResponses
}

func checkReasoningContent(h *replay.History, t *replay.Target, report func(replay.Violation)) {
	in, ok := requestInput(h)
	if !ok || !official(t) {
		return
	}
	for i, el := range in {
		c := el.el.Get("content")
		if el.typ != "reasoning" || !c.IsArray() {
			continue
		}
		n := c.Len()
		if n == 0 {
			continue
		}
		report(replay.Violation{Turn: -1, Block: -1, Pointer: ptr(i) + "/content",
			Message: "the input reasoning item carries its reasoning text as content, which " + describe(t) + " refuses",
			Predicted: "Invalid 'input[" + strconv.Itoa(i) + "].content': array too long. Expected an array with maximum length 0, " +
				"but got an array with length " + strconv.Itoa(n) + " instead.",
			Fix: "send the reasoning item with id, summary and encrypted_content only (Encode does); reasoning_text goes back only to hosts that take it (Codec.ReasoningText)"})
	}
}

func checkReasoningStatus(h *replay.History, t *replay.Target, report func(replay.Violation)) {
	in, ok := requestInput(h)
	if !ok || !official(t) {
		return
	}
	for i, el := range in {
		if el.typ != "reasoning" || !el.el.Get("status").Exists() {
			continue
		}
		report(replay.Violation{Turn: -1, Block: -1, Pointer: ptr(i) + "/status",
			Message:   "the input reasoning item carries the output-only status member",
			Predicted: "Unknown parameter: 'input[" + strconv.Itoa(i) + "].status'.",
			Fix:       "leave status out of input reasoning items (Encode does)"})
	}
}

func checkReasoningSummary(h *replay.History, t *replay.Target, report func(replay.Violation)) {
	in, ok := requestInput(h)
	if !ok {
		return
	}
	xai := FormatFor(t.Provider) == formats.XAIResponses
	for i, el := range in {
		if el.typ != "reasoning" {
			continue
		}
		missing := !el.el.Get("summary").Exists()
		nullContent := el.el.Get("content").IsNull()
		var v replay.Violation
		switch {
		case xai && (missing || nullContent):
			v.Message = "the input reasoning item lacks summary or carries content: null, which xAI cannot decode"
			v.Predicted = "Could not decode the compaction blob. Ensure it is unmodified from the compact response."
		case missing && (official(t) || t.Provider == ""):
			v.Message = "the input reasoning item has no summary member"
			v.Predicted = "Missing required parameter: 'input[" + strconv.Itoa(i) + "].summary'."
		default:
			continue
		}
		v.Turn, v.Block, v.Pointer = -1, -1, ptr(i) // built only for a violation
		v.Fix = "send summary (an empty array when there is none) and leave content out (Encode does)"
		report(v)
	}
}

func describe(t *replay.Target) string {
	if t.Provider == "" {
		return "openai"
	}
	return t.Provider
}

func ptr(i int) string { return "/input/" + strconv.Itoa(i) }

// isReasoningInput reports whether an input element is a reasoning item,
// or a reference to one (an `rs_` id: a reference to a message or a call
// is its follower).
func isReasoningInput(in input) bool {
	return in.typ == "reasoning" || in.typ == "item_reference" && strings.HasPrefix(in.id, "rs_")
}

func itemType(t *replay.Turn, g *group) string {
	switch g.kind {
	case gMessage:
		return "message"
	case gCall:
		if gjson.GetBytes(t.Blocks[g.start].(*replay.ToolCall).Extra, "item_type").Str == "custom_tool_call" {
			return "custom_tool_call"
		}
		return "function_call"
	case gNative:
		return t.Blocks[g.start].(*replay.Native).Kind
	}
	return "reasoning"
}

func predictFollower(id string) string {
	return "Item '" + id + "' of type 'reasoning' was provided without its required following item."
}

func checkFollower(h *replay.History, _ *replay.Target, report func(replay.Violation)) {
	pairs := historyPairs(h)
	if in, ok := requestInput(h); ok {
		byID := make(map[string]*pair, len(pairs))
		for i := range pairs {
			if pairs[i].g.id != "" {
				byID[pairs[i].g.id] = &pairs[i]
			}
		}
		for i, el := range in {
			if !isReasoningInput(el) || el.id == "" {
				continue
			}
			p := byID[el.id]
			next := i+1 < len(in)
			msg := "the reasoning item is not immediately followed by the item that followed it in the output"
			switch {
			case next && isReasoningInput(in[i+1]):
				// A reasoning item is never followed by another: the item
				// between them (a web_search_call, say) was dropped.
				msg = "the reasoning item is followed directly by another reasoning item: the item between them in the output was dropped"
			case p == nil:
				// Not from this history: it needs some follower at least.
				if next && in[i+1].id != "" {
					continue
				}
			case p.follower != nil && p.follower.id != "" && next && in[i+1].id == p.follower.id:
				continue
			}
			v := replay.Violation{Turn: -1, Block: -1, Pointer: ptr(i),
				Message:   msg,
				Predicted: predictFollower(el.id),
				Fix:       "send the reasoning item directly before its original message or function_call, with that item's id, or drop both the reasoning item and that id"}
			if p != nil {
				v.Turn, v.Block = p.turn, p.block
			}
			report(v)
		}
		return
	}
	for _, p := range pairs {
		if !p.finished || p.g.id == "" {
			continue
		}
		if p.follower != nil && p.follower.kind != gReasoning && p.follower.id != "" {
			continue
		}
		report(replay.Violation{Turn: p.turn, Block: p.block,
			Message:   "the reasoning item has no following output item that carries its id in the turn",
			Predicted: predictFollower(p.g.id),
			Fix:       "keep the reasoning item and its following item together with its id, or drop the reasoning item (Encode does)"})
	}
}

// unpaired decides from the request alone: a function_call that keeps its
// `fc_` id, or an assistant message that keeps its `msg_` id, with no
// reasoning item before it in its assistant run, is refused by a reasoning
// model (the id names an item OpenAI paired with reasoning). An item sent
// without its id (stripped, as it should be) is never reported.
func unpaired(el input, i int, reasoned map[int]bool, t *replay.Target) (replay.Violation, bool) {
	if el.run < 0 || reasoned[el.run] || !reasoningModel(t) {
		return replay.Violation{}, false
	}
	typ := el.typ
	switch {
	case (typ == "function_call" && strings.HasPrefix(el.id, "fc_")) || (typ == "custom_tool_call" && strings.HasPrefix(el.id, "ctc_")):
	case (typ == "message" || typ == "") && el.role == "assistant" && strings.HasPrefix(el.id, "msg_"):
		typ = "message"
	default:
		return replay.Violation{}, false
	}
	return replay.Violation{Turn: -1, Block: -1, Pointer: ptr(i),
		Message:   "the " + typ + " keeps its original id " + strconv.Quote(el.id) + " but no reasoning item is sent before it in its turn",
		Predicted: "Item '" + el.id + "' of type '" + typ + "' was provided without its required 'reasoning' item",
		Fix:       "send the reasoning item that preceded it (whole, with its encrypted_content) right before it, or send the item without its id"}, true
}

// reasoningModel reports whether the target is a reasoning model: the
// request configures `reasoning`, or the model is an o-series, GPT-5 or
// Codex model.
func reasoningModel(t *replay.Target) bool {
	if t.Thinking {
		return true
	}
	m := strings.ToLower(t.Model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	for _, p := range []string{"o1", "o3", "o4", "gpt-5", "codex", "gpt-oss", "computer-use"} {
		if strings.HasPrefix(m, p) {
			return true
		}
	}
	return false
}

func checkPredecessor(h *replay.History, t *replay.Target, report func(replay.Violation)) {
	in, ok := requestInput(h)
	if !ok {
		return
	}
	pairs := historyPairs(h)
	byFollower := make(map[string]*pair, len(pairs))
	for i := range pairs {
		p := &pairs[i]
		if p.follower != nil && p.follower.id != "" && p.g.id != "" {
			byFollower[p.follower.id] = p
		}
	}
	reasoned := make(map[int]bool, len(pairs)) // assistant runs with a reasoning item so far
	for i, el := range in {
		if isReasoningInput(el) && el.run >= 0 {
			reasoned[el.run] = true
		}
		if el.id == "" || isReasoningInput(el) {
			continue
		}
		p := byFollower[el.id]
		if p == nil {
			if v, bad := unpaired(el, i, reasoned, t); bad {
				report(v)
			}
			continue
		}
		if i > 0 && isReasoningInput(in[i-1]) && in[i-1].id == p.g.id {
			continue
		}
		typ := el.typ
		if typ == "" {
			typ = itemType(h.Turns[p.turn], p.follower)
		}
		report(replay.Violation{Turn: p.turn, Block: p.follower.start, Pointer: ptr(i),
			Message:   "the item carries its original id but its reasoning item " + strconv.Quote(p.g.id) + " is not sent right before it",
			Predicted: "Item '" + el.id + "' of type '" + typ + "' was provided without its required 'reasoning' item: '" + p.g.id + "'.",
			Fix:       "send the reasoning item right before it, or send the item without its id"})
	}
}

func predictNotFound(id string) string {
	return "Item with id '" + id + "' not found. Items are not persisted when `store` is set to false. " +
		"Try again with `store` set to true, or remove this item from your input."
}

func stored(h *replay.History, t *replay.Target) bool {
	if root := kit.Body(h); root.Exists() {
		if s := root.Get("store"); s.IsBool() {
			return s.True()
		}
	} else if len(h.Request) > 0 {
		// Not valid JSON: read as gjson reads it.
		if s := gjson.GetBytes(h.Request, "store"); s.Type == gjson.True || s.Type == gjson.False {
			return s.Type == gjson.True
		}
	}
	return t.Store
}

func checkStoreFalse(h *replay.History, t *replay.Target, report func(replay.Violation)) {
	if stored(h, t) {
		return
	}
	if in, ok := requestInput(h); ok {
		var where map[string]*pair
		text := TakesReasoningText(t.Provider)
		for i, el := range in {
			bad := el.typ == "item_reference" ||
				(el.typ == "reasoning" && (el.enc.Type == gjson.Null || !el.enc.Exists() || el.enc.Type == gjson.String && el.enc.Str == ""))
			if !bad || el.id == "" || text && el.typ == "reasoning" {
				// A host that takes reasoning_text back issues no
				// ciphertext: its items are whole without it
				// (RuleReasoningTextDropped judges their text).
				continue
			}
			if where == nil {
				where = map[string]*pair{}
				ps := historyPairs(h)
				for k := range ps {
					where[ps[k].g.id] = &ps[k]
				}
			}
			v := replay.Violation{Turn: -1, Block: -1, Pointer: ptr(i),
				Message:   "store is false and the item is sent by id only, without encrypted_content",
				Predicted: predictNotFound(el.id),
				Fix:       "request include [\"reasoning.encrypted_content\"] and send the whole reasoning item, or set store to true, or drop the item"}
			if p := where[el.id]; p != nil {
				v.Turn, v.Block = p.turn, p.block
			}
			report(v)
		}
		return
	}
	if TakesReasoningText(t.Provider) {
		return
	}
	for _, p := range historyPairs(h) {
		if !p.finished || p.g.id == "" || p.data != "" {
			continue
		}
		report(replay.Violation{Turn: p.turn, Block: p.block,
			Message:   "store is false and the reasoning item has no encrypted_content",
			Predicted: predictNotFound(p.g.id),
			Fix:       "request include [\"reasoning.encrypted_content\"], or set store to true; otherwise drop the item and send its follower without its id (Encode does)"})
	}
}

func checkAltered(h *replay.History, t *replay.Target, report func(replay.Violation)) {
	pairs := historyPairs(h)
	for _, p := range pairs {
		iss := h.Turns[p.turn].Provenance.Account
		if p.data == "" || t.Account == "" || iss == "" || iss == t.Account {
			continue
		}
		pred := "The encrypted content for item " + p.g.id + " could not be verified. " +
			"Reason: Encrypted content organization_id did not match the target organization."
		if xai(t) {
			pred = predictXAIDecrypt
		}
		report(replay.Violation{Turn: p.turn, Block: p.block,
			Message:   "the encrypted content was minted by issuer " + strconv.Quote(iss) + ", the request is sent as " + strconv.Quote(t.Account),
			Predicted: pred,
			Fix:       "drop the reasoning item and send its follower without its id, or send the request with the minting organisation"})
	}
	in, ok := requestInput(h)
	if !ok {
		return
	}
	for i, el := range in {
		if el.typ == "reasoning" && el.enc.Exists() && el.enc.Type != gjson.String && el.enc.Type != gjson.Null {
			report(replay.Violation{Turn: -1, Block: -1, Pointer: ptr(i) + "/encrypted_content",
				Message:   "the input reasoning item's encrypted_content is " + jsonKind(el.enc) + ", not the string the provider returned",
				Predicted: "Invalid type for 'input[" + strconv.Itoa(i) + "].encrypted_content': expected a string, but got " + jsonKind(el.enc) + " instead.",
				Fix:       "send encrypted_content as the exact string the response carried (Encode does), or drop the reasoning item"})
		}
	}
	byID := make(map[string]*pair, len(pairs))
	byData := make(map[string]*pair, len(pairs))
	for i := range pairs {
		p := &pairs[i]
		if p.data == "" {
			continue
		}
		if p.g.id != "" {
			// Items without an id (Codex CLI writes none) are matched by
			// their ciphertext alone.
			byID[p.g.id] = p
		}
		byData[p.data] = p
	}
	for i, el := range in {
		if el.typ != "reasoning" || el.enc.Type != gjson.String || el.enc.Str == "" {
			continue
		}
		var p *pair
		var what string
		if q := byID[el.id]; el.id != "" && q != nil && q.data != el.enc.Str {
			p, what = q, "the encrypted content differs from the one the provider returned"
		} else if q := byData[el.enc.Str]; q != nil && q.g.id != el.id {
			p, what = q, "the encrypted content is sent under another item id than "+strconv.Quote(q.g.id)
		}
		if p == nil {
			continue
		}
		pred := "The encrypted content for item " + el.id + " could not be verified."
		switch {
		case xai(t):
			pred = predictXAIDecrypt
		case p.data == el.enc.Str:
			// Ciphertext is bound to its item id (openclaw#71727).
			pred += " Reason: Encrypted content item_id did not match the target item id."
		}
		report(replay.Violation{Turn: p.turn, Block: p.block, Pointer: ptr(i), Message: what,
			Predicted: pred,
			Fix:       "send the reasoning item byte for byte as decoded from response.output_item.done, with its original id"})
	}
}

func checkForeign(h *replay.History, t *replay.Target, report func(replay.Violation)) {
	want := FormatFor(t.Provider)
	for _, p := range historyPairs(h) {
		if !p.finished {
			continue
		}
		it, ok := h.Turns[p.turn].Blocks[p.g.start].(replay.ReasoningItem)
		if !ok {
			continue
		}
		f := it.Meta().Format
		if f == "" || f == want {
			continue
		}
		v := replay.Violation{Turn: p.turn, Block: p.block,
			Message: "reasoning minted as " + string(f) + " is sent to a " + string(want) + " host",
			Fix:     "drop the foreign reasoning items and send their followers without their ids (Encode does); keep visible text as text"}
		switch {
		case p.data != "" && xai(t):
			v.Predicted = predictXAIDecrypt
		case p.data != "":
			v.Predicted = "The encrypted content for item " + p.g.id + " could not be verified. " +
				"Reason: Encrypted content could not be decrypted or parsed."
		}
		report(v)
	}
}

// checkCompaction: a compaction item's encrypted state is readable only by
// the host and account that minted it (openai/codex#35334).
func checkCompaction(h *replay.History, t *replay.Target, report func(replay.Violation)) {
	want := FormatFor(t.Provider)
	for ti, tu := range h.Turns {
		for bi, b := range tu.Blocks {
			x, ok := b.(*replay.Compaction)
			if !ok || x.Unfinished {
				continue
			}
			p := tu.Provenance
			reason, what := "", ""
			switch {
			case p.API != "" && t.API != "" && p.API != t.API:
				what = "a compaction item of " + p.API + " would be sent to " + t.API
				reason = "Encrypted content could not be decrypted or parsed."
			case x.Format != want:
				what = "a compaction item minted as " + formatName(x.Format) + " would be sent to a " + string(want) + " host"
				reason = "Encrypted content could not be decrypted or parsed."
			case p.Account != "" && t.Account != "" && p.Account != t.Account:
				what = "the compaction item was minted by " + strconv.Quote(p.Account) + ", the request is sent as " + strconv.Quote(t.Account)
				reason = "Encrypted content organization_id did not match the target organization."
			default:
				continue
			}
			report(replay.Violation{Turn: ti, Block: bi, Message: what,
				Predicted: "The encrypted content for item " + x.ID + " could not be verified. Reason: " + reason,
				Fix:       "drop the compaction item and send the turns it replaced, or send the request to the host and account that minted it (Carry does)"})
		}
	}
}

// xai reports whether the target is one of xAI's Responses surfaces.
func xai(t *replay.Target) bool { return FormatFor(t.Provider) == formats.XAIResponses }

// jsonKind names a JSON value's type as OpenAI's validation errors do.
func jsonKind(v gjson.Result) string {
	switch {
	case v.IsObject():
		return "an object"
	case v.IsArray():
		return "an array"
	case v.Type == gjson.Number:
		return "a number"
	case v.Type == gjson.True || v.Type == gjson.False:
		return "a boolean"
	}
	return "a string"
}

// efforts are the reasoning efforts a model family takes, where they are
// known: the model's name prefix, the efforts it takes (nil when only the
// refused ones are known), and the efforts it refuses.
var efforts = []struct {
	prefix  string
	takes   []string
	refuses []string
}{
	// codex#46915 (2026-09-21).
	{"gpt-5.6-luna", []string{"none", "low", "medium", "high", "xhigh", "max"}, nil},
	// GPT-6 Astra and 6.1 Sol/Terra have no none (home-generative-agent
	// v3.46.0-beta.1, instructor-php v2.14.2).
	{"gpt-6", nil, []string{"none"}},
}

// checkEffort: the request's reasoning.effort is one its model takes.
func checkEffort(h *replay.History, t *replay.Target, report func(replay.Violation)) {
	root := kit.Body(h)
	if !root.Exists() || !(official(t) || t.Provider == "") {
		return
	}
	effort := strings.Clone(root.Path("reasoning.effort").Str())
	model := t.Model
	if model == "" {
		model = strings.Clone(root.Get("model").Str())
	}
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	if effort == "" {
		return
	}
	for _, e := range efforts {
		if !strings.HasPrefix(m, e.prefix) {
			continue
		}
		pred := "Unsupported value: '" + effort + "' is not supported with the '" + model + "' model."
		switch {
		case e.takes != nil && !slices.Contains(e.takes, effort):
			pred += " Supported values are: " + quotedList(e.takes) + "."
		case slices.Contains(e.refuses, effort):
		default:
			return
		}
		report(replay.Violation{Turn: -1, Block: -1, Pointer: "/reasoning/effort",
			Message:   model + " does not take reasoning effort " + strconv.Quote(effort),
			Predicted: pred,
			Fix:       "send an effort the model takes"})
		return
	}
}

// quotedList writes 'a', 'b', and 'c'.
func quotedList(xs []string) string {
	var b strings.Builder
	for i, x := range xs {
		switch {
		case i > 0 && i == len(xs)-1:
			b.WriteString(", and ")
		case i > 0:
			b.WriteString(", ")
		}
		b.WriteString("'" + x + "'")
	}
	return b.String()
}

// oauthRoutes are the provider names of routes that refuse replayed
// encrypted reasoning: xAI's OAuth (SuperGrok) Responses surface
// (hermes-agent#30310), where the API-key route takes it (#29672).
var oauthRoutes = []string{"xai-oauth", "supergrok"}

// checkRoute: no encrypted reasoning goes to a route that refuses it.
func checkRoute(h *replay.History, t *replay.Target, report func(replay.Violation)) {
	if !slices.Contains(oauthRoutes, strings.ToLower(t.Provider)) {
		return
	}
	if in, ok := requestInput(h); ok {
		for i, el := range in {
			if el.typ == "reasoning" && el.enc.Type == gjson.String && el.enc.Str != "" {
				report(replay.Violation{Turn: -1, Block: -1, Pointer: ptr(i),
					Message:   "encrypted reasoning is replayed on xAI's OAuth route, which does not take it back",
					Predicted: "Invalid request content: Each message must have at least one content element.",
					Fix:       "drop the reasoning items (and their followers' ids) on this route, or send the conversation through the API-key route"})
			}
		}
		return
	}
	for _, p := range historyPairs(h) {
		if p.finished && p.data != "" {
			report(replay.Violation{Turn: p.turn, Block: p.block,
				Message:   "encrypted reasoning would be replayed on xAI's OAuth route, which does not take it back",
				Predicted: "Invalid request content: Each message must have at least one content element.",
				Fix:       "drop the reasoning items (and their followers' ids) on this route, or send the conversation through the API-key route"})
		}
	}
}

// checkTextDropped: a host that takes reasoning_text back and issues no
// ciphertext reads nothing from a reasoning item sent without its text.
func checkTextDropped(h *replay.History, t *replay.Target, report func(replay.Violation)) {
	if !TakesReasoningText(t.Provider) {
		return
	}
	in, ok := requestInput(h)
	if !ok {
		return
	}
	for i, el := range in {
		if el.typ != "reasoning" || (el.enc.Type == gjson.String && el.enc.Str != "") {
			continue
		}
		if c := el.el.Get("content"); c.IsArray() && c.Len() > 0 {
			continue
		}
		report(replay.Violation{Turn: -1, Block: -1, Pointer: ptr(i),
			Message: "the reasoning item goes to " + describe(t) + " without its reasoning_text content, and the host issues no ciphertext: it reads no reasoning from it",
			Fix:     "send the item's reasoning_text content back as received (Encode does for this host)"})
	}
}

func formatName(f replay.Format) string {
	if f == "" {
		return "unlabelled"
	}
	return string(f)
}
