package gemini

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/gemsig"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/view"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// SentinelUse records one place where [Sentinel] was written in place of a
// missing signature.
type SentinelUse struct {
	// Part is the index of the part in the written model message.
	Part int
	// Name and ID identify the function call.
	Name, ID string
	// Replaced is the value the call carried instead, when it carried an
	// encoding of the dummy (which Google treats as a corrupt signature,
	// see [gemsig.EncodedDummy]); empty when the call was unsigned.
	Replaced string
}

// Encode writes the turn as the `contents[]` entry of the next request:
//
//	{"role":"model","parts":[...]}
//
// with every part in its original order and each signature on the part it
// came on. Thought text without a signature, items of other issuers,
// unfinished items, calls and native parts are left out, and so is a
// signature whose part is left out. A signature that is an encoding of the
// documented dummy (base64 of [Sentinel]) is corrupt and never written: the
// part goes without it (a thought part is left out), or, on the first call
// when [Codec.Sentinel] allows it, with the plain [Sentinel].
func (c Codec) Encode(t *replay.Turn) ([]byte, error) {
	out, _, err := c.EncodeReport(t)
	return out, err
}

// EncodeReport is Encode that also reports where [Sentinel] was written
// (only when [Codec.Sentinel] allows it).
func (c Codec) EncodeReport(t *replay.Turn) ([]byte, []SentinelUse, error) {
	if t == nil {
		return nil, nil, codecs.Malformed(API, -1, "", "no turn to encode")
	}
	e := encoder{blocks: t.Blocks, byID: signaturesByID(t), sentinel: c.Sentinel, firstCall: true}
	e.out = append(e.out, `{"role":"model","parts":[`...)
	for i := range t.Blocks {
		start := len(e.out)
		e.out = jsonw.Comma(e.out)
		ok, err := e.block(i)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			e.out = e.out[:start]
			continue
		}
		e.part++
	}
	e.out = append(e.out, "]}"...)
	return e.out, e.uses, nil
}

// signaturesByID returns the signatures that are not attached but name a
// call by id (as OpenRouter relays them): they are bound to that call.
func signaturesByID(t *replay.Turn) map[string]string {
	byID := map[string]string{}
	for _, bl := range t.Blocks {
		e, ok := bl.(*replay.Encrypted)
		if !ok || e.Attached || e.Format != formats.GoogleGemini || !e.Replayable() || gemsig.EncodedDummy(e.Data) {
			continue
		}
		if id := e.ID.Value(); id != "" {
			byID[id] = e.Data
		}
	}
	return byID
}

// encoder writes the parts of one model message.
type encoder struct {
	blocks    []replay.Block
	byID      map[string]string
	sentinel  bool
	out       []byte
	uses      []SentinelUse
	part      int // the index of the next part written
	firstCall bool
}

// block writes the part of blocks[i], with the signature bound to it, and
// reports whether it wrote one.
func (e *encoder) block(i int) (bool, error) {
	sig, hasSig, corrupt := "", false, ""
	if x, ok := gemsig.Bound(e.blocks, i); ok && x.Replayable() {
		if gemsig.EncodedDummy(x.Data) {
			corrupt = x.Data
		} else {
			sig, hasSig = x.Data, true
		}
	}
	switch bl := e.blocks[i].(type) {
	case *replay.Encrypted:
		return e.signaturePart(i, bl), nil
	case *replay.ReasoningText:
		if bl.Format != formats.GoogleGemini || !bl.Replayable() || gemsig.EncodedDummy(bl.Signature.Value()) {
			return false, nil
		}
		e.out = append(e.out, `{"text":`...)
		e.out = jsonw.String(e.out, bl.Text)
		e.out = append(e.out, `,"thought":true`...)
		e.out = jsonw.Members(e.out, bl.Extra)
		s, ok := bl.Signature.Get()
		e.out = append(appendSig(e.out, s, ok), '}')
	case *replay.Text:
		if bl.Text == "" && !hasSig && len(bl.Extra) == 0 {
			return false, nil // an empty unsigned part carries nothing
		}
		e.out = append(e.out, `{"text":`...)
		e.out = jsonw.String(e.out, bl.Text)
		e.out = jsonw.Members(e.out, bl.Extra)
		e.out = append(appendSig(e.out, sig, hasSig), '}')
	case *replay.ToolCall:
		return e.call(i, bl, sig, hasSig, corrupt)
	case *replay.Native:
		return e.native(bl, sig, hasSig), nil
	default:
		return false, nil
	}
	return true, nil
}

// signaturePart writes a signature that has no part of its own as
// Gemini's trailing `{"text":"","thoughtSignature":...}` part. A bound
// signature is written on the next block's part instead.
func (e *encoder) signaturePart(i int, bl *replay.Encrypted) bool {
	if _, bound := gemsig.Is(bl); bound && i+1 < len(e.blocks) {
		if _, next := gemsig.Is(e.blocks[i+1]); !next {
			return false
		}
	}
	if bl.Format != formats.GoogleGemini || !bl.Replayable() || gemsig.EncodedDummy(bl.Data) ||
		(!bl.Attached && e.byID[bl.ID.Value()] != "") {
		return false
	}
	e.out = append(e.out, `{"text":"","thoughtSignature":`...)
	e.out = jsonw.String(e.out, bl.Data)
	e.out = append(e.out, '}')
	return true
}

// call writes a functionCall part: its own signature, else one relayed
// by id, else (first call only, when allowed) the sentinel.
func (e *encoder) call(i int, bl *replay.ToolCall, sig string, hasSig bool, corrupt string) (bool, error) {
	if bl.Unfinished {
		return false, nil
	}
	if !hasSig && bl.ID != "" && e.byID[bl.ID] != "" {
		sig, hasSig = e.byID[bl.ID], true
	}
	if e.firstCall && !hasSig && e.sentinel {
		sig, hasSig = Sentinel, true
		e.uses = append(e.uses, SentinelUse{Part: e.part, Name: bl.Name, ID: bl.ID, Replaced: corrupt})
	}
	e.firstCall = false
	var err error
	e.out, err = appendCall(e.out, i, bl, sig, hasSig)
	return err == nil, err
}

// native writes a part kept verbatim, with its signature put back last.
func (e *encoder) native(bl *replay.Native, sig string, hasSig bool) bool {
	if bl.Unfinished || !jsonw.ValidBytes(bl.Raw) || !gjson.ParseBytes(bl.Raw).IsObject() {
		return false
	}
	e.out = append(e.out, bl.Raw...)
	if hasSig {
		// Reopen the object to add the signature last.
		j := len(e.out) - 1
		for e.out[j] != '}' {
			j--
		}
		e.out = appendSig(e.out[:j], sig, true)
		e.out = append(e.out, '}')
	}
	return true
}

func appendSig(out []byte, sig string, ok bool) []byte {
	if !ok {
		return out
	}
	out = jsonw.Key(out, "thoughtSignature")
	return jsonw.String(out, sig)
}

// appendCall writes a functionCall part: name, args ({} when the call has
// none), id, the call's own
// unknown members, then the signature and the part's unknown members.
func appendCall(out []byte, i int, c *replay.ToolCall, sig string, hasSig bool) ([]byte, error) {
	out = append(out, `{"functionCall":{"name":`...)
	out = jsonw.String(out, c.Name)
	if c.Arguments != "" {
		a := gjson.Parse(c.Arguments)
		if !jsonw.Valid(c.Arguments) || !(a.IsObject() || a.Type == gjson.Null) {
			return nil, codecs.Malformed(API, -1, "/blocks/"+strconv.Itoa(i)+"/arguments", "the arguments of call %q must be a JSON object", c.Name)
		}
		out = append(out, `,"args":`...)
		out = append(out, c.Arguments...)
	} else {
		// A call always goes back with its args (a request's call without
		// them reads as cut short).
		out = append(out, `,"args":{}`...)
	}
	if c.ID != "" {
		out = append(out, `,"id":`...)
		out = jsonw.String(out, c.ID)
	}
	var outer []byte
	if len(c.Extra) > 0 && jsonw.ValidBytes(c.Extra) {
		ex := gjson.ParseBytes(c.Extra)
		if inner := ex.Get("functionCall"); inner.IsObject() {
			out = jsonw.Members(out, []byte(inner.Raw))
			outer, _ = sjson.DeleteBytes(append([]byte(nil), c.Extra...), "functionCall")
		} else {
			outer = c.Extra
		}
	}
	out = append(out, '}')
	out = appendSig(out, sig, hasSig)
	out = jsonw.Members(out, outer)
	return append(out, '}'), nil
}

// Patch puts the turn's signatures onto a model message the caller built,
// `{"role":"model","parts":[...]}`, and changes nothing else in it:
// function calls are matched by id when the message's call has one, else
// by name and ordinal; visible text parts, thought parts and other parts by
// their position among parts of their kind. A bound signature of an empty
// final text part that has no counterpart is appended as
// `{"text":"","thoughtSignature":...}`.
func (c Codec) Patch(msg []byte, t *replay.Turn) ([]byte, error) {
	out, _, err := c.PatchReport(msg, t)
	return out, err
}

// appendSigValue writes sig as sjson writes a string value.
func appendSigValue(dst []byte, sig string) []byte {
	if !jsonw.PlainASCII(sig) {
		b, _ := json.Marshal(sig)
		return append(dst, b...)
	}
	dst = append(dst, '"')
	dst = append(dst, sig...)
	return append(dst, '"')
}

// sigRoom is the room writing sig as a part's signature, or as a trailing
// part of its own, takes when sig needs no escape (a signature is base64:
// one that does needs more, and the buffer grows).
func sigRoom(sig string) int {
	return len(sig) + len(`,{"text":"","thoughtSignature":""}`)
}

// slot kinds: what a signature of the turn is anchored to.
const (
	slotCall = iota + 1
	slotText
	slotThought
	slotNative
)

// slot is one block of the turn that a part of the message can take a
// signature from.
type slot struct {
	kind  uint8
	used  bool
	empty bool // a text block with no text
	seen  int  // on the first slot of a call name or native kind: the parts of it met so far
	sig   string
	name  string // a call's name, a native's kind
	id    string // a call's id
}

// turnSlots lists the turn's blocks that anchor a signature, in order.
func turnSlots(t *replay.Turn, dst []slot) []slot {
	for i, bl := range t.Blocks {
		sig := ""
		if e, ok := gemsig.Bound(t.Blocks, i); ok && e.Replayable() && !gemsig.EncodedDummy(e.Data) {
			sig = e.Data
		}
		switch bl := bl.(type) {
		case *replay.ToolCall:
			dst = append(dst, slot{kind: slotCall, sig: sig, name: bl.Name, id: bl.ID})
		case *replay.Text:
			dst = append(dst, slot{kind: slotText, sig: sig, empty: bl.Text == ""})
		case *replay.ReasoningText:
			if bl.Format == formats.GoogleGemini && bl.Replayable() && !gemsig.EncodedDummy(bl.Signature.Value()) {
				dst = append(dst, slot{kind: slotThought, sig: bl.Signature.Value()})
			}
		case *replay.Native:
			dst = append(dst, slot{kind: slotNative, sig: sig, name: bl.Kind})
		}
	}
	return dst
}

// slots are the turn's blocks that anchor a signature. They stay out of
// the patcher, whose writes would otherwise take them to the heap.
type slots []slot

// patcher writes the patched message: msg up to last is in out.
type patcher struct {
	sentinel  bool
	firstCall bool
	msg       string
	out       []byte
	last      int
	uses      []SentinelUse
	textAt    int // where the search for the next text slot starts
	thoughtAt int // and for the next thought slot
}

// nextOf returns the next slot of kind (nil when none is left), as the
// parts of that kind come one after another.
func (sl slots) nextOf(kind uint8, from *int) *slot {
	for *from < len(sl) {
		s := &sl[*from]
		*from++
		if s.kind == kind {
			return s
		}
	}
	return nil
}

// named returns the slot of the k-th part of kind named name: the first
// slot of that name counts the parts met (nil when the turn has none of
// that name, or fewer).
func (sl slots) named(kind uint8, name string) *slot {
	var head *slot
	k := 0
	for i := range sl {
		s := &sl[i]
		if s.kind != kind || s.name != name {
			continue
		}
		if head == nil {
			head = s
			k = s.seen
			s.seen++
		}
		if k == 0 {
			return s
		}
		k--
	}
	return nil
}

// byID returns the last call slot with the id (nil when none).
func (sl slots) byID(id string) *slot {
	for i := len(sl) - 1; i >= 0; i-- {
		if s := &sl[i]; s.kind == slotCall && s.id == id {
			return s
		}
	}
	return nil
}

// take reports the slot's signature, once.
func take(s *slot) (string, bool) {
	if s == nil || s.sig == "" || s.used {
		return "", false
	}
	s.used = true
	return s.sig, true
}

// set writes sig as the signature of the part msg[at:end] (f is its
// scan when it is an object).
func (p *patcher) set(at, end int, sig string, f *partScan) error {
	switch {
	case p.msg[at] == '[':
		return errArrayPart
	case p.msg[at] != '{':
		p.out = append(p.out, p.msg[p.last:at]...)
		p.out = append(p.out, `{"thoughtSignature":`...)
		p.out = append(appendSigValue(p.out, sig), '}')
		p.last = end
	case f.sigAt >= 0:
		p.out = append(p.out, p.msg[p.last:f.sigAt]...)
		p.out = appendSigValue(p.out, sig)
		p.last = f.sigEnd
	default:
		p.out = append(p.out, p.msg[p.last:end-1]...)
		if f.members > 0 {
			p.out = append(p.out, ',')
		}
		p.out = append(p.out, `"thoughtSignature":`...)
		p.out = appendSigValue(p.out, sig)
		p.last = end - 1
	}
	return nil
}

// errArrayPart is sjson's refusal to set a member of an array.
var errArrayPart = errString("cannot set array element for non-numeric key 'thoughtSignature'")

type errString string

func (e errString) Error() string { return string(e) }

// part patches part i, msg[at:end] (f is its scan when it is an object).
func (p *patcher) part(sl slots, i, at, end int, f *partScan, scratch *[3][]byte) error {
	s := p.msg
	kind := ""
	switch s[at] {
	case '{':
		switch {
		case f.callAt >= 0 && s[f.callAt] == '{':
			return p.call(sl, i, at, end, f, scratch)
		case f.textAt >= 0 && f.thought(s):
			if sig, ok := take(sl.nextOf(slotThought, &p.thoughtAt)); ok {
				return p.set(at, end, sig, f)
			}
			return nil
		case f.textAt >= 0:
			if sig, ok := take(sl.nextOf(slotText, &p.textAt)); ok {
				return p.set(at, end, sig, f)
			}
			return nil
		}
		kind = "part"
		if f.kindAt >= 0 {
			kind = gstring(s[f.kindAt:f.kindEnd], &scratch[2])
		}
	case '[':
		if e, _ := jsonw.StepElem(s, at+1); e < 0 {
			kind = "part" // an empty array
		}
	}
	if sig, ok := take(sl.named(slotNative, kind)); ok {
		return p.set(at, end, sig, f)
	}
	return nil
}

// call patches the functionCall part i: its signature by id, else by name
// and ordinal, else (first call only, when allowed) the sentinel.
func (p *patcher) call(sl slots, i, at, end int, f *partScan, scratch *[3][]byte) error {
	s := p.msg
	name, id := "", ""
	if f.nameAt >= 0 {
		name = gstring(s[f.nameAt:f.nameEnd], &scratch[0])
	}
	if f.idAt >= 0 {
		id = gstring(s[f.idAt:f.idEnd], &scratch[1])
	}
	byName := sl.named(slotCall, name)
	var sp *slot
	if id != "" {
		sp = sl.byID(id)
	}
	if sp == nil {
		sp = byName
	}
	first := p.firstCall
	p.firstCall = false
	if sig, ok := take(sp); ok {
		return p.set(at, end, sig, f)
	}
	if first && p.sentinel && (f.sigAt < 0 || s[f.sigAt] != '"' || f.sigEnd-f.sigAt == 2) {
		p.uses = append(p.uses, SentinelUse{Part: i, Name: strings.Clone(name), ID: strings.Clone(id)})
		return p.set(at, end, Sentinel, f)
	}
	return nil
}

// PatchReport is Patch that also reports where [Sentinel] was written
// (only when [Codec.Sentinel] allows it, on the message's first function
// call when it is still unsigned).
func (c Codec) PatchReport(msg []byte, t *replay.Turn) ([]byte, []SentinelUse, error) {
	if t == nil {
		return nil, nil, codecs.Malformed(API, -1, "", "no turn to patch from")
	}
	if !jsonw.ValidBytes(msg) {
		return nil, nil, codecs.Malformed(API, -1, "", "expected a model message object")
	}
	s := view.String(msg)
	pAt := jsonw.MemberValueAt(s, "parts")
	if pAt < 0 || s[pAt] != '[' {
		return nil, nil, codecs.Malformed(API, -1, "/parts", "expected a parts array")
	}
	var buf [16]slot
	sl := slots(turnSlots(t, buf[:0]))
	p := patcher{sentinel: c.Sentinel, firstCall: true, msg: s}
	room := len(msg)
	if c.Sentinel {
		room += sigRoom(Sentinel)
	}
	for i := range sl {
		if sl[i].sig != "" {
			room += sigRoom(sl[i].sig)
		}
	}
	p.out = make([]byte, 0, room)
	var scratch [3][]byte
	n := 0
	for pos := pAt + 1; ; n++ {
		at, close := jsonw.StepElem(s, pos)
		if at < 0 && close >= 0 {
			p.trailing(sl, close, n > 0)
			break
		}
		var f partScan
		end, ok := -1, at >= 0
		if ok && s[at] == '{' {
			f, ok = scanPart(s, at)
			end = f.end
		} else if ok {
			end = jsonw.StepValue(s, at)
		}
		if !ok || end < 0 { // not after jsonw.Valid
			return nil, nil, codecs.Malformed(API, -1, "/parts", "expected a parts array")
		}
		if err := p.part(sl, n, at, end, &f, &scratch); err != nil {
			return nil, nil, codecs.Malformed(API, -1, "/parts", "cannot set a signature: %v", err)
		}
		pos = end
	}
	p.out = append(p.out, s[p.last:]...)
	return p.out, p.uses, nil
}

// trailing appends, before the parts array's closing bracket at close,
// the signed empty text parts the caller did not build.
func (p *patcher) trailing(sl slots, close int, comma bool) {
	for i := range sl {
		s := &sl[i]
		if s.kind != slotText || s.sig == "" || s.used || !sl.emptyTextSigned(s.sig) {
			continue
		}
		s.used = true
		p.out = append(p.out, p.msg[p.last:close]...)
		p.last = close
		if comma {
			p.out = append(p.out, ',')
		}
		comma = true
		p.out = append(p.out, `{"text":"","thoughtSignature":`...)
		p.out = append(jsonw.String(p.out, s.sig), '}')
	}
}

// emptyTextSigned reports whether an empty text block of the turn carries
// sig.
func (sl slots) emptyTextSigned(sig string) bool {
	for i := range sl {
		if s := &sl[i]; s.kind == slotText && s.empty && s.sig == sig {
			return true
		}
	}
	return false
}
