package gemini

import (
	"strconv"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/gemsig"
	"github.com/reasonreplay/replay/internal/jsonw"
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

// sigSlot is one signature of the turn, waiting for its part.
type sigSlot struct {
	sig  string
	used bool
}

// anchors are the turn's signatures by what they are anchored to.
type anchors struct {
	callByID   map[string]*sigSlot
	callByName map[string][]*sigSlot
	texts      []*sigSlot
	thoughts   []*sigSlot
	natives    map[string][]*sigSlot
	trailing   []string // signatures of empty text parts
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
	parts := gjson.GetBytes(msg, "parts")
	if !parts.IsArray() {
		return nil, nil, codecs.Malformed(API, -1, "/parts", "expected a parts array")
	}
	p := patcher{a: turnAnchors(t), sentinel: c.Sentinel, out: append([]byte(nil), msg...),
		nameSeen: map[string]int{}, nNative: map[string]int{}, firstCall: true}
	i := 0
	parts.ForEach(func(_, part gjson.Result) bool {
		p.part(i, part)
		i++
		return p.err == nil
	})
	if p.err == nil {
		p.trailing()
	}
	if p.err != nil {
		return nil, nil, codecs.Malformed(API, -1, "/parts", "cannot set a signature: %v", p.err)
	}
	return p.out, p.uses, nil
}

// turnAnchors collects the turn's signatures by anchor.
func turnAnchors(t *replay.Turn) *anchors {
	a := &anchors{callByID: map[string]*sigSlot{}, callByName: map[string][]*sigSlot{}, natives: map[string][]*sigSlot{}}
	for i, bl := range t.Blocks {
		s := &sigSlot{}
		if e, ok := gemsig.Bound(t.Blocks, i); ok && e.Replayable() && !gemsig.EncodedDummy(e.Data) {
			s.sig = e.Data
		}
		switch bl := bl.(type) {
		case *replay.ToolCall:
			if bl.ID != "" {
				a.callByID[bl.ID] = s
			}
			a.callByName[bl.Name] = append(a.callByName[bl.Name], s)
		case *replay.Text:
			a.texts = append(a.texts, s)
			if bl.Text == "" && s.sig != "" {
				a.trailing = append(a.trailing, s.sig)
			}
		case *replay.ReasoningText:
			if bl.Format == formats.GoogleGemini && bl.Replayable() && !gemsig.EncodedDummy(bl.Signature.Value()) {
				s.sig = bl.Signature.Value()
				a.thoughts = append(a.thoughts, s)
			}
		case *replay.Native:
			a.natives[bl.Kind] = append(a.natives[bl.Kind], s)
		}
	}
	return a
}

// patcher walks the parts of the caller's message, setting signatures.
type patcher struct {
	a         *anchors
	sentinel  bool
	out       []byte
	uses      []SentinelUse
	nameSeen  map[string]int
	nNative   map[string]int
	nText     int
	nThought  int
	firstCall bool
	err       error
}

// set writes sig as the signature of part i.
func (p *patcher) set(i int, sig string) {
	if p.err == nil {
		p.out, p.err = sjson.SetBytes(p.out, "parts."+strconv.Itoa(i)+".thoughtSignature", sig)
	}
}

// fill writes the slot's signature on part i, once.
func (p *patcher) fill(i int, slot *sigSlot) bool {
	if slot == nil || slot.sig == "" || slot.used {
		return false
	}
	slot.used = true
	p.set(i, slot.sig)
	return true
}

// part patches part i of the message.
func (p *patcher) part(i int, part gjson.Result) {
	switch fc := part.Get("functionCall"); {
	case fc.IsObject():
		p.call(i, part, fc)
	case part.Get("text").Exists() && part.Get("thought").Bool():
		p.fill(i, nth(p.a.thoughts, &p.nThought))
	case part.Get("text").Exists():
		p.fill(i, nth(p.a.texts, &p.nText))
	default:
		kind := partKind(part)
		k := p.nNative[kind]
		p.nNative[kind]++
		p.fill(i, nth(p.a.natives[kind], &k))
	}
}

// call patches the functionCall part i: its signature by id, else by name
// and ordinal, else (first call only, when allowed) the sentinel.
func (p *patcher) call(i int, part, fc gjson.Result) {
	name := fc.Get("name").String()
	k := p.nameSeen[name]
	p.nameSeen[name]++
	var slot *sigSlot
	if id := fc.Get("id").String(); id != "" && p.a.callByID[id] != nil {
		slot = p.a.callByID[id]
	} else if l := p.a.callByName[name]; k < len(l) {
		slot = l[k]
	}
	if !p.fill(i, slot) && p.firstCall && p.sentinel && part.Get("thoughtSignature").Str == "" {
		p.set(i, Sentinel)
		p.uses = append(p.uses, SentinelUse{Part: i, Name: name, ID: fc.Get("id").String()})
	}
	p.firstCall = false
}

// trailing appends the signed empty text parts the caller did not build.
func (p *patcher) trailing() {
	for _, s := range p.a.texts {
		if s.sig == "" || s.used {
			continue
		}
		for _, tr := range p.a.trailing {
			if tr == s.sig {
				s.used = true
				part := jsonw.String([]byte(`{"text":"","thoughtSignature":`), s.sig)
				part = append(part, '}')
				if p.out, p.err = sjson.SetRawBytes(p.out, "parts.-1", part); p.err != nil {
					return
				}
				break
			}
		}
	}
}

// nth returns l[*n] (nil past the end) and advances *n.
func nth(l []*sigSlot, n *int) *sigSlot {
	k := *n
	*n++
	if k < len(l) {
		return l[k]
	}
	return nil
}

// partKind returns the first member of a part other than thought and
// thoughtSignature ("part" when there is none).
func partKind(part gjson.Result) string {
	kind := "part"
	part.ForEach(func(k, _ gjson.Result) bool {
		if k.Str != "thought" && k.Str != "thoughtSignature" {
			kind = k.Str
			return false
		}
		return true
	})
	return kind
}
