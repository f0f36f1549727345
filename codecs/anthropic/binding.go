package anthropic

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/claude"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/internal/prefixv1"
	"github.com/tidwall/gjson"
)

// This file computes the binding of thinking blocks to the request that
// produced them, as the Messages API documents it ("Preserved thinking"):
//
//   - The prefix: the top-level `system`, `tools`, and the messages before
//     the block. Not compared: every other member (`model`, `max_tokens`,
//     `effort`, `output_config`, `tool_choice`, `metadata`, `thinking` and
//     its `display`, `context_management`), `cache_control` markers
//     anywhere, tools with `defer_loading: true` that nothing before the
//     block referenced (a `tool_use` by name or a `tool_reference`), and the
//     thinking and redacted_thinking blocks themselves. With compaction,
//     the messages compared start at the newest `compaction` block.
//   - The chain: each block is chained to the thinking block before it.
//     Dropping blocks from the start, from the end, or all of them is
//     valid; a gap in the middle invalidates every later block; a removed
//     block put back invalidates the blocks produced while it was gone.

// PrefixHash returns the binding prefix hash of a Messages request body,
// "sha256:" and 64 lowercase hex digits: the prefix every block of its
// response is bound to. Record it in the [replay.Provenance] of the turn
// the request produced (or call [Bind]).
//
// The hash is canonical: member order, white space and string escapes do
// not change it; numbers are hashed as written. body must be a JSON object
// with a `messages` array; any other input returns an error wrapping
// [replay.ErrMalformed].
func PrefixHash(body []byte) (string, error) {
	p, err := readPrefix(body)
	if err != nil {
		return "", err
	}
	return p.hash(len(p.msgs)), nil
}

// PrefixHashBefore returns the binding prefix hash of body before its
// message n: what a block of the assistant message at messages[n] was bound
// to when it was produced. It equals the [PrefixHash] of the request that
// produced that message when nothing the check compares changed.
func PrefixHashBefore(body []byte, n int) (string, error) {
	p, err := readPrefix(body)
	if err != nil {
		return "", err
	}
	if n < 0 || n > len(p.msgs) {
		return "", bodyErr("/messages", "no message index %d in a conversation of %d", n, len(p.msgs))
	}
	return p.hash(n), nil
}

// Bind records in t's provenance what its thinking blocks are bound to:
// the [PrefixHash] of request, the body that produced t, and the chain
// (a digest of the last thinking or redacted_thinking block request
// carries, which t's first block is chained to; empty when none).
func Bind(t *replay.Turn, request []byte) error {
	p, err := readPrefix(request)
	if err != nil {
		return err
	}
	t.Provenance.PrefixHash = p.hash(len(p.msgs))
	t.Provenance.ChainHash = p.chain(len(p.msgs))
	return nil
}

// prefix is a request read for the binding.
type prefix struct {
	system gjson.Result
	tools  []gjson.Result
	msgs   []gjson.Result
}

// prefixOf is readPrefix on the request a History holds, as the pass that
// read it found it (nil when there is none, or no messages array).
func prefixOf(h *replay.History) *prefix {
	root := requestRoot(h)
	m := root.Get("messages")
	if !m.IsArray() {
		return nil
	}
	p := &prefix{system: root.Get("system").Result(), msgs: make([]gjson.Result, 0, m.Len())}
	if tools := root.Get("tools"); tools.Exists() {
		p.tools = tools.Result().Array()
	}
	m.ForEach(func(_ int, _ string, el jsonw.Val) bool {
		p.msgs = append(p.msgs, el.Result())
		return true
	})
	return p
}

func readPrefix(body []byte) (*prefix, error) {
	if !jsonw.ValidBytes(body) {
		return nil, bodyErr("", "expected a Messages request body: %s", jsonw.Explain(string(body)))
	}
	root := gjson.ParseBytes(body)
	if !root.IsObject() {
		return nil, bodyErr("", "expected a Messages request body object")
	}
	m := root.Get("messages")
	if !m.IsArray() {
		return nil, bodyErr("/messages", "expected a messages array")
	}
	return &prefix{system: root.Get("system"), tools: root.Get("tools").Array(), msgs: m.Array()}, nil
}

// isThinking reports whether a content block is a thinking or
// redacted_thinking block (not part of the prefix).
func isThinking(b jsonw.Val) bool {
	t := b.Get("type")
	return t.Is("thinking") || t.Is("redacted_thinking")
}

// isThinkingG is isThinking for a block read with gjson.
func isThinkingG(b gjson.Result) bool {
	t := b.Get("type").Str
	return t == "thinking" || t == "redacted_thinking"
}

// blockKey is what identifies a thinking block in the chain: its signature,
// or a redacted block's data.
func blockKey(b jsonw.Val) string {
	if b.Get("type").Is("redacted_thinking") {
		return b.Get("data").Str()
	}
	return b.Get("signature").Str()
}

// blockKeyG is blockKey for a block read with gjson.
func blockKeyG(b gjson.Result) string {
	if b.Get("type").Str == "redacted_thinking" {
		return b.Get("data").Str
	}
	return b.Get("signature").Str
}

// chainDigest is the digest of a block key, as recorded in
// Provenance.ChainHash.
func chainDigest(key string) string {
	if key == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(key))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// chain returns the digest of the last thinking block in msgs[:n], or "".
func (p *prefix) chain(n int) string {
	for i := n - 1; i >= 0; i-- {
		c := p.msgs[i].Get("content").Array()
		for j := len(c) - 1; j >= 0; j-- {
			if isThinkingG(c[j]) {
				return chainDigest(blockKeyG(c[j]))
			}
		}
	}
	return ""
}

// hash returns the prefix hash before message n.
func (p *prefix) hash(n int) string {
	// The newest compaction block before n restarts the messages compared.
	start, from := 0, 0
	referenced := map[string]bool{}
	for i := 0; i < n; i++ {
		c := p.msgs[i].Get("content")
		j := 0
		c.ForEach(func(_, b gjson.Result) bool {
			switch b.Get("type").Str {
			case "compaction":
				start, from = i, j
			case "tool_use", "server_tool_use":
				referenced[b.Get("name").Str] = true
			case "tool_reference":
				referenced[b.Get("tool_name").Str] = true
			}
			j++
			return true
		})
		// tool_reference blocks nest in tool search results.
		if c.IsArray() {
			c.ForEach(func(_, b gjson.Result) bool {
				b.Get("content").ForEach(func(_, r gjson.Result) bool {
					if r.Get("type").Str == "tool_reference" {
						referenced[r.Get("tool_name").Str] = true
					}
					return true
				})
				return true
			})
		}
	}
	dst := append([]byte(nil), `{"system":`...)
	if p.system.Exists() {
		dst = appendCanonical(dst, p.system)
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"tools":[`...)
	k := 0
	for _, t := range p.tools {
		if t.Get("defer_loading").Type == gjson.True && !referenced[t.Get("name").Str] {
			continue
		}
		if k > 0 {
			dst = append(dst, ',')
		}
		dst = appendCanonical(dst, t)
		k++
	}
	dst = append(dst, `],"messages":[`...)
	for i := start; i < n; i++ {
		if i > start {
			dst = append(dst, ',')
		}
		skip := 0
		if i == start {
			skip = from
		}
		dst = appendMessage(dst, p.msgs[i], skip)
	}
	dst = append(dst, "]}"...)
	sum := sha256.Sum256(dst)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// appendMessage appends a message in canonical form without its thinking
// blocks and its first skip content blocks.
func appendMessage(dst []byte, m gjson.Result, skip int) []byte {
	ms := canonicalMembers(m)
	dst = append(dst, '{')
	for i, e := range ms {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonw.String(dst, e.key)
		dst = append(dst, ':')
		if e.key != "content" || !e.val.IsArray() {
			dst = appendCanonical(dst, e.val)
			continue
		}
		dst = append(dst, '[')
		j, k := 0, 0
		e.val.ForEach(func(_, b gjson.Result) bool {
			if j >= skip && !isThinkingG(b) {
				if k > 0 {
					dst = append(dst, ',')
				}
				dst = appendCanonical(dst, b)
				k++
			}
			j++
			return true
		})
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

type member struct {
	key string
	val gjson.Result
}

// canonicalMembers returns the members of the object v sorted by key,
// without `cache_control` (a marker the server does not compare). Bodies
// with a name repeated in one object are refused before they are read
// (jsonw.Valid), so keys are unique.
func canonicalMembers(v gjson.Result) []member {
	var ms []member
	v.ForEach(func(k, e gjson.Result) bool {
		if k.Str != "cache_control" {
			ms = append(ms, member{k.Str, e})
		}
		return true
	})
	sort.Slice(ms, func(i, j int) bool { return ms[i].key < ms[j].key })
	return ms
}

// appendCanonical appends v in canonical form: object members sorted by
// key, `cache_control` members left out, no white space, strings
// re-escaped minimally from their unescaped value, numbers and literals as
// written. The input passed jsonw.Valid, so its depth is bounded.
func appendCanonical(dst []byte, v gjson.Result) []byte {
	switch {
	case v.IsObject():
		ms := canonicalMembers(v)
		dst = append(dst, '{')
		for i, m := range ms {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = jsonw.String(dst, m.key)
			dst = append(dst, ':')
			dst = appendCanonical(dst, m.val)
		}
		return append(dst, '}')
	case v.IsArray():
		dst = append(dst, '[')
		n := 0
		v.ForEach(func(_, e gjson.Result) bool {
			if n > 0 {
				dst = append(dst, ',')
			}
			dst = appendCanonical(dst, e)
			n++
			return true
		})
		return append(dst, ']')
	case v.Type == gjson.String:
		return jsonw.String(dst, v.Str)
	}
	return append(dst, v.Raw...)
}

// enforcedFrom is the account creation date from which Fable 5.1 and Opus
// 5.5 reject a binding mismatch without the request asking for it (Fable
// and Mythos 5.2, and Mythos 5.1 off Bedrock, reject it on every account).
var enforcedFrom = time.Date(2026, 8, 31, 0, 0, 0, 0, time.UTC)

// enforcement says what the API does with a binding violation (prefix or
// chain) of a block minted by a model, for the request at hand on the
// codec's platform: the severity to report, "" when nothing happens, and a
// note on why.
func (c Codec) enforcement(h *replay.History, t *replay.Target, model string) (replay.Severity, string) {
	if t.Model != "" {
		model = t.Model
	}
	m := claude.Parse(model)
	if !m.BindsPrefix() || m.Is("mythos", 5, 1) && claude.Bedrock(c.platform(t)) {
		// Bedrock's binding page: Mythos 5.1 records the mismatch without
		// acting on it.
		return "", ""
	}
	behaviour := ""
	if req := requestRoot(h); req.Exists() {
		behaviour = req.Path("thinking.block_binding.prefix_mismatch_behavior").Str()
	}
	switch {
	case behaviour == "drop_block":
		return replay.SeverityDegrade, "the request sets prefix_mismatch_behavior \"drop_block\": the API drops the block and every later one without an error"
	case behaviour == "error":
		return replay.SeverityReject, ""
	case t.Batch:
		return replay.SeverityDegrade, "a Batches request that does not set prefix_mismatch_behavior has the block dropped, not rejected"
	case m.EnforcesEveryAccount(c.platform(t)):
		return replay.SeverityReject, ""
	case t.AccountCreated.IsZero():
		return replay.SeverityRisk, model + " rejects it for accounts created on or after 2026-08-31 (set Target.AccountCreated to know)"
	case !t.AccountCreated.Before(enforcedFrom):
		return replay.SeverityReject, ""
	}
	// An older account that does not set the behaviour: recorded, not acted on.
	return "", ""
}

// predictBinding is the 400 of a binding violation at path, with the
// sentence the API adds when the request lacks the binding beta (known only
// when the caller gave the headers).
func predictBinding(t *replay.Target, path string) string {
	msg := predictBound
	if t.Headers != nil && !hasBeta(t.Headers, betaBinding) {
		msg += predictBoundBeta
	}
	return at(path, msg)
}

// hasBeta reports whether the `anthropic-beta` headers list v.
func hasBeta(h http.Header, v string) bool {
	for _, line := range h.Values("anthropic-beta") {
		for _, x := range strings.Split(line, ",") {
			if strings.TrimSpace(x) == v {
				return true
			}
		}
	}
	return false
}

// platform names the platform the request goes to: the target's provider,
// else the codec's.
func (c Codec) platform(t *replay.Target) string {
	if t.Provider != "" {
		return strings.ToLower(t.Provider)
	}
	return strings.ToLower(c.Provider)
}

// requestRoot returns the request body's root object as the pass that
// read it found it, or an absent value.
func requestRoot(h *replay.History) jsonw.Val {
	if r := kit.Body(h); r.IsObject() {
		return r
	}
	return jsonw.Val{}
}

// messageIndex returns the message index of a turn's pointer
// ("/messages/3"), or -1.
func messageIndex(ptr string) int {
	const pre = "/messages/"
	if !strings.HasPrefix(ptr, pre) {
		return -1
	}
	n, err := strconv.Atoi(ptr[len(pre):])
	if err != nil {
		return -1
	}
	return n
}

// firstThinking returns the content index of the first thinking or
// redacted_thinking block of a message, or -1.
func firstThinking(m jsonw.Val) int {
	at, j := -1, 0
	m.Get("content").Each(func(_ int, b jsonw.Val) bool {
		if isThinking(b) {
			at = j
			return false
		}
		j++
		return true
	})
	return at
}

// boundItem returns the block index of the first sendable signed item of
// tu, or -1.
func (c Codec) boundItem(tu *replay.Turn) int {
	for bi, b := range tu.Blocks {
		if it, ok := b.(replay.ReasoningItem); ok && c.sendable(tu, it) {
			return bi
		}
	}
	return -1
}

// checkPrefix compares each replayed turn's recorded prefix hash with the
// request's before it: with the request and the turns' pointers, every
// turn against the prefix before its own message; otherwise the latest
// turn against Target.PrefixHash (see [PrefixHashBefore]).
func (c Codec) checkPrefix(h *replay.History, t *replay.Target, report func(replay.Violation)) {
	c.walkPrefix(h, t, false, func(ti, bi int, got, path, ptr string) {
		tu := h.Turns[ti]
		sev, note := c.enforcement(h, t, tu.Provenance.Model)
		if sev == "" {
			return
		}
		msg := fmt.Sprintf("the turn's thinking was produced after prefix %s and is sent after prefix %s: the block and every later one are invalid", clipHash(tu.Provenance.PrefixHash), clipHash(got))
		if note != "" {
			msg += "; " + note
		}
		report(replay.Violation{Turn: ti, Block: bi, Severity: sev, Pointer: ptr,
			Message:   msg,
			Predicted: predictBinding(t, path),
			Fix:       "send the turn after the system prompt, tools and messages it was produced with, or drop its thinking blocks and every later one (or set thinking.block_binding.prefix_mismatch_behavior to \"drop_block\" with the thinking-binding-controls-2026-08-01 beta)"})
	})
}

// checkLegacyPrefix reports a replayed turn whose prefix hash came from a
// version-1 document (Provenance.LegacyPrefixHash) and matches the
// request's prefix by neither definition that version's builds used: the
// prefix is not known to differ, only not verified.
func (c Codec) checkLegacyPrefix(h *replay.History, t *replay.Target, report func(replay.Violation)) {
	c.walkPrefix(h, t, true, func(ti, bi int, got, path, ptr string) {
		tu := h.Turns[ti]
		if sev, _ := c.enforcement(h, t, tu.Provenance.Model); sev == "" {
			return
		}
		report(replay.Violation{Turn: ti, Block: bi, Pointer: ptr,
			Message: fmt.Sprintf("the turn's prefix hash %s was read from a version-1 document, which does not say how it was made, and matches the request's prefix by neither definition of that version: "+
				"the prefix could not be verified", clipHash(tu.Provenance.LegacyPrefixHash)),
			Fix: "record the turn's prefix again with Bind (or PrefixHash) from the request that produced it, or send it after the same system prompt, tools and messages"})
	})
}

// walkPrefix calls mismatch for every replayed turn whose recorded prefix
// hash differs from the request's before it (legacy: the
// LegacyPrefixHash of a turn that has no PrefixHash, which differs by both
// definitions), with the request's hash, and the block's path and pointer
// when the request locates it.
func (c Codec) walkPrefix(h *replay.History, t *replay.Target, legacy bool, mismatch func(ti, bi int, got, path, ptr string)) {
	if c.Format() != formats.AnthropicClaude {
		return
	}
	recorded := func(tu *replay.Turn) string {
		if !legacy {
			return tu.Provenance.PrefixHash
		}
		if tu.Provenance.PrefixHash != "" {
			return ""
		}
		return tu.Provenance.LegacyPrefixHash
	}
	if len(h.Request) > 0 && len(h.Pointers) == len(h.Turns) {
		msgs := requestMessages(h)
		if !msgs.Exists() {
			return
		}
		var p *prefix // read when a turn has a prefix hash to compare
		for ti, tu := range h.Turns {
			n := messageIndex(h.Pointers[ti])
			rec := recorded(tu)
			if rec == "" || n < 0 || n >= msgs.Len() {
				continue
			}
			j := firstThinking(msgs.Index(n))
			if j < 0 {
				continue
			}
			if p == nil {
				p = prefixOf(h)
			}
			got := p.hash(n)
			if got == rec {
				continue
			}
			if legacy {
				if old, ok := prefixv1.HashBefore(h.Request, n); ok && old == rec {
					continue
				}
			}
			mismatch(ti, -1, got, contentPath(n, j), contentPointer(n, j))
		}
		return
	}
	if n := len(h.Turns); n > 0 && t.PrefixHash != "" {
		tu := h.Turns[n-1]
		if bi := c.boundItem(tu); bi >= 0 {
			if rec := recorded(tu); rec != "" && rec != t.PrefixHash {
				mismatch(n-1, bi, t.PrefixHash, "", "")
			}
		}
	}
}

func clipHash(s string) string {
	if len(s) > 19 {
		return s[:19] + "…"
	}
	return s
}

// sentBlock is a thinking block as sent: from the request (msg, block) or
// from the turns (turn, block).
type sentBlock struct {
	key        string
	turn, blk  int
	msg, index int
}

// storedLink is what the captured turns say of a block: the digest of the
// block it was chained to ("" when not known) and where it was captured.
type storedLink struct {
	pred      string
	turn, blk int
}

// checkChain walks the thinking blocks as sent and reports the first whose
// recorded predecessor is not the block sent before it.
func (c Codec) checkChain(h *replay.History, t *replay.Target, report func(replay.Violation)) {
	if c.Format() != formats.AnthropicClaude {
		return
	}
	if requestMessages(h).Exists() {
		c.checkRequestChain(h, t, report)
		return
	}
	// Without a request, what is sent is each turn's sendable items: the
	// chain within a turn is known, and across turns from ChainHash.
	prev, prevAt := "", [2]int{-1, -1}
	droppedKey, dropped := "", [2]int{-1, -1}
	for ti, tu := range h.Turns {
		predKey, predDigest := "", tu.Provenance.ChainHash
		for bi, b := range tu.Blocks {
			it, ok := b.(replay.ReasoningItem)
			if !ok || it.Meta().Format.Family() != formats.AnthropicClaude.Family() {
				continue
			}
			k := itemKey(it)
			if k == "" {
				continue
			}
			if !c.sendable(tu, it) {
				predKey, predDigest, droppedKey, dropped = k, "", k, [2]int{ti, bi}
				continue
			}
			broken := prev != "" && (predKey != "" && predKey != prev || predKey == "" && predDigest != "" && !digestOf(predDigest, prev))
			if broken {
				var msg string
				if droppedKey != "" && (predKey == droppedKey || predKey == "" && digestOf(predDigest, droppedKey)) {
					msg = fmt.Sprintf("a gap in the chain: the block before this one (turn %d, block %d) is not sent while an earlier one (turn %d, block %d) is", dropped[0], dropped[1], prevAt[0], prevAt[1])
				} else {
					msg = "the block sent before this one was not there when it was produced (a removed block put back)"
				}
				c.reportChain(h, t, tu.Provenance.Model, replay.Violation{Turn: ti, Block: bi, Message: msg}, "", report)
				return
			}
			prev, prevAt, predKey, predDigest, droppedKey = k, [2]int{ti, bi}, k, "", ""
		}
	}
}

// reportChain reports a chain violation with the severity the request's
// enforcement gives it.
func (c Codec) reportChain(h *replay.History, t *replay.Target, model string, v replay.Violation, path string, report func(replay.Violation)) {
	sev, note := c.enforcement(h, t, model)
	if sev == "" {
		return
	}
	v.Severity = sev
	v.Message += ": this block and every later one are invalid"
	if note != "" {
		v.Message += "; " + note
	}
	v.Predicted = predictBinding(t, path)
	v.Fix = "send the thinking blocks as a run without gaps (drop only from the start or the end, or all of them), and never put a dropped block back"
	report(v)
}

// digestOf reports whether d is the chain digest of key, without
// allocating.
func digestOf(d, key string) bool {
	const pre = "sha256:"
	if len(d) != len(pre)+64 || d[:len(pre)] != pre {
		return false
	}
	sum := sha256.Sum256([]byte(key))
	var hx [64]byte
	hex.Encode(hx[:], sum[:])
	return d[len(pre):] == string(hx[:])
}

// checkRequestChain is checkChain on a request: the blocks sent are the
// request's, matched to the captured turns by signature (or data).
func (c Codec) checkRequestChain(h *replay.History, t *replay.Target, report func(replay.Violation)) {
	items := 0
	for _, tu := range h.Turns {
		for _, b := range tu.Blocks {
			if _, ok := b.(replay.ReasoningItem); ok {
				items++
			}
		}
	}
	links := make(map[string]storedLink, items)
	for ti, tu := range h.Turns {
		pred, predKey := tu.Provenance.ChainHash, "" // predKey: the item whose digest pred is, computed when needed
		for bi, b := range tu.Blocks {
			it, ok := b.(replay.ReasoningItem)
			if !ok || it.Meta().Format.Family() != formats.AnthropicClaude.Family() {
				continue
			}
			k := itemKey(it)
			if k == "" {
				continue
			}
			if _, dup := links[k]; !dup {
				if predKey != "" {
					pred, predKey = chainDigest(predKey), ""
				}
				links[k] = storedLink{pred, ti, bi}
			}
			pred, predKey = "", k
		}
	}
	turnOf := make(map[int]int, len(h.Pointers))
	for ti, p := range h.Pointers {
		turnOf[messageIndex(p)] = ti
	}
	blocks := thinkingBlocks(h)
	sent := make([]sentBlock, 0, len(blocks))
	for _, tb := range blocks {
		ti, ok := turnOf[tb.msg]
		if !ok {
			ti = -1
		}
		key := tb.b.Get("signature").Str()
		if tb.redacted {
			key = tb.b.Get("data").Str()
		}
		sent = append(sent, sentBlock{key: key, turn: ti, blk: -1, msg: tb.msg, index: tb.j})
	}
	prev := ""
	for _, s := range sent {
		l, known := links[s.key]
		if known && l.pred != "" && prev != "" && l.pred != chainDigest(prev) {
			byDigest := make(map[string]string, len(links))
			for k := range links {
				byDigest[chainDigest(k)] = k
			}
			present := make(map[string]bool, len(sent))
			for _, x := range sent {
				present[x.key] = true
			}
			var msg string
			if missing, ok := byDigest[l.pred]; ok && !present[missing] {
				ml := links[missing]
				msg = fmt.Sprintf("a gap in the chain: the block before this one (turn %d, block %d) is not sent while an earlier one is", ml.turn, ml.blk)
			} else {
				msg = "the block sent before this one was not there when it was produced (a removed block put back)"
			}
			v := replay.Violation{Turn: s.turn, Block: s.blk, Message: msg,
				Pointer: contentPointer(s.msg, s.index)}
			c.reportChain(h, t, h.Turns[l.turn].Provenance.Model, v, contentPath(s.msg, s.index), report)
			return
		}
		prev = s.key
	}
}

// itemKey is what identifies a Claude item in the chain: a thinking
// block's signature, a redacted block's data.
func itemKey(it replay.ReasoningItem) string {
	switch x := it.(type) {
	case *replay.ReasoningText:
		return x.Signature.Value()
	case *replay.Encrypted:
		return x.Data
	}
	return ""
}
