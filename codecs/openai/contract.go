package openai

import (
	"strconv"

	"github.com/reasonreplay/replay"
	"github.com/tidwall/gjson"
)

// Rule ids of the contract.
const (
	RuleReasoningWithoutFollower = "openai/reasoning-without-follower"
	RuleFollowerWithoutReasoning = "openai/follower-without-reasoning"
	RuleStoreFalseNoEncrypted    = "openai/store-false-without-encrypted"
	RuleEncryptedAltered         = "openai/encrypted-altered-or-foreign"
	RuleForeignFormat            = "openai/foreign-format"
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
				Doc:   "A reasoning item is immediately followed by the item that followed it in the output, carrying its id.",
				Check: checkFollower},
			{ID: RuleFollowerWithoutReasoning, Severity: replay.SeverityReject,
				Doc:   "A message or function_call sent with its original id is immediately preceded by its reasoning item (checked on History.Request).",
				Check: checkPredecessor},
			{ID: RuleStoreFalseNoEncrypted, Severity: replay.SeverityReject,
				Doc:   "With store=false every reasoning item is sent whole with its encrypted_content, never by reference.",
				Check: checkStoreFalse},
			{ID: RuleEncryptedAltered, Severity: replay.SeverityReject,
				Doc:   "Encrypted content is sent byte-exact with its original id, to the organisation that minted it.",
				Check: checkAltered},
			{ID: RuleForeignFormat, Severity: replay.SeverityReject, Covers: []string{replay.RuleForeignFormat},
				Doc:   "Reasoning items are sent only to the host whose format minted them (xAI items are not OpenAI items).",
				Check: checkForeign},
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

// historyPairs lists the reasoning items of the history.
func historyPairs(h *replay.History) []pair {
	var out []pair
	for ti, t := range h.Turns {
		gs := groups(t)
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
}

func requestInput(h *replay.History) ([]input, bool) {
	if len(h.Request) == 0 || !gjson.ValidBytes(h.Request) {
		return nil, false
	}
	arr := gjson.GetBytes(h.Request, "input")
	if !arr.IsArray() {
		return nil, false
	}
	var out []input
	arr.ForEach(func(_, el gjson.Result) bool {
		out = append(out, input{typ: el.Get("type").Str, id: el.Get("id").Str, callID: el.Get("call_id").Str,
			enc: el.Get("encrypted_content"), role: el.Get("role").Str})
		return true
	})
	return out, true
}

func ptr(i int) string { return "/input/" + strconv.Itoa(i) }

func isReasoningInput(in input) bool { return in.typ == "reasoning" || in.typ == "item_reference" }

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
		byID := map[string]*pair{}
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
			if p == nil {
				// Not from this history: it needs some follower at least.
				if i+1 < len(in) && !isReasoningInput(in[i+1]) && in[i+1].id != "" {
					continue
				}
			} else if p.follower != nil && p.follower.id != "" && i+1 < len(in) && in[i+1].id == p.follower.id {
				continue
			}
			v := replay.Violation{Turn: -1, Block: -1, Pointer: ptr(i),
				Message:   "the reasoning item is not immediately followed by the item that followed it in the output",
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

func checkPredecessor(h *replay.History, _ *replay.Target, report func(replay.Violation)) {
	in, ok := requestInput(h)
	if !ok {
		return
	}
	pairs := historyPairs(h)
	byFollower := map[string]*pair{}
	for i := range pairs {
		p := &pairs[i]
		if p.follower != nil && p.follower.id != "" && p.g.id != "" {
			byFollower[p.follower.id] = p
		}
	}
	for i, el := range in {
		if el.id == "" || isReasoningInput(el) {
			continue
		}
		p := byFollower[el.id]
		if p == nil {
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
	if len(h.Request) > 0 {
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
		for i, el := range in {
			bad := el.typ == "item_reference" ||
				(el.typ == "reasoning" && (el.enc.Type != gjson.String || el.enc.Str == ""))
			if !bad || el.id == "" {
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
		report(replay.Violation{Turn: p.turn, Block: p.block,
			Message: "the encrypted content was minted by issuer " + strconv.Quote(iss) + ", the request is sent as " + strconv.Quote(t.Account),
			Predicted: "The encrypted content for item " + p.g.id + " could not be verified. " +
				"Reason: Encrypted content organization_id did not match the target organization.",
			Fix: "drop the reasoning item and send its follower without its id, or send the request with the minting organisation"})
	}
	in, ok := requestInput(h)
	if !ok {
		return
	}
	byID := map[string]*pair{}
	byData := map[string]*pair{}
	for i := range pairs {
		p := &pairs[i]
		if p.data == "" {
			continue
		}
		byID[p.g.id] = p
		byData[p.data] = p
	}
	for i, el := range in {
		if el.typ != "reasoning" || el.enc.Type != gjson.String || el.enc.Str == "" {
			continue
		}
		var p *pair
		var what string
		if q := byID[el.id]; q != nil && q.data != el.enc.Str {
			p, what = q, "the encrypted content differs from the one the provider returned"
		} else if q := byData[el.enc.Str]; q != nil && q.g.id != el.id {
			p, what = q, "the encrypted content is sent under another item id than "+strconv.Quote(q.g.id)
		}
		if p == nil {
			continue
		}
		report(replay.Violation{Turn: p.turn, Block: p.block, Pointer: ptr(i), Message: what,
			Predicted: "The encrypted content for item " + el.id + " could not be verified.",
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
		if p.data != "" {
			v.Predicted = "The encrypted content for item " + p.g.id + " could not be verified. " +
				"Reason: Encrypted content could not be decrypted or parsed."
		}
		report(v)
	}
}
