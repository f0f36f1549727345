package replay

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/reasonreplay/replay/internal/jsonw"
	iview "github.com/reasonreplay/replay/internal/view"
)

// This file reads the turn document and the two JSON forms of a reasoning
// item. The readers walk the caller's bytes in place (after checkJSON has
// validated them, see jvalue.go) and copy what they keep into one buffer
// per document (see reader), so that nothing they return shares the
// caller's memory. A JSON Pointer is built only for an error (see at).

// reader copies what a document's reader keeps: strings (decoded) and raw
// values, into one buffer of the document's size, allocated when the
// first is kept; each gets a region of its own, which is never written
// again. The values a document keeps are disjoint parts of it, and a
// decoded string is no longer than its literal, so they fit; whatever
// would not (a rebuilt object may) is copied on its own.
//
// A reader of a document whose bytes never change (doc set, see
// readTurnShared) keeps a string with no escape as a view of doc, and
// copies only decoded strings and raw values; its buffer, allocated when
// the first of those is kept, is sized for what can still be kept from
// there: the rest of doc from that value on, and the members pending
// (stepped over before it, read after it).
type reader struct {
	buf     []byte
	size    int
	doc     string
	pending int
	// in holds the block objects of the turn being read that are not
	// taken yet (see blockRoom); its zero value, as UnmarshalItem's
	// reader has it, allocates each.
	in blockRoom
}

// room returns the buffer with room for n more bytes, or nil; v is the
// text (a view of the document) of the value to be kept.
func (r *reader) room(n int, v string) []byte {
	if r.buf == nil {
		size := r.size
		if off, ok := iview.Offset(r.doc, v); ok {
			size = min(size, size-off+r.pending)
		}
		r.buf = make([]byte, 0, size)
	}
	if cap(r.buf)-len(r.buf) < n {
		return nil
	}
	return r.buf
}

// keep returns a copy of s, a slice whose capacity ends with it, or nil
// for "".
func (r *reader) keep(s string) []byte {
	if s == "" {
		return nil
	}
	b := r.room(len(s), s)
	if b == nil {
		return []byte(s)
	}
	at := len(b)
	r.buf = append(b, s...)
	return r.buf[at:len(r.buf):len(r.buf)]
}

// str returns the value of the string v (decoded as gjson decodes it) as
// a string of its own.
func (r *reader) str(v jv) string {
	lit := string(v[1 : len(v)-1])
	if lit == "" {
		return ""
	}
	if strings.IndexByte(lit, '\\') < 0 {
		if r.doc != "" {
			return lit
		}
		return iview.String(r.keep(lit))
	}
	b := r.room(len(lit), lit)
	if b == nil {
		return string(jsonw.AppendStr(nil, string(v)))
	}
	at := len(b)
	r.buf = jsonw.AppendStr(b, string(v))
	return iview.String(r.buf[at:len(r.buf):len(r.buf)])
}

// raw returns a copy of a value's raw text (nil for "").
func (r *reader) raw(v jv) []byte { return r.keep(string(v)) }

// at is where a value is, its JSON Pointer made only when an error names
// it: base, followed by the index i when i is not negative.
type at struct {
	base string
	i    int
}

// whole is the pointer of the document's root.
var whole = at{i: -1}

func (p at) String() string {
	if p.i < 0 {
		return p.base
	}
	return p.base + strconv.Itoa(p.i)
}

// member returns the pointer of p's member named k.
func (p at) member(k string) string { return p.String() + "/" + escapePointer(k) }

// rootOf returns the top-level value of a valid JSON text: from its first
// byte to the end of the text, as gjson.Parse gives it.
func rootOf(data []byte) jv { return rootOfString(view(data)) }

func rootOfString(s string) jv { return jv(s[skipWS(s, 0):]) }

// UnmarshalTurn reads a turn document. Errors are *[Error] values whose
// Pointer names the offending member.
func UnmarshalTurn(data []byte) (*Turn, error) {
	if err := checkJSON(data, "a turn document"); err != nil {
		return nil, err
	}
	return readTurn(&reader{size: len(data), in: blockRoom{turn: true}}, view(data))
}

// readTurn reads the turn document s (valid JSON) with rd.
func readTurn(rd *reader, s string) (*Turn, error) {
	root := rootOfString(s)
	if !root.isObject() {
		return nil, docErr("", "a turn document must be a JSON object")
	}
	// One pass over the root's members (checkJSON refused a name repeated,
	// and the first of a name is the one a lookup finds). The blocks are
	// read where they stand when the version came before them (as the
	// writer puts it), else once the pass is done; an error they hold is
	// reported where it was before, after the other members' errors.
	var ver, prov, c, fr, e, u, tr, blocks jv
	// The blocks are collected in a buffer on the stack while they are
	// few, and copied once to a slice of their number.
	var scratch [16]Block
	bs := scratch[:0]
	var blocksErr error
	read, known := false, false // the blocks were read; the version is known
	f := formV2
	for it := members(root); it.nextName(); {
		var dst *jv
		switch it.name {
		case "version":
			dst = &ver
		case "provenance":
			dst = &prov
		case "complete":
			dst = &c
		case "finish_reason":
			dst = &fr
		case "error":
			dst = &e
		case "usage":
			dst = &u
		case "transformations":
			dst = &tr
		case "blocks":
			dst = &blocks
			if !blocks.exists() && known && it.rest().isArray() {
				// The members stepped over so far are read after
				// the blocks.
				rd.pending = len(prov) + len(fr) + len(e) + len(u) + len(tr)
				var n int
				bs, n, blocksErr = rd.blocks(it.rest(), f, bs)
				it.consumed(n)
				blocks, read = it.val, true
				continue
			}
		}
		it.skip()
		if dst != nil && !dst.exists() {
			*dst = it.val
			if dst == &ver {
				var err error
				f, err = docForm(ver)
				known = err == nil
			}
		}
	}
	f, err := docForm(ver)
	if err != nil {
		return nil, err
	}
	rd.pending = 0
	if !read {
		rd.pending = len(blocks) // read after the other members
	}
	if rd.in.t == nil {
		rd.layout(firstType(blocks, read))
	}
	t := rd.in.t
	if prov.exists() {
		if !prov.isObject() {
			return nil, docErr("/provenance", "provenance must be an object")
		}
		if err := rd.provenance(prov, f, &t.Provenance); err != nil {
			return nil, err
		}
	}
	if !c.isBool() {
		return nil, docErr("/complete", "complete must be a boolean")
	}
	t.Complete = c.isTrue()
	if fr.exists() {
		if !fr.isString() {
			return nil, docErr("/finish_reason", "finish_reason must be a string")
		}
		t.FinishReason = rd.str(fr)
	}
	if e.exists() {
		pe, err := rd.providerError(e)
		if err != nil {
			return nil, err
		}
		t.Error = pe
	}
	if u.exists() && !u.isNull() {
		t.Usage = rd.raw(u)
	}
	if tr.exists() {
		if !tr.isArray() {
			return nil, docErr("/transformations", "transformations must be an array")
		}
		i := 0
		for it := elems(tr); it.next(); i++ {
			x, err := rd.transformation(it.val, f, at{"/transformations/", i})
			if err != nil {
				return nil, err
			}
			t.Transformations = append(t.Transformations, x)
		}
	}
	if !blocks.isArray() {
		return nil, docErr("/blocks", "a turn document needs a blocks array")
	}
	if !read {
		bs, _, blocksErr = rd.blocks(blocks, f, bs)
	}
	if blocksErr != nil {
		return nil, blocksErr
	}
	switch {
	case len(bs) > len(rd.in.slots):
		t.Blocks = append(make([]Block, 0, len(bs)), bs...)
	case len(bs) > 0:
		t.Blocks = rd.in.slots[:copy(rd.in.slots, bs):len(bs)]
	}
	return t, nil
}

// firstType returns the type of the first block of the blocks member
// when its blocks are still to be read and it has one, else "": the type
// the turn's allocation is laid out for (see layout).
func firstType(blocks jv, read bool) string {
	if read || !blocks.isArray() {
		return ""
	}
	if el, _, ok := jsonw.NextElem(string(blocks), 0); ok {
		if typ := jv(el).get("type"); typ.isString() {
			return typ.str()
		}
	}
	return ""
}

// docForm returns the form of a turn document of version ver.
func docForm(ver jv) (form, error) {
	if !ver.exists() {
		return formV2, docErr("/version", "a turn document needs a version")
	}
	switch v, ok := jsonInt(string(ver)); {
	case !ver.isNumber() || !ok || v < 1 || v > DocumentVersion:
		return formV2, &Error{Event: -1, Pointer: "/version", Err: fmt.Errorf("%w: %s (this library reads 1 to %d)", ErrVersion, ver, DocumentVersion)}
	case v == 1:
		return formV1, nil
	}
	return formV2, nil
}

// blocks reads the blocks of the array arr (its text may go on after it),
// appending them to bs, and returns the array's length. At the first
// block in error it stops and returns the error (and still the array's
// length).
func (rd *reader) blocks(arr jv, f form, bs []Block) ([]Block, int, error) {
	w := elemWalk{s: string(arr)}
	for i := 0; ; i++ {
		b, ok := w.next()
		if !ok {
			break
		}
		blk, n, err := rd.block(b, f, at{"/blocks/", i})
		if err != nil {
			return bs, jsonw.StepValue(string(arr), 0), err
		}
		bs = append(bs, blk)
		w.consumed(n)
	}
	return bs, jsonw.CloseEnd(w.s, w.pos), nil
}

// A turn is allocated with its first blocks: one allocation holds the
// Turn, room for four blocks in its Blocks (the slice is capped: appending
// to it moves it), and the block objects of the turn a tool loop stores
// per answer. Which objects depends on the turn's first block (see
// layout): signed thinking, text and two tool calls (turnThinking);
// summaries, encrypted content, a tool call and text (turnSummary); text
// and two tool calls when the turn has no reasoning first (turnPlain).
// Blocks past those take an allocation each, as every block of an item
// read alone does.
type (
	turnThinking struct {
		t     Turn
		slots [4]Block
		rt    [1]ReasoningText
		text  [1]Text
		call  [2]ToolCall
	}
	turnSummary struct {
		t     Turn
		slots [4]Block
		sum   [1]Summary
		enc   [1]Encrypted
		call  [1]ToolCall
		text  [1]Text
	}
	turnPlain struct {
		t     Turn
		slots [4]Block
		text  [1]Text
		call  [2]ToolCall
	}
)

// blockRoom is where a turn reader takes its turn and block objects from:
// the parts of the turn's allocation (made at its first block, or at its
// end when it has none) not taken yet, in order. Past them, and for a
// reader of one item (turn unset), each is allocated on its own.
type blockRoom struct {
	turn  bool // a turn is being read
	t     *Turn
	slots []Block
	rt    []ReasoningText
	text  []Text
	call  []ToolCall
	sum   []Summary
	enc   []Encrypted
}

// layout makes the turn's allocation, fit for a turn whose first block
// has the type first ("" for a turn with no block).
func (rd *reader) layout(first string) {
	in := &rd.in
	switch first {
	case "":
		in.t = new(Turn)
	case string(KindText):
		a := new(turnThinking)
		in.t, in.slots, in.rt, in.text, in.call = &a.t, a.slots[:], a.rt[:], a.text[:], a.call[:]
	case string(KindSummary), string(KindEncrypted):
		a := new(turnSummary)
		in.t, in.slots, in.sum, in.enc, in.call, in.text = &a.t, a.slots[:], a.sum[:], a.enc[:], a.call[:], a.text[:]
	default:
		a := new(turnPlain)
		in.t, in.slots, in.text, in.call = &a.t, a.slots[:], a.text[:], a.call[:]
	}
}

// take returns the first of the objects in room, which it then no longer
// holds, or a new one when it holds none.
func take[T any](room *[]T) *T {
	if len(*room) == 0 {
		return new(T)
	}
	x := &(*room)[0]
	*room = (*room)[1:]
	return x
}

// provenance reads the provenance object: its members are all strings,
// and no other member is allowed (the schema says so too). "issuer" is the
// name "account" had before; a document holds one or the other. A
// version-1 document's "prefix_hash" may have been made by either
// definition that version's builds used, so it is read as the
// LegacyPrefixHash.
func (rd *reader) provenance(p jv, f form, dst *Provenance) error {
	var issuer string
	var hasIssuer, hasAccount, hasLegacy bool
	prefix := &dst.PrefixHash
	if f == formV1 {
		prefix = &dst.LegacyPrefixHash
	}
	for it := members(p); it.next(); {
		var field *string
		switch it.name {
		case "api":
			field = &dst.API
		case "provider":
			field = &dst.Provider
		case "upstream":
			field = &dst.Upstream
		case "model":
			field = &dst.Model
		case "account":
			field, hasAccount = &dst.Account, true
		case "issuer":
			field, hasIssuer = &issuer, true
		case "prefix_hash":
			field = prefix
		case "legacy_prefix_hash":
			field, hasLegacy = &dst.LegacyPrefixHash, true
		case "requested_model":
			field = &dst.RequestedModel
		case "chain_hash":
			field = &dst.ChainHash
		default:
			return docErr("/provenance/"+escapePointer(it.name), "provenance has no member %q", it.name)
		}
		if !it.val.isString() {
			return docErr("/provenance/"+escapePointer(it.name), "%s must be a string", it.name)
		}
		*field = rd.str(it.val)
	}
	if f == formV1 && hasLegacy {
		return docErr("/provenance/legacy_prefix_hash", "a version-1 document has no legacy_prefix_hash (its prefix_hash is read as one)")
	}
	if hasIssuer {
		if hasAccount {
			return docErr("/provenance/issuer", "issuer is the former name of account: a document has one or the other")
		}
		dst.Account = issuer
	}
	return nil
}

func (rd *reader) providerError(e jv) (*ProviderError, error) {
	if !e.isObject() {
		return nil, docErr("/error", "error must be an object")
	}
	for it := members(e); it.next(); {
		switch it.name {
		case "api", "status", "type", "code", "message", "provider", "raw":
			continue
		}
		return nil, docErr("/error/"+escapePointer(it.name), "error has no member %q (it would be lost)", it.name)
	}
	pe := &ProviderError{}
	if s := e.get("status"); s.exists() {
		n, ok := jsonInt(string(s))
		if !s.isNumber() || !ok {
			return nil, docErr("/error/status", "status must be an integer")
		}
		pe.Status = n
	}
	for _, f := range [...]struct {
		k   string
		dst *string
	}{
		{"api", &pe.API}, {"type", &pe.Type}, {"code", &pe.Code}, {"message", &pe.Message},
		{"provider", &pe.Provider}, {"raw", &pe.Raw},
	} {
		v := e.get(f.k)
		if !v.exists() {
			continue
		}
		if !v.isString() {
			return nil, docErr("/error/"+f.k, "%s must be a string", f.k)
		}
		*f.dst = rd.str(v)
	}
	return pe, nil
}

// block reads a block whose text starts b (and may go on after it), and
// returns its length.
func (rd *reader) block(b jv, f form, p at) (Block, int, error) {
	if !b.isObject() {
		return nil, 0, docErr(p.String(), "a block must be a JSON object")
	}
	typ := b.get("type")
	if !typ.isString() {
		return nil, 0, docErr(p.member("type"), "a block needs a string type")
	}
	ts := typ.str()
	if rd.in.turn && rd.in.t == nil {
		rd.layout(ts)
	}
	switch ts {
	case "text":
		return rd.text(b, f, p)
	case "tool_call":
		return rd.toolCall(b, f, p)
	case "native":
		return rd.native(b, p)
	case "compaction":
		return rd.compaction(b, f, p)
	default:
		if len(ts) > len("reasoning.") && ts[:len("reasoning.")] == "reasoning." {
			switch ItemKind(ts) {
			case KindText, KindSummary, KindEncrypted:
			default:
				// An item kept whole keeps its text: the exact text.
				b = b[:jsonw.StepValue(string(b), 0)]
			}
			x, n, err := rd.itemEnd(b, typ, f, p)
			if err != nil {
				return nil, 0, err
			}
			return x, n, nil
		}
		return nil, 0, docErr(p.member("type"), "unknown block type %q", ts)
	}
}

// text reads a text block.
func (rd *reader) text(b jv, f form, p at) (Block, int, error) {
	x := take(&rd.in.text)
	var extra providerMembers
	hasText := false
	it := members(b)
	for it.next() {
		switch it.name {
		case "type":
		case "text":
			if !it.val.isString() {
				return nil, 0, docErr(p.member("text"), "text must be a string")
			}
			x.Text, hasText = rd.str(it.val), true
		case "id":
			if !it.val.isString() {
				return nil, 0, docErr(p.member("id"), "id must be a string")
			}
			x.ID = rd.str(it.val)
		default:
			if it.name != "extra" || !extra.take(it.val, f, textNames) {
				extra.add(it.raw, it.val)
			}
		}
	}
	if !hasText {
		return nil, 0, docErr(p.member("text"), "a text block needs text")
	}
	var err error
	if x.Extra, err = extra.json(rd, p); err != nil {
		return nil, 0, err
	}
	return x, it.end, nil
}

// toolCall reads a tool_call block.
func (rd *reader) toolCall(b jv, f form, p at) (Block, int, error) {
	x := take(&rd.in.call)
	var extra providerMembers
	var has [3]bool // id, name, arguments
	it := members(b)
	for it.next() {
		var dst *string
		switch it.name {
		case "type":
			continue
		case "id":
			dst, has[0] = &x.ID, true
		case "name":
			dst, has[1] = &x.Name, true
		case "arguments":
			dst, has[2] = &x.Arguments, true
		case "item_id":
			dst = &x.ItemID
		case "unfinished":
			// The library's when it is a boolean, as an item's is.
			if !it.val.isBool() {
				extra.add(it.raw, it.val)
			} else {
				x.Unfinished = it.val.isTrue()
			}
			continue
		default:
			if it.name != "extra" || !extra.take(it.val, f, toolCallNames) {
				extra.add(it.raw, it.val)
			}
			continue
		}
		if !it.val.isString() {
			return nil, 0, docErr(p.member(it.name), "%s must be a string", it.name)
		}
		*dst = rd.str(it.val)
	}
	for i, k := range [...]string{"id", "name", "arguments"} {
		if !has[i] {
			return nil, 0, docErr(p.member(k), "a tool_call block needs %s", k)
		}
	}
	var err error
	if x.Extra, err = extra.json(rd, p); err != nil {
		return nil, 0, err
	}
	return x, it.end, nil
}

// native reads a native block.
func (rd *reader) native(b jv, p at) (Block, int, error) {
	var k, r, u jv
	it := members(b)
	for it.next() {
		var dst *jv
		switch it.name {
		case "kind":
			dst = &k
		case "raw":
			dst = &r
		case "unfinished":
			dst = &u
		default:
			continue
		}
		if !dst.exists() {
			*dst = it.val
		}
	}
	x := &Native{}
	if !k.isString() {
		return nil, 0, docErr(p.member("kind"), "a native block needs a string kind")
	}
	x.Kind = rd.str(k)
	if !r.exists() {
		return nil, 0, docErr(p.member("raw"), "a native block needs raw")
	}
	x.Raw = rd.raw(r)
	if u.exists() {
		if !u.isBool() {
			return nil, 0, docErr(p.member("unfinished"), "unfinished must be a boolean")
		}
		x.Unfinished = u.isTrue()
	}
	return x, it.end, nil
}

// compaction reads a compaction block.
func (rd *reader) compaction(b jv, f form, p at) (Block, int, error) {
	x := &Compaction{}
	var extra providerMembers
	it := members(b)
	for it.next() {
		k, val := it.name, it.val
		var err error
		switch k {
		case "type":
		case "format":
			var fm string
			err = rd.readString(&fm, val, p, k)
			x.Format = Format(fm)
		case "id":
			if err = refuseLone(val, p, k); err == nil {
				err = rd.readString(&x.ID, val, p, k)
			}
		case "content":
			if err = refuseLone(val, p, k); err == nil {
				err = rd.readOptString(&x.Content, val, p, k)
			}
		case "signature":
			if err = refuseLone(val, p, k); err == nil {
				err = rd.readOptString(&x.Signature, val, p, k)
			}
		case "data":
			if err = refuseLone(val, p, k); err == nil {
				err = rd.readString(&x.Data, val, p, k)
			}
		case "unfinished":
			// The library's when it is a boolean, as an item's is.
			if !val.isBool() {
				extra.add(it.raw, val)
			} else {
				x.Unfinished = val.isTrue()
			}
		default:
			if k != "extra" || !extra.take(val, f, compactionNames) {
				extra.add(it.raw, val)
			}
		}
		if err != nil {
			return nil, 0, err
		}
	}
	var err error
	if x.Extra, err = extra.json(rd, p); err != nil {
		return nil, 0, err
	}
	return x, it.end, nil
}

// transformation reads one entry of a turn's transformations: a type, an
// optional reason and path (strings), and other members kept in Extra (in
// its "extra" object when one is named like these).
func (rd *reader) transformation(v jv, f form, p at) (Transformation, error) {
	var x Transformation
	if !v.isObject() {
		return x, docErr(p.String(), "a transformation must be an object")
	}
	for _, fl := range [...]struct {
		k   string
		dst *string
		req bool
	}{{"type", &x.Type, true}, {"reason", &x.Reason, false}, {"path", &x.Path, false}} {
		m := v.get(fl.k)
		if !m.exists() && !fl.req {
			continue
		}
		if !m.isString() {
			return x, docErr(p.member(fl.k), "%s must be a string", fl.k)
		}
		*fl.dst = rd.str(m)
	}
	var extra providerMembers
	for it := members(v); it.next(); {
		switch it.name {
		case "type", "reason", "path":
		default:
			if it.name != "extra" || !extra.take(it.val, f, transformationNames) {
				extra.add(it.raw, it.val)
			}
		}
	}
	var err error
	if x.Extra, err = extra.json(rd, p); err != nil {
		return Transformation{}, err
	}
	return x, nil
}

// UnmarshalItem reads the document form of one reasoning item, as
// [ReasoningItem].AppendJSON writes it or as any earlier version of this library wrote
// it: an item document carries no version of its own, and is read by the
// rules that read every version (see the document format policy in
// package schema).
func UnmarshalItem(data []byte) (ReasoningItem, error) {
	if err := checkJSON(data, "a reasoning item"); err != nil {
		return nil, err
	}
	rd := &reader{size: len(data)}
	return rd.item(rootOf(data), "", formItem, whole)
}

// UnmarshalItemWire reads the wire form of one reasoning item: a
// reasoning_details entry. Members this library does not know (including
// ones named like its own document members) are kept in Extra. A detail of
// an unknown type becomes an [*Opaque] item. data must be valid JSON.
func UnmarshalItemWire(data []byte) (ReasoningItem, error) {
	if err := checkJSON(data, "a reasoning item"); err != nil {
		return nil, err
	}
	rd := &reader{size: len(data)}
	return rd.item(rootOf(data), "", formWire, whole)
}

// item reads a reasoning item object by the rules of form f; typ is its
// type member when the caller has found it.
func (rd *reader) item(v, typ jv, f form, p at) (ReasoningItem, error) {
	x, _, err := rd.itemEnd(v, typ, f, p)
	return x, err
}

// itemEnd is item also returning the object's length. The object's text
// starts v and may go on after it, but for an item of a type kept whole,
// whose v is its exact text.
func (rd *reader) itemEnd(v, typ jv, f form, p at) (ReasoningItem, int, error) {
	if !v.isObject() {
		return nil, 0, docErr(p.String(), "a reasoning item must be a JSON object")
	}
	if typ == "" {
		typ = v.get("type")
	}
	if !typ.isString() {
		return nil, 0, docErr(p.member("type"), "a reasoning item needs a string type")
	}
	ts := typ.str()
	kind := ItemKind(ts)
	switch kind {
	case KindText, KindSummary, KindEncrypted:
	default:
		x, err := rd.opaque(v, ts, f, p)
		return x, len(v), err
	}
	r := itemReader{kind: kind, form: f, at: p}
	n := 0
	it := members(v)
	for ; it.next(); n++ {
		if r.names == nil && strings.IndexByte(it.raw, '\\') >= 0 {
			r.noteNames(v, n)
		}
		if err := r.member(rd, it.name, it.raw, it.val); err != nil {
			return nil, 0, err
		}
	}
	x, err := r.item(rd)
	return x, it.end, err
}

// opaque reads an item of a type this library does not know. Its object is
// the provider's, kept whole, with its common members read for convenience
// when they have their usual types (whatever they hold, the object is kept
// and written back as it came). In the document form (but for version 1,
// which never wrapped one) an item that carries this library's members is
// written wrapped: its type, those members, and the provider's object as
// "extra" (see appendOpaque).
func (rd *reader) opaque(v jv, typ string, f form, p at) (ReasoningItem, error) {
	if !validItemType(typ) {
		return nil, docErr(p.member("type"), "a reasoning item's type must be reasoning.<kind> (letters, digits, _ . -), not %q", typ)
	}
	o := &Opaque{Type: typ}
	if rd.doc == "" {
		o.Type = iview.String(rd.keep(typ))
	}
	raw := v
	if f == formItem || f == formV2 {
		if inner, ok := rd.wrappedOpaque(v, typ, &o.ItemMeta); ok {
			raw = inner
		}
	}
	o.Raw = rd.raw(raw)
	if fm := raw.get("format"); fm.isString() {
		o.Format = Format(rd.str(fm))
	}
	if id := raw.get("id"); id.isString() {
		o.ID = Some(rd.str(id))
	}
	if ix := raw.get("index"); ix.isNumber() {
		if n, ok := jsonInt(string(ix)); ok {
			o.Index = Some(n)
		}
	}
	return o, nil
}

// wrappedOpaque reports whether v is an item of a type kept whole written
// wrapped: its type, this library's members (of their types) and "extra",
// an object of the same type; it reads the library's members into m and
// returns the provider's object. An object of any other shape is the
// provider's own: the writer wraps every object that has a member named
// like the library's, so that no object written bare looks wrapped.
func (rd *reader) wrappedOpaque(v jv, typ string, m *ItemMeta) (jv, bool) {
	inner := v.get("extra")
	if !inner.isObject() {
		return inner, false
	}
	if it := inner.get("type"); !it.isString() || it.str() != typ {
		return inner, false
	}
	var lib ItemMeta
	for it := members(v); it.next(); {
		switch it.name {
		case "type", "extra":
		default:
			if !rd.readLibrary(&lib, it.name, it.val) {
				return inner, false
			}
		}
	}
	m.Unfinished, m.Attached, m.Display, m.Digest = lib.Unfinished, lib.Attached, lib.Display, lib.Digest
	return inner, true
}

// readLibrary reads the library member k of an item into m when val has
// the member's type ("unfinished" and "attached" booleans, "display" a
// string, "digest" sha256: and 64 lowercase hex digits), and reports
// whether it did. A member of that name and another type is not the
// library's (builds of version 1 wrote the provider's members of these
// names beside the item): the caller keeps it as the provider's.
func (rd *reader) readLibrary(m *ItemMeta, k string, val jv) bool {
	switch k {
	case "unfinished", "attached":
		if !val.isBool() {
			return false
		}
		if k == "unfinished" {
			m.Unfinished = val.isTrue()
		} else {
			m.Attached = val.isTrue()
		}
	case "display":
		if !val.isString() {
			return false
		}
		m.Display = Some(rd.str(val))
	case "digest":
		if !val.isString() || !validDigest(val.str()) {
			return false
		}
		m.Digest = rd.str(val)
	default:
		return false
	}
	return true
}

// The member names an item reader tells apart, as bits of itemReader.seen.
const (
	seenType = 1 << iota
	seenFormat
	seenID
	seenIndex
	seenText
	seenSignature
	seenSummary
	seenData
	seenExtra
	seenUnfinished
	seenAttached
	seenDisplay
	seenDigest
)

// seenBit returns the bit of the member name k, 0 for another name.
func seenBit(k string) uint16 {
	switch k {
	case "type":
		return seenType
	case "format":
		return seenFormat
	case "id":
		return seenID
	case "index":
		return seenIndex
	case "text":
		return seenText
	case "signature":
		return seenSignature
	case "summary":
		return seenSummary
	case "data":
		return seenData
	case "extra":
		return seenExtra
	case "unfinished":
		return seenUnfinished
	case "attached":
		return seenAttached
	case "display":
		return seenDisplay
	case "digest":
		return seenDigest
	}
	return 0
}

// itemReader collects the members of one text, summary or encrypted item.
type itemReader struct {
	kind  ItemKind
	form  form
	at    at
	meta  ItemMeta
	extra providerMembers
	// seen holds the names met so far that the reader knows (seenBit).
	// checkJSON refused a name repeated, comparing names decoded as
	// encoding/json decodes them; gjson decodes a few broken surrogate
	// escapes otherwise, so two names it refused only as gjson reads them
	// can still meet here. names holds every name met, as gjson reads it,
	// once a name with an escape is met, to refuse those as before.
	seen  uint16
	names map[string]bool
	// The kind's own members.
	text, summary, data string
	signature           Opt[string]
	// textRaw is the text member as it came: text under a signature is
	// checked once the signature is known.
	textRaw string
}

// noteNames starts names with the first n members of the object v.
func (r *itemReader) noteNames(v jv, n int) {
	r.names = map[string]bool{}
	for it := members(v); n > 0 && it.next(); n-- {
		r.names[it.name] = true
	}
}

// member reads one member of the item object: its name k, decoded, and
// as written (rawKey), and its value.
func (r *itemReader) member(rd *reader, k, rawKey string, val jv) error {
	bit := seenBit(k)
	if r.names != nil {
		if r.names[k] {
			return docErr(r.at.member(k), "duplicate member %q", k)
		}
		r.names[k] = true
	} else if r.seen&bit != 0 {
		return docErr(r.at.member(k), "duplicate member %q", k)
	}
	r.seen |= bit
	p := r.at
	switch {
	case k == "type":
		return nil
	case k == "format":
		return r.format(rd, rawKey, val)
	case k == "id":
		if err := refuseLone(val, p, k); err != nil {
			return err
		}
		return rd.readOptString(&r.meta.ID, val, p, k)
	case k == "index":
		return readIndex(&r.meta.Index, val, p)
	case k == "text" && r.kind == KindText:
		if val.isNull() && r.form == formWire {
			return nil
		}
		r.textRaw = string(val)
		return rd.readString(&r.text, val, p, k)
	case k == "signature" && r.kind == KindText:
		if err := refuseLone(val, p, k); err != nil {
			return err
		}
		return rd.readOptString(&r.signature, val, p, k)
	case k == "summary" && r.kind == KindSummary:
		return rd.readString(&r.summary, val, p, k)
	case k == "data" && r.kind == KindEncrypted:
		if err := refuseLone(val, p, k); err != nil {
			return err
		}
		return rd.readString(&r.data, val, p, k)
	case r.form == formWire:
	case k == "extra":
		if r.extra.take(val, r.form, itemNames) {
			return nil
		}
	case rd.readLibrary(&r.meta, k, val):
		return nil
	}
	r.extra.add(rawKey, val)
	return nil
}

func (r *itemReader) format(rd *reader, rawKey string, val jv) error {
	switch val.kind() {
	case '"':
		r.meta.Format = Format(rd.str(val))
	case 'n':
		// A null format says nothing; keep it verbatim.
		r.extra.add(rawKey, val)
	default:
		return docErr(r.at.member("format"), "format must be a string")
	}
	return nil
}

// item checks the kind's required members and builds the item.
func (r *itemReader) item(rd *reader) (ReasoningItem, error) {
	if r.kind == KindEncrypted && r.seen&seenData == 0 {
		return nil, docErr(r.at.member("data"), "a reasoning.encrypted item needs data")
	}
	if r.kind == KindText && r.form != formWire && r.seen&seenText == 0 {
		return nil, docErr(r.at.member("text"), "a reasoning.text item needs text")
	}
	if r.kind == KindSummary && r.seen&seenSummary == 0 {
		return nil, docErr(r.at.member("summary"), "a reasoning.summary item needs summary")
	}
	if r.signature.Value() != "" && r.textRaw != "" && jsonw.Lone(r.textRaw) {
		return nil, loneErr(r.at.member("text"))
	}
	var err error
	if r.meta.Extra, err = r.extra.json(rd, r.at); err != nil {
		return nil, err
	}
	switch r.kind {
	case KindText:
		x := take(&rd.in.rt)
		*x = ReasoningText{ItemMeta: r.meta, Text: r.text, Signature: r.signature}
		return x, nil
	case KindSummary:
		x := take(&rd.in.sum)
		*x = Summary{ItemMeta: r.meta, Summary: r.summary}
		return x, nil
	}
	x := take(&rd.in.enc)
	*x = Encrypted{ItemMeta: r.meta, Data: r.data}
	return x, nil
}

// providerMembers collects a block's provider members as a reader meets
// them: beside the block's own, and in its "extra" object.
type providerMembers struct {
	members []byte // '{' and "name":value pairs joined by commas, in document order
	obj     jv     // the "extra" object as it came
	beside  bool   // a provider member stood beside the block's own
}

// add keeps a member that stood beside the block's own: its name as
// written, and its value.
func (pm *providerMembers) add(rawKey string, val jv) {
	pm.put(rawKey, string(val))
	pm.beside = true
}

func (pm *providerMembers) put(rawKey, rawVal string) {
	if len(pm.members) == 0 {
		pm.members = append(pm.members, '{')
	} else {
		pm.members = append(pm.members, ',')
	}
	pm.members = append(pm.members, rawKey...)
	pm.members = append(pm.members, ':')
	pm.members = append(pm.members, rawVal...)
}

// take takes val, the block's "extra" member, as the object holding the
// provider's members named like the block's own, and reports whether it
// did. In a version-1 document it holds only such names (names), and any
// other "extra" is a provider member of that name, which builds of that
// version wrote beside the block's own; since version 2 it is the
// block's whole Extra, byte for byte. In any version a member "extra" that
// is not an object is the provider's.
func (pm *providerMembers) take(val jv, f form, names []string) bool {
	if !val.isObject() || pm.obj != "" {
		return false
	}
	if f == formV1 {
		for it := members(val); it.next(); {
			if !slices.Contains(names, it.name) {
				return false
			}
		}
	}
	for it := members(val); it.next(); {
		pm.put(it.raw, string(it.val))
	}
	pm.obj = val
	return true
}

// json returns the provider's members as one JSON object: the "extra"
// object as it came when it held them all, else rebuilt from the members
// in document order; nil when there are none. Members beside the block's
// own and in its "extra" object (p is the block's pointer) may not share a
// name: one Extra could not hold both, and the writer, which writes Extra
// beside the block's own members or as "extra" but never both, would
// write the name twice.
func (pm *providerMembers) json(rd *reader, p at) (json.RawMessage, error) {
	if pm.obj != "" && !pm.beside {
		return rd.raw(pm.obj), nil
	}
	if len(pm.members) == 0 {
		return nil, nil
	}
	out := append(pm.members, '}')
	if pm.obj != "" && !jsonw.ValidBytes(out) {
		return nil, docErr(p.member("extra"), "a provider member is named both beside the block's own members and in extra")
	}
	return out, nil
}

// refuseLone refuses a string member k of p that holds a surrogate escape
// with no partner: read, it would become U+FFFD, and the member's bytes (a
// signature, ciphertext, id or signed text) would not be the ones the
// issuer sent.
func refuseLone(val jv, p at, k string) error {
	if val.isString() && jsonw.Lone(string(val)) {
		return loneErr(p.member(k))
	}
	return nil
}

func (rd *reader) readString(dst *string, val jv, p at, k string) error {
	if !val.isString() {
		return docErr(p.member(k), "%s must be a string", k)
	}
	*dst = rd.str(val)
	return nil
}

func (rd *reader) readOptString(dst *Opt[string], val jv, p at, k string) error {
	switch val.kind() {
	case '"':
		*dst = Some(rd.str(val))
	case 'n':
		*dst = NullOf[string]()
	default:
		return docErr(p.member(k), "%s must be a string or null", k)
	}
	return nil
}

// readIndex reads an index: an integer, written as JSON allows (1, 1.0,
// 1e2), or null. JSON Schema's "integer" is any number with no fraction,
// and the library reads what the schema accepts.
func readIndex(dst *Opt[int], val jv, p at) error {
	switch {
	case val.isNumber():
		n, ok := jsonInt(string(val))
		if !ok {
			return docErr(p.member("index"), "index must be an integer")
		}
		*dst = Some(n)
	case val.isNull():
		*dst = NullOf[int]()
	default:
		return docErr(p.member("index"), "index must be an integer or null")
	}
	return nil
}
