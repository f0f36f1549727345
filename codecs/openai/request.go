package openai

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/internal/reqtape"
	"github.com/reasonreplay/replay/internal/view"
	"github.com/tidwall/gjson"
)

// DecodeRequest reads the assistant turns of a Responses request body for
// [replay.AuditRequest]: each maximal run of `input` items that are not
// user, system or developer messages or tool outputs (reasoning,
// function_call, assistant message, item_reference, server tool items) is
// one turn, its items read by the same item reader as a response's output,
// with the pointer of its first item. Every valid input shape reads: an
// assistant message without `type` (EasyInputMessage) or with a string
// `content`, an `item_reference` (kept as a [replay.Native]), any tool
// output (`*_output` items end a run). The target's Model, Tools and Store
// (true unless `store` is false, the API's default) come from the body.
//
// A turn is Complete unless it is structurally cut: in the last run, a
// reasoning item with neither `summary` nor `encrypted_content`, or a
// function_call without `arguments` (a custom_tool_call without `input`),
// is unfinished and its turn is not Complete; so is an item whose own
// status is `incomplete` or `in_progress`.
func (c Codec) DecodeRequest(body []byte) (replay.History, replay.Target, error) {
	h := replay.History{Request: body}
	tape, ok := reqtape.Read(body)
	if !ok || !tape.Root().IsObject() {
		return h, replay.Target{}, codecs.Malformed(API, -1, "", "expected a Responses request body object")
	}
	kit.SetTape(&h, tape)
	root := tape.Root()
	in := root.Get("input")
	if !in.IsArray() && !in.IsString() {
		return h, replay.Target{}, codecs.Malformed(API, -1, "/input", "expected an input array or string")
	}
	store := root.Get("store")
	t := replay.Target{API: API, Provider: c.Provider, Model: strings.Clone(root.Get("model").Result().String()),
		Tools: kit.Items(root.Get("tools")) > 0, Store: !store.Exists() || store.Result().Bool(),
		Thinking: root.Get("reasoning").Exists()}
	n := kit.Items(in) // a string input is one item, as gjson's Array lists it
	item := func(i int) jsonw.Val {
		if in.IsArray() {
			return in.Index(i)
		}
		return in
	}
	last := n
	for last > 0 && !assistantItemVal(item(last-1)) {
		last--
	}
	al := kit.ConvAlloc(in, assistantItemVal)
	k := &requestKeeper{Keeper: kit.Keeper{Al: al}}
	for i := 0; i < n; {
		if !assistantItemVal(item(i)) {
			i++
			continue
		}
		j := i
		for j < n && assistantItemVal(item(j)) {
			j++
		}
		// The item readers copy what they keep: they read the items in
		// place.
		tu, err := c.requestTurn(item, i, j, j == last, k)
		if err != nil {
			return h, t, err
		}
		if !t.Tools && hasCall(tu) {
			t.Tools = true
		}
		h.Turns = append(h.Turns, tu)
		h.Pointers = append(h.Pointers, al.Pointer("/input", i))
		i = j
	}
	return h, t, nil
}

// requestKeeper keeps the strings of a request's turns in the arena of
// its Alloc (see [kit.Keeper]), and lends the item readers the lists they
// fill, item after item (the blocks copy what they hold).
type requestKeeper struct {
	kit.Keeper
	summaries, texts []string // a reasoning item's
	mtexts, annots   []string // a message's
	// item is the input item being read, as the request's tape recorded
	// it: its members are walked there (see members), not read again;
	// member is the member of it being read.
	item, member jsonw.Val
}

// members is forEachRaw(item, fn) for an item read within b: from the
// tape's record of the item when b is a request's keeper reading that
// very item (the members the request's one pass found), else from its
// raw text.
func members(item gjson.Result, b keeper, fn func(k gjson.Result, raw string) bool) {
	if rk, ok := b.(*requestKeeper); ok && rk.item.IsObject() && item.Type == gjson.JSON && rk.item.Raw() == item.Raw {
		outer := rk.member
		rk.item.ForEach(func(_ int, name string, el jsonw.Val) bool {
			rk.member = el
			return fn(value(name), el.Raw())
		})
		rk.member = outer
		return
	}
	forEachRaw(item, fn)
}

// keepRaw keeps the value of the JSON string literal raw (as value reads
// it) as b.Keep(pos, value(raw).Str) keeps it; a request's keeper decodes
// it straight into its arena.
func keepRaw(b keeper, pos int, raw string) (string, error) {
	if rk, ok := b.(*requestKeeper); ok {
		return rk.Al.KeepStr(&rk.Budget, pos, raw)
	}
	return b.Keep(pos, value(raw).Str)
}

// hasCall reports whether t holds a tool call.
func hasCall(t *replay.Turn) bool {
	for _, b := range t.Blocks {
		if _, ok := b.(*replay.ToolCall); ok {
			return true
		}
	}
	return false
}

// requestTurn reads the run of input items [first, end) (item(i) is input
// item i); cut says it is the last run, which may have been cut off. The
// turn's strings are kept by k, in the arena of its Alloc, which makes
// the turn and its blocks.
func (c Codec) requestTurn(item func(int) jsonw.Val, first, end int, cut bool, k *requestKeeper) (*replay.Turn, error) {
	al := k.Al
	tu := al.Turn()
	*tu = replay.Turn{Provenance: replay.Provenance{API: API, Provider: c.provider()}}
	tu.Blocks = al.Blocks(2 * (end - first))
	k.Budget = kit.NewBudget(API, c.Limits, -1)
	f := c.format()
	for i := first; i < end; i++ {
		v := item(i)
		item := v.Result()
		from := len(tu.Blocks)
		var err error
		if oddCiphertext(v) {
			// Kept verbatim for the audit to report (RuleEncryptedAltered):
			// the API refuses the type, the request still reads.
			if err = k.Item(from, len(item.Raw), len(item.Raw)); err != nil {
				return nil, err
			}
			n := al.Native()
			*n = replay.Native{Kind: "reasoning", Raw: al.CloneBytes(item.Raw)}
			tu.Blocks = append(tu.Blocks, n)
			continue
		}
		k.item = v
		tu.Blocks, err = appendItem(tu.Blocks, item, f, al.Pointer("/input", i), k, al)
		k.item = jsonw.Val{}
		if err != nil {
			return nil, err
		}
		if cut && cutItem(v) {
			for _, blk := range tu.Blocks[from:] {
				markCut(blk)
			}
		}
	}
	if len(tu.Blocks) == 0 {
		tu.Blocks = nil
	}
	kit.Settle(tu)
	return tu, nil
}

// oddCiphertext reports whether an input reasoning item carries an
// encrypted_content that is neither a string nor null (a client that
// wrapped or parsed it).
func oddCiphertext(item jsonw.Val) bool {
	v := item.Get("encrypted_content")
	return item.Get("type").Is("reasoning") && v.Exists() && !v.IsString() && !v.IsNull()
}

// cutItem reports whether an input item lacks what a finished one of its
// type always has.
func cutItem(item jsonw.Val) bool {
	switch typ := item.Get("type"); {
	case typ.Is("reasoning"):
		return !item.Get("summary").Exists() && !item.Get("encrypted_content").Exists()
	case typ.Is("function_call"):
		return !item.Get("arguments").Exists()
	case typ.Is("custom_tool_call"):
		return !item.Get("input").Exists()
	}
	return false
}

// markCut marks a block of a cut item unfinished.
func markCut(b replay.Block) {
	switch b := b.(type) {
	case replay.ReasoningItem:
		b.Meta().Unfinished = true
	case *replay.ToolCall:
		b.Unfinished = true
	case *replay.Native:
		b.Unfinished = true
	}
}

// assistantItem reports whether an input item is part of an assistant
// turn.
func assistantItem(it gjson.Result) bool {
	return isAssistantItem(it.Get("type").Str, it.Get("role").Str)
}

// assistantItemVal is assistantItem on a tape's value.
func assistantItemVal(it jsonw.Val) bool {
	return isAssistantItem(it.Get("type").Str(), it.Get("role").Str())
}

// isAssistantItem reports whether an input item of type typ and role is
// part of an assistant turn.
func isAssistantItem(typ, role string) bool {
	switch {
	case strings.HasSuffix(typ, "_output"), typ == "mcp_approval_response":
		// Tool outputs (function_call_output, custom_tool_call_output,
		// computer_call_output, local_shell_call_output, shell_call_output,
		// apply_patch_call_output, ...) are the caller's.
		return false
	case role == "user", role == "system", role == "developer":
		return false
	case typ == "" && role == "":
		return false
	}
	return true
}

// ReadRequest reads a Responses request body once for the middleware: the
// turns as [Codec.DecodeRequest] reads them (each a run of `input` items),
// and the `instructions` and `tools` members the turns are bound to.
func (c Codec) ReadRequest(body []byte) (*codecs.Request, error) {
	return codecs.ReadWith(body, "input", []string{"instructions", "tools"}, nil, assistantItem, c.DecodeRequest)
}

// itemPointers are the pointers of the items of a run.
var itemPointers = kit.NewPointers("/")

// Strip removes the reasoning items of a run of input items (an array),
// and the ids of the function calls and assistant messages that followed
// them: a follower sent with its id but without its reasoning item is
// refused. [Codec.Patch] gives both back. A text that is not an array is
// returned as it is.
func (Codec) Strip(raw []byte) ([]byte, []codecs.Change) {
	return strip(raw, nil)
}

// strip removes the reasoning items drop reports (every one when drop is
// nil; it is given the item's text) from a run, with the ids of the
// function calls and assistant messages that followed them. It returns
// raw itself when there is nothing to remove; else the run is written
// again, its items joined by bare commas.
func strip(raw []byte, drop func(el string) bool) ([]byte, []codecs.Change) {
	s := view.String(raw)
	a := skipWS(s, 0)
	if a >= len(s) || s[a] != '[' {
		return raw, nil
	}
	var out []byte
	var cbuf [8]codecs.Change
	changes := cbuf[:0]
	var dbuf [256]byte
	details := dbuf[:0] // the changes' details, one after another
	var ebuf [8]int
	ends := ebuf[:0]
	var scratch []byte
	after := false
	bare := true    // the items so far are written with no white space
	expect := a + 1 // where the next item starts, if so
	for pos, n := a+1, 0; ; n++ {
		at, close := jsonw.StepElem(s, pos)
		if at < 0 {
			if out == nil || close < 0 {
				return raw, nil
			}
			out = append(out, ']')
			all := string(details)
			res := make([]codecs.Change, len(changes))
			from := 0
			for k := range changes {
				res[k] = changes[k]
				res[k].Detail = all[from:ends[k]]
				from = ends[k]
			}
			return out, res
		}
		it, ok := scanItem(s, at)
		if !ok {
			return raw, nil
		}
		if at != expect {
			bare = false
		}
		pos, expect = it.end, -1
		if it.end < len(s) && s[it.end] == ',' {
			expect = it.end + 1
		}
		el := s[at:it.end]
		cut := false
		if strIs(s, it.typeAt, it.typeEnd, "reasoning") && (drop == nil || drop(el)) {
			details = append(details, "reasoning item "...)
			details = strconv.AppendQuote(details, str(s, it.idAt, it.idEnd, &scratch))
			details = append(details, " removed"...)
		} else {
			cut = after && it.idAt >= 0 && (strIs(s, it.typeAt, it.typeEnd, "function_call") || strIs(s, it.roleAt, it.roleEnd, "assistant"))
			after = false
			if !cut {
				if out != nil {
					out = jsonw.Comma(out)
					out = append(out, el...)
				}
				continue
			}
			details = append(details, "item id "...)
			details = strconv.AppendQuote(details, str(s, it.idAt, it.idEnd, &scratch))
			details = append(details, " removed with the reasoning item it followed"...)
		}
		changes = append(changes, codecs.Change{Pointer: itemPointers.At(n), Removed: true})
		ends = append(ends, len(details))
		if out == nil {
			out = make([]byte, 0, len(raw))
			if bare {
				out = append(out, s[a:max(at-1, a+1)]...)
			} else {
				out = jsonw.AppendElems(append(out, '['), s, a+1, at)
			}
		}
		if !cut {
			after = true
			continue
		}
		from, to := jsonw.CutMember(s, at, it.end, it.idName, it.idEnd)
		out = jsonw.Comma(out)
		out = append(out, s[at:from]...)
		out = append(out, s[to:it.end]...)
	}
}

// Fix applies a one-shot fix to the turns (runs of input items):
// drop-reasoning strips them; drop-duplicates sends each reasoning item
// once; restore, for what no capture restored, sends a reasoning item the
// provider cannot find (stateless, without its ciphertext) nowhere, and a
// function call or message whose reasoning item is not there without the
// id that paired them.
func (c Codec) Fix(fix string, r *codecs.Request, only func(int) bool, _ http.Header) ([]byte, http.Header, []codecs.Change) {
	var body []byte
	var changes []codecs.Change
	switch fix {
	case codecs.FixDropReasoning:
		body, changes = codecs.EditTurns(r, only, func(_ int, raw []byte) ([]byte, []codecs.Change) {
			out, ch := c.Strip(raw)
			if len(ch) == 0 {
				return nil, nil
			}
			return out, ch
		})
	case codecs.FixDropDuplicates:
		seen := map[string]bool{}
		body, changes = codecs.EditTurns(r, only, func(_ int, raw []byte) ([]byte, []codecs.Change) {
			out, ch := strip(raw, func(el string) bool {
				id := memberStr(el, "id")
				dup := id != "" && seen[id]
				seen[id] = true
				return dup
			})
			for i := range ch {
				ch[i].Detail = "duplicate " + ch[i].Detail
			}
			return out, ch
		})
	case codecs.FixRestore:
		stateless := !r.Target.Store
		body, changes = codecs.EditTurns(r, only, func(_ int, raw []byte) ([]byte, []codecs.Change) {
			out, ch := strip(raw, func(el string) bool {
				return stateless && !itemHas(el, "encrypted_content")
			})
			return unpair(out, ch)
		})
	default:
		return r.Body, nil, nil
	}
	return body, nil, changes
}

// unpair removes the id of every function call or assistant message of a
// run that no reasoning item precedes.
func unpair(raw []byte, changes []codecs.Change) ([]byte, []codecs.Change) {
	out := []byte{'['}
	prevReasoning, changed := false, false
	i := -1
	gjson.ParseBytes(raw).ForEach(func(_, el gjson.Result) bool {
		i++
		item := []byte(el.Raw)
		typ := el.Get("type").Str
		if !prevReasoning && (typ == "function_call" || el.Get("role").Str == "assistant") {
			if o, id := kit.DeleteMember(item, "id"); id.Exists() {
				item, changed = o, true
				changes = append(changes, codecs.Change{Pointer: "/" + strconv.Itoa(i), Removed: true,
					Detail: "item id " + strconv.Quote(id.Str) + " removed: its reasoning item is not available"})
			}
		}
		prevReasoning = typ == "reasoning"
		out = jsonw.Comma(out)
		out = append(out, item...)
		return true
	})
	if !changed && len(changes) == 0 {
		return nil, nil
	}
	return append(out, ']'), changes
}

// RenameResults renames the call ids the tool results of a conversation
// element name (see [codecs.ResultRenamer]).
func (Codec) RenameResults(el []byte, rename func(string) (string, bool)) []byte {
	return kit.RenameIn(el, "", func(b gjson.Result) bool { return strings.HasSuffix(b.Get("type").Str, "_call_output") }, "call_id", rename)
}
