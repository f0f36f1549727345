package replayhttp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// RepairAction says what repair did with one element of a request.
type RepairAction string

// The repair actions.
const (
	// RepairRestored: reasoning the element had lost was put back, byte
	// for byte, from the stored turn (through the codec's Patch).
	RepairRestored RepairAction = "restored"
	// RepairRemoved: an item the target must not get (another issuer's
	// signature or ciphertext) was removed, or not restored, by the
	// policy; Detail is the [replay.Notice].
	RepairRemoved RepairAction = "removed"
	// RepairAmbiguous: the element's keys name more than one stored turn;
	// it was left as it was.
	RepairAmbiguous RepairAction = "ambiguous"
	// RepairMismatch: the stored turn found by a key does not match the
	// element (other tool calls or other visible text); it was left as it
	// was.
	RepairMismatch RepairAction = "mismatch"
	// RepairFailed: the codec could not patch the element; it was left as
	// it was.
	RepairFailed RepairAction = "failed"
	// RepairStoreError: the store could not be read for the element's
	// keys (Detail has the error); it was left as it was, and no other
	// key was tried in their place.
	RepairStoreError RepairAction = "store-error"
	// RepairSet: a member was set on the request by a one-shot fix (see
	// [Retry]): drop_block, the Gemini sentinel, an empty
	// reasoning_content, a beta header.
	RepairSet RepairAction = "set"
)

// Repair reports one thing repair did, or refused to do, to a request.
type Repair struct {
	// Pointer is the JSON Pointer of the element in the request body
	// ("/messages/3", "/input", "/contents/1").
	Pointer string
	// Action says what was done.
	Action RepairAction
	// Detail says what, in one sentence.
	Detail string
}

// String renders the repair for logs. The text is not API.
func (r Repair) String() string { return string(r.Action) + " " + r.Pointer + ": " + r.Detail }

// message is what repair reads of one assistant element of a request.
type message struct {
	calls     []string // tool-call ids, in order ("" when the call has none)
	names     []string // tool names, in order
	text      []byte   // the visible text
	reasoning bool     // the element carries reasoning
}

// readMessage reads an assistant element of api's request; ok is false
// when m is not one.
func readMessage(api string, m gjson.Result) (msg message, ok bool) {
	role := m.Get("role").Str
	if api == "gemini" {
		if role != "model" {
			return msg, false
		}
		m.Get("parts").ForEach(func(_, p gjson.Result) bool {
			if p.Get("thoughtSignature").Exists() || p.Get("thought").Bool() {
				msg.reasoning = true
			}
			switch {
			case p.Get("functionCall").IsObject():
				msg.calls = append(msg.calls, p.Get("functionCall.id").Str)
				msg.names = append(msg.names, p.Get("functionCall.name").Str)
			case p.Get("text").Exists() && !p.Get("thought").Bool():
				msg.text = append(msg.text, p.Get("text").Str...)
			}
			return true
		})
		return msg, true
	}
	if role != "assistant" {
		return msg, false
	}
	for _, f := range []string{"reasoning_details", "reasoning_content", "reasoning"} {
		if v := m.Get(f); v.Exists() && v.Type != gjson.Null {
			msg.reasoning = true
		}
	}
	c := m.Get("content")
	if c.Type == gjson.String {
		msg.text = append(msg.text, c.Str...)
	}
	c.ForEach(func(_, b gjson.Result) bool {
		switch b.Get("type").Str {
		case "text":
			msg.text = append(msg.text, b.Get("text").Str...)
		case "thinking", "redacted_thinking":
			msg.reasoning = true
		case "tool_use":
			msg.calls = append(msg.calls, b.Get("id").Str)
			msg.names = append(msg.names, b.Get("name").Str)
		}
		switch { // Bedrock Converse blocks
		case b.Get("text").Exists() && !b.Get("type").Exists():
			msg.text = append(msg.text, b.Get("text").Str...)
		case b.Get("reasoningContent").Exists():
			msg.reasoning = true
		case b.Get("toolUse").IsObject():
			msg.calls = append(msg.calls, b.Get("toolUse.toolUseId").Str)
			msg.names = append(msg.names, b.Get("toolUse.name").Str)
		}
		return true
	})
	m.Get("tool_calls").ForEach(func(_, tc gjson.Result) bool {
		msg.calls = append(msg.calls, tc.Get("id").Str)
		msg.names = append(msg.names, tc.Get("function.name").Str)
		return true
	})
	return msg, true
}

// contentHash hashes visible text and tool names: what an agent keeps when
// it rebuilds a message.
func contentHash(text []byte, names []string) string {
	h := sha256.New()
	h.Write(text)
	for _, n := range names {
		h.Write([]byte{0})
		h.Write([]byte(n))
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

func turnMessage(t *replay.Turn) message {
	var m message
	m.text = []byte(t.VisibleText())
	for _, c := range t.ToolCalls() {
		m.calls = append(m.calls, c.ID)
		m.names = append(m.names, c.Name)
	}
	return m
}

func posKey(n int, m message) string {
	return "pos:" + strconv.Itoa(n) + ":" + contentHash(m.text, m.names)
}

// turnKeys are the keys a captured turn is stored under: its tool-call
// ids, its OpenAI item ids, and the position its message takes in the
// next request (after every element of the request that produced it) with
// its content hash.
func turnKeys(rt route, reqBody []byte, t *replay.Turn) []string {
	var keys []string
	for _, b := range t.Blocks {
		switch b := b.(type) {
		case *replay.ToolCall:
			if b.ID != "" {
				keys = append(keys, "call:"+b.ID)
			}
			if b.ItemID != "" {
				keys = append(keys, "item:"+b.ItemID)
			}
		case *replay.Text:
			if b.ID != "" {
				keys = append(keys, "item:"+b.ID)
			}
		}
	}
	if rt.api != "openai-responses" {
		n := len(gjson.GetBytes(reqBody, rt.list).Array())
		keys = append(keys, posKey(n, turnMessage(t)))
	}
	return keys
}

func (t *Transport) put(ctx context.Context, rt route, reqBody []byte, tu *replay.Turn) {
	if !hasItems(tu) {
		return
	}
	doc := tu.AppendJSON(nil)
	for _, k := range turnKeys(rt, reqBody, tu) {
		_ = t.Store.Put(ctx, Key{Conversation: k}, doc)
	}
}

func hasItems(t *replay.Turn) bool {
	for _, b := range t.Blocks {
		if _, ok := b.(replay.ReasoningItem); ok {
			return true
		}
	}
	return false
}

// lookup returns the distinct stored turns under keys, and whether some
// key named more than one; or the first error of the store.
func (t *Transport) lookup(ctx context.Context, keys []string) (turns []*replay.Turn, ambiguous bool, err error) {
	var set turnSet
	for _, k := range keys {
		docs, err := t.Store.Get(ctx, Key{Conversation: k})
		if err != nil {
			return nil, false, err
		}
		if len(docs) > 1 {
			ambiguous = true
		}
		for _, d := range docs {
			tu, err := replay.UnmarshalTurn(d)
			if err != nil {
				return nil, false, err
			}
			set.add(tu)
		}
	}
	return set.turns, ambiguous || len(set.turns) > 1, nil
}

// turnSet collects turns once each: two turns with the same document are
// one.
type turnSet struct {
	docs  [][]byte
	turns []*replay.Turn
}

func (s *turnSet) add(tu *replay.Turn) {
	d := tu.AppendJSON(nil)
	for _, x := range s.docs {
		if bytes.Equal(x, d) {
			return
		}
	}
	s.docs, s.turns = append(s.docs, d), append(s.turns, tu)
}

// storeError reports a store that could not be read for the element at
// ptr.
func storeError(ptr string, err error) Repair {
	return Repair{Pointer: ptr, Action: RepairStoreError, Detail: "the store could not be read (" + err.Error() + "); left as it was"}
}

// repair puts back into body what its assistant elements lost, from the
// store, and removes what the policy says the target must not get. It
// never attaches a stored turn to an element that does not match it.
func (t *Transport) repair(ctx context.Context, rt route, body []byte) ([]byte, []Repair) {
	if !jsonw.ValidBytes(body) {
		return body, nil
	}
	target := replay.Target{API: rt.api, Provider: rt.provider, Model: rt.model}
	policy := t.Policy
	if policy == nil {
		policy = replay.DefaultPolicy()
	}
	if rt.api == "openai-responses" {
		return t.repairInput(ctx, rt, body, target, policy)
	}
	var reps []Repair
	out := body
	inRequest := requestTurns(rt, body)
	i := -1
	gjson.GetBytes(body, rt.list).ForEach(func(_, m gjson.Result) bool {
		i++
		msg, ok := readMessage(rt.api, m)
		if !ok {
			return true
		}
		ptr := "/" + rt.list + "/" + strconv.Itoa(i)
		// Tool-call ids name one turn; the position and content hash,
		// shared by every conversation at the same point, only when the
		// ids name none (not when the store could not say).
		var keys []string
		for _, id := range msg.calls {
			if id != "" {
				keys = append(keys, "call:"+id)
			}
		}
		turns, ambiguous, err := t.lookup(ctx, keys)
		if err == nil && len(turns) == 0 {
			turns, ambiguous, err = t.lookup(ctx, []string{posKey(i, msg)})
		}
		why := ""
		if len(turns) == 1 && !ambiguous {
			why = mismatch(msg, turnMessage(turns[0]))
		}
		if msg.reasoning {
			// What the element carries is judged by where it came from:
			// the stored turn it matches, else what the request says.
			src := inRequest[ptr]
			if len(turns) == 1 && !ambiguous && why == "" {
				src = turns[0]
			}
			var removed bool
			out, reps, removed = t.dropForeign(rt, out, i, src, target, policy, reps)
			if removed || rt.api != "gemini" {
				if err != nil { // judged by the request alone
					reps = append(reps, storeError(ptr, err))
				}
				return true
			}
		}
		switch {
		case err != nil:
			reps = append(reps, storeError(ptr, err))
			return true
		case len(turns) == 0:
			return true
		case ambiguous:
			reps = append(reps, Repair{Pointer: ptr, Action: RepairAmbiguous,
				Detail: fmt.Sprintf("the message's keys name %d stored turns; left as it was", len(turns))})
			return true
		case why != "":
			reps = append(reps, Repair{Pointer: ptr, Action: RepairMismatch, Detail: why + "; left as it was"})
			return true
		}
		out, reps = t.patch(rt, out, rt.list+"."+strconv.Itoa(i), ptr, []byte(m.Raw), turns[0], target, policy, reps)
		return true
	})
	return out, reps
}

// requestTurns reads the model's turns out of a request body with the
// codec's request reader, by the pointer of their element.
func requestTurns(rt route, body []byte) map[string]*replay.Turn {
	h, _, err := rt.codec.DecodeRequest(body)
	if err != nil || len(h.Pointers) != len(h.Turns) {
		return nil
	}
	m := make(map[string]*replay.Turn, len(h.Turns))
	for i, p := range h.Pointers {
		m[p] = h.Turns[i]
	}
	return m
}

// foreign reports whether a notice of Carry is a removal by origin: an
// item of another issuer, account or backend than the target's.
func foreign(n replay.Notice) bool {
	switch n.Case {
	case replay.CaseForeignOpaque, replay.CaseForeignText, replay.CaseIdentityMismatch, replay.CaseBackendMismatch:
		return n.Action != replay.Keep
	}
	return false
}

// dropForeign carries src (the turn of the element at index i) to the
// target, and when the policy removes some of its items by origin, puts
// in the element's place the element stripped of its reasoning with the
// carried turn patched back in: what the target may get, byte for byte,
// and nothing else. Each removal is reported.
func (t *Transport) dropForeign(rt route, body []byte, i int, src *replay.Turn, target replay.Target, policy replay.Policy, reps []Repair) ([]byte, []Repair, bool) {
	if src == nil {
		return body, reps, false
	}
	carried, notices := t.registry().Carry(replay.History{Turns: []*replay.Turn{src}}, target, policy)
	var found []replay.Notice
	for _, n := range notices {
		if foreign(n) {
			found = append(found, n)
		}
	}
	if len(found) == 0 {
		return body, reps, false
	}
	ptr := "/" + rt.list + "/" + strconv.Itoa(i)
	path := rt.list + "." + strconv.Itoa(i)
	stripped := dropReasoning(rt.api, rt.list, body, i, i, "", nil, false)
	patched, err := rt.codec.Patch([]byte(gjson.GetBytes(stripped.body, path).Raw), carried.Turns[0])
	if err != nil {
		return body, append(reps, Repair{Pointer: ptr, Action: RepairFailed, Detail: err.Error()}), false
	}
	out, err := sjson.SetRawBytes(append([]byte(nil), stripped.body...), path, patched)
	if err != nil {
		return body, append(reps, Repair{Pointer: ptr, Action: RepairFailed, Detail: err.Error()}), false
	}
	for _, n := range found {
		reps = append(reps, Repair{Pointer: ptr, Action: RepairRemoved, Detail: n.String()})
	}
	return out, reps, true
}

// patch carries tu to the target, patches it into raw (the element at
// path) and splices the result into body.
func (t *Transport) patch(rt route, body []byte, path, ptr string, raw []byte, tu *replay.Turn, target replay.Target, policy replay.Policy, reps []Repair) ([]byte, []Repair) {
	carried, notices := t.registry().Carry(replay.History{Turns: []*replay.Turn{tu}}, target, policy)
	for _, n := range notices {
		reps = append(reps, Repair{Pointer: ptr, Action: RepairRemoved, Detail: n.String()})
	}
	patched, err := rt.codec.Patch(raw, carried.Turns[0])
	if err != nil {
		return body, append(reps, Repair{Pointer: ptr, Action: RepairFailed, Detail: err.Error()})
	}
	if bytes.Equal(patched, raw) {
		return body, reps
	}
	out := body
	if path != "" {
		if out, err = sjson.SetRawBytes(append([]byte(nil), body...), path, patched); err != nil {
			return body, append(reps, Repair{Pointer: ptr, Action: RepairFailed, Detail: err.Error()})
		}
	} else {
		out = patched
	}
	n := len(carried.Turns[0].Items())
	return out, append(reps, Repair{Pointer: ptr, Action: RepairRestored,
		Detail: fmt.Sprintf("%d reasoning item(s) of a %s turn put back as captured", n, tu.Provenance.API)})
}

// mismatch says why a stored turn does not belong to a message, or "".
func mismatch(m, t message) string {
	if len(m.calls) != len(t.calls) {
		return fmt.Sprintf("the message has %d tool call(s), the stored turn %d", len(m.calls), len(t.calls))
	}
	for i := range m.calls {
		if m.calls[i] != "" && m.calls[i] != t.calls[i] {
			return "tool call " + strconv.Itoa(i) + " has id " + strconv.Quote(m.calls[i]) + ", the stored turn's " + strconv.Quote(t.calls[i])
		}
		if m.names[i] != t.names[i] {
			return "tool call " + strconv.Itoa(i) + " is " + strconv.Quote(m.names[i]) + ", the stored turn's " + strconv.Quote(t.names[i])
		}
	}
	if len(m.calls) == 0 && !bytes.Equal(m.text, t.text) {
		return "the message's visible text differs from the stored turn's"
	}
	return ""
}

// repairInput repairs an OpenAI Responses input array: every stored turn
// one of its items names (by call id or item id) is patched in, which adds
// the reasoning items that are missing before their followers.
func (t *Transport) repairInput(ctx context.Context, rt route, body []byte, target replay.Target, policy replay.Policy) ([]byte, []Repair) {
	var reps []Repair
	var found turnSet
	i := -1
	gjson.GetBytes(body, "input").ForEach(func(_, it gjson.Result) bool {
		i++
		var keys []string
		switch it.Get("type").Str {
		case "function_call":
			if id := it.Get("call_id").Str; id != "" {
				keys = append(keys, "call:"+id)
			}
			fallthrough
		case "message", "":
			if it.Get("type").Str != "function_call" && it.Get("role").Str != "assistant" {
				return true
			}
			if id := it.Get("id").Str; id != "" {
				keys = append(keys, "item:"+id)
			}
		}
		if len(keys) == 0 {
			return true
		}
		turns, ambiguous, err := t.lookup(ctx, keys)
		if err != nil {
			reps = append(reps, storeError("/input/"+strconv.Itoa(i), err))
			return true
		}
		if ambiguous {
			reps = append(reps, Repair{Pointer: "/input/" + strconv.Itoa(i), Action: RepairAmbiguous,
				Detail: fmt.Sprintf("the item's ids name %d stored turns; left as it was", len(turns))})
			return true
		}
		for _, tu := range turns {
			found.add(tu)
		}
		return true
	})
	turns := found.turns
	out := body
	// Reasoning items the input carries that the target must not get, by
	// the stored turn they came in, else by what the request says.
	sources := append([]*replay.Turn(nil), turns...)
	if h, _, err := rt.codec.DecodeRequest(body); err == nil {
		sources = append(sources, h.Turns...)
	}
	for _, tu := range sources {
		out, reps = t.dropForeignItems(rt, out, tu, target, policy, reps)
	}
	for _, tu := range turns {
		out, reps = t.patch(rt, out, "", "/input", out, tu, target, policy, reps)
	}
	return out, reps
}

// dropForeignItems removes from a Responses input the reasoning items of
// tu that the policy keeps from the target by origin (with the id of the
// item that followed each), reporting each.
func (t *Transport) dropForeignItems(rt route, body []byte, tu *replay.Turn, target replay.Target, policy replay.Policy, reps []Repair) ([]byte, []Repair) {
	_, notices := t.registry().Carry(replay.History{Turns: []*replay.Turn{tu}}, target, policy)
	for _, n := range notices {
		if !foreign(n) || n.Block >= len(tu.Blocks) {
			continue
		}
		it, ok := tu.Blocks[n.Block].(replay.ReasoningItem)
		if !ok || it.Meta().ID.Value() == "" {
			continue
		}
		e := dropReasoning(rt.api, rt.list, body, 0, -1, it.Meta().ID.Value(), nil, false)
		if len(e.changes) == 0 {
			continue
		}
		body = e.body
		reps = append(reps, Repair{Pointer: e.changes[0].Pointer, Action: RepairRemoved, Detail: n.String()})
		reps = append(reps, e.changes[1:]...)
	}
	return body, reps
}
